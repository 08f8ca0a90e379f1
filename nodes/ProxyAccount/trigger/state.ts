import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import type { ClockState } from './clock';
import { isClockState } from './clock';
import { instantToStore } from './compact';

/**
 * What the trigger remembers between polls, in the workflow's static data. Only what the chosen
 * event needs, keyed by what the service returns, so it grows with the account (cities,
 * proxies), never with the number of polls. Every layout carries `v`: a state written by another
 * version, or for another event, is not trusted and the next poll records a new baseline.
 *
 * Version 2 added the missing marks (`gone`). Version 3 stores instants as epoch milliseconds and
 * compact records (see compact.ts), the service's clock (`clock`) and the settling of a new
 * baseline (`settle`). Older states are read and converted by each event's loader, so upgrading
 * the package neither starts a new baseline nor emits anything.
 */
export const STATE_VERSION = 3;

/** The older layouts that are still read. */
const READABLE_VERSIONS: readonly unknown[] = [1, 2, STATE_VERSION];

/**
 * The grace period of an entry (a city or a proxy) that is stored but missing from the service's
 * latest list. A live service sometimes returns a partial list, so a missing entry is kept, as it
 * was, and marked missing. It is forgotten only once it has been missing from GRACE_POLLS polls
 * in a row or more AND the first of them was GRACE_MS or more ago (by the service's clock).
 */
export const GRACE_POLLS = 3;
export const GRACE_MS = 3_600_000;

/**
 * One missing entry: how many polls in a row it has been missing from, and the service's time
 * (epoch milliseconds) of the first of them.
 */
export type MissingMark = [polls: number, sinceMs: number];

/** The missing marks of a state, by entry key. Only entries that are missing have one. */
export type MissingMarks = Record<string, MissingMark>;

/** What every stored state holds: the layout version, the event, and its missing marks. */
export interface StoredState {
	v: typeof STATE_VERSION;
	event: string;
	/** Marks of the entries the state keeps that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
	/** The service's clock against this machine's (see clock.ts); left out by older states. */
	clock?: ClockState;
	/**
	 * While a new baseline settles: [polls so far, service time of the first]. A first reply may be
	 * empty or partial, so entries that show up later are taken into the baseline without an event
	 * until GRACE_POLLS polls AND GRACE_MS have passed (see `settling`). Left out once settled.
	 */
	settle?: MissingMark;
}

/** What an event's detection returns: the events found, and the state to store once the poll succeeded. */
export interface Detection<S> {
	/** One output item's json per event, in the order of the payload. */
	events: IDataObject[];
	nextState: S;
}

/** The keys every state writes. */
const OWN_KEYS: readonly string[] = ['v', 'event', 'gone', 'clock', 'settle'];

/**
 * The stored maps this process wrote (or already checked): loading them again needs no check, as
 * nothing changes them in between. A restart loads new objects, which are checked.
 */
const trusted = new WeakSet<object>();

export function isTrusted(value: unknown): boolean {
	return typeof value === 'object' && value !== null && trusted.has(value);
}

/** Marks the objects of a state as checked (see `isTrusted`). */
export function trustState(state: object): void {
	for (const value of Object.values(state))
		if (typeof value === 'object' && value !== null) trusted.add(value as object);
}

export function hasOwn(map: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(map, key);
}

/**
 * The stored map itself once every value is a string: detection only reads the previous state and
 * builds a new one, so there is nothing to detach (and copying 10,000 entries each poll costs).
 */
export function stringMap(value: unknown): Record<string, string> | undefined {
	if (isTrusted(value)) return value as Record<string, string>;
	if (!isRecord(value)) return undefined;
	for (const key in value) if (typeof value[key] !== 'string') return undefined;
	return value as Record<string, string>;
}

/**
 * The stored missing marks (the map itself, as for `stringMap`): undefined when there are none,
 * null when they are damaged. A version 1 state has none.
 */
export function isMark(mark: unknown): mark is MissingMark {
	if (!Array.isArray(mark) || mark.length !== 2) return false;
	const [polls, since] = mark as unknown[];
	return (
		typeof polls === 'number' &&
		Number.isInteger(polls) &&
		polls >= 1 &&
		typeof since === 'number' &&
		Number.isFinite(since)
	);
}

/** Marks by key (the map itself): undefined when there are none, null when damaged. */
export function marksMap(value: unknown): MissingMarks | undefined | null {
	if (value === undefined) return undefined;
	if (!isRecord(value)) return null;
	for (const key in value) if (!isMark(value[key])) return null;
	return value as MissingMarks;
}

