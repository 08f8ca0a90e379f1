export * from './accountEndpoints';
export * from './endpoints';
export * from './errors';
export * from './connection';
export * from './request';
export * from './schemas';
export * from './rateLimit';
