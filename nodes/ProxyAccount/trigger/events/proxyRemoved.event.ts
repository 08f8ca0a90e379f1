import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../common/objects';
import type { ProxyFilters } from '../../helpers/framework/filters';
import { matchesProxyFilters } from '../../helpers/framework/filters';
import { hoursUntil } from '../../helpers/framework/time';
import type { ProxyRecord } from '../../transport';
import {
	formatLike,
	instantToStore,
	packIp,
	PART,
	planOf,
	readTable,
	seededTable,
	tableText,
	TextTable,
	unpackIp,
} from '../compact';
import type { Identity } from '../moves';
import { pairMoves, SAME_ADDED } from '../moves';
import { proxyFilters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, Grace, MissingMarks, StoredState } from '../state';
import { checkedMap, loadStored, marksMap, STATE_VERSION, stillMissing, withGrace } from '../state';
import type { PerProxy } from '../listing';
import { NONE_GONE, walkTuples } from '../listing';

export interface RemovedParams {
	event: 'proxyRemoved';
	filters: ProxyFilters;
}

/**
 * What Proxy Removed stores of a proxy (about 80 bytes): what its report shows (never the username
 * nor the password) and what recognizes a move; shared texts as table indexes (compact.ts).
 */
export type KnownTuple = [
	expires: number | null,
	added: number | null,
	profile: number,
	place: number,
	ip: number | string | null,
	hPort: number | null,
	sPort: number | null,
	nickname?: string,
];

/**
 * `known`: proxy name => its record as last listed, kept while missing (`texts`: its table).
 * `fresh`: names first listed within a grace period (a move's new name, listed beside the old).
 */
