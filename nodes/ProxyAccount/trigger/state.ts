import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import type { ClockState } from './clock';
import { isClockState } from './clock';
import { instantToStore } from './compact';

/**
 * The layout of the stored state (another layout or event starts a new baseline). Version 2 added
 * `gone`; 3 compact records, `clock` and `settle`. Loaders convert older layouts quietly.
 */
export const STATE_VERSION = 3;

const READABLE_VERSIONS: readonly unknown[] = [1, 2, STATE_VERSION];

/** A stored entry missing from the list is kept until missing GRACE_POLLS polls AND GRACE_MS. */
export const GRACE_POLLS = 3;
export const GRACE_MS = 3_600_000;

/** One missing entry: polls in a row it has been missing from, service time (ms) of the first. */
export type MissingMark = [polls: number, sinceMs: number];

/** The missing marks of a state, by entry key. Only entries that are missing have one. */
export type MissingMarks = Record<string, MissingMark>;

export interface StoredState {
	v: typeof STATE_VERSION;
	event: string;
	/** Left out when no entry is missing. */
	gone?: MissingMarks;
	clock?: ClockState;
	/** While a new baseline settles (see `settling`): [polls so far, service time of the first]. */
	settle?: MissingMark;
	/** Proxy events: the last name read to confirm a left-out proxy (confirm.ts). */
	turn?: string;
}

/** The events found, and the state to store once the poll succeeded. */
export interface Detection<S> {
	events: IDataObject[];
	nextState: S;
}

const OWN_KEYS: readonly string[] = ['v', 'event', 'gone', 'clock', 'settle', 'turn'];

/** The stored maps this process wrote: loading them again needs no check (nothing changes them). */
const trusted = new WeakSet<object>();

export function isTrusted(value: unknown): boolean {
	return typeof value === 'object' && value !== null && trusted.has(value);
}

export function hasOwn(map: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(map, key);
}

/** A stored map whose values all pass `check`, or undefined; the map itself (copying 10,000 costs). */
export function checkedMap<T>(
	value: unknown,
	check: (item: unknown) => boolean,
): Record<string, T> | undefined {
	if (isTrusted(value)) return value as Record<string, T>;
	if (!isRecord(value)) return undefined;
	for (const key in value) if (!check(value[key])) return undefined;
	return value as Record<string, T>;
}

function isMark(mark: unknown): mark is MissingMark {
	if (!Array.isArray(mark) || mark.length !== 2) return false;
	const [polls, since] = mark as unknown[];
	return Number.isInteger(polls) && (polls as number) >= 1 && Number.isFinite(since);
}

/** Marks by key (the map itself): undefined when there are none, null when damaged. */
export function marksMap(value: unknown): MissingMarks | undefined | null {
	if (value === undefined) return undefined;
	if (!isRecord(value)) return null;
	for (const key in value) if (!isMark(value[key])) return null;
	return value as MissingMarks;
}

export type StateFields<S extends StoredState> = Omit<S, keyof StoredState>;

/** The stored state for `event`, or null: first poll, another event or layout, damaged data. */
export function loadStored<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	fields: (staticData: IDataObject) => StateFields<S> | null,
): S | null {
	if (!READABLE_VERSIONS.includes(staticData.v) || staticData.event !== event) return null;
	const gone = staticData.v === 1 ? undefined : marksMap(staticData.gone);
	// The clock and settling came with version 3.
	const { clock, settle, turn } = staticData.v === STATE_VERSION ? staticData : ({} as IDataObject);
	if (gone === null || (clock !== undefined && !isClockState(clock))) return null;
	if (turn !== undefined && typeof turn !== 'string') return null;
	if (settle !== undefined && !isMark(settle)) return null;
	const own = fields(staticData);
	if (own === null) return null;
	const marks = gone === undefined ? {} : { gone };
	const common = {
		...(clock === undefined ? {} : { clock }),
		...(settle === undefined ? {} : { settle }),
		...(turn === undefined ? {} : { turn }),
	};
	return { v: STATE_VERSION, event, ...own, ...marks, ...common } as S;
}

/** How long a new baseline settles: the first hour after its first poll (by the service's clock). */
export const SETTLE_MS = 3_600_000;

/** The start of a settling baseline, brought back to `now` when the clock went back. */
const settleStart = (settle: MissingMark, now: number) => (settle[1] > now ? now : settle[1]);

