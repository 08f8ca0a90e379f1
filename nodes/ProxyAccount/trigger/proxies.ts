import type { IDataObject } from 'n8n-workflow';

import { proxyOutput, SIMPLE_PROXY_FIELDS } from '../helpers/output';
import type { ProxyFilters } from '../helpers/filters';
import { matchesProxyFilters } from '../helpers/filters';
import { expiresWithin, hoursUntil } from '../helpers/time';
import type { ProxyRecord } from '../transport';
import type {
	ExpiringParams,
	IpChangedParams,
	NewProxyParams,
	OutputOptions,
	RemovedParams,
	StatusParams,
} from './params';
import type {
	ExpiringState,
	IpState,
	KnownProxy,
	MissingMark,
	NewProxyState,
	PaidTuple,
	RemovedState,
	StatusState,
} from './state';
import type { PaidTime } from './moves';
import { pairMoves } from './moves';
import { GRACE_MS, keepMissing, STATE_VERSION, stillMissing } from './state';
import type { Detection } from './stock';

export interface ProxyObservation {
	proxies: ProxyRecord[];
	/** The service's clock when it answered. */
	now: number;
}

/** The proxies with one record per name (the first wins), and the set of those names. */
function listedProxies(proxies: ProxyRecord[]): { unique: ProxyRecord[]; names: Set<string> } {
	const names = new Set<string>();
	const unique = proxies.filter((proxy) => {
		if (names.has(proxy.proxy_name)) return false;
		names.add(proxy.proxy_name);
		return true;
	});
	return { unique, names };
}

/** The proxies with one record per name (the first wins: a repeated record says nothing new). */
export function uniqueProxies(proxies: ProxyRecord[]): ProxyRecord[] {
	return listedProxies(proxies).unique;
}

/** Whether two `expires_at` values name the same instant (or are the same text when unreadable). */
export function sameExpiry(a: string, b: string): boolean {
	if (a === b) return true;
	const at = Date.parse(a);
	return !Number.isNaN(at) && at === Date.parse(b);
}