export type RemovedState = StoredState & {
	event: 'proxyRemoved';
	known: Record<string, KnownTuple>;
	texts: string[];
	fresh?: MissingMarks;
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const port = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The UTC offset a timestamp is written with ('-06:00', 'Z'), or ''. */
function offsetOf(timestamp: string): string {
	if (timestamp.endsWith('Z')) return 'Z';
	const sign = timestamp.charAt(timestamp.length - 6);
	return sign === '+' || sign === '-' ? timestamp.slice(-6) : '';
}

/** A record (as listed, or as an older version stored it) as a tuple, its texts added to `table`. */
export function knownTuple(proxy: Record<string, unknown>, table: TextTable): KnownTuple {
	const autoRenew = proxy.auto_renew === true ? '1' : proxy.auto_renew === false ? '0' : '';
	const tuple: KnownTuple = [
		instantToStore(proxy.expires_at),
		instantToStore(proxy.added_at),
		// With the UTC offset the service writes timestamps in, so the report reads like the service.
		table.ref(
			text(proxy.network_status),
			text(proxy.isp),
			text(proxy.period),
			autoRenew,
			offsetOf(text(proxy.expires_at)),
		),
		table.ref(text(proxy.city), text(proxy.state)),
		packIp(proxy.server_ip),
		port(proxy.h_port),
		port(proxy.s_port),
	];
	if (typeof proxy.nickname === 'string') tuple.push(proxy.nickname);
	return tuple;
}

function sameKnown(a: KnownTuple | undefined, b: KnownTuple): boolean {
	if (a === undefined || a.length !== b.length) return false;
	for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/** The record of a stored proxy, as its report shows it. */
export function knownRecord(
	name: string,
	tuple: KnownTuple,
	texts: readonly string[],
): IDataObject {
	const [status, isp, period, autoRenew, offset] = (tableText(texts, tuple[2]) ?? '').split(PART);
	const [city, state] = (tableText(texts, tuple[3]) ?? '').split(PART);
	const written = `T${offset ?? ''}`;
	return {
		proxy_name: name,
		nickname: tuple[7] ?? null,
		isp: isp ?? '',
		city: city ?? '',
		state: state ?? '',
		period: period ?? '',
		added_at: formatLike(tuple[1], written),
		expires_at: formatLike(tuple[0], written),
		network_status: status ?? '',
		server_ip: unpackIp(tuple[4]),
		h_port: tuple[5],
		s_port: tuple[6],
		auto_renew: autoRenew === '1' ? true : autoRenew === '0' ? false : null,
	};
}

/** A stored proxy's identity, as the moves compare it. */
function knownIdentity(tuple: KnownTuple, texts: readonly string[]): Identity {
	const [, , period, autoRenew] = (tableText(texts, tuple[2]) ?? '').split(PART);
	return {
		added: tuple[1],
		expires: tuple[0],
		plan: planOf(period, autoRenew === '1' ? true : autoRenew === '0' ? false : undefined),
	};
}

const isNum = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
const orNull = (value: unknown, check: (v: unknown) => boolean) => value === null || check(value);

function isKnownTuple(value: unknown, size: number): boolean {
	if (!Array.isArray(value) || value.length < 7 || value.length > 8) return false;
	const [expires, added, profile, place, ip, hPort, sPort, nickname] = value as unknown[];
	const index = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < size;
	return (
		orNull(expires, isNum) &&
		orNull(added, isNum) &&
		index(profile) &&
		index(place) &&
		orNull(ip, (v) => isNum(v) || typeof v === 'string') &&
		orNull(hPort, isNum) &&
		orNull(sPort, isNum) &&
		(value.length === 7 || typeof nickname === 'string')
	);
}

/** The version 3 fields of a stored Proxy Removed state, or null when damaged. */
function readKnown(data: IDataObject): Pick<RemovedState, 'known' | 'texts' | 'fresh'> | null {
	const texts = readTable(data.texts);
	const fresh = marksMap(data.fresh);
	if (texts === null || fresh === null) return null;
	const known = checkedMap<KnownTuple>(data.known, (item) => isKnownTuple(item, texts.length));
	if (known === undefined) return null;
	const extra = fresh === undefined ? {} : { fresh };
	return { known, texts, ...extra };
}

type Named = [name: string, tuple: KnownTuple];

/** A stored tuple is made from these fields of the record (see `knownTuple`). */
const BY_RECORD: PerProxy = {
	same: (a, b) =>
		a.expires_at === b.expires_at &&
		a.added_at === b.added_at &&
		a.network_status === b.network_status &&
		a.server_ip === b.server_ip &&
		a.h_port === b.h_port &&
		a.s_port === b.s_port &&
		a.nickname === b.nickname &&
		a.isp === b.isp &&
		a.period === b.period &&
		a.auto_renew === b.auto_renew &&
		a.city === b.city &&
		a.state === b.state,
	is: Array.isArray,
};

/** A version 1 or 2 state: `known` records (objects of plain values), converted to tuples. */
function upgradeRemoved(data: IDataObject): Pick<RemovedState, 'known' | 'texts'> | null {
	if (!isRecord(data.known)) return null;
	const table = new TextTable();
	const known: Record<string, KnownTuple> = {};
	for (const [name, item] of Object.entries(data.known)) {
		if (!isRecord(item)) return null;
		known[name] = knownTuple(item, table);
	}
	return { known, texts: table.texts };
}

/** The event item of a removed proxy: the last record known and when the removal was detected. */
export function removedItem(
	known: IDataObject,
	name: string,
	missingSince: number,
	now: number,
): IDataObject {
	const expiresAt = typeof known.expires_at === 'string' ? known.expires_at : null;
	const expiresInHours = expiresAt === null ? null : hoursUntil(expiresAt, now);
	return {
		event: 'proxy_removed',
		proxy_name: name,
		removed_at: new Date(now).toISOString(),
		missing_since: new Date(missingSince).toISOString(),
		expired: expiresInHours === null ? null : expiresInHours <= 0,
		before: { expires_at: expiresAt, network_status: known.network_status ?? null },
		after: null,
		record: { ...known, proxy_name: name, expires_in_hours: expiresInHours },
	};
}

/** Proxy Removed (docs/trigger.md): a moved proxy (moves.ts) is forgotten at once, without an event. */
export function detectRemoved(
	previous: RemovedState | null,
	observation: ProxyObservation,
	params: RemovedParams,
): Detection<RemovedState> {
	const stored = previous?.known;
	const { now } = observation;
	const table = seededTable(previous?.texts);
	const list = walkTuples(
		stored,
		observation.proxies,
		BY_RECORD,
		(proxy) => knownTuple(proxy, table),
		sameKnown,
	);
	const { next, missing } = list;
	const appeared = previous ? list.appeared.map(([name, tuple]): Named => [name, tuple]) : [];
	if (previous && !previous.fresh && !missing.length && !appeared.length && list.same)
		return { events: [], nextState: removedState(next.keep(stored ?? {}), previous.texts) };
	const moves = removedMoves(previous, missing, appeared, table.texts);
	const moved = new Set(moves.values());
	const events: IDataObject[] = [];
	const grace: Grace<KnownTuple> = {
		missing: missing.filter(([name]) => !moved.has(name)),
		marks: previous?.gone,
		now,
		removed: observation.gone ?? NONE_GONE,
		keep: (name, known) => next.add(name, known),
		forget: (name, known, since) => {
			const last = knownRecord(name, known, previous?.texts ?? []);
			if (matchesProxyFilters(last as unknown as ProxyRecord, params.filters))
				events.push(removedItem(last, name, since, now));
		},
	};
	const nextState = withGrace(grace, () => removedState(next.build(), table.texts));
	const fresh = freshNames(previous, list.listed, appeared, new Set(moves.keys()), now);
	if (fresh !== undefined) nextState.fresh = fresh;
	return { events, nextState };
}

function removedState(known: Record<string, KnownTuple>, texts: string[]): RemovedState {
	return { v: STATE_VERSION, event: 'proxyRemoved', known, texts };
}

/**
 * The moves of this poll (new name => old name) of the stored proxies missing from the list: to the
 * proxies that appeared now (both rules), then to names first listed lately (the strong rule).
 */
function removedMoves(
	previous: RemovedState | null,
	missing: Named[],
	appeared: Named[],
	texts: readonly string[],
): Map<string, string> {
	if (previous === null || missing.length === 0) return new Map();
	const fresh = previous.fresh ?? {};
	const seen = (name: string, id: Identity): Identity => {
		const mark = ownValue(fresh, name);
		return mark === undefined ? id : { ...id, seen: mark[1] };
	};
	const vanished = missing.map(([name, tuple]): [string, Identity] => [
		name,
		seen(name, knownIdentity(tuple, previous.texts)),
	]);
	const moves = pairMoves(
		vanished,
		appeared.map(([name, tuple]): [string, Identity] => [name, knownIdentity(tuple, texts)]),
	);
	const lately: Array<[string, Identity]> = [];
	for (const name of Object.keys(fresh)) {
		const tuple = ownValue(previous.known, name);
		if (tuple !== undefined && !moves.has(name))
			lately.push([name, seen(name, knownIdentity(tuple, previous.texts))]);
	}
	return pairMoves(vanished, lately, [SAME_ADDED], moves);
}

/**
 * The names first listed lately, with marks counted like a missing entry's: those that appeared
 * now and those still within that period. A name paired with a move leaves (it moved once).
 */
function freshNames(
	previous: RemovedState | null,
	listed: (name: string) => boolean,
	appeared: Named[],
	claimed: ReadonlySet<string>,
	now: number,
): MissingMarks | undefined {
	const out: MissingMarks = {};
	let any = false;
	for (const [name, mark] of Object.entries(previous?.fresh ?? {})) {
		const still = listed(name) && !claimed.has(name) ? stillMissing(mark, now) : undefined;
		if (still !== undefined) {
			out[name] = still;
			any = true;
		}
	}
	for (const [name] of appeared) {
		if (claimed.has(name)) continue;
		out[name] = [1, now];
		any = true;
	}
	return any ? out : undefined;
}

/** "Fetch Test Event": the proxies that expire first, as if found removed at this poll. */
export function removedSamples(
	observation: ProxyObservation,
	params: RemovedParams,
	limit: number,
): IDataObject[] {
	return uniqueProxies(observation.proxies)
		.filter((proxy) => matchesProxyFilters(proxy, params.filters))
		.sort((a, b) => compare(instant(a.expires_at, Infinity), instant(b.expires_at, Infinity)))
		.slice(0, limit)
		.map((proxy) => {
			const table = new TextTable();
			const last = knownRecord(proxy.proxy_name, knownTuple(proxy, table), table.texts);
			return removedItem(last, proxy.proxy_name, observation.now, observation.now);
		});
}

export const proxyRemoved: TriggerEventModule<RemovedParams, RemovedState, ProxyObservation> = {
	event: {
		name: 'Proxy Removed',
		value: 'proxyRemoved',
		action: 'On Proxy Removed',
		description:
			'A proxy disappears from the account for good (removed or expired, not moved by Change Location); reported once the service confirms it no longer has it',
	},
	properties: [proxyFiltersProperty],
	stateKeys: ['known', 'texts', 'fresh'],
	readParameters: (ctx) => ({ event: 'proxyRemoved', filters: proxyFilters(ctx) }),
	loadState: (staticData) =>
		loadStored<RemovedState>(staticData, 'proxyRemoved', (data) =>
			data.texts === undefined ? upgradeRemoved(data) : readKnown(data),
		),
	...proxyEvent('proxy_removed'),
	detect: detectRemoved,
	samples: removedSamples,
};
