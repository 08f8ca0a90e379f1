import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../common/objects';
import { matchesProxyFilters } from '../../helpers/framework/filters';
import { expiresWithin, hoursUntil } from '../../helpers/framework/time';
import { parseHours } from '../../helpers/framework/validation';
import type { ProxyRecord } from '../../transport';
import type { ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	isNumber,
	outputProperties,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, MapState } from '../state';
import { hasOwn, isTrusted, loadInstantMapState, settling } from '../state';
import type { TextTable } from '../compact';
import {
	epochMs,
	formatLike,
	instantToStore,
	planOf,
	readTable,
	sameSecond,
	seededTable,
	storedInstant,
	tableText,
} from '../compact';
import type { PerProxy, PerProxyState, Walked } from '../listing';
import { NextMap, nextMap, walk } from '../listing';
import type { Identity } from '../moves';
import { pairMoves } from '../moves';
import type { Outside } from '../outsideWindow';
import { knownOutside, rememberOutside, skipOutside } from '../outsideWindow';

export interface ExpiringParams extends ProxyEventParams<'proxyExpiring'> {
	withinHours: number;
}

/** What says whose paid time a proxy is (see moves.ts): its `added_at` (epoch ms) and its plan's index in `plans`. */
export type PaidTuple = [added: number | null, plan: number | null];

/** A listed proxy that came into the window, its expiry, and the value stored for it. */
type Entering = [proxy: ProxyRecord, at: number, stored: number | undefined];

/** The recorded expiry is read again only when the record's `expires_at` changed. */
const BY_EXPIRY: PerProxyState<'proxyExpiring', 'reported'> = {
	event: 'proxyExpiring',
	field: 'reported',
	same: (a, b) => a.expires_at === b.expires_at,
	is: isNumber,
};

/** The paid tuple is made again only when what it is made of changed. */
const BY_PAID: PerProxy = {
	same: (a, b) =>
		a.added_at === b.added_at && a.period === b.period && a.auto_renew === b.auto_renew,
	is: Array.isArray,
};

/**
 * `reported`: proxy name => the expiry (epoch milliseconds) it was last reported (or, at the
 * baseline, seen) within the window for. Compared as instants, so the same expiry written another
 * way (with or without milliseconds, another UTC offset) is the same expiry.
 *
 * `paid` (with its table `plans`): for the names inside the window, what a move by Change Location
 * keeps, so that the mark moves with the proxy (see `detectExpiring`). Left out when empty; a
 * state without it (older, or damaged) only recognizes no move.
 */
export type ExpiringState = MapState<'proxyExpiring', 'reported', number> & {
	paid?: Record<string, PaidTuple>;
	plans?: string[];
};

const isPaid = (value: unknown, plans: number): boolean => {
	if (!Array.isArray(value) || value.length !== 2) return false;
	const [added, plan] = value as unknown[];
	return (
		storedInstant(added) &&
		(plan === null || (typeof plan === 'number' && Number.isInteger(plan) && plan < plans))
	);
};

/** The stored Proxy Expiring state, or null. A damaged `paid` is left out (no move is recognized). */
export function loadExpiringState(staticData: IDataObject): ExpiringState | null {
	const state = loadInstantMapState<ExpiringState>(staticData, 'proxyExpiring', 'reported');
	if (state === null || staticData.paid === undefined) return state;
	const plans = readTable(staticData.plans);
	const paid = staticData.paid;
	if (plans === null || !isRecord(paid)) return state;
	if (!isTrusted(paid))
		for (const name in paid) if (!isPaid(paid[name], plans.length)) return state;
	state.paid = paid as Record<string, PaidTuple>;
	state.plans = plans;
	return state;
}

/** The index of a proxy's plan (period, auto-renew) in `table`, added when new; null when unknown. */
function planIndex(proxy: ProxyRecord, table: TextTable): number | null {
	const { period, auto_renew: autoRenew } = proxy;
	return typeof period === 'string' && typeof autoRenew === 'boolean'
		? table.ref(period, autoRenew ? '1' : '0')
		: null;
}

export function expiringItem(
	proxy: ProxyRecord,
	reportedBefore: number | null,
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
		before: { expires_at: formatLike(reportedBefore, proxy.expires_at) },
		after: { expires_at: proxy.expires_at, expires_in_hours: expiresInHours },
		record: record(proxy, params.output, now),
	};
}