function ownValue<T>(map: Record<string, T>, key: string): T | undefined {
	return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

function record(proxy: ProxyRecord, output: OutputOptions, now: number): IDataObject {
	return proxyOutput(proxy, {
		simplify: output.simplify,
		includePassword: output.includePassword,
		now,
	});
}

export function expiringItem(
	proxy: ProxyRecord,
	reportedBefore: string | null,
	params: ExpiringParams,
	now: number,
): IDataObject {
	const expiresInHours = hoursUntil(proxy.expires_at, now);
	return {
		event: 'proxy_expiring',
		proxy_name: proxy.proxy_name,
		expires_at: proxy.expires_at,
		expires_in_hours: expiresInHours,
		within_hours: params.withinHours,
		before: { expires_at: reportedBefore },
		after: { expires_at: proxy.expires_at, expires_in_hours: expiresInHours },
		record: record(proxy, params.output, now),
	};
}

export function statusItem(
	proxy: ProxyRecord,
	before: string,
	output: OutputOptions,
	now: number,
): IDataObject {
	return {
		event: 'proxy_status_changed',
		proxy_name: proxy.proxy_name,
		before: { network_status: before },
		after: { network_status: proxy.network_status },
		record: record(proxy, output, now),
	};
}

/**
 * The item of a new proxy. `movedFrom` is the name it had before Change Location moved it (the
 * same proxy and paid time under a new name), null for a proxy new to the account.
 */
export function newProxyItem(
	proxy: ProxyRecord,
	output: OutputOptions,
	now: number,
	movedFrom: string | null = null,
): IDataObject {
	return {
		event: 'new_proxy',
		proxy_name: proxy.proxy_name,
		moved_from: movedFrom,
		before: null,
		after: {
			proxy_name: proxy.proxy_name,
			added_at: proxy.added_at,
			expires_at: proxy.expires_at,
			network_status: proxy.network_status,
		},
		record: record(proxy, output, now),
	};
}

/**
 * Proxy Expiring: a proxy is reported once when its `expires_at` is within the window (or past)
 * and it has not been reported for that same `expires_at`. Extending the proxy changes
 * `expires_at`, which arms it again. At the baseline every proxy already inside the window is
 * recorded as seen, so it is not reported for that expiry. A listed proxy whose expiry is no
 * longer the one recorded is forgotten unless the new one is within the window. A recorded proxy
 * missing from the list is kept as it was while its grace period lasts (see `keepMissing`): if it
 * comes back with the same expiry it is not reported again.
 */
export function detectExpiring(
	previous: ExpiringState | null,
	observation: ProxyObservation,
	params: ExpiringParams,
): Detection<ExpiringState> {
	const next: Array<[string, string]> = [];
	const events: IDataObject[] = [];
	const { unique, names } = listedProxies(observation.proxies);
	for (const proxy of unique) {
		const reported = previous ? ownValue(previous.reported, proxy.proxy_name) : undefined;
		if (reported !== undefined && sameExpiry(reported, proxy.expires_at)) {
			next.push([proxy.proxy_name, reported]);
			continue;
		}
		if (!expiresWithin(proxy.expires_at, observation.now, params.withinHours)) continue;
		next.push([proxy.proxy_name, proxy.expires_at]);
		if (previous && matchesProxyFilters(proxy, params.filters)) {
			events.push(expiringItem(proxy, reported ?? null, params, observation.now));
		}
	}
	const gone = previous
		? keepMissing(previous.reported, names, previous.gone, observation.now, next)
		: undefined;
	const nextState: ExpiringState = {
		v: STATE_VERSION,
		event: 'proxyExpiring',
		reported: Object.fromEntries(next),
	};
	if (gone) nextState.gone = gone;
	return { events, nextState };
}

/**
 * Proxy Status Changed: a listed proxy's `network_status` differs from the stored one. A proxy
 * that was not stored is recorded without an event. A stored proxy missing from the list is kept
 * as it was while its grace period lasts (see `keepMissing`), so when it comes back it is
 * compared with the status it had before it went missing.
 */
export function detectStatusChanges(
	previous: StatusState | null,
	observation: ProxyObservation,
	params: StatusParams,
): Detection<StatusState> {
	const next: Array<[string, string]> = [];
	const events: IDataObject[] = [];
	const { unique, names } = listedProxies(observation.proxies);
	for (const proxy of unique) {
		next.push([proxy.proxy_name, proxy.network_status]);
		const before = previous ? ownValue(previous.status, proxy.proxy_name) : undefined;
		if (before === undefined || before === proxy.network_status) continue;
		if (!matchesProxyFilters(proxy, params.filters)) continue;
		if (params.fromStatus !== '' && before.trim().toLowerCase() !== params.fromStatus) continue;
		if (params.toStatus !== '' && proxy.network_status.trim().toLowerCase() !== params.toStatus)
			continue;
		events.push(statusItem(proxy, before, params.output, observation.now));
	}
	const gone = previous
		? keepMissing(previous.status, names, previous.gone, observation.now, next)
		: undefined;
	const nextState: StatusState = {
		v: STATE_VERSION,
		event: 'proxyStatusChanged',
		status: Object.fromEntries(next),
	};
	if (gone) nextState.gone = gone;
	return { events, nextState };
}

/**
 * New Proxy: a proxy name is listed that is not stored. A stored name missing from the list is
 * kept while its grace period lasts (see `keepMissing`), so its return is not new; once it is
 * forgotten, its return is.
 *
 * A new name that carries the paid time of a stored name missing from the list is that proxy moved
 * by Change Location (see `pairMoves`): it is still reported (its name and port are new), with
 * `moved_from` set to the old name. The old name stays stored while its grace period lasts (so a
 * partial list that hid it does not make its return new), but loses its paid time: it is found
 * moved once.
 */
export function detectNewProxies(
	previous: NewProxyState | null,
	observation: ProxyObservation,
	params: NewProxyParams,
): Detection<NewProxyState> {
	// The stored names not listed yet: what is left after the loop is missing from this list.
	const unlisted = new Set(previous?.names ?? []);
	const names: string[] = [];
	const paid: Array<[string, PaidTuple]> = [];
	const appeared: ProxyRecord[] = [];
	for (const proxy of uniqueProxies(observation.proxies)) {
		names.push(proxy.proxy_name);
		paid.push([proxy.proxy_name, paidTuple(proxy)]);
		if (previous && !unlisted.delete(proxy.proxy_name)) appeared.push(proxy);
	}
	const moves = pairMoves(
		storedPaidTimes(previous?.paid, unlisted),
		appeared.map((proxy): [string, ProxyRecord] => [proxy.proxy_name, proxy]),
	);
	const events = appeared
		.filter((proxy) => matchesProxyFilters(proxy, params.filters))
		.map((proxy) =>
			newProxyItem(proxy, params.output, observation.now, moves.get(proxy.proxy_name) ?? null),
		);
	const moved = new Set(moves.values());
	const gone: Array<[string, MissingMark]> = [];
	const marks = previous?.gone;
	for (const name of unlisted) {
		const mark = stillMissing(
			marks !== undefined && Object.prototype.hasOwnProperty.call(marks, name)
				? marks[name]
				: undefined,
			observation.now,
		);
		if (mark === undefined) continue;
		names.push(name);
		gone.push([name, mark]);
		const kept = previous?.paid !== undefined ? ownValue(previous.paid, name) : undefined;
		if (kept !== undefined && !moved.has(name)) paid.push([name, kept]);
	}
	const nextState: NewProxyState = {
		v: STATE_VERSION,
		event: 'newProxy',
		names,
		paid: Object.fromEntries(paid),
	};
	if (gone.length > 0) nextState.gone = Object.fromEntries(gone);
	return { events, nextState };
}

/** What New Proxy keeps of a proxy's paid time. */
function paidTuple(proxy: ProxyRecord): PaidTuple {
	const text = (value: unknown) => (typeof value === 'string' ? value : null);
	const autoRenew = proxy.auto_renew as unknown;
	return [
		text(proxy.expires_at),
		text(proxy.added_at),
		text(proxy.period),
		typeof autoRenew === 'boolean' ? autoRenew : null,
	];
}

/** The paid times kept for the stored names in `missing`, as `pairMoves` reads them. */
function storedPaidTimes(
	paid: Record<string, PaidTuple> | undefined,
	missing: Iterable<string>,
): Array<[string, PaidTime]> {
	const out: Array<[string, PaidTime]> = [];
	if (paid === undefined) return out;
	for (const name of missing) {
		const kept = ownValue(paid, name);
		if (kept === undefined) continue;
		const [expires_at, added_at, period, auto_renew] = kept;
		out.push([name, { expires_at, added_at, period, auto_renew }]);
	}
	return out;
}

function compare(a: number, b: number): number {
	return a === b ? 0 : a < b ? -1 : 1;
}

function instant(timestamp: unknown, unreadable: number): number {
	const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
	return Number.isNaN(parsed) ? unreadable : parsed;
}

/** Items for "Fetch Test Event": what each event looks like with the account's proxies now. */
/** The proxies matching the filters, or, when none does, all of them (an example is still shown). */
function sampleBase(observation: ProxyObservation, filters: ProxyFilters): ProxyRecord[] {
	const unique = uniqueProxies(observation.proxies);
	const matching = unique.filter((proxy) => matchesProxyFilters(proxy, filters));
	return matching.length > 0 ? matching : unique;
}

/**
 * Items for "Fetch Test Event", shaped exactly like real events (see pollTrigger): the proxies
 * whose expiry is inside the window now (after now, within Within Hours; never one that expired
 * long ago), soonest first; when none is, one example built from a real proxy (one matching the
 * filters when there is one) with the expiry inside the window. Empty only when the list is.
 */
export function expiringSamples(
	observation: ProxyObservation,
	params: ExpiringParams,
	limit: number,
): IDataObject[] {
	const now = observation.now;
	const found = uniqueProxies(observation.proxies)
		.filter(
			(proxy) =>
				matchesProxyFilters(proxy, params.filters) &&
				instant(proxy.expires_at, -Infinity) > now &&
				expiresWithin(proxy.expires_at, now, params.withinHours),
		)
		.sort((a, b) => compare(instant(a.expires_at, Infinity), instant(b.expires_at, Infinity)))
		.slice(0, limit)
		.map((proxy) => expiringItem(proxy, null, params, now));
	if (found.length > 0) return found;
	const [proxy] = sampleBase(observation, params.filters).sort((a, b) =>
		compare(instant(a.expires_at, Infinity), instant(b.expires_at, Infinity)),
	);
	if (!proxy) return [];
	const expiresAt = new Date(now + (params.withinHours * 3_600_000) / 2).toISOString();
	return [expiringItem({ ...proxy, expires_at: expiresAt }, null, params, now)];
}

/** A status other than `after` for a sample's `before`: From Status when set, else online/offline. */
function otherStatus(after: string, fromStatus: string): string {
	if (fromStatus !== '' && fromStatus !== after.trim().toLowerCase()) return fromStatus;
	return after.trim().toLowerCase() === 'online' ? 'offline' : 'online';
}

/**
 * Items for "Fetch Test Event": proxies whose current status fits To Status, each with a `before`
 * status it could have changed from (From Status when set); when none fits, one example from a
 * real proxy with To Status as its status. Empty only when the list is.
 */
export function statusSamples(
	observation: ProxyObservation,
	params: StatusParams,
	limit: number,
): IDataObject[] {
	const found = uniqueProxies(observation.proxies)
		.filter(
			(proxy) =>
				matchesProxyFilters(proxy, params.filters) &&
				(params.toStatus === '' || proxy.network_status.trim().toLowerCase() === params.toStatus),
		)
		.slice(0, limit)
		.map((proxy) =>
			statusItem(
				proxy,
				otherStatus(proxy.network_status, params.fromStatus),
				params.output,
				observation.now,
			),
		);
	if (found.length > 0) return found;
	const [proxy] = sampleBase(observation, params.filters);
	if (!proxy) return [];
	const after = params.toStatus !== '' ? params.toStatus : proxy.network_status;
	return [
		statusItem(
			{ ...proxy, network_status: after },
			otherStatus(after, params.fromStatus),
			params.output,
			observation.now,
		),
	];
}

/** Items for "Fetch Test Event": the newest proxies matching the filters (else the newest of all). */
export function newProxySamples(
	observation: ProxyObservation,
	params: NewProxyParams,
	limit: number,
): IDataObject[] {
	return sampleBase(observation, params.filters)
		.sort((a, b) => compare(instant(b.added_at, -Infinity), instant(a.added_at, -Infinity)))
		.slice(0, limit)
		.map((proxy) => newProxyItem(proxy, params.output, observation.now));
}

// ----- Proxy Removed ----------------------------------------------------------------------------------

/** The fields Proxy Removed keeps: the simplified ones, and `added_at` to recognize a move. */
const KNOWN_FIELDS = [...SIMPLE_PROXY_FIELDS, 'added_at'] as const;

/**
 * What Proxy Removed remembers of a proxy: its simplified fields and `added_at` as last listed,
 * never the password.
 */
export function knownProxy(proxy: ProxyRecord): KnownProxy {
	const out: KnownProxy = {};
	for (const field of KNOWN_FIELDS) {
		const value = proxy[field] as unknown;
		if (value === undefined) continue;
		out[field] =
			value === null || ['string', 'number', 'boolean'].includes(typeof value)
				? (value as string | number | boolean | null)
				: JSON.stringify(value);
	}
	return out;
}

/** The event item of a removed proxy: the last record known and when the removal was detected. */
export function removedItem(
	known: KnownProxy,
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
		before: {
			expires_at: expiresAt,
			network_status: known.network_status ?? null,
		},
		after: null,
		record: { ...known, proxy_name: name, expires_in_hours: expiresInHours },
	};
}

