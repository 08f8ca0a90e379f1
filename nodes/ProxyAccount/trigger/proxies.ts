import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import {
	carrierFilter,
	cityFilter,
	includePasswordOption,
	nameContainsFilter,
	simplifyField,
	stateFilter,
} from '../helpers/framework/descriptions';
import type { ProxyFilters } from '../helpers/framework/filters';
import { matchesProxyFilters } from '../helpers/framework/filters';
import { proxyOutput } from '../helpers/framework/output';
import { inVersion } from '../helpers/framework/versions';
import type { CallOptions, ProxyRecord } from '../transport';
import { send } from '../transport';
import type { OutputOptions } from './params';
import type { Observed } from './registry';

export interface ProxyObservation extends Observed {
	/** The list, then the left-out proxies the service still has (read by name: confirm.ts). */
	proxies: ProxyRecord[];
	/** The left-out proxies the service confirmed gone at this poll (none when undefined). */
	gone?: ReadonlySet<string>;
}

/** The Filters of the proxy events (declared alike by each, so the registry shows it once). */
export const proxyFiltersProperty: INodeProperties = {
	displayName: 'Filters',
	name: 'proxyFilters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	options: [
		carrierFilter('getCarriers', 'Only proxies of these carriers'),
		cityFilter('proxies'),
		nameContainsFilter,
		stateFilter('proxies'),
	],
};

const simplifyOutput: INodeProperties = {
	...simplifyField,
	description: 'Whether to return a simplified version of the proxy record instead of the raw data',
};

/** The Options of the events that output a proxy record (`more`: options besides Include Password). */
const outputOptions = (more: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [includePasswordOption, ...more],
});

/**
 * Simplify and the Options of the events that output a proxy record: Simplify an option in
 * version 1, a parameter of its own (as in the action node) from version 2 on.
 */
export const outputProperties: INodeProperties[] = [
	...inVersion(1, [outputOptions([simplifyOutput])]),
	...inVersion(2, [simplifyOutput, outputOptions([])]),
];

/** The proxies with one record per name (the first wins: a repeated record says nothing new). */
export function uniqueProxies(proxies: ProxyRecord[]): ProxyRecord[] {
	const names = new Set<string>();
	return proxies.filter((proxy) => {
		if (names.has(proxy.proxy_name)) return false;
		names.add(proxy.proxy_name);
		return true;
	});
}

export function ownValue<T>(map: Record<string, T>, key: string): T | undefined {
	return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

export const isText = (value: unknown): boolean => typeof value === 'string';
export const isNumber = (value: unknown): boolean => typeof value === 'number';
export const isTuple = (value: unknown): boolean => Array.isArray(value) || value === 0;

export function record(proxy: ProxyRecord, output: OutputOptions, now: number): IDataObject {
	// Written out, not spread: a poll may output thousands of records.
	const { simplify, includePassword } = output;
	return proxyOutput(proxy, { simplify, includePassword, now });
}

export function compare(a: number, b: number): number {
	return a === b ? 0 : a < b ? -1 : 1;
}

/** A timestamp's epoch milliseconds, or `unreadable`. */
export function instant(timestamp: unknown, unreadable: number): number {
	const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
	return Number.isNaN(parsed) ? unreadable : parsed;
}

/** The proxies matching the filters, or, when none does, all of them (an example is still shown). */
export function sampleBase(observation: ProxyObservation, filters: ProxyFilters): ProxyRecord[] {
	const unique = uniqueProxies(observation.proxies);
	const matching = unique.filter((proxy) => matchesProxyFilters(proxy, filters));
	return matching.length > 0 ? matching : unique;
}

/** What every proxy event has alike: the list, the reads by name, the summary (`name`: the event's). */
export function proxyEvent(name: string) {
	return {
		confirmsLeftOut: true,
		async observe(ctx: IPollFunctions, requestOptions: CallOptions): Promise<ProxyObservation> {
			const { result: proxies, serverTime, dated } = await send(ctx, 'listProxies', requestOptions);
			return { proxies, now: serverTime, dated };
		},
		summary(observation: ProxyObservation, params: { filters: ProxyFilters }): IDataObject {
			const unique = uniqueProxies(observation.proxies);
			return {
				event: name,
				sample: true,
				message:
					'No proxy matches the filters and the chosen event right now. Items will look like the ones described in the node\u2019s documentation.',
				checked_at: new Date(observation.now).toISOString(),
				proxies: unique.length,
				matching_proxies: unique.filter((proxy) => matchesProxyFilters(proxy, params.filters))
					.length,
			};
		},
	};
}
