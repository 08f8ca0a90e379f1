import type { IDataObject } from 'n8n-workflow';

import { proxyOutput } from '../helpers/output';
import { matchesProxyFilters } from '../helpers/filters';
import { expiresWithin, hoursUntil } from '../helpers/time';
import type { ProxyRecord } from '../transport';
import type { ExpiringParams, NewProxyParams, OutputOptions, StatusParams } from './params';
import type { ExpiringState, NewProxyState, StatusState } from './state';
import { STATE_VERSION } from './state';
import type { Detection } from './stock';

export interface ProxyObservation {
	proxies: ProxyRecord[];
	/** The service's clock when it answered. */
	now: number;
}

/** The proxies with one record per name (the first wins: a repeated record says nothing new). */
export function uniqueProxies(proxies: ProxyRecord[]): ProxyRecord[] {
	const seen = new Set<string>();
	return proxies.filter((proxy) => {
		if (seen.has(proxy.proxy_name)) return false;
		seen.add(proxy.proxy_name);
		return true;
	});
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
	return proxyOutput(proxy, { simplify: output.simplify, includePassword: output.includePassword, now });
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

export function statusItem(proxy: ProxyRecord, before: string, output: OutputOptions, now: number): IDataObject {
	return {
		event: 'proxy_status_changed',
		proxy_name: proxy.proxy_name,
		before: { network_status: before },
		after: { network_status: proxy.network_status },
		record: record(proxy, output, now),
	};
}

export function newProxyItem(proxy: ProxyRecord, output: OutputOptions, now: number): IDataObject {
	return {
		event: 'new_proxy',
		proxy_name: proxy.proxy_name,
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
 * recorded as seen, so it is not reported for that expiry. Proxies that are no longer listed, and
 * records for an expiry a proxy no longer has, are forgotten.
 */
export function detectExpiring(
	previous: ExpiringState | null,
	observation: ProxyObservation,
	params: ExpiringParams,
): Detection<ExpiringState> {
	const next: Array<[string, string]> = [];
	const events: IDataObject[] = [];
	for (const proxy of uniqueProxies(observation.proxies)) {
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
	return { events, nextState: { v: STATE_VERSION, event: 'proxyExpiring', reported: Object.fromEntries(next) } };
}

/** Proxy Status Changed: a listed proxy's `network_status` differs from the previous poll's. */
export function detectStatusChanges(
	previous: StatusState | null,
	observation: ProxyObservation,
	params: StatusParams,
): Detection<StatusState> {
	const next: Array<[string, string]> = [];
	const events: IDataObject[] = [];
	for (const proxy of uniqueProxies(observation.proxies)) {
		next.push([proxy.proxy_name, proxy.network_status]);
		const before = previous ? ownValue(previous.status, proxy.proxy_name) : undefined;
		if (before === undefined || before === proxy.network_status) continue;
		if (!matchesProxyFilters(proxy, params.filters)) continue;
		if (params.fromStatus !== '' && before.trim().toLowerCase() !== params.fromStatus) continue;
		if (params.toStatus !== '' && proxy.network_status.trim().toLowerCase() !== params.toStatus) continue;
		events.push(statusItem(proxy, before, params.output, observation.now));
	}
	return { events, nextState: { v: STATE_VERSION, event: 'proxyStatusChanged', status: Object.fromEntries(next) } };
}

/** New Proxy: a proxy name is listed that was not listed at the previous poll. */
export function detectNewProxies(
	previous: NewProxyState | null,
	observation: ProxyObservation,
	params: NewProxyParams,
): Detection<NewProxyState> {
	const known = new Set(previous?.names ?? []);
	const names: string[] = [];
	const events: IDataObject[] = [];
	for (const proxy of uniqueProxies(observation.proxies)) {
		names.push(proxy.proxy_name);
		if (!previous || known.has(proxy.proxy_name)) continue;
		if (matchesProxyFilters(proxy, params.filters)) events.push(newProxyItem(proxy, params.output, observation.now));
	}
	return { events, nextState: { v: STATE_VERSION, event: 'newProxy', names } };
}

function compare(a: number, b: number): number {
	return a === b ? 0 : a < b ? -1 : 1;
}

function instant(timestamp: unknown, unreadable: number): number {
	const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
	return Number.isNaN(parsed) ? unreadable : parsed;
}

/** Items for "Fetch Test Event": what each event looks like with the account's proxies now. */
export function expiringSamples(observation: ProxyObservation, params: ExpiringParams, limit: number): IDataObject[] {
	return uniqueProxies(observation.proxies)
		.filter((proxy) => matchesProxyFilters(proxy, params.filters) && expiresWithin(proxy.expires_at, observation.now, params.withinHours))
		.sort((a, b) => compare(instant(a.expires_at, Infinity), instant(b.expires_at, Infinity)))
		.slice(0, limit)
		.map((proxy) => expiringItem(proxy, null, params, observation.now));
}

export function statusSamples(observation: ProxyObservation, params: StatusParams, limit: number): IDataObject[] {
	return uniqueProxies(observation.proxies)
		.filter(
			(proxy) =>
				matchesProxyFilters(proxy, params.filters) &&
				(params.toStatus === '' || proxy.network_status.trim().toLowerCase() === params.toStatus),
		)
		.slice(0, limit)
		.map((proxy) => statusItem(proxy, proxy.network_status, params.output, observation.now));
}

export function newProxySamples(observation: ProxyObservation, params: NewProxyParams, limit: number): IDataObject[] {
	return uniqueProxies(observation.proxies)
		.filter((proxy) => matchesProxyFilters(proxy, params.filters))
		.sort((a, b) => compare(instant(b.added_at, -Infinity), instant(a.added_at, -Infinity)))
		.slice(0, limit)
		.map((proxy) => newProxyItem(proxy, params.output, observation.now));
}
