import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/filters';
import { SIMPLE_PROXY_FIELDS } from '../../helpers/output';
import { hoursUntil } from '../../helpers/time';
import type { ProxyRecord } from '../../transport';
import { pairMoves } from '../moves';
import type { ProxyFilters } from '../params';
import { proxyFilters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	listedProxies,
	ownValue,
	proxyEvent,
	proxyFiltersProperty,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, Grace, MissingMarks } from '../state';
import { GRACE_MS, isRecord, loadStored, missingFrom, STATE_VERSION, withGrace } from '../state';

export interface RemovedParams {
	event: 'proxyRemoved';
	filters: ProxyFilters;
}

/** The last known fields of a proxy, as Proxy Removed reports them (never its password). */
export type KnownProxy = Record<string, string | number | boolean | null>;

export interface RemovedState {
	v: typeof STATE_VERSION;
	event: 'proxyRemoved';
	/** Proxy name => its simplified record as last listed (no password), kept while missing. */
	known: Record<string, KnownProxy>;
	/** Marks of the proxies in `known` that are missing from the latest list; left out when none. */
	gone?: MissingMarks;
}

export const properties: INodeProperties[] = [proxyFiltersProperty];

/** Reads and checks the Proxy Removed parameters. */
export function readRemovedParameters(ctx: IPollFunctions): RemovedParams {
	return { event: 'proxyRemoved', filters: proxyFilters(ctx) };
}

/** The stored known proxies (the map itself, as for `stringMap`): flat records of plain values. */
function knownMap(value: unknown): Record<string, KnownProxy> | undefined {
	if (!isRecord(value)) return undefined;
	for (const key in value) {
		const item = value[key];
		if (!isRecord(item)) return undefined;
		for (const field in item) {
			const v = item[field];
			if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
				return undefined;
		}
	}
	return value as Record<string, KnownProxy>;
}

/** The stored Proxy Removed state, or null. */
export function loadRemovedState(staticData: IDataObject): RemovedState | null {
	return loadStored<RemovedState>(staticData, 'proxyRemoved', (data) => {
		const known = knownMap(data.known);
		return known ? { known } : null;
	});
}

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
	const missing = previous ? missingFrom(previous.known, names) : [];
	const moved = previous
		? new Set(pairMoves(missing, appearedKnown(previous.known, next)).values())
		: new Set<string>();
	const grace: Grace<KnownProxy> = {
		missing: missing.filter(([name]) => !moved.has(name)),
		marks: previous?.gone,
		now: observation.now,
		keep: (name, known) => next.push([name, known]),
		forget: (name, known, since) => {
			const asRecord = { ...known, proxy_name: name } as unknown as ProxyRecord;
			if (matchesProxyFilters(asRecord, params.filters))
				events.push(removedItem(known, name, since, observation.now));
		},
	};
	const nextState = withGrace(grace, () => ({
		v: STATE_VERSION,
		event: 'proxyRemoved' as const,
		known: Object.fromEntries(next),
	}));
	return { events, nextState };
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

export const proxyRemoved: TriggerEventModule<RemovedParams, RemovedState, ProxyObservation> = {
	event: {
		name: 'Proxy Removed',
		value: 'proxyRemoved',
		action: 'On Proxy Removed',
		description:
			'A proxy disappears from the account for good (removed or expired, not moved by Change Location); reported after a grace period of 3 polls and 1 hour',
	},
	properties,
	stateKeys: ['known'],
	readParameters: readRemovedParameters,
	loadState: loadRemovedState,
	...proxyEvent('proxy_removed'),
	detect: detectRemoved,
	samples: removedSamples,
};
