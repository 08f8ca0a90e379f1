import type { ProxyRecord } from '../transport';
import type { ProxyObservation } from './proxies';
import type { MapState } from './state';
import { hasOwn, STATE_VERSION, withGrace } from './state';

/*
 * How a proxy event compares the list with the map it stored (proxy name => value) at 10,000
 * proxies in a few milliseconds. Looking 10,000 names up by their text costs more than the rest of
 * the detection (each name in a reply is a new string, hashed and interned at each lookup), and so
 * does reading 10,000 timestamps again. So this process remembers, for each map it built, its keys
 * in order and the fields of the record each value was made from. A list in the same order as the
 * last one is then walked beside the map, name against key, and a record whose fields are those
 * its value was made from is not read again: its value is the stored one. A name out of place is
 * looked up; a map this process did not build (after a restart) is read once in its own order.
 * The maps are never changed once built (each poll builds a new one), as `isTrusted` assumes too.
 */

/** A map as this process knows it: its keys in the order `for...in` walks them, and their values. */
interface Known {
	keys: string[];
	values: unknown[];
	/** The fields the values were made from: `made[f][i]` is field `fields[f]` of key i's record. */
	fields?: readonly string[];
	made: unknown[][];
	/** 1 where `made` holds key i's record (a kept missing entry has none). */
	from: Uint8Array;
}

const knownMaps = new WeakMap<object, Known>();

/** A key `for...in` would not walk in insertion order (an array index) or that no map holds as its own. */
const unordered = (key: string) =>
	key === '__proto__' || (key.length > 0 && key.length < 11 && /^(0|[1-9]\d*)$/.test(key));

function knownOf(map: Record<string, unknown>): Known {
	const known = knownMaps.get(map);
	if (known !== undefined) return known;
	const keys: string[] = [];
	const values: unknown[] = [];
	for (const key in map) {
		if (!hasOwn(map, key)) continue;
		keys.push(key);
		values.push(map[key]);
	}
	const read: Known = { keys, values, made: [], from: new Uint8Array(keys.length) };
	knownMaps.set(map, read);
	return read;
}

/** Records, for the next poll, the fields each value of `map` (built from `keys`) was made from. */
function remember(
	map: object,
	keys: string[],
	values: unknown[],
	sources: Array<ProxyRecord | undefined>,
	fields: readonly string[],
): void {
	for (const key of keys) {
		if (key.length < 11 && unordered(key)) {
			knownMaps.delete(map);
			return;
		}
	}
	const from = new Uint8Array(keys.length);
	for (let i = 0; i < keys.length; i++) from[i] = sources[i] === undefined ? 0 : 1;
	const made = fields.map((field) => {
		const column: unknown[] = new Array(keys.length);
		for (let i = 0; i < keys.length; i++)
			column[i] = (sources[i] as Record<string, unknown> | undefined)?.[field];
		return column;
	});
	knownMaps.set(map, { keys, values, fields, made, from });
}

/** What the walk tells of the stored map besides each listed proxy. */
export interface Walked<T> {
	/** The stored entries the list does not hold, in the map's order. */
	missing: Array<[string, T]>;
	/** How many entries the map holds. */
	stored: number;
	/** Whether a name is listed. */
	listed(name: string): boolean;
}

/** One listed proxy (each name once: the first wins, a repeated record says nothing new). */
export type Visit<T> = (
	proxy: ProxyRecord,
	/** Its name: the stored key when there is one (a string already interned). */
	name: string,
	/** Its stored value (undefined: not stored, or not of the stored type). */
	before: T | undefined,
	/** Whether its fields are those `before` was made from (its value is `before`). */
	unchanged: boolean,
) => void;

/**
 * Walks the list beside the stored map (see above), in the list's order. `fields` are the record's
 * fields the event makes its value from (none when it compares the value itself); `is` checks a
 * stored value's type.
 */
export function walk<T>(
	stored: Record<string, T> | undefined,
	list: ProxyRecord[],
	{ fields, is }: PerProxy,
	visit: Visit<T>,
): Walked<T> {
	const map = (stored ?? {}) as Record<string, unknown>;
	const known = knownOf(map);
	const { keys, values } = known;
	const count = keys.length;
	const matched = new Uint8Array(count);
	// Where each listed proxy is stored: -1 not stored, -2 a repeated name.
	const at = new Int32Array(list.length);
	const added = new Set<string>();
	let index: Map<string, number> | undefined;
	let next = 0;
	for (let p = 0; p < list.length; p++) {
		const name = list[p].proxy_name;
		let i = next < count && keys[next] === name ? next : -1;
		for (let k = next + 1; i < 0 && k < next + 4 && k < count; k++) if (keys[k] === name) i = k;
		if (i < 0 && hasOwn(map, name)) {
			index ??= new Map(keys.map((key, position) => [key, position]));
			i = index.get(name) ?? -1;
		}
		if (i < 0) {
			at[p] = added.has(name) ? -2 : -1;
			added.add(name);
		} else {
			at[p] = matched[i] === 1 ? -2 : i;
			matched[i] = 1;
			if (i >= next) next = i + 1;
		}
	}
	const unchanged = sameFields(list, at, fields, known);
	for (let p = 0; p < list.length; p++) {
		const i = at[p];
		if (i === -2) continue;
		const name = i < 0 ? list[p].proxy_name : keys[i];
		const value = i < 0 ? map[name] : values[i];
		const before = is(value) ? (value as T) : undefined;
		visit(list[p], name, before, unchanged[p] === 1 && before !== undefined);
	}
	const missing: Array<[string, T]> = [];
	for (let i = 0; i < count; i++) if (matched[i] === 0) missing.push([keys[i], values[i] as T]);
	let gone: Set<string> | undefined;
	const listed = (name: string) =>
		hasOwn(map, name)
			? !(gone ??= new Set(missing.map(([key]) => key))).has(name)
			: added.has(name);
	return { missing, stored: count, listed };
}