function missingMarks(staticData: IDataObject): MissingMarks | undefined | null {
	if (staticData.v === 1) return undefined;
	return marksMap(staticData.gone);
}

/** The clock and settling of a version 3 state: undefined when absent, null when damaged. */
function commonFields(staticData: IDataObject): Pick<StoredState, 'clock' | 'settle'> | null {
	if (staticData.v !== STATE_VERSION) return {};
	const { clock, settle } = staticData;
	if (clock !== undefined && !isClockState(clock)) return null;
	if (settle !== undefined && !isMark(settle)) return null;
	return {
		...(clock === undefined ? {} : { clock }),
		...(settle === undefined ? {} : { settle }),
	};
}

/** The fields of one event's stored state (all but `v`, `event` and `gone`), or null when damaged. */
export type StateFields<S extends StoredState> = Omit<
	S,
	'v' | 'event' | 'gone' | 'clock' | 'settle'
>;

/**
 * The stored state for `event`, as plain data detached from the static data object, or null when
 * there is none that can be trusted (first poll, another event, another layout, damaged data).
 * `fields` reads the event's own fields (its maps), null when they are damaged.
 */
export function loadStored<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	fields: (staticData: IDataObject) => StateFields<S> | null,
): S | null {
	if (!READABLE_VERSIONS.includes(staticData.v) || staticData.event !== event) return null;
	const gone = missingMarks(staticData);
	const common = commonFields(staticData);
	if (gone === null || common === null) return null;
	const own = fields(staticData);
	if (own === null) return null;
	const marks = gone === undefined ? {} : { gone };
	return { v: STATE_VERSION, event, ...own, ...marks, ...common } as S;
}

/**
 * Whether a new baseline is still settling (see `StoredState.settle`), and the service time of its
 * first poll: entries that were not stored are then taken into it without an event, unless the
 * event can tell they are new (e.g. a proxy added after that time).
 */
export function settling(previous: StoredState | null): { since: number } | undefined {
	return previous?.settle === undefined ? undefined : { since: previous.settle[1] };
}

/** The settling of the next state: started by a baseline, over after GRACE_POLLS polls and GRACE_MS. */
export function nextSettle(previous: StoredState | null, now: number): MissingMark | undefined {
	if (previous === null) return [1, now];
	return previous.settle === undefined ? undefined : stillMissing(previous.settle, now);
}

/**
 * The stored state of an event whose own field is one map (`field`), read by `read` (undefined when
 * damaged), or null.
 */
function loadMapState<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	field: string,
	read: (value: unknown) => object | undefined,
): S | null {
	return loadStored<S>(staticData, event, (data) => {
		const map = read(data[field]);
		return map ? ({ [field]: map } as StateFields<S>) : null;
	});
}

/** The stored state of an event whose own field is one map of strings (`field`), or null. */
export function loadStringMapState<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	field: string,
): S | null {
	return loadMapState<S>(staticData, event, field, stringMap);
}

/**
 * A stored map of instants (epoch milliseconds), the map itself; a map of timestamps written by an
 * older version is read into one (an unreadable timestamp dropped). Undefined when damaged.
 */
export function instantMap(value: unknown): Record<string, number> | undefined {
	if (isTrusted(value)) return value as Record<string, number>;
	if (!isRecord(value)) return undefined;
	let converted: Record<string, number> | undefined;
	for (const key in value) {
		const item = value[key];
		if (typeof item === 'number' && Number.isFinite(item)) continue;
		if (typeof item !== 'string') return undefined;
		converted ??= {};
	}
	if (converted === undefined) return value as Record<string, number>;
	for (const key in value) {
		const at = typeof value[key] === 'number' ? (value[key] as number) : instantToStore(value[key]);
		if (at !== null) converted[key] = at;
	}
	return converted;
}