/**
 * Proxy Expiring (docs/trigger.md): a proxy is reported once per expiry (an instant, to the
 * second) when it comes within the window or past. At the baseline, and for a proxy a partial first
 * reply left out while the baseline settles, an expiry inside the window counts as seen. A recorded
 * proxy missing from the list is kept while its grace period lasts. A proxy moved by Change
 * Location (moves.ts, applied inside the window) takes the old name's mark: the same expiry is not
 * reported again; the old name keeps its mark while missing but loses its paid time.
 */
export function detectExpiring(
	previous: ExpiringState | null,
	observation: ProxyObservation,
	params: ExpiringParams,
): Detection<ExpiringState> {
	const memo = outsideMemo(previous, observation.now);
	const found = memo && detectWith(previous, observation, params, memo);
	return (
		found || (detectWith(previous, observation, params, undefined) as Detection<ExpiringState>)
	);
}

/** What the last poll found outside the window, once the baseline settled (outsideWindow.ts). */
function outsideMemo(previous: ExpiringState | null, now: number): Outside | undefined {
	return previous !== null && settling(previous, now) === undefined
		? knownOutside(previous.reported)
		: undefined;
}

/**
 * The list without the proxies the last poll found outside the window and still are (the skip
 * `detectWith` makes too): none of them is a name of `reported` (outsideWindow.ts), so the names
 * `reported` misses from it are those it misses from the whole list, found in a shorter walk.
 */
function listToCompare(
	previous: ExpiringState,
	proxies: ProxyRecord[],
	params: ExpiringParams,
	now: number,
): ProxyRecord[] {
	const memo = outsideMemo(previous, now);
	return memo ? skipOutside(memo, proxies, now, params.withinHours * 3_600_000).rest : proxies;
}

/** `detectExpiring`, beside what the last poll found outside the window (undefined: a name of it is repeated). */
function detectWith(
	previous: ExpiringState | null,
	observation: ProxyObservation,
	params: ExpiringParams,
	memo: Outside | undefined,
): Detection<ExpiringState> | undefined {
	const { proxies, now } = observation;
	const windowMs = params.withinHours * 3_600_000;
	const settle = settling(previous, now);
	// Settled: a proxy outside the window is stored nowhere; it is remembered in outsideWindow.ts instead.
	const settled = previous !== null && settle === undefined;
	const skip = memo && skipOutside(memo, proxies, now, windowMs);
	const outside = new Map<ProxyRecord, number>();
	let repeated = false;
	const next = new NextMap<number>(BY_EXPIRY);
	/** The listed proxies inside the window, in the list's order (their `paid` tuples). */
	const inside: ProxyRecord[] = [];
	/** Listed proxies that came into the window with an expiry not recorded: maybe events. */
	const entering: Entering[] = [];
	let same = 0;
	const list = skip?.rest ?? proxies;
	const walked = walk(previous?.reported, list, BY_EXPIRY, (proxy, name, stored, unchanged) => {
		if (stored === undefined && skip?.has(name)) {
			repeated = true; // listed again after a record that was skipped: walk the whole list
			return;
		}
		// An unchanged expiry recorded inside the window is the one reported: nothing to read.
		const at = unchanged && (stored as number) >= 0 ? 0 : epochMs(proxy.expires_at);
		// A negative value: listed outside the window while the baseline settles (not reported).
		const reported = stored !== undefined && stored >= 0 ? stored : undefined;
		if (unchanged ? reported !== undefined : sameSecond(reported, at)) {
			next.add(name, reported as number, proxy);
			inside.push(proxy);
			same += 1;
		} else if (!(at - now <= windowMs)) {
			// While the baseline settles, a listed proxy is remembered (outside the window, as -expiry),
			// so that its expiry coming into the window is news, not a proxy a partial reply left out.
			if (settled) outside.set(proxy, at);
			else next.add(name, -at, proxy);
		} else {
			next.add(name, at, proxy);
			inside.push(proxy);
			if (previous) entering.push([proxy, at, stored]);
		}
	});
	if (repeated) return undefined;
	const moves = expiringMoves(previous, walked, entering);
	const carried = new Map<string, number>();
	for (const [name, from] of moves) carried.set(name, previous?.reported[from] as number);
	const events: IDataObject[] = [];
	for (const [proxy, at, stored] of entering) {
		const name = proxy.proxy_name;
		const mark = carried.get(name);
		if (sameSecond(mark, at)) {
			// Moved with the same expiry: already reported (or seen) under the old name.
			next.values[next.keys.indexOf(name)] = mark as number;
			continue;
		}
		if (!matchesProxyFilters(proxy, params.filters)) continue;
		const baseline =
			settle !== undefined &&
			stored === undefined &&
			mark === undefined &&
			at - settle.since <= windowMs &&
			!(epochMs(proxy.added_at) >= settle.since);
		const before = stored !== undefined && stored >= 0 ? stored : (mark ?? null);
		if (!baseline) events.push(expiringItem(proxy, before, params, now));
	}
	const nextState: ExpiringState = nextMap(previous, BY_EXPIRY, walked, next, same, observation);
	// The old names of the moves stay while missing (their return is no news), without paid time.
	attachPaid(nextState, previous, inside, new Set(moves.values()));
	if (settled) rememberOutside(nextState.reported, proxies, memo, skip, outside);
	return { events, nextState };
}

