import type { IDataObject, INode, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/filters';
import { expiresWithin, hoursUntil } from '../../helpers/time';
import { parseHours } from '../../helpers/validation';
import type { ProxyRecord } from '../../transport';
import type { ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	isNumber,
	listedProxies,
	outputOptionsProperty,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
	storedValue,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, MapState } from '../state';
import { loadInstantMapState, nextMapState, settling } from '../state';
import { epochMs, formatLike, sameSecond } from '../compact';

export interface ExpiringParams extends ProxyEventParams<'proxyExpiring'> {
	withinHours: number;
}

/**
 * Proxy name => the expiry (epoch milliseconds) it was last reported (or, at the baseline, seen)
 * within the window for. Compared as instants, so the same expiry written another way (with or
 * without milliseconds, another UTC offset) is the same expiry.
 */
export type ExpiringState = MapState<'proxyExpiring', 'reported', number>;

export const properties: INodeProperties[] = [
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
	outputOptionsProperty,
];

export function parseWithinHours(node: INode, value: unknown): number {
	return parseHours(
		node,
		undefined,
		value,
		'Expiring Within (Hours)',
		'Enter how long before its expiry a proxy should be reported, e.g. 24 for one day or 168 for one week.',
	);
}

/** Reads and checks the Proxy Expiring parameters. */
export function readExpiringParameters(ctx: IPollFunctions): ExpiringParams {
	return {
		event: 'proxyExpiring',
		withinHours: parseWithinHours(ctx.getNode(), ctx.getNodeParameter('withinHours', 24)),
		...proxyEventParameters(ctx),
	};
}

/** The stored Proxy Expiring state, or null. */
export function loadExpiringState(staticData: IDataObject): ExpiringState | null {
	return loadInstantMapState<ExpiringState>(staticData, 'proxyExpiring', 'reported');
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
 * Proxy Expiring: a proxy is reported once when its expiry is within the window (or past) and it
 * has not been reported for that same expiry (compared as an instant, to the second: a timestamp
 * written with milliseconds, then without, is one expiry). Extending the proxy changes
 * its expiry, which arms it again. At the baseline every proxy already inside the window is
 * recorded as seen, so it is not reported for that expiry; while the baseline settles (see
 * `settling`), a proxy that a partial first reply left out is treated alike when it was already
 * inside the window at the first poll and was not added since. A listed proxy whose expiry is no
 * longer the one recorded is forgotten unless the new one is within the window. A recorded proxy
 * missing from the list is kept as it was while its grace period lasts (see `withGrace`): if it
 * comes back with the same expiry it is not reported again.
 */
export function detectExpiring(
	previous: ExpiringState | null,
	observation: ProxyObservation,
	params: ExpiringParams,
): Detection<ExpiringState> {
	const next: Array<[string, number]> = [];
	const events: IDataObject[] = [];
	const { unique, names } = listedProxies(observation.proxies);
	const { now } = observation;
	const windowMs = params.withinHours * 3_600_000;
	const settle = settling(previous);
	let same = 0;
	for (const proxy of unique) {
		const name = proxy.proxy_name;
		const at = epochMs(proxy.expires_at);
		const stored = previous ? storedValue(previous.reported, name, isNumber) : undefined;
		// A negative value: listed outside the window while the baseline settles (not reported).
		const reported = stored !== undefined && stored >= 0 ? stored : undefined;
		if (sameSecond(reported, at)) {
			next.push([name, reported as number]);
			same += 1;
			continue;
		}
		if (!(at - now <= windowMs)) {
			// While the baseline settles, a listed proxy is remembered (outside the window, as -expiry),
			// so that its expiry coming into the window is news, not a proxy a partial reply left out.
			if (!previous || settle !== undefined) next.push([name, -at]);
			continue;
		}
		next.push([name, at]);
		if (!previous || !matchesProxyFilters(proxy, params.filters)) continue;
		const baseline =
			settle !== undefined &&
			stored === undefined &&
			at - settle.since <= windowMs &&
			!(epochMs(proxy.added_at) >= settle.since);
		if (!baseline) events.push(expiringItem(proxy, reported ?? null, params, now));
	}
	const nextState = nextMapState(previous, 'proxyExpiring', 'reported', names, now, next, same);
	return { events, nextState };
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
	properties,
	stateKeys: ['reported'],
	readParameters: readExpiringParameters,
	loadState: loadExpiringState,
	...proxyEvent('proxy_expiring'),
	detect: detectExpiring,
	samples: expiringSamples,
};
