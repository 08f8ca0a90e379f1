import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS } from '../transport';
import { MAX_TIMEOUT_SECONDS } from './validation';

/* Field definitions the action node and the trigger share, so the same filter reads the same. */

export function carrierFilter(loadOptionsMethod: 'getCarriers' | 'getStockCarriers', what: string): INodeProperties {
	return {
		displayName: 'Carrier Name or ID',
		name: 'carrier',
		type: 'options',
		typeOptions: { loadOptionsMethod },
		default: '',
		description: `${what}. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
	};
}

export function cityFilter(what: string): INodeProperties {
	return {
		displayName: 'City',
		name: 'city',
		type: 'string',
		default: '',
		placeholder: 'e.g. Austin, Cleveland',
		description: `Only ${what} in these cities, separated by commas (not case-sensitive)`,
	};
}

export function stateFilter(what: string): INodeProperties {
	return {
		displayName: 'State',
		name: 'state',
		type: 'string',
		default: '',
		placeholder: 'e.g. TX',
		description: `Only ${what} in these two-letter state or region codes, separated by commas`,
	};
}

export const nameContainsFilter: INodeProperties = {
	displayName: 'Name Contains',
	name: 'nameContains',
	type: 'string',
	default: '',
	placeholder: 'e.g. AU1',
	description: 'Only proxies whose name or nickname contains this text (not case-sensitive)',
};

/** Seconds a read waits for one answer by default: the transport's own default. */
export const DEFAULT_READ_TIMEOUT_SECONDS = DEFAULT_TIMEOUT_MS / 1000;

export const readTimeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeoutSeconds',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS, numberPrecision: 0 },
	default: DEFAULT_READ_TIMEOUT_SECONDS,
	description:
		'The longest one request may take, its whole answer included (at most 600). A request that times out is tried again while the retry budget lasts: 30 s, or this timeout when it is longer.',
};

export const includePasswordOption: INodeProperties = {
	displayName: 'Include Password',
	name: 'includePassword',
	type: 'boolean',
	default: false,
	description:
		'Whether to include the proxy password in the output. Leave off unless a later step needs it: anyone who can see the execution can read it.',
};
