import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError } from '../helpers/itemLoop';
import { matchesProxyFilters, matchesStockPlace } from '../helpers/filters';
import type { CallOptions } from '../transport';
import { getFunds, getStock, listProxies } from '../transport';
import { detectLowFunds, lowFundsItem } from './funds';
import type { TriggerParams } from './params';
import { readParameters } from './params';
import type { ProxyObservation } from './proxies';
import {
	detectExpiring,
	detectIpChanges,
	ipChangedSamples,
	detectNewProxies,
	detectStatusChanges,
	expiringSamples,
	newProxySamples,
	detectRemoved,
	removedSamples,
	statusSamples,
	uniqueProxies,
} from './proxies';
import type {
	ExpiringState,
	IpState,
	MissingMarks,
	NewProxyState,
	RemovedState,
	LowFundsState,
	StatusState,
	StockState,
	TriggerState,
} from './state';
import { commitState, loadState, sameJson, withoutMarks } from './state';
import type { Detection } from './stock';
import { detectStockChanges, stockSamples, uniqueEntries } from './stock';

/** Items "Fetch Test Event" returns at most. */
export const SAMPLE_LIMIT = 5;

const EVENT_NAMES = {
	stockChanged: 'stock_changed',
	proxyExpiring: 'proxy_expiring',
	proxyStatusChanged: 'proxy_status_changed',
	newProxy: 'new_proxy',
	proxyRemoved: 'proxy_removed',
	lowFunds: 'low_funds',
	ipChanged: 'ip_changed',
} as const;

interface Observation {
	/** Cities or proxies the service listed. */
	listed: number;
	/** The events against the previous state, and the next state. Pure. */
	detect: (previous: TriggerState | null) => Detection<TriggerState>;
	/** Current examples of the event, for "Fetch Test Event". */
	samples: () => IDataObject[];
	/** One item describing the current state when there is no example either. */
	summary: () => IDataObject;
}

function checkedAt(now: number): string {
	return new Date(now).toISOString();
}

/**
 * Observes the service once: one request to the one endpoint the event needs. Nothing is read
 * from or written to the stored state here.
 */