/**
 * The moves of this poll, new name => old name: recorded proxies inside the window missing from
 * the list, paired with the names that came into the window without a record (moves.ts).
 */
function expiringMoves(
	previous: ExpiringState | null,
	listed: Walked<number>,
	entering: Entering[],
): Map<string, string> {
	const stored = previous?.paid;
	if (previous === null || stored === undefined) return new Map();
	const appeared: Array<[string, Identity]> = [];
	for (const [proxy, at, before] of entering) {
		if (before !== undefined) continue;
		const added = instantToStore(proxy.added_at);
		appeared.push([
			proxy.proxy_name,
			{ added, expires: at, plan: planOf(proxy.period, proxy.auto_renew) },
		]);
	}
	if (appeared.length === 0) return new Map();
	const vanished: Array<[string, Identity]> = [];
	const plans = previous.plans ?? [];
	for (const name in stored) {
		const expires = previous.reported[name];
		if (listed.listed(name) || !hasOwn(stored, name) || !(expires >= 0)) continue;
		const [added, plan] = stored[name];
		vanished.push([name, { added, expires, plan: tableText(plans, plan) ?? null }]);
	}
	return pairMoves(vanished, appeared);
}

/**
 * Sets `paid` and `plans` on the next state: the tuples of the listed proxies inside the window
 * (`inside`), then those of the recorded proxies kept while missing, but the old names of moves
 * (`moved`: they lose theirs). The stored map itself when nothing in it changed.
 */
function attachPaid(
	state: ExpiringState,
	previous: ExpiringState | null,
	inside: ProxyRecord[],
	moved: ReadonlySet<string>,
): void {
	const stored = previous?.paid;
	const table = seededTable(previous?.plans);
	const next = new NextMap<PaidTuple>(BY_PAID);
	let changed = 0;
	const walked = walk(stored, inside, BY_PAID, (proxy, name, before, unchanged) => {
		const tuple: PaidTuple = unchanged
			? (before as PaidTuple)
			: [instantToStore(proxy.added_at), planIndex(proxy, table)];
		const same = before !== undefined && before[0] === tuple[0] && before[1] === tuple[1];
		next.add(name, same ? before : tuple, proxy);
		if (!same) changed += 1;
	});
	if (stored !== undefined)
		for (const name in state.gone) {
			const tuple = ownValue(stored, name);
			if (tuple !== undefined && !moved.has(name)) next.add(name, tuple);
		}
	if (next.keys.length === 0) return;
	const kept =
		stored !== undefined &&
		changed === 0 &&
		previous?.plans !== undefined &&
		walked.stored === next.keys.length;
	state.paid = kept ? next.keep(stored) : next.build();
	state.plans = kept ? previous.plans : table.texts;
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

export const proxyExpiring: TriggerEventModule<ExpiringParams, ExpiringState, ProxyObservation> = {
	event: {
		name: 'Proxy Expiring',
		value: 'proxyExpiring',
		action: 'On Proxy Expiring',
		description: 'A proxy comes within a number of hours of its expiry; once per proxy per expiry',
	},
	properties: [
		{
			displayName: 'Expiring Within (Hours)',
			name: 'withinHours',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 24,
			description:
				'Trigger once per proxy when its expiry comes within this many hours. Extending the proxy arms it again.',
		},
		proxyFiltersProperty,
		...outputProperties,
	],
	stateKeys: ['reported', 'paid', 'plans'],
	readParameters: (ctx) => ({
		event: 'proxyExpiring',
		withinHours: parseHours(
			ctx.getNode(),
			undefined,
			ctx.getNodeParameter('withinHours', 24),
			'Expiring Within (Hours)',
			'Enter how long before its expiry a proxy should be reported, e.g. 24 for one day or 168 for one week.',
		),
		...proxyEventParameters(ctx),
	}),
	loadState: loadExpiringState,
	...proxyEvent('proxy_expiring'),
	listToCompare,
	detect: detectExpiring,
	samples: expiringSamples,
};
