import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/framework/filters';
import type { ProxyRecord } from '../../transport';
import { seededTable } from '../compact';
import type { Identity } from '../moves';
import { pairMoves, SAME_ADDED } from '../moves';
import type { IdTuple, NewProxyState } from '../newProxyState';
import {
	identityOf,
	idTuple,
	loadNewProxyState,
	sameTuple,
	storedIdentity,
} from '../newProxyState';
import type { OutputOptions, ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	isTuple,
	outputOptionsProperty,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, Grace } from '../state';
import { settling, STATE_VERSION, withGrace } from '../state';
import type { NextMap, PerProxy } from '../listing';
import { walkTuples } from '../listing';

export type NewProxyParams = ProxyEventParams<'newProxy'>;

export type { NewProxyState };
export { loadNewProxyState };

export const properties: INodeProperties[] = [proxyFiltersProperty, outputOptionsProperty];

/** A proxy new to the trigger: its name, its paid time and its record. */
type Appeared = [string, Identity, ProxyRecord];

/** A stored tuple is made from these fields of the record (see `idTuple`). */
const BY_ID: PerProxy = {
	same: (a, b) =>
		a.added_at === b.added_at &&
		a.expires_at === b.expires_at &&
		a.period === b.period &&
		a.auto_renew === b.auto_renew,
	is: isTuple,
};

/** Reads and checks the New Proxy parameters. */
export function readNewProxyParameters(ctx: IPollFunctions): NewProxyParams {
	return { event: 'newProxy', ...proxyEventParameters(ctx) };
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
 * kept while its grace period lasts (see `withGrace`), so its return is not new; once it is
 * forgotten, its return is. While a new baseline settles (see `settling`), a name a partial first
 * reply left out joins it without an event, unless the proxy was added after the first poll.
 *
 * A new name that carries the paid time of a stored proxy (see moves.ts) is that proxy moved by
 * Change Location: it is still reported (its name and port are new), with `moved_from` set to the
 * old name: one missing from the list, or, when one reply lists both names, one still listed that
 * has the very same `added_at`. The old name stays stored while its grace period lasts (so a
 * partial list that hid it does not make its return new), but loses its paid time: it is found
 * moved once.
 */
export function detectNewProxies(
	previous: NewProxyState | null,
	observation: ProxyObservation,
	params: NewProxyParams,
): Detection<NewProxyState> {
	const table = seededTable(previous?.plans);
	const {
		next,
		appeared: added,
		same,
		missing,
	} = walkTuples<IdTuple | 0>(
		previous?.ids,
		observation.proxies,
		BY_ID,
		(proxy) => idTuple(proxy, table),
		(before, tuple) => sameTuple(before, tuple as IdTuple),
	);
	const appeared = previous
		? added.map(([name, , proxy]): Appeared => [name, identityOf(proxy), proxy])
		: [];
	if (previous && missing.length === 0 && appeared.length === 0 && same)
		return {
			events: [],
			nextState: {
				v: STATE_VERSION,
				event: 'newProxy',
				ids: next.keep(previous.ids),
				plans: previous.plans,
			},
		};
	const moves = findMoves(previous, missing, appeared, next);
	const settle = settling(previous);
	const events: IDataObject[] = [];
	for (const [name, id, proxy] of appeared) {
		const movedFrom = moves.get(name) ?? null;
		const joinsBaseline =
			movedFrom === null &&
			settle !== undefined &&
			!(id.added !== null && id.added >= settle.since);
		if (!joinsBaseline && matchesProxyFilters(proxy, params.filters))
			events.push(newProxyItem(proxy, params.output, observation.now, movedFrom));
	}
	const moved = new Set(moves.values());
	const grace: Grace<IdTuple | 0> = {
		missing,
		marks: previous?.gone,
		now: observation.now,
		keep: (name, tuple) => next.add(name, moved.has(name) ? 0 : tuple),
	};
	const nextState = withGrace(grace, () => ({
		v: STATE_VERSION,
		event: 'newProxy' as const,
		ids: next.build(),
		plans: table.texts,
	}));
	return { events, nextState };
}

/** The identities of stored tuples (names found moved have none). */
function identities(
	entries: Array<[string, IdTuple | 0]>,
	plans: readonly string[],
): Array<[string, Identity]> {
	const out: Array<[string, Identity]> = [];
	for (const [name, tuple] of entries) {
		const id = storedIdentity(tuple, plans);
		if (id !== null) out.push([name, id]);
	}
	return out;
}

/**
 * The moves of this poll, new name => old name: stored proxies missing from the list paired with
 * the new ones (both rules of moves.ts), then, for a reply that lists both names, stored proxies
 * still listed with the very same `added_at` (the strong rule only, on their stored paid time).
 */
function findMoves(
	previous: NewProxyState | null,
	missing: Array<[string, IdTuple | 0]>,
	appeared: Appeared[],
	listed: NextMap<IdTuple | 0>,
): Map<string, string> {
	if (previous === null || appeared.length === 0) return new Map();
	const arrived = appeared.map(([name, id]): [string, Identity] => [name, id]);
	const moves = pairMoves(identities(missing, previous.plans), arrived);
	const added = new Set(arrived.map(([, id]) => id.added));
	const stillListed: Array<[string, IdTuple | 0]> = [];
	listed.keys.forEach((name, i) => {
		const tuple = listed.values[i];
		const before = tuple !== 0 && added.has(tuple[0]) ? ownValue(previous.ids, name) : undefined;
		if (before !== undefined) stillListed.push([name, before]);
	});
	return pairMoves(identities(stillListed, previous.plans), arrived, [SAME_ADDED], moves);
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
	stateKeys: ['ids', 'plans', 'names', 'paid'],
	readParameters: readNewProxyParameters,
	loadState: loadNewProxyState,
	...proxyEvent('new_proxy'),
	detect: detectNewProxies,
	samples: newProxySamples,
};