async function observe(
	ctx: IPollFunctions,
	params: TriggerParams,
	requestOptions: CallOptions,
): Promise<Observation> {
	if (params.event === 'stockChanged') {
		const { entries, serverTime } = await getStock(ctx, requestOptions);
		return {
			listed: entries.length,
			detect: (previous) =>
				detectStockChanges(previous as StockState | null, { entries, now: serverTime }, params),
			samples: () => stockSamples(entries, params, SAMPLE_LIMIT),
			summary: () => {
				const cities = uniqueEntries(entries);
				return {
					event: EVENT_NAMES.stockChanged,
					sample: true,
					message:
						'No city matches the filters and the chosen change right now. Items will look like the ones described in the node\u2019s documentation.',
					checked_at: checkedAt(serverTime),
					cities: cities.length,
					matching_cities: cities.filter((entry) => matchesStockPlace(entry, params.filters))
						.length,
				};
			},
		};
	}
	if (params.event === 'lowFunds') {
		const { funds, serverTime } = await getFunds(ctx, requestOptions);
		const observation = { funds, now: serverTime };
		const item = () => lowFundsItem(observation, params);
		return {
			// Not a list: never "empty".
			listed: 1,
			detect: (previous) => detectLowFunds(previous as LowFundsState | null, observation, params),
			// The event as it would look now, low or not (its `reasons` say which limits it is below).
			samples: () => [item()],
			summary: item,
		};
	}
	const { proxies, serverTime } = await listProxies(ctx, requestOptions);
	const observation: ProxyObservation = { proxies, now: serverTime };
	const summary = () => {
		const unique = uniqueProxies(proxies);
		return {
			event: EVENT_NAMES[params.event],
			sample: true,
			message:
				'No proxy matches the filters and the chosen event right now. Items will look like the ones described in the node\u2019s documentation.',
			checked_at: checkedAt(serverTime),
			proxies: unique.length,
			matching_proxies: unique.filter((proxy) => matchesProxyFilters(proxy, params.filters)).length,
		};
	};
	switch (params.event) {
		case 'proxyExpiring':
			return {
				listed: proxies.length,
				detect: (previous) => detectExpiring(previous as ExpiringState | null, observation, params),
				samples: () => expiringSamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
		case 'proxyStatusChanged':
			return {
				listed: proxies.length,
				detect: (previous) =>
					detectStatusChanges(previous as StatusState | null, observation, params),
				samples: () => statusSamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
		case 'ipChanged':
			return {
				listed: proxies.length,
				detect: (previous) => detectIpChanges(previous as IpState | null, observation, params),
				samples: () => ipChangedSamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
		case 'proxyRemoved':
			return {
				listed: proxies.length,
				detect: (previous) => detectRemoved(previous as RemovedState | null, observation, params),
				samples: () => removedSamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
		default:
			return {
				listed: proxies.length,
				detect: (previous) =>
					detectNewProxies(previous as NewProxyState | null, observation, params),
				samples: () => newProxySamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
	}
}

/**
 * The missing marks this process last stored, by trigger (workflow and node): one small entry per
 * trigger that polled.
 *
 * n8n 2.x saves a polling trigger's static data only when a poll emits: the changes of a poll
 * that emits nothing stay in memory, and after a restart the state is the one saved at the last
 * emitting poll. Going back to that state is harmless for the entries themselves (the polls in
 * between emitted nothing, so it is as if they had not happened), but not for the missing marks:
 * an entry marked missing then may have come back at a poll that was lost, and counting on from
 * the old mark could forget it too early, and report it again when it returns. So the marks are
 * used only when they are exactly the ones this process stored last for this trigger (as they
 * are whenever n8n kept or saved the latest static data); otherwise they are restarted: the
 * entries are kept and count as missing from this poll on.
 */
const storedMarks = new Map<string, MissingMarks | undefined>();

function triggerKey(ctx: IPollFunctions): string | undefined {
	const workflowId = ctx.getWorkflow().id;
	if (workflowId === undefined || workflowId === '') return undefined;
	const node = ctx.getNode();
	return `${workflowId}\u0000${node.id ?? node.name}`;
}

/** The stored state to compare with: its missing marks restarted unless this process stored them. */
function comparedState(stored: TriggerState | null, key: string | undefined): TriggerState | null {
	if (stored === null || stored.gone === undefined) return stored;
	const continued =
		key !== undefined && storedMarks.has(key) && sameJson(storedMarks.get(key), stored.gone);
	return continued ? stored : withoutMarks(stored);
}

/**
 * One poll of the Proxy Account Trigger.
 *
 * - Scheduled poll: observes, compares with the stored state, stores the new state only once
 *   everything succeeded, and returns one item per event (null when there is none). Without a
 *   stored state it records the baseline and returns null.
 * - "Fetch Test Event" (manual mode): returns up to SAMPLE_LIMIT current examples of the event
 *   (items shaped like the real ones, marked `sample: true`), or one item describing the current
 *   state when nothing matches; it never reads or changes the stored state.
 *
 * A failed request throws the transport's NodeApiError unchanged and leaves the state as it was,
 * so the next good poll emits what was pending. An empty list leaves the state as it was too. A
 * city or proxy missing from a list that is not empty is kept for a grace period (see
 * `keepMissing` in state.ts), so a partial list does not make the trigger report it again.
 * `requestOptions` is for tests (timeouts, retries).
 */
export async function pollTrigger(
	ctx: IPollFunctions,
	requestOptions: CallOptions = {},
): Promise<INodeExecutionData[][] | null> {
	try {
		const params = readParameters(ctx);
		const observation = await observe(ctx, params, requestOptions);
		if (ctx.getMode() === 'manual') {
			// The stored state is not even read: asking n8n for it would create it.
			let items = observation.samples();
			if (items.length === 0) items = [observation.summary()];
			return [ctx.helpers.returnJsonArray(items.map((item) => ({ ...item, sample: true })))];
		}

		// Only now that the service has answered is the stored state read, compared and replaced.
		const staticData = ctx.getWorkflowStaticData('node');
		const stored = loadState(staticData, params.event);
		// Once a state is stored, an empty list is far more often a glitch than an account (or the
		// stock) emptied at once: taken at its word it would make the trigger forget every city or
		// proxy and report them all again at the next poll. It emits nothing and keeps the state.
		if (observation.listed === 0 && stored !== null) return null;
		const key = triggerKey(ctx);
		const { events, nextState } = observation.detect(comparedState(stored, key));
		const output = events.length > 0 ? [ctx.helpers.returnJsonArray(events)] : null;
		commitState(staticData, nextState, stored);
		if (key !== undefined) storedMarks.set(key, nextState.gone);
		return output;
	} catch (error) {
		throw asNodeError(ctx, error);
	}
}
