import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger remembers between polls, in the workflow's static data. Only what the chosen
 * event needs, keyed by what the service returns, so it grows with the account (cities,
 * proxies), never with the number of polls. Every layout carries `v`: a state written by another
 * version, or for another event, is not trusted and the next poll records a new baseline.
 *
 * Version 2 added the missing marks (`gone`). A version 1 state is read as a version 2 state with
 * no entry missing, so upgrading the package neither starts a new baseline nor emits anything.
 */
export const STATE_VERSION = 2;

/** The older layout that is still read: the same maps, without missing marks. */
const READABLE_VERSIONS: readonly unknown[] = [1, STATE_VERSION];

/**
 * The grace period of an entry (a city or a proxy) that is stored but missing from the service's
 * latest list. A live service sometimes returns a partial list, so a missing entry is kept, as it
 * was, and marked missing. It is forgotten only once it has been missing from GRACE_POLLS polls
 * in a row or more AND the first of them was GRACE_MS or more ago (by the service's clock).
 */
export const GRACE_POLLS = 3;
export const GRACE_MS = 3_600_000;

export const TRIGGER_EVENTS = [
	'stockChanged',
	'proxyExpiring',
	'proxyStatusChanged',
	'newProxy',
	'proxyRemoved',
	'lowFunds',
	'ipChanged',
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/**
 * One missing entry: how many polls in a row it has been missing from, and the service's time
 * (epoch milliseconds) of the first of them.
 */
export type MissingMark = [polls: number, sinceMs: number];

/** The missing marks of a state, by entry key. Only entries that are missing have one. */
export type MissingMarks = Record<string, MissingMark>;

/** One city: its status and the carriers with a count above zero (a missing carrier counts 0). */
export interface CityState {
	s: string;
	c: Record<string, number>;
}

export interface StockState {
	v: typeof STATE_VERSION;
	event: 'stockChanged';
	/** By city key (`city|state`), the cities listed and the cities kept while missing. */
	stock: Record<string, CityState>;
	/** Marks of the cities in `stock` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

export interface ExpiringState {
	v: typeof STATE_VERSION;
	event: 'proxyExpiring';
	/** Proxy name => the `expires_at` it was last reported (or, at the baseline, seen) within the window for. */
	reported: Record<string, string>;
	/** Marks of the proxies in `reported` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

export interface StatusState {
	v: typeof STATE_VERSION;
	event: 'proxyStatusChanged';
	/** Proxy name => its last `network_status`. */
	status: Record<string, string>;
	/** Marks of the proxies in `status` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

/**
 * A proxy's paid time as New Proxy keeps it, to recognize a move (see moves.ts): its `expires_at`,
 * `added_at`, `period` and `auto_renew` (null when the service did not give one).
 */
export type PaidTuple = [
	expiresAt: string | null,
	addedAt: string | null,
	period: string | null,
	autoRenew: boolean | null,
];

export interface NewProxyState {
	v: typeof STATE_VERSION;
	event: 'newProxy';
	/** Names of the proxies listed at the last poll, then the names kept while missing. */
	names: string[];
	/**
	 * Name => paid time, for the names in `names` that may still be found moved. A name found moved
	 * keeps its place in `names` (its return is not new) but leaves this map (it moved once). Left
	 * out by a state written before moves were recognized: its missing names are never found moved.
	 */
	paid?: Record<string, PaidTuple>;
	/** Marks of the names in `names` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

/** The last known fields of a proxy, as Proxy Removed reports them (never its password). */
export type KnownProxy = Record<string, string | number | boolean | null>;

export interface RemovedState {
	v: typeof STATE_VERSION;
	event: 'proxyRemoved';
	/** Proxy name => its simplified record as last listed (no password), kept while missing. */
	known: Record<string, KnownProxy>;
	/** Marks of the proxies in `known` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

export interface LowFundsState {
	v: typeof STATE_VERSION;
	event: 'lowFunds';
	/** Whether the balance was below the limits at the last poll (an event was sent on the way down). */
	below: boolean;
	/** Never set: the funds have no entries to keep while missing. */
	gone?: MissingMarks;
}

export interface IpState {
	v: typeof STATE_VERSION;
	event: 'ipChanged';
	/** Proxy name => its last `last_ip_change`. */
	ips: Record<string, string>;
	/** Marks of the proxies in `ips` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

export type TriggerState =
	| IpState
	| StockState
	| ExpiringState
	| StatusState
	| NewProxyState
	| RemovedState
	| LowFundsState;

/** The keys this node writes into its static data. */
const STATE_KEYS = [
	'v',
	'event',
	'stock',
	'reported',
	'status',
	'names',
	'paid',
	'gone',
	'known',
	'below',
	'ips',
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOwn(map: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(map, key);
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

/** The stored known proxies (the map itself, as for `stringMap`): flat records of plain values. */
function knownMap(value: unknown): Record<string, KnownProxy> | undefined {
	if (!isRecord(value)) return undefined;
	for (const key in value) {
		const item = value[key];
		if (!isRecord(item)) return undefined;
		for (const field in item) {
			const v = item[field];
			if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
				return undefined;
		}
	}
	return value as Record<string, KnownProxy>;
}

function isPaidTuple(value: unknown): value is PaidTuple {
	if (!Array.isArray(value) || value.length !== 4) return false;
	const [expiresAt, addedAt, period, autoRenew] = value as unknown[];
	const text = (v: unknown) => v === null || typeof v === 'string';
	return (
		text(expiresAt) &&
		text(addedAt) &&
		text(period) &&
		(autoRenew === null || typeof autoRenew === 'boolean')
	);
}

/**
 * The stored paid times of New Proxy (the map itself, as for `stringMap`): undefined when there
 * are none (a state written before moves were recognized), null when they are damaged.
 */
function paidMap(value: unknown): Record<string, PaidTuple> | undefined | null {
	if (value === undefined) return undefined;
	if (!isRecord(value)) return null;
	for (const key in value) if (!isPaidTuple(value[key])) return null;
	return value as Record<string, PaidTuple>;
}

/**
 * The stored missing marks (the map itself, as for `stringMap`): undefined when there are none,
 * null when they are damaged. A version 1 state has none.
 */
function missingMarks(staticData: IDataObject): MissingMarks | undefined | null {
	if (staticData.v !== STATE_VERSION || staticData.gone === undefined) return undefined;
	const value = staticData.gone;
	if (!isRecord(value)) return null;
	for (const key in value) {
		const mark = value[key];
		if (!Array.isArray(mark) || mark.length !== 2) return null;
		const [polls, since] = mark as unknown[];
		if (typeof polls !== 'number' || !Number.isInteger(polls) || polls < 1) return null;
		if (typeof since !== 'number' || !Number.isFinite(since)) return null;
	}
	return value as MissingMarks;
}

/**
 * The stored state for `event`, as plain data detached from the static data object, or null when
 * there is none that can be trusted (first poll, another event, another layout, damaged data).
 */
export function loadState(staticData: IDataObject, event: TriggerEvent): TriggerState | null {
	if (!READABLE_VERSIONS.includes(staticData.v) || staticData.event !== event) return null;
	const gone = missingMarks(staticData);
	if (gone === null) return null;
	const marks = gone === undefined ? {} : { gone };
	switch (event) {
		case 'stockChanged': {
			const stock = stockMap(staticData.stock);
			return stock ? { v: STATE_VERSION, event, stock, ...marks } : null;
		}
		case 'proxyExpiring': {
			const reported = stringMap(staticData.reported);
			return reported ? { v: STATE_VERSION, event, reported, ...marks } : null;
		}
		case 'proxyStatusChanged': {
			const status = stringMap(staticData.status);
			return status ? { v: STATE_VERSION, event, status, ...marks } : null;
		}
		case 'newProxy': {
			const names = staticData.names;
			if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) return null;
			const paid = paidMap(staticData.paid);
			if (paid === null) return null;
			const kept = paid === undefined ? {} : { paid };
			return { v: STATE_VERSION, event, names: names as string[], ...kept, ...marks };
		}
		case 'proxyRemoved': {
			const known = knownMap(staticData.known);
			return known ? { v: STATE_VERSION, event, known, ...marks } : null;
		}
		case 'ipChanged': {
			const ips = stringMap(staticData.ips);
			return ips ? { v: STATE_VERSION, event, ips, ...marks } : null;
		}
		case 'lowFunds':
			return typeof staticData.below === 'boolean'
				? { v: STATE_VERSION, event, below: staticData.below, ...marks }
				: null;
		default:
			return null;
	}
}

/**
 * The mark of a stored entry that is missing from this poll's list, given its previous mark (none
 * when it was listed at the previous poll), or undefined when the entry is now to be forgotten:
 * missing from GRACE_POLLS polls in a row or more, the first of them GRACE_MS or more before
 * `now` (the service's clock at this poll). A clock that went back restarts the hour.
 */
export function stillMissing(mark: MissingMark | undefined, now: number): MissingMark | undefined {
	const polls = mark === undefined ? 1 : mark[0] + 1;
	const since = mark === undefined || mark[1] > now ? now : mark[1];
	return polls >= GRACE_POLLS && now - since >= GRACE_MS ? undefined : [polls, since];
}

/**
 * Keeps the stored entries of `stored` that `listed` does not hold, while their grace period
 * lasts: each is added to `next` unchanged and its new mark is returned. Entries whose grace
 * period is over are left out (forgotten). Returns undefined when no entry is missing.
 */
export function keepMissing<T>(
	stored: Record<string, T>,
	listed: ReadonlySet<string>,
	marks: MissingMarks | undefined,
	now: number,
	next: Array<[string, T]>,
): MissingMarks | undefined {
	const gone: Array<[string, MissingMark]> = [];
	for (const key in stored) {
		if (listed.has(key) || !hasOwn(stored, key)) continue;
		const mark = stillMissing(
			marks !== undefined && hasOwn(marks, key) ? marks[key] : undefined,
			now,
		);
		if (mark === undefined) continue;
		next.push([key, stored[key]]);
		gone.push([key, mark]);
	}
	return gone.length > 0 ? Object.fromEntries(gone) : undefined;
}

/**
 * The same state with its missing marks restarted: every entry it keeps stays, and an entry
 * missing from the next list counts from that poll on, as if it had been listed until then.
 */
export function withoutMarks<S extends TriggerState>(state: S): S {
	if (state.gone === undefined) return state;
	const copy = { ...state };
	delete copy.gone;
	return copy;
}

/** Whether two JSON values are equal, key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const left = a as Record<string, unknown>;
	const right = b as Record<string, unknown>;
	const keys = Object.keys(left);
	if (keys.length !== Object.keys(right).length) return false;
	for (const key of keys) {
		if (!hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
	}
	return true;
}

/**
 * Replaces the stored state with `next`. Called only once a poll has succeeded. Leaves the static
 * data untouched (and n8n with nothing to save) when `next` equals the state the poll started from
 * (`previous`, as `loadState` read it) and the static data holds nothing else.
 */
export function commitState(
	staticData: IDataObject,
	next: TriggerState,
	previous: TriggerState | null,
): void {
	const onlyOwnKeys = Object.keys(staticData).every((key) =>
		(STATE_KEYS as readonly string[]).includes(key),
	);
	if (previous !== null && onlyOwnKeys && sameJson(previous, next)) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, next);
}
