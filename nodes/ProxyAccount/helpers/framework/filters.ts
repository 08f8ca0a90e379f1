import type { IDataObject, INode } from 'n8n-workflow';

import { carrierKey } from './carriers';
import type { ProxyRecord, StockEntry } from '../../transport';
import { filterText, hoursOption, invalidParameter, shown } from './validation';

/** Filters on where a proxy or a stock entry is, as both nodes read them. */
export interface PlaceFilters {
	/** Lower-cased city names; empty = every city. */
	cities: string[];
	/** Lower-cased state codes; empty = every state. */
	states: string[];
	/** Carrier keys (`att`, from `AT&T` or `att`); empty = every carrier. */
	carriers: string[];
}

export interface ProxyFilters extends PlaceFilters {
	/** Lower-cased text the name or nickname must contain; empty = any. */
	nameContains: string;
}

/** A comma-separated list of names, trimmed and lower-cased; empty entries dropped. */
export function splitNames(value: unknown): string[] {
	if (typeof value !== 'string' && typeof value !== 'number') return [];
	return String(value)
		.split(',')
		.map((part) => part.trim().toLowerCase())
		.filter((part) => part !== '');
}

/**
 * The carrier filter as keys: a list of names (the dropdown), or one name or a comma-separated text
 * (an expression). Anything else is refused: read as no filter, it would act on every carrier.
 */
function carrierKeys(node: INode, itemIndex: number | undefined, value: unknown): string[] {
	if (value === undefined || value === null || value === '') return [];
	const names = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: [value];
	const keys: string[] = [];
	for (const name of names) {
		if (typeof name !== 'string') {
			const problem = `must be carrier names, but it holds ${shown(name)}`;
			const fix =
				'Pick carriers from the list, or give names such as T-Mobile, separated by commas.';
			throw invalidParameter(node, itemIndex, 'Carrier Names or IDs', problem, fix);
		}
		const key = carrierKey(name);
		if (key !== '' && !keys.includes(key)) keys.push(key);
	}
	return keys;
}

/** The City, State and Carrier filters of a Filters collection, checked (see `filterText`). */
export function readPlaceFilters(
	node: INode,
	itemIndex: number | undefined,
	raw: IDataObject,
): PlaceFilters {
	return {
		cities: splitNames(filterText(node, itemIndex, raw.city, 'City')),
		states: splitNames(filterText(node, itemIndex, raw.state, 'State')),
		carriers: carrierKeys(node, itemIndex, raw.carrier),
	};
}

/** Whether a carrier (key or display name) passes the carrier filter. */
export function carrierPasses(filters: PlaceFilters, carrier: string): boolean {
	return filters.carriers.length === 0 || filters.carriers.includes(carrierKey(carrier));
}

export function readProxyFilters(
	node: INode,
	itemIndex: number | undefined,
	raw: IDataObject,
): ProxyFilters {
	return {
		...readPlaceFilters(node, itemIndex, raw),
		nameContains: filterText(node, itemIndex, raw.nameContains, 'Name Contains').toLowerCase(),
	};
}

function inList(list: string[], value: unknown): boolean {
	return list.length === 0 || list.includes(String(value).trim().toLowerCase());
}

export function matchesProxyFilters(proxy: ProxyRecord, filters: ProxyFilters): boolean {
	if (!inList(filters.cities, proxy.city) || !inList(filters.states, proxy.state)) return false;
	if (!carrierPasses(filters, String(proxy.isp))) return false;
	if (filters.nameContains !== '') {
		const haystack = `${proxy.proxy_name} ${proxy.nickname ?? ''}`.toLowerCase();
		if (!haystack.includes(filters.nameContains)) return false;
	}
	return true;
}

/** City and state only: what a carrier filter means depends on the operation or the event. */
export function matchesStockPlace(entry: StockEntry, filters: PlaceFilters): boolean {
	return inList(filters.cities, entry.city) && inList(filters.states, entry.state);
}

/** Whether two names (a carrier, a city) are the same, spaces and case aside. */
export function sameName(a: unknown, b: unknown): boolean {
	if (typeof a !== 'string' || typeof b !== 'string') return false;
	return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** The Expiring Within (Hours) filter of a Filters collection: undefined when it is not added. */
export function readExpiringWithin(
	node: INode,
	itemIndex: number,
	filters: IDataObject,
): number | undefined {
	return hoursOption(node, itemIndex, filters, 'expiringWithinHours', 'Expiring Within (Hours)');
}
