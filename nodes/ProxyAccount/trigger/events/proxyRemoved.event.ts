import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { isRecord } from '../../common/objects';
import { matchesProxyFilters } from '../../helpers/framework/filters';
import { hoursUntil } from '../../helpers/framework/time';
import type { ProxyRecord } from '../../transport';
import { seededTable, TextTable } from '../compact';
import type { KnownTuple, RemovedState } from '../knownProxy';
import { knownIdentity, knownRecord, knownTuple, readKnown, sameKnown } from '../knownProxy';
import type { Identity } from '../moves';
import { pairMoves, SAME_ADDED } from '../moves';
import type { ProxyFilters } from '../params';
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
import type { Detection, Grace, MissingMarks } from '../state';
import { GRACE_MS, loadStored, STATE_VERSION, stillMissing, withGrace } from '../state';
import type { PerProxy } from '../listing';
import { walkTuples } from '../listing';

export interface RemovedParams {
	event: 'proxyRemoved';
	filters: ProxyFilters;
}

export type { RemovedState };

export const properties: INodeProperties[] = [proxyFiltersProperty];

/** A stored proxy: its name and tuple. */
type Named = [string, KnownTuple];

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

/** Reads and checks the Proxy Removed parameters. */
export function readRemovedParameters(ctx: IPollFunctions): RemovedParams {
	return { event: 'proxyRemoved', filters: proxyFilters(ctx) };
}

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

/** The stored Proxy Removed state (older layouts converted), or null. */
export function loadRemovedState(staticData: IDataObject): RemovedState | null {
	return loadStored<RemovedState>(staticData, 'proxyRemoved', (data) =>
		data.texts === undefined ? upgradeRemoved(data) : readKnown(data),
	);
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
 * or empty list therefore reports nothing, and a proxy that comes back is not reported. When the
 * grace period is over the proxy is reported once (if it matches the filters) and forgotten.
 * Listed proxies are recorded as they are now; the baseline reports nothing.
 *
 * A stored proxy that Change Location moved is not removed: when a proxy the trigger did not know
 * appears (at this poll, or lately while the old name was still listed) carrying its paid time (see
 * moves.ts), the missing one is forgotten at once, without an event. Ambiguous pairs are not
 * taken: those proxies are reported as before.
 */
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
 * The moves of this poll (new name => old name) among the stored proxies missing from the list:
 * to the proxies that appeared now (both rules), then to the names first listed lately (the
 * strong rule only, and only a name first listed after the old one).
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
 * The names first listed lately, with their marks: those that appeared now, and those still
 * listed whose grace period (counted like a missing entry's) lasts. A name paired with a move
 * leaves: it moved once. Undefined when there is none.
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
		.map((proxy) => {
			const table = new TextTable();
			const last = knownRecord(proxy.proxy_name, knownTuple(proxy, table), table.texts);
			return removedItem(last, proxy.proxy_name, observation.now - GRACE_MS, observation.now);
		});
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
	stateKeys: ['known', 'texts', 'fresh'],
	readParameters: readRemovedParameters,
	loadState: loadRemovedState,
	...proxyEvent('proxy_removed'),
	detect: detectRemoved,
	samples: removedSamples,
};
