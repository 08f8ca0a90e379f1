export * from './catalogue';
export * from './connection';
export * from './errors';
export * from './failures';
export * from './rateLimit';
export * from './request';
export * from './schemas';
