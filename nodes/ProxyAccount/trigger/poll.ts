import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError } from '../actions/common';
import { matchesProxyFilters, matchesStockPlace } from '../helpers/filters';
import type { CallOptions } from '../transport';
import { getStock, listProxies } from '../transport';
import type { TriggerParams } from './params';
import { readParameters } from './params';
import type { ProxyObservation } from './proxies';
import {
	detectExpiring,
	detectNewProxies,
	detectStatusChanges,
	expiringSamples,
	newProxySamples,
	statusSamples,
	uniqueProxies,
} from './proxies';
import type { ExpiringState, NewProxyState, StatusState, StockState, TriggerState } from './state';
import { commitState, loadState } from './state';
import type { Detection } from './stock';
import { detectStockChanges, stockSamples, uniqueEntries } from './stock';

/** Items "Fetch Test Event" returns at most. */
export const SAMPLE_LIMIT = 5;

const EVENT_NAMES = {
	stockChanged: 'stock_changed',
	proxyExpiring: 'proxy_expiring',
	proxyStatusChanged: 'proxy_status_changed',
	newProxy: 'new_proxy',
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
async function observe(ctx: IPollFunctions, params: TriggerParams, requestOptions: CallOptions): Promise<Observation> {
	if (params.event === 'stockChanged') {
		const { entries, serverTime } = await getStock(ctx, requestOptions);
		return {
			listed: entries.length,
			detect: (previous) => detectStockChanges(previous as StockState | null, { entries }, params),
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
					matching_cities: cities.filter((entry) => matchesStockPlace(entry, params.filters)).length,
				};
			},
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
				detect: (previous) => detectStatusChanges(previous as StatusState | null, observation, params),
				samples: () => statusSamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
		default:
			return {
				listed: proxies.length,
				detect: (previous) => detectNewProxies(previous as NewProxyState | null, observation, params),
				samples: () => newProxySamples(observation, params, SAMPLE_LIMIT),
				summary,
			};
	}
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
 * so the next good poll emits what was pending. An empty list leaves the state as it was too.
 * `requestOptions` is for tests (timeouts, retries).
 */
export async function pollTrigger(ctx: IPollFunctions, requestOptions: CallOptions = {}): Promise<INodeExecutionData[][] | null> {
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
		const previous = loadState(staticData, params.event);
		// Once a state is stored, an empty list is far more often a glitch than an account (or the
		// stock) emptied at once: taken at its word it would make the trigger forget every city or
		// proxy and report them all again at the next poll. It emits nothing and keeps the state.
		if (observation.listed === 0 && previous !== null) return null;
		const { events, nextState } = observation.detect(previous);
		const output = events.length > 0 ? [ctx.helpers.returnJsonArray(events)] : null;
		commitState(staticData, nextState, previous);
		return output;
	} catch (error) {
		throw asNodeError(ctx, error);
	}
}
