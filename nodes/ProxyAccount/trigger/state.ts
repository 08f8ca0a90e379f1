import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger remembers between polls, in the workflow's static data. Only what the chosen
 * event needs, keyed by what the service returns, so it grows with the account (cities,
 * proxies), never with the number of polls. Every layout carries `v`: a state written by another
 * version, or for another event, is not trusted and the next poll records a new baseline.
 */
export const STATE_VERSION = 1;

export const TRIGGER_EVENTS = ['stockChanged', 'proxyExpiring', 'proxyStatusChanged', 'newProxy'] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/** One city: its status and the carriers with a count above zero (a missing carrier counts 0). */
export interface CityState {
	s: string;
	c: Record<string, number>;
}

export interface StockState {
	v: typeof STATE_VERSION;
	event: 'stockChanged';
	/** By city key (`city|state`). */
	stock: Record<string, CityState>;
}

export interface ExpiringState {
	v: typeof STATE_VERSION;
	event: 'proxyExpiring';
	/** Proxy name => the `expires_at` it was last reported (or, at the baseline, seen) within the window for. */
	reported: Record<string, string>;
}

export interface StatusState {
	v: typeof STATE_VERSION;
	event: 'proxyStatusChanged';
	/** Proxy name => its last `network_status`. */
	status: Record<string, string>;
}

export interface NewProxyState {
	v: typeof STATE_VERSION;
	event: 'newProxy';
	/** Names of the proxies seen at the last poll. */
	names: string[];
}

export type TriggerState = StockState | ExpiringState | StatusState | NewProxyState;

/** The keys this node writes into its static data. */
const STATE_KEYS = ['v', 'event', 'stock', 'reported', 'status', 'names'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The stored map itself once every value is a string: detection only reads the previous state and
 * builds a new one, so there is nothing to detach (and copying 10,000 entries each poll costs).
 */
function stringMap(value: unknown): Record<string, string> | undefined {
	if (!isRecord(value)) return undefined;
	for (const key in value) if (typeof value[key] !== 'string') return undefined;
	return value as Record<string, string>;
}

function stockMap(value: unknown): Record<string, CityState> | undefined {
	if (!isRecord(value)) return undefined;
	const out: Array<[string, CityState]> = [];
	for (const [key, item] of Object.entries(value)) {
		if (!isRecord(item) || typeof item.s !== 'string' || !isRecord(item.c)) return undefined;
		const counts: Array<[string, number]> = [];
		for (const [carrier, count] of Object.entries(item.c)) {
			if (typeof count !== 'number' || !Number.isFinite(count)) return undefined;
			counts.push([carrier, count]);
		}
		out.push([key, { s: item.s, c: Object.fromEntries(counts) }]);
	}
	return Object.fromEntries(out);
}

/**
 * The stored state for `event`, as plain data detached from the static data object, or null when
 * there is none that can be trusted (first poll, another event, another layout, damaged data).
 */
export function loadState(staticData: IDataObject, event: TriggerEvent): TriggerState | null {
	if (staticData.v !== STATE_VERSION || staticData.event !== event) return null;
	switch (event) {
		case 'stockChanged': {
			const stock = stockMap(staticData.stock);
			return stock ? { v: STATE_VERSION, event, stock } : null;
		}
		case 'proxyExpiring': {
			const reported = stringMap(staticData.reported);
			return reported ? { v: STATE_VERSION, event, reported } : null;
		}
		case 'proxyStatusChanged': {
			const status = stringMap(staticData.status);
			return status ? { v: STATE_VERSION, event, status } : null;
		}
		case 'newProxy': {
			const names = staticData.names;
			if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) return null;
			return { v: STATE_VERSION, event, names: names as string[] };
		}
		default:
			return null;
	}
}

/** Whether two JSON values are equal, key order aside. */
function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const left = a as Record<string, unknown>;
	const right = b as Record<string, unknown>;
	const keys = Object.keys(left);
	if (keys.length !== Object.keys(right).length) return false;
	for (const key of keys) {
		if (!Object.prototype.hasOwnProperty.call(right, key) || !sameJson(left[key], right[key])) return false;
	}
	return true;
}

/**
 * Replaces the stored state with `next`. Called only once a poll has succeeded. Leaves the static
 * data untouched (and n8n with nothing to save) when `next` equals the state the poll started from
 * (`previous`, as `loadState` read it) and the static data holds nothing else.
 */
export function commitState(staticData: IDataObject, next: TriggerState, previous: TriggerState | null): void {
	const onlyOwnKeys = Object.keys(staticData).every((key) => (STATE_KEYS as readonly string[]).includes(key));
	if (previous !== null && onlyOwnKeys && sameJson(previous, next)) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, next);
}
