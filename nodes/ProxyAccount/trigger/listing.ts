import type { ProxyRecord } from '../transport';
import type { ProxyObservation } from './proxies';
import type { MapState } from './state';
import { hasOwn, STATE_VERSION, withGrace } from './state';

/*
 * How a proxy event compares the list with the map it stored (proxy name => value) at 10,000
 * proxies in a few milliseconds. Looking 10,000 names up by their text costs more than the rest of
 * the detection (each name of a reply is a new string, hashed at each lookup), and so does reading
 * 10,000 timestamps again. So this process remembers, for each map it built, its keys in order and
 * the record each value was made from. The list, in the same order as the last one, is walked
 * beside the map, name against key, and a record whose fields are those of the record its value
 * was made from is not read again: its value is the stored one. A name out of place is looked up;
 * a map this process did not build (after a restart) is read once, in its own order. A map is
 * never changed once built (each poll that changes it builds a new one), as `isTrusted` assumes.
 */

/** What a proxy event reads of each record, and the type of its stored values. */
export interface PerProxy {
	/** Whether two records give the same value (left out: the value is compared itself). */
	same?: (a: ProxyRecord, b: ProxyRecord) => boolean;
	is: (value: unknown) => boolean;
}

/** A map as this process knows it: its keys in the order `for...in` walks them, their values. */
interface Known {
	keys: string[];
	values: unknown[];
	/** The record each value was made from (none for a missing entry kept), and by which event. */
	sources?: Array<ProxyRecord | undefined>;
	by?: PerProxy;
}

const knownMaps = new WeakMap<object, Known>();

/**
 * What `leftOut` matched of a list, for the walk of the same map over the same list at the same
 * poll (the list a transport reply, kept until the poll ends): per listed record, the index of the
 * key it matched in order, or -1. The walk then compares no name `leftOut` has matched already.
 */
interface Alignment {
	keys: string[];
	at: Int32Array;
}

const alignments = new WeakMap<ProxyRecord[], Alignment>();

/** How many keys past the expected one a listed name is looked for before it is looked up by name. */
const LOOK_AHEAD = 3;

function knownOf(map: Record<string, unknown>): Known {
	const known = knownMaps.get(map);
	if (known !== undefined) return known;
	const read: Known = { keys: [], values: [] };
	for (const key in map) {
		if (!hasOwn(map, key)) continue;
		read.keys.push(key);
		read.values.push(map[key]);
	}
	knownMaps.set(map, read);
	return read;
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
	/** Whether its record gives the value `before` was made from (its value is `before`). */
	unchanged: boolean,
) => void;

/** Walks the list beside the stored map (see above), in the list's order. */
export function walk<T>(
	stored: Record<string, T> | undefined,
	list: ProxyRecord[],
	by: PerProxy,
	visit: Visit<T>,
): Walked<T> {
	const map = (stored ?? {}) as Record<string, unknown>;
	const { keys, values, sources, by: madeBy } = knownOf(map);
	const same = madeBy === by && sources !== undefined ? by.same : undefined;
	const count = keys.length;
	const listed = new Uint8Array(count);
	const added = new Set<string>();
	let index: Map<string, number> | undefined;
	const aligned = alignments.get(list);
	const at = aligned?.keys === keys ? aligned.at : undefined;
	let next = 0;
	for (let p = 0; p < list.length; p++) {
		const proxy = list[p];
		const name = proxy.proxy_name;
		let i =
			at !== undefined && p < at.length ? at[p] : next < count && keys[next] === name ? next : -1;
		for (let k = next + 1; i < 0 && k <= next + LOOK_AHEAD && k < count; k++)
			if (keys[k] === name) i = k;
		if (i < 0 && hasOwn(map, name)) {
			index ??= new Map(keys.map((key, position) => [key, position]));
			i = index.get(name) ?? -1;
		}
		if (i < 0 ? added.has(name) : listed[i] === 1) continue;
		const value = i < 0 ? map[name] : values[i];
		const before = by.is(value) ? (value as T) : undefined;
		if (i < 0) {
			added.add(name);
			visit(proxy, name, before, false);
			continue;
		}
		listed[i] = 1;
		if (i >= next) next = i + 1;
		const source = before === undefined ? undefined : sources?.[i];
		visit(
			proxy,
			keys[i],
			before,
			source !== undefined && same !== undefined && same(source, proxy),
		);
	}
	const missing: Array<[string, T]> = [];
	for (let i = 0; i < count; i++) if (listed[i] === 0) missing.push([keys[i], values[i] as T]);
	let gone: Set<string> | undefined;
	return {
		missing,
		stored: count,
		listed: (name) =>
			hasOwn(map, name)
				? !(gone ??= new Set(missing.map(([key]) => key))).has(name)
				: added.has(name),
	};
}

/**
 * The stored map's keys the list does not hold, in the map's order: what `walk` reports missing,
 * without a visit or a lookup by name for a list in the usual order. The keys are matched in order
 * against the names (a few keys ahead, as `walk` does). A key passed over is only a candidate: it is
 * left out unless one of the names that matched no key in order is its own (a proxy listed out of
 * its place). Those names are few (new proxies, a move), so the list is walked once. What it matched is
 * kept for the walk of the same map over the same list (`Alignment`).
 */
