export * as loadOptions from './loadOptions';
export * as listSearch from './listSearch';
