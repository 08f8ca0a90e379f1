import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import type { TextTable } from './compact';
import {
	formatLike,
	instantToStore,
	packIp,
	PART,
	planOf,
	readTable,
	tableText,
	unpackIp,
} from './compact';
import type { Identity } from './moves';
import type { MissingMarks } from './state';
import { isTrusted, marksMap, STATE_VERSION } from './state';

/*
 * What Proxy Removed stores of each proxy: what its report shows (the simplified record, without
 * the username and password) and what recognizes a move, in about 80 bytes a proxy: instants as
 * epoch ms, the IPv4 address as one number, the texts many proxies share (status, carrier, period,
 * auto-renew; city and state) as indexes into one table.
 */

/** [expires_at, added_at, profile, place, server_ip, h_port, s_port, nickname (left out when null)] */
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

export interface RemovedState {
	v: typeof STATE_VERSION;
	event: 'proxyRemoved';
	/** Proxy name => its record as last listed, kept while missing. */
	known: Record<string, KnownTuple>;
	/** The texts the tuples refer to. */
	texts: string[];
	/**
	 * Names first listed lately (within a grace period, see `withGrace`), with that mark: the new
	 * name of a move whose old name leaves the list only after a reply listed both.
	 */
	fresh?: MissingMarks;
	gone?: MissingMarks;
}

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
		// Status, carrier, plan and the UTC offset the service writes timestamps with (so the report
		// reads like the service); city and state.
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

export function sameKnown(a: KnownTuple | undefined, b: KnownTuple): boolean {
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
export function knownIdentity(tuple: KnownTuple, texts: readonly string[]): Identity {
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
export function readKnown(
	data: IDataObject,
): Pick<RemovedState, 'known' | 'texts' | 'fresh'> | null {
	const texts = readTable(data.texts);
	const fresh = marksMap(data.fresh);
	if (texts === null || fresh === null) return null;
	const extra = fresh === undefined ? {} : { fresh };
	if (isTrusted(data.known)) return { known: data.known as RemovedState['known'], texts, ...extra };
	if (!isRecord(data.known)) return null;
	for (const name in data.known) if (!isKnownTuple(data.known[name], texts.length)) return null;
	return { known: data.known as RemovedState['known'], texts, ...extra };
}