export function leftOut(stored: Record<string, unknown>, list: ProxyRecord[]): string[] {
	const { keys } = knownOf(stored);
	const count = keys.length;
	const candidates: string[] = [];
	const unmatched: string[] = [];
	const at = new Int32Array(list.length);
	let next = 0;
	for (let p = 0; p < list.length; p++) {
		const name = list[p].proxy_name;
		if (next < count && keys[next] === name) {
			at[p] = next;
			next += 1;
			continue;
		}
		let k = next + 1;
		while (k <= next + LOOK_AHEAD && k < count && keys[k] !== name) k++;
		if (k > next + LOOK_AHEAD || k >= count) {
			at[p] = -1;
			unmatched.push(name);
			continue;
		}
		for (let skipped = next; skipped < k; skipped++) candidates.push(keys[skipped]);
		at[p] = k;
		next = k + 1;
	}
	alignments.set(list, { keys, at });
	for (let rest = next; rest < count; rest++) candidates.push(keys[rest]);
	if (candidates.length === 0 || unmatched.length === 0) return candidates;
	const listedElsewhere = new Set(unmatched);
	return candidates.filter((key) => !listedElsewhere.has(key));
}

/** A key `for...in` does not walk in insertion order (an array index) or that is no own key. */
const unordered = (key: string) => key === '__proto__' || /^(0|[1-9]\d*)$/.test(key);

/** The next map, entry by entry: the listed entries, then the missing ones kept. */
export class NextMap<T> {
	readonly keys: string[] = [];

	readonly values: T[] = [];

	private readonly sources: Array<ProxyRecord | undefined> = [];

	constructor(private readonly by: PerProxy) {}

	/** An entry; `source` is the record its value was made from (none for a missing one kept). */
	add(key: string, value: T, source?: ProxyRecord): void {
		this.keys.push(key);
		this.values.push(value);
		this.sources.push(source);
	}

	/**
	 * The stored map, kept as it is (every listed entry kept its value): remembered with this poll's
	 * records when it has none (read after a restart), so that the next poll reads none again.
	 */
	keep<M extends object>(map: M): M {
		const known = knownMaps.get(map);
		const { keys, sources, by } = this;
		const inOrder =
			known?.keys.length === keys.length && known.keys.every((key, i) => key === keys[i]);
		if (known && by.same && known.sources === undefined && inOrder)
			knownMaps.set(map, { ...known, sources, by });
		return map;
	}

	/** The map, remembered with the record each value was made from (see above). */
	build(): Record<string, T> {
		const map: Record<string, T> = {};
		let ordered = true;
		for (let i = 0; i < this.keys.length; i++) {
			const key = this.keys[i];
			map[key] = this.values[i];
			if (key.length < 11 && unordered(key)) ordered = false;
		}
		const { keys, values, sources, by } = this;
		if (ordered) knownMaps.set(map, by.same ? { keys, values, sources, by } : { keys, values });
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
	by: PerProxy,
	make: (proxy: ProxyRecord) => T,
	same: (before: T | undefined, tuple: T) => boolean,
): Tuples<T> {
	const next = new NextMap<T>(by);
	const appeared: Array<[string, T, ProxyRecord]> = [];
	let kept = 0;
	const walked = walk(stored, proxies, by, (proxy, name, before, unchanged) => {
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

/** No proxy confirmed gone (an observation without confirmations). */
export const NONE_GONE: ReadonlySet<string> = new Set();

/** An event that keeps one value per proxy, in its state's field `field`. */
export interface PerProxyState<E extends string, K extends string> extends PerProxy {
	event: E;
	field: K;
}

/**
 * The next state of an event that keeps one value per proxy: `step` gives a listed proxy's value
 * from its stored one (undefined when not stored; `unchanged` when the record gives the value that
 * one was made from), undefined to store none. Listed entries first, then the stored ones missing
 * from this list that the service did not confirm gone (see `withGrace`). When every stored entry is
 * listed and keeps its value, the stored map itself is kept (nothing to build, compare or write).
 */
export function nextPerProxy<E extends string, K extends string, T>(
	previous: MapState<E, K, T> | null,
	observation: ProxyObservation,
	by: PerProxyState<E, K>,
	step: (proxy: ProxyRecord, before: T | undefined, unchanged: boolean) => T | undefined,
): MapState<E, K, T> {
	const next = new NextMap<T>(by);
	let kept = 0;
	const walked = walk(
		previous?.[by.field],
		observation.proxies,
		by,
		(proxy, name, before, same) => {
			const value = step(proxy, before, same);
			if (value === undefined) return;
			next.add(name, value, proxy);
			if (before !== undefined && value === before) kept += 1;
		},
	);
	return nextMap(previous, by, walked, next, kept, observation);
}

/**
 * The next state from a walk (see `nextPerProxy`): `next` holds the listed entries, of which `same`
 * kept their stored value. A missing entry is kept until the service confirms it gone (`gone`).
 */
export function nextMap<E extends string, K extends string, T>(
	previous: MapState<E, K, T> | null,
	{ event, field }: PerProxyState<E, K>,
	{ missing, stored: count }: Walked<T>,
	next: NextMap<T>,
	same: number,
	{ now, gone }: Pick<ProxyObservation, 'now' | 'gone'>,
): MapState<E, K, T> {
	const stored = previous?.[field];
	if (stored && !missing.length && same === next.keys.length && same === count)
		return { v: STATE_VERSION, event, [field]: next.keep(stored) } as MapState<E, K, T>;
	const keep = (key: string, value: T) => next.add(key, value);
	return withGrace(
		{ missing, marks: previous?.gone, now, keep, removed: gone ?? NONE_GONE },
		() => ({ v: STATE_VERSION, event, [field]: next.build() }) as MapState<E, K, T>,
	);
}
