import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../common/objects';
import { matchesProxyFilters } from '../../helpers/framework/filters';
import type { ProxyRecord } from '../../transport';
import type { TextTable } from '../compact';
import {
	instantToStore,
	planOf,
	planParts,
	readTable,
	seededTable,
	storedInstant,
	tableText,
} from '../compact';
import type { Identity } from '../moves';
import { pairMoves, SAME_ADDED } from '../moves';
import type { OutputOptions, ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	isTuple,
	outputProperties,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, Grace, StoredState } from '../state';
import { checkedMap, loadStored, settling, STATE_VERSION, withGrace } from '../state';
import type { NextMap, PerProxy } from '../listing';
import { NONE_GONE, walkTuples } from '../listing';

export type NewProxyParams = ProxyEventParams<'newProxy'>;

/** Whose paid time a proxy is (to recognize a move): added_at, expires_at (ms), plan index. */
export type IdTuple = [added: number | null, expires: number | null, plan: number | null];

/** `ids`: the names listed at the last poll, then those kept while missing; 0 once found moved. */
export type NewProxyState = StoredState & {
	event: 'newProxy';
	ids: Record<string, IdTuple | 0>;
	plans: string[];
};

function isIdTuple(value: unknown, plans: number): boolean {
	if (value === 0) return true;
	if (!Array.isArray(value) || value.length !== 3) return false;
	const [added, expires, plan] = value as unknown[];
	return (
		storedInstant(added) &&
		storedInstant(expires) &&
		(plan === null || (typeof plan === 'number' && Number.isInteger(plan) && plan < plans))
	);
}

/** A version 1 or 2 state: `names`, and `paid` tuples of timestamps (left out before moves). */
function upgradeNewProxy(data: IDataObject): Pick<NewProxyState, 'ids' | 'plans'> | null {
	const names = data.names;
	if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) return null;
	const paid = data.paid === undefined ? {} : data.paid;
	if (!isRecord(paid)) return null;
	const plans: string[] = [];
	const ids: Record<string, IdTuple | 0> = {};
	for (const name of names as string[]) {
		const tuple = Object.prototype.hasOwnProperty.call(paid, name) ? paid[name] : undefined;
		if (!Array.isArray(tuple) || tuple.length !== 4) {
			ids[name] = 0;
			continue;
		}
		const [expiresAt, addedAt, period, autoRenew] = tuple as unknown[];
		const plan = planOf(period, autoRenew);
		if (plan !== null && !plans.includes(plan)) plans.push(plan);
		ids[name] = [
			instantToStore(addedAt),
			instantToStore(expiresAt),
			plan === null ? null : plans.indexOf(plan),
		];
	}
	return { ids, plans };
}

/** The stored New Proxy state (older layouts converted), or null. */
export function loadNewProxyState(staticData: IDataObject): NewProxyState | null {
	return loadStored<NewProxyState>(staticData, 'newProxy', (data) => {
		if (data.ids === undefined) return upgradeNewProxy(data);
		const plans = readTable(data.plans);
		if (plans === null) return null;
		const ids = checkedMap<IdTuple | 0>(data.ids, (item) => isIdTuple(item, plans.length));
		return ids === undefined ? null : { ids, plans };
	});
}

/** A proxy's identity, as the moves compare it. */
export function identityOf(proxy: ProxyRecord): Identity {
	return {
		added: instantToStore(proxy.added_at),
		expires: instantToStore(proxy.expires_at),
		plan: planOf(proxy.period, proxy.auto_renew),
	};
}

/** What New Proxy stores of a listed proxy, its plan added to `table`. */
function idTuple(proxy: ProxyRecord, table: TextTable): IdTuple {
	const plan = planParts(proxy.period, proxy.auto_renew);
	return [
		instantToStore(proxy.added_at),
		instantToStore(proxy.expires_at),
		plan === null ? null : table.ref(...plan),
	];
}

function sameTuple(a: IdTuple | 0 | undefined, b: IdTuple): boolean {
	return a !== undefined && a !== 0 && a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

type Appeared = [name: string, paidTime: Identity, proxy: ProxyRecord];

/** A stored tuple is made from these fields of the record (see `idTuple`). */
const BY_ID: PerProxy = {
	same: (a, b) =>
		a.added_at === b.added_at &&
		a.expires_at === b.expires_at &&
		a.period === b.period &&
		a.auto_renew === b.auto_renew,
	is: isTuple,
};

/** The item of a new proxy; `movedFrom` is its name before Change Location moved it. */
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
 * New Proxy (docs/trigger.md): a moved proxy (moves.ts) is reported with `moved_from`; its old name
 * stays stored for its grace period with 0: it is found moved once.
 */
export function detectNewProxies(
	previous: NewProxyState | null,
	observation: ProxyObservation,
	params: NewProxyParams,
): Detection<NewProxyState> {
	const table = seededTable(previous?.plans);
	const walked = walkTuples<IdTuple | 0>(
		previous?.ids,
		observation.proxies,
		BY_ID,
		(proxy) => idTuple(proxy, table),
		(before, tuple) => sameTuple(before, tuple as IdTuple),
	);
	const { next, missing } = walked;
	const appeared = previous
		? walked.appeared.map(([name, , proxy]): Appeared => [name, identityOf(proxy), proxy])
		: [];
	if (previous && missing.length === 0 && appeared.length === 0 && walked.same)
		return { events: [], nextState: newProxyState(next.keep(previous.ids), previous.plans) };
	const moves = findMoves(previous, missing, appeared, next);
	const settle = settling(previous, observation.now);
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
		removed: observation.gone ?? NONE_GONE,
	};
	const nextState = withGrace(grace, () => newProxyState(next.build(), table.texts));
	return { events, nextState };
}

function newProxyState(ids: NewProxyState['ids'], plans: string[]): NewProxyState {
	return { v: STATE_VERSION, event: 'newProxy', ids, plans };
}

/** The identities of stored tuples (names found moved have none). */
function identities(
	entries: Array<[string, IdTuple | 0]>,
	plans: readonly string[],
): Array<[string, Identity]> {
	const out: Array<[string, Identity]> = [];
	for (const [name, tuple] of entries)
		if (tuple !== 0)
			out.push([
				name,
				{ added: tuple[0], expires: tuple[1], plan: tableText(plans, tuple[2]) ?? null },
			]);
	return out;
}

/**
 * The moves of this poll, new name => old name: stored proxies missing from the list (both rules),
 * then stored proxies still listed with the very same `added_at` (the strong rule only).
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
	properties: [proxyFiltersProperty, ...outputProperties],
	stateKeys: ['ids', 'plans', 'names', 'paid'],
	readParameters: (ctx) => ({ event: 'newProxy', ...proxyEventParameters(ctx) }),
	loadState: loadNewProxyState,
	...proxyEvent('new_proxy'),
	detect: detectNewProxies,
	samples: newProxySamples,
};
