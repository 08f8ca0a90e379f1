export * from './accountEndpoints';
export * from './endpoints';
export * from './errors';
export * from './request';
export * from './schemas';
export * from './rateLimit';
