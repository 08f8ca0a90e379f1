import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/filters';
import type { ProxyRecord } from '../../transport';
import type { PaidTime } from '../moves';
import { pairMoves } from '../moves';
import type { OutputOptions, ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	outputOptionsProperty,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, Grace, MissingMarks } from '../state';
import { isRecord, loadStored, STATE_VERSION, withGrace } from '../state';

export type NewProxyParams = ProxyEventParams<'newProxy'>;

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

export const properties: INodeProperties[] = [proxyFiltersProperty, outputOptionsProperty];

/** Reads and checks the New Proxy parameters. */
export function readNewProxyParameters(ctx: IPollFunctions): NewProxyParams {
	return { event: 'newProxy', ...proxyEventParameters(ctx) };
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

/** The stored New Proxy state, or null. */
export function loadNewProxyState(staticData: IDataObject): NewProxyState | null {
	return loadStored<NewProxyState>(staticData, 'newProxy', (data) => {
		const names = data.names;
		if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) return null;
		const paid = paidMap(data.paid);
		if (paid === null) return null;
		const kept = paid === undefined ? {} : { paid };
		return { names: names as string[], ...kept };
	});
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
	const grace: Grace<null> = {
		missing: [...unlisted].map((name): [string, null] => [name, null]),
		marks: previous?.gone,
		now: observation.now,
		keep: (name) => {
			names.push(name);
			const kept = previous?.paid !== undefined ? ownValue(previous.paid, name) : undefined;
			if (kept !== undefined && !moved.has(name)) paid.push([name, kept]);
		},
	};
	const nextState = withGrace(grace, () => ({
		v: STATE_VERSION,
		event: 'newProxy' as const,
		names,
		paid: Object.fromEntries(paid),
	}));
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

export const newProxy: TriggerEventModule<NewProxyParams, NewProxyState, ProxyObservation> = {
	event: {
		name: 'New Proxy',
		value: 'newProxy',
		action: 'On New Proxy',
		description:
			'A proxy appears in the account that was not there at the previous poll; a proxy moved by Change Location carries its old name in moved_from',
	},
	properties,
	stateKeys: ['names', 'paid'],
	readParameters: readNewProxyParameters,
	loadState: loadNewProxyState,
	...proxyEvent('new_proxy'),
	detect: detectNewProxies,
	samples: newProxySamples,
};