/** The stored state of an event whose own field is one map of instants (`field`), or null. */
export function loadInstantMapState<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	field: string,
): S | null {
	return loadMapState<S>(staticData, event, field, instantMap);
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

/** What the grace machinery does with the stored entries missing from this poll. */
export interface Grace<T> {
	/** The stored entries missing from this poll's list, in the order they are kept. */
	missing: Iterable<[string, T]>;
	/** The marks of the previous state (undefined: none missing then). */
	marks: MissingMarks | undefined;
	/** The service's clock at this poll. */
	now: number;
	/** Takes an entry whose grace period lasts into the next state. */
	keep: (key: string, value: T) => void;
	/** An entry whose grace period is over (forgotten), with the start of its absence. */
	forget?: (key: string, value: T, missingSince: number) => void;
}

/**
 * The grace machinery, written once: keeps each missing entry while its grace period lasts (see
 * `stillMissing`), hands over those whose period is over, builds the next state (`build`, called
 * once every entry is kept) and attaches the marks of what is gone (left out when none is).
 */
export function withGrace<S extends StoredState, T>(grace: Grace<T>, build: () => S): S {
	const gone: Array<[string, MissingMark]> = [];
	const { marks, now } = grace;
	for (const [key, value] of grace.missing) {
		const before = marks !== undefined && hasOwn(marks, key) ? marks[key] : undefined;
		const mark = stillMissing(before, now);
		if (mark !== undefined) {
			grace.keep(key, value);
			gone.push([key, mark]);
		} else {
			grace.forget?.(key, value, before === undefined || before[1] > now ? now : before[1]);
		}
	}
	const nextState = build();
	if (gone.length > 0) nextState.gone = Object.fromEntries(gone);
	return nextState;
}

/**
 * The stored state of an event that keeps one map in its field `K` (proxy name or city key =>
 * value), with the marks of its entries missing from the latest list (left out when none).
 */
export type MapState<E extends string, K extends string, T = string> = StoredState & {
	event: E;
} & { [field in K]: Record<string, T> };

/** The entries of a map as a new object (faster than `Object.fromEntries` at 10,000 entries). */
export function toMap<T>(entries: Array<[string, T]>): Record<string, T> {
	const out: Record<string, T> = {};
	for (const [key, value] of entries) out[key] = value;
	return out;
}

/**
 * The next state of an event that keeps one map (its field `field`): listed entries first (`next`),
 * then the stored entries missing from this poll (`listed` are the keys listed) while their grace
 * period lasts. `same` counts the entries of `next` stored with the very same value: when every
 * stored entry is listed and kept as it was, the stored map itself is kept (nothing to compare or
 * write at 10,000 proxies).
 */
export function nextMapState<E extends string, K extends string, T>(
	previous: MapState<E, K, T> | null,
	event: E,
	field: K,
	listed: ReadonlySet<string>,
	now: number,
	next: Array<[string, T]>,
	same = -1,
): MapState<E, K, T> {
	const stored = previous ? previous[field] : undefined;
	let count = 0;
	const missing: Array<[string, T]> = [];
	for (const key in stored) {
		count += 1;
		if (!listed.has(key) && hasOwn(stored, key)) missing.push([key, stored[key]]);
	}
	if (stored !== undefined && missing.length === 0 && same === next.length && same === count)
		return { v: STATE_VERSION, event, [field]: stored } as MapState<E, K, T>;
	const grace: Grace<T> = {
		missing,
		marks: previous?.gone,
		now,
		keep: (key, value) => next.push([key, value]),
	};
	return withGrace(
		grace,
		() => ({ v: STATE_VERSION, event, [field]: toMap(next) }) as MapState<E, K, T>,
	);
}

/**
 * The same state with its missing marks restarted: every entry it keeps stays, and an entry
 * missing from the next list counts from that poll on, as if it had been listed until then.
 */
export function withoutMarks<S extends StoredState>(state: S): S {
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

/** Whether two states are equal (see `sameJson`): the own fields first (a mark that changed answers at once). */
function sameState(a: object, b: object): boolean {
	const field = (state: object, key: string) => (state as Record<string, unknown>)[key];
	return OWN_KEYS.every((key) => sameJson(field(a, key), field(b, key))) && sameJson(a, b);
}

/**
 * Replaces the stored state with `next`. Called only once a poll has succeeded. Leaves the static
 * data untouched (and n8n with nothing to save) when `next` equals the state the poll started from
 * (`previous`, as `loadState` read it) and the static data holds nothing else: no key but `v`,
 * `event`, `gone` and `stateKeys` (the keys of every event's state).
 */
export function commitState(
	staticData: IDataObject,
	next: StoredState,
	previous: StoredState | null,
	stateKeys: readonly string[],
): void {
	const onlyOwnKeys = Object.keys(staticData).every(
		(key) => OWN_KEYS.includes(key) || stateKeys.includes(key),
	);
	trustState(next);
	if (previous !== null && onlyOwnKeys && (next === previous || sameState(previous, next))) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, next);
}