/**
 * While a new baseline settles (a first reply may be partial): the service time of its first poll.
 * Bounded by time alone (SETTLE_MS after that poll), not by a count of polls: at daily polls the
 * second poll is news.
 */
export function settling(previous: StoredState | null, now: number): { since: number } | undefined {
	const settle = previous?.settle;
	if (settle === undefined) return undefined;
	const since = settleStart(settle, now);
	return now - since < SETTLE_MS ? { since } : undefined;
}

/** The next state's settling: started by a baseline, over SETTLE_MS after its first poll. */
export function nextSettle(previous: StoredState | null, now: number): MissingMark | undefined {
	if (previous === null) return [1, now];
	const since = settling(previous, now)?.since;
	return since === undefined ? undefined : [(previous.settle as MissingMark)[0] + 1, since];
}

/** The stored state of an event whose own field is one map (`field`), read by `read`, or null. */
export function loadMapState<S extends StoredState>(
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

/** A stored map of instants (ms), the map itself; older timestamps converted (unreadable out). */
function instantMap(value: unknown): Record<string, number> | undefined {
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
 * The mark of an entry missing from this poll, from its previous one (none: listed last poll), or
 * undefined when its grace period is over. A clock that went back restarts the hour.
 */
export function stillMissing(mark: MissingMark | undefined, now: number): MissingMark | undefined {
	const [polls, since] = missingMark(mark, now);
	return polls >= GRACE_POLLS && now - since >= GRACE_MS ? undefined : [polls, since];
}

/** The mark of an entry missing from this poll, from its previous one: no grace period ends it. */
function missingMark(mark: MissingMark | undefined, now: number): MissingMark {
	return mark === undefined ? [1, now] : [mark[0] + 1, mark[1] > now ? now : mark[1]];
}

/** What the grace machinery does with the stored entries missing from this poll. */
export interface Grace<T> {
	/** In the order they are kept. */
	missing: Iterable<[string, T]>;
	marks: MissingMarks | undefined;
	now: number;
	keep: (key: string, value: T) => void;
	/** An entry whose grace period is over (or that is `removed`), with the start of its absence. */
	forget?: (key: string, value: T, missingSince: number) => void;
	/**
	 * Proxies: the names the service confirmed gone (confirm.ts). Given, an entry is forgotten only
	 * when its name is in it, whatever the time; a missing entry is otherwise kept, however long.
	 */
	removed?: ReadonlySet<string>;
}

/** Keeps the missing entries not forgotten (see `Grace`), then builds the next state with marks. */
export function withGrace<S extends StoredState, T>(grace: Grace<T>, build: () => S): S {
	const gone: Array<[string, MissingMark]> = [];
	const { marks, now } = grace;
	for (const [key, value] of grace.missing) {
		const before = marks !== undefined && hasOwn(marks, key) ? marks[key] : undefined;
		const { removed } = grace;
		const mark =
			removed === undefined
				? stillMissing(before, now)
				: removed.has(key)
					? undefined
					: missingMark(before, now);
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

/** The state of an event that keeps one map (proxy name or city key => value) in field `K`. */
export type MapState<E extends string, K extends string, T = string> = StoredState & {
	event: E;
} & { [field in K]: Record<string, T> };

/** The same state with its missing marks restarted: a missing entry counts from the next poll on. */
export function withoutMarks<S extends StoredState>(state: S): S {
	const { gone, ...rest } = state;
	return gone === undefined ? state : (rest as S);
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
	for (const key of keys) if (!hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
	return true;
}

/** Whether two states are equal: the own fields first (a mark that changed answers at once). */
function sameState(a: object, b: object): boolean {
	const field = (state: object, key: string) => (state as Record<string, unknown>)[key];
	return OWN_KEYS.every((key) => sameJson(field(a, key), field(b, key))) && sameJson(a, b);
}

/**
 * Replaces the stored state with `next`, once a poll succeeded; leaves it untouched (nothing for n8n
 * to save) when `next` equals `previous` and no other key is there (`stateKeys`: every event's).
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
	for (const value of Object.values(next))
		if (typeof value === 'object' && value !== null) trusted.add(value as object);
	if (previous !== null && onlyOwnKeys && (next === previous || sameState(previous, next))) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, next);
}
