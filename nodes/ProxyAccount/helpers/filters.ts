import type { IDataObject } from 'n8n-workflow';

import { carrierKey } from './carriers';
import type { ProxyRecord, StockEntry } from '../transport';

/** Filters on where a proxy or a stock entry is, as both nodes read them. */
export interface PlaceFilters {
	/** Lower-cased city names; empty = every city. */
	cities: string[];
	/** Lower-cased state codes; empty = every state. */
	states: string[];
	/** Carrier key (`att`, from `AT&T` or `att`); undefined = every carrier. */
	carrier?: string;
}

export interface ProxyFilters extends PlaceFilters {
	/** Lower-cased text the name or nickname must contain; empty = any. */
	nameContains: string;
}

/** A comma-separated list of names, trimmed and lower-cased; empty entries dropped. */
export function nameList(value: unknown): string[] {
	if (typeof value !== 'string' && typeof value !== 'number') return [];
	return String(value)
		.split(',')
		.map((part) => part.trim().toLowerCase())
		.filter((part) => part !== '');
}

function lowerText(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number'
		? String(value).trim().toLowerCase()
		: '';
}

export function readPlaceFilters(raw: IDataObject): PlaceFilters {
	const key = typeof raw.carrier === 'string' ? carrierKey(raw.carrier) : '';
	return {
		cities: nameList(raw.city),
		states: nameList(raw.state),
		carrier: key === '' ? undefined : key,
	};
}

export function readProxyFilters(raw: IDataObject): ProxyFilters {
	return { ...readPlaceFilters(raw), nameContains: lowerText(raw.nameContains) };
}

function inList(list: string[], value: unknown): boolean {
	return list.length === 0 || list.includes(String(value).trim().toLowerCase());
}

export function matchesProxyFilters(proxy: ProxyRecord, filters: ProxyFilters): boolean {
	if (!inList(filters.cities, proxy.city) || !inList(filters.states, proxy.state)) return false;
	if (filters.carrier !== undefined && carrierKey(String(proxy.isp)) !== filters.carrier)
		return false;
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
