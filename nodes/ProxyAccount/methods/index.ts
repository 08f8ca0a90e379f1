export * as loadOptions from './loadOptions';
export * as listSearch from './listSearch';
export { proxyAccountApiTest } from './credentialTest';