/** Whether each record is the one its stored value was made from (field by field: faster). */
function sameFields(
	list: ProxyRecord[],
	at: Int32Array,
	fields: readonly string[],
	{ fields: madeOf, made, from }: Known,
): Uint8Array {
	const same = new Uint8Array(list.length);
	if (madeOf !== fields || fields.length === 0) return same;
	for (let p = 0; p < list.length; p++) same[p] = at[p] >= 0 && from[at[p]] === 1 ? 1 : 0;
	for (let f = 0; f < fields.length; f++) {
		const field = fields[f];
		const column = made[f];
		for (let p = 0; p < list.length; p++)
			if (same[p] === 1 && column[at[p]] !== (list[p] as unknown as Record<string, unknown>)[field])
				same[p] = 0;
	}
	return same;
}

/** The next map, entry by entry: the listed entries, then the missing ones kept. */
export class NextMap<T> {
	readonly keys: string[] = [];

	readonly values: T[] = [];

	private readonly sources: Array<ProxyRecord | undefined> = [];

	constructor(private readonly fields: readonly string[]) {}

	/** An entry; `source` is the record its value was made from (none for a missing one kept). */
	add(key: string, value: T, source?: ProxyRecord): void {
		this.keys.push(key);
		this.values.push(value);
		this.sources.push(source);
	}

	/** The map (remembered with what its values were made from, see above). */
	build(): Record<string, T> {
		const map: Record<string, T> = {};
		for (let i = 0; i < this.keys.length; i++) map[this.keys[i]] = this.values[i];
		remember(map, this.keys, this.values, this.sources, this.fields);
		return map;
	}
}

/** One poll of an event that stores a tuple per proxy (see `walkTuples`). */
export interface Tuples<T> extends Walked<T> {
	/** The listed entries (the missing ones kept are added by the grace period). */
	next: NextMap<T>;
	/** The listed proxies not stored, with their tuples. */
	appeared: Array<[string, T, ProxyRecord]>;
	/** Whether every listed proxy keeps its stored tuple. */
	same: boolean;
}

/**
 * Walks the list for an event that stores a tuple per proxy: `make` makes a record's tuple, `same`
 * tells whether it is the stored one (then the stored one is kept, not the new copy).
 */
export function walkTuples<T>(
	stored: Record<string, T> | undefined,
	proxies: ProxyRecord[],
	perProxy: PerProxy,
	make: (proxy: ProxyRecord) => T,
	same: (before: T | undefined, tuple: T) => boolean,
): Tuples<T> {
	const next = new NextMap<T>(perProxy.fields);
	const appeared: Array<[string, T, ProxyRecord]> = [];
	let kept = 0;
	const walked = walk(stored, proxies, perProxy, (proxy, name, before, unchanged) => {
		const tuple = unchanged ? (before as T) : make(proxy);
		if (unchanged || same(before, tuple)) {
			next.add(name, before as T, proxy);
			kept += 1;
			return;
		}
		next.add(name, tuple, proxy);
		if (before === undefined) appeared.push([name, tuple, proxy]);
	});
	return { ...walked, next, appeared, same: kept === next.keys.length };
}

/** What a proxy event that keeps one value per proxy reads of each record, and its values' type. */
export interface PerProxy {
	fields: readonly string[];
	is: (value: unknown) => boolean;
}

/**
 * The next state of an event that keeps one value per proxy in its field `field`: `step` gives a
 * listed proxy's value from its stored one (undefined when not stored; `unchanged` when the record
 * is the one that value was made from), undefined to store none. Listed entries first, then the
 * stored ones missing from this list while their grace period lasts (see `withGrace`). When every
 * stored entry is listed and keeps its value, the stored map itself is kept (nothing to build,
 * compare or write at 10,000 proxies).
 */
export function nextPerProxy<E extends string, K extends string, T>(
	previous: MapState<E, K, T> | null,
	event: E,
	field: K,
	observation: ProxyObservation,
	perProxy: PerProxy,
	step: (proxy: ProxyRecord, before: T | undefined, unchanged: boolean) => T | undefined,
): MapState<E, K, T> {
	const stored = previous?.[field];
	const next = new NextMap<T>(perProxy.fields);
	let same = 0;
	const list = walk(stored, observation.proxies, perProxy, (proxy, name, before, unchanged) => {
		const value = step(proxy, before, unchanged);
		if (value === undefined) return;
		next.add(name, value, proxy);
		if (before !== undefined && value === before) same += 1;
	});
	const { missing } = list;
	if (stored && !missing.length && same === next.keys.length && same === list.stored)
		return { v: STATE_VERSION, event, [field]: stored } as MapState<E, K, T>;
	return withGrace(
		{
			missing,
			marks: previous?.gone,
			now: observation.now,
			keep: (key, value) => next.add(key, value),
		},
		() => ({ v: STATE_VERSION, event, [field]: next.build() }) as MapState<E, K, T>,
	);
}
