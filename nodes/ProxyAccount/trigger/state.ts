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
}

/** What an event's detection returns: the events found, and the state to store once the poll succeeded. */
export interface Detection<S> {
	/** One output item's json per event, in the order of the payload. */
	events: IDataObject[];
	nextState: S;
}

/** The keys every state writes. */
const OWN_KEYS: readonly string[] = ['v', 'event', 'gone'];

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(map: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(map, key);
}

/**
 * The stored map itself once every value is a string: detection only reads the previous state and
 * builds a new one, so there is nothing to detach (and copying 10,000 entries each poll costs).
 */
export function stringMap(value: unknown): Record<string, string> | undefined {
	if (!isRecord(value)) return undefined;
	for (const key in value) if (typeof value[key] !== 'string') return undefined;
	return value as Record<string, string>;
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

/** The fields of one event's stored state (all but `v`, `event` and `gone`), or null when damaged. */
export type StateFields<S extends StoredState> = Omit<S, 'v' | 'event' | 'gone'>;

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
	if (gone === null) return null;
	const own = fields(staticData);
	if (own === null) return null;
	const marks = gone === undefined ? {} : { gone };
	return { v: STATE_VERSION, event, ...own, ...marks } as S;
}

/** The stored state of an event whose own field is one map of strings (`field`), or null. */
export function loadStringMapState<S extends StoredState>(
	staticData: IDataObject,
	event: S['event'],
	field: string,
): S | null {
	return loadStored<S>(staticData, event, (data) => {
		const map = stringMap(data[field]);
		return map ? ({ [field]: map } as StateFields<S>) : null;
	});
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

/** The entries of `stored` that `listed` does not hold: the stored entries missing from this poll. */
export function missingFrom<T>(
	stored: Record<string, T> | undefined,
	listed: ReadonlySet<string>,
): Array<[string, T]> {
	const missing: Array<[string, T]> = [];
	for (const key in stored) {
		if (!listed.has(key) && hasOwn(stored, key)) missing.push([key, stored[key]]);
	}
	return missing;
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

/**
 * The next state of an event that keeps one map (its field `field`): listed entries first (`next`),
 * then the stored entries missing from this poll (`listed` are the keys listed) while their grace
 * period lasts.
 */
export function nextMapState<E extends string, K extends string, T>(
	previous: MapState<E, K, T> | null,
	event: E,
	field: K,
	listed: ReadonlySet<string>,
	now: number,
	next: Array<[string, T]>,
): MapState<E, K, T> {
	const grace: Grace<T> = {
		missing: previous ? missingFrom(previous[field], listed) : [],
		marks: previous?.gone,
		now,
		keep: (key, value) => next.push([key, value]),
	};
	return withGrace(
		grace,
		() => ({ v: STATE_VERSION, event, [field]: Object.fromEntries(next) }) as MapState<E, K, T>,
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
	if (previous !== null && onlyOwnKeys && sameJson(previous, next)) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, next);
}