/**
 * Proxy Removed: a stored proxy missing from the list is kept, with its last known record, while
 * its grace period lasts (GRACE_POLLS polls in a row AND GRACE_MS, see `stillMissing`); a partial
 * list therefore reports nothing, and a proxy that comes back is not reported. When the grace
 * period is over the proxy is reported once (if it matches the filters) and forgotten. Listed
 * proxies are recorded as they are now; the baseline reports nothing.
 *
 * A stored proxy that Change Location moved is not removed: when a proxy that was not stored
 * appears while a stored one is missing, carrying its paid time (see `pairMoves`), the missing one
 * is forgotten at once, without an event. Ambiguous pairs are not taken: those proxies are
 * reported as before.
 */
export function detectRemoved(
	previous: RemovedState | null,
	observation: ProxyObservation,
	params: RemovedParams,
): Detection<RemovedState> {
	const next: Array<[string, KnownProxy]> = [];
	const events: IDataObject[] = [];
	const { unique, names } = listedProxies(observation.proxies);
	for (const proxy of unique) next.push([proxy.proxy_name, knownProxy(proxy)]);
	const gone: Array<[string, MissingMark]> = [];
	if (previous) {
		const marks = previous.gone;
		const missing = missingKnown(previous.known, names);
		const moved = new Set(pairMoves(missing, appearedKnown(previous.known, next)).values());
		for (const [name, known] of missing) {
			if (moved.has(name)) continue;
			const before = marks !== undefined ? ownValue(marks, name) : undefined;
			const mark = stillMissing(before, observation.now);
			if (mark !== undefined) {
				next.push([name, known]);
				gone.push([name, mark]);
				continue;
			}
			const asRecord = { ...known, proxy_name: name } as unknown as ProxyRecord;
			if (matchesProxyFilters(asRecord, params.filters)) {
				const since =
					before === undefined || before[1] > observation.now ? observation.now : before[1];
				events.push(removedItem(known, name, since, observation.now));
			}
		}
	}
	const nextState: RemovedState = {
		v: STATE_VERSION,
		event: 'proxyRemoved',
		known: Object.fromEntries(next),
	};
	if (gone.length > 0) nextState.gone = Object.fromEntries(gone);
	return { events, nextState };
}

/** The stored proxies missing from this list (`listed`), with their last known records. */
function missingKnown(
	known: Record<string, KnownProxy>,
	listed: ReadonlySet<string>,
): Array<[string, KnownProxy]> {
	const missing: Array<[string, KnownProxy]> = [];
	for (const name in known) {
		if (!listed.has(name) && Object.prototype.hasOwnProperty.call(known, name))
			missing.push([name, known[name]]);
	}
	return missing;
}

/** The listed proxies (`listed`, as recorded now) that were not stored. */
function appearedKnown(
	known: Record<string, KnownProxy>,
	listed: Array<[string, KnownProxy]>,
): Array<[string, KnownProxy]> {
	return listed.filter(([name]) => ownValue(known, name) === undefined);
}

/**
 * "Fetch Test Event" for Proxy Removed: items shaped like a real event, for the proxies that
 * expire first (those most likely to go next), as if they had just been removed: missing since the
 * shortest grace period before now (GRACE_MS; a real event comes at least that long after a proxy
 * went missing, and after GRACE_POLLS polls).
 */
export function removedSamples(
	observation: ProxyObservation,
	params: RemovedParams,
	limit: number,
): IDataObject[] {
	return uniqueProxies(observation.proxies)
		.filter((proxy) => matchesProxyFilters(proxy, params.filters))
		.sort((a, b) => compare(instant(a.expires_at, Infinity), instant(b.expires_at, Infinity)))
		.slice(0, limit)
		.map((proxy) =>
			removedItem(knownProxy(proxy), proxy.proxy_name, observation.now - GRACE_MS, observation.now),
		);
}

// ----- IP Changed -------------------------------------------------------------------------------

export function ipChangedItem(
	proxy: ProxyRecord,
	before: string | null,
	output: OutputOptions,
	now: number,
): IDataObject {
	return {
		event: 'ip_changed',
		proxy_name: proxy.proxy_name,
		auto_change: proxy.auto_change,
		auto_change_time: proxy.auto_change_time,
		before: { last_ip_change: before },
		after: { last_ip_change: proxy.last_ip_change },
		record: record(proxy, output, now),
	};
}

const counts = (proxy: ProxyRecord, params: IpChangedParams) =>
	matchesProxyFilters(proxy, params.filters) &&
	(!params.onlyAutoRotating || proxy.auto_change === true);

/**
 * IP Changed: a proxy's `last_ip_change` moved later than the stored one (by its automatic rotation,
 * a Rotate IP, or the dashboard). With Only Auto-Rotating Proxies, only proxies with `auto_change`
 * on are reported. A stored proxy missing from the list is kept while its grace period lasts (see
 * `keepMissing`): when it comes back, only a later change than the one kept is reported.
 */
export function detectIpChanges(
	previous: IpState | null,
	observation: ProxyObservation,
	params: IpChangedParams,
): Detection<IpState> {
	const next: Array<[string, string]> = [];
	const events: IDataObject[] = [];
	const { unique, names } = listedProxies(observation.proxies);
	for (const proxy of unique) {
		const current = typeof proxy.last_ip_change === 'string' ? proxy.last_ip_change : '';
		const before = previous ? ownValue(previous.ips, proxy.proxy_name) : undefined;
		// A change reported is kept; an unreadable or earlier timestamp changes nothing.
		const moved =
			before !== undefined &&
			current !== before &&
			Date.parse(current) > (Number.isNaN(Date.parse(before)) ? -Infinity : Date.parse(before));
		next.push([proxy.proxy_name, moved || before === undefined ? current : before]);
		if (moved && counts(proxy, params))
			events.push(ipChangedItem(proxy, before, params.output, observation.now));
	}
	const gone = previous
		? keepMissing(previous.ips, names, previous.gone, observation.now, next)
		: undefined;
	const nextState: IpState = {
		v: STATE_VERSION,
		event: 'ipChanged',
		ips: Object.fromEntries(next),
	};
	if (gone) nextState.gone = gone;
	return { events, nextState };
}

/**
 * Items for "Fetch Test Event": the proxies that count, latest change first, each as if its IP had
 * changed from one rotation before; when none counts, one example from a real proxy.
 */
export function ipChangedSamples(
	observation: ProxyObservation,
	params: IpChangedParams,
	limit: number,
): IDataObject[] {
	const unique = uniqueProxies(observation.proxies);
	const counting = unique.filter((proxy) => counts(proxy, params));
	const base = counting.length > 0 ? counting : unique.slice(0, 1);
	return base
		.sort((a, b) =>
			compare(instant(b.last_ip_change, -Infinity), instant(a.last_ip_change, -Infinity)),
		)
		.slice(0, limit)
		.map((proxy) => {
			const at = instant(proxy.last_ip_change, observation.now);
			const every = (Number(proxy.auto_change_time) || 10) * 60_000;
			const after = Number.isFinite(at) ? at : observation.now;
			return ipChangedItem(
				{ ...proxy, last_ip_change: new Date(after).toISOString() },
				new Date(after - every).toISOString(),
				params.output,
				observation.now,
			);
		});
}
