import type { IDataObject } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/framework/filters';
import { filterText } from '../../helpers/framework/validation';
import type { ProxyRecord } from '../../transport';
import type { OutputOptions, ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import type { PerProxyState } from '../listing';
import { nextPerProxy } from '../listing';
import {
	isText,
	outputProperties,
	proxyEvent,
	proxyFiltersProperty,
	record,
	sampleBase,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, MapState } from '../state';
import { checkedMap, loadMapState } from '../state';

export interface StatusParams extends ProxyEventParams<'proxyStatusChanged'> {
	/** Lower-cased; empty = any. */
	fromStatus: string;
	toStatus: string;
}

/** Proxy name => its last `network_status`. */
export type StatusState = MapState<'proxyStatusChanged', 'status'>;

const BY_STATUS: PerProxyState<'proxyStatusChanged', 'status'> = {
	event: 'proxyStatusChanged',
	field: 'status',
	is: isText,
};

export function statusItem(
	proxy: ProxyRecord,
	before: string,
	output: OutputOptions,
	now: number,
): IDataObject {
	return {
		event: 'proxy_status_changed',
		proxy_name: proxy.proxy_name,
		before: { network_status: before },
		after: { network_status: proxy.network_status },
		record: record(proxy, output, now),
	};
}

/** Proxy Status Changed: a listed proxy's `network_status` differs from the stored one. */
export function detectStatusChanges(
	previous: StatusState | null,
	observation: ProxyObservation,
	params: StatusParams,
): Detection<StatusState> {
	const events: IDataObject[] = [];
	const { fromStatus, toStatus } = params;
	const nextState = nextPerProxy(previous, observation, BY_STATUS, (proxy, before) => {
		const after = proxy.network_status;
		if (before === undefined || before === after) return after;
		if (
			matchesProxyFilters(proxy, params.filters) &&
			(fromStatus === '' || before.trim().toLowerCase() === fromStatus) &&
			(toStatus === '' || after.trim().toLowerCase() === toStatus)
		)
			events.push(statusItem(proxy, before, params.output, observation.now));
		return after;
	});
	return { events, nextState };
}

/** A status other than `after` for a sample's `before`: From Status when set, else online/offline. */
function otherStatus(after: string, fromStatus: string): string {
	if (fromStatus !== '' && fromStatus !== after.trim().toLowerCase()) return fromStatus;
	return after.trim().toLowerCase() === 'online' ? 'offline' : 'online';
}

/**
 * "Fetch Test Event": proxies whose status fits To Status, each with a `before` it could have
 * changed from; else one real proxy as it is. Empty only when the list is.
 */
export function statusSamples(
	observation: ProxyObservation,
	params: StatusParams,
	limit: number,
): IDataObject[] {
	const found = uniqueProxies(observation.proxies)
		.filter(
			(proxy) =>
				matchesProxyFilters(proxy, params.filters) &&
				(params.toStatus === '' || proxy.network_status.trim().toLowerCase() === params.toStatus),
		)
		.slice(0, limit);
	const base = found.length > 0 ? found : sampleBase(observation, params.filters).slice(0, 1);
	return base.map((proxy) =>
		statusItem(
			proxy,
			otherStatus(proxy.network_status, params.fromStatus),
			params.output,
			observation.now,
		),
	);
}

export const proxyStatusChanged: TriggerEventModule<StatusParams, StatusState, ProxyObservation> = {
	event: {
		name: 'Proxy Status Changed',
		value: 'proxyStatusChanged',
		action: 'On Proxy Status Changed',
		description: 'The network status of a proxy changes, e.g. from online to offline',
	},
	properties: [
		{
			displayName: 'From Status Name or ID',
			name: 'fromStatus',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getNetworkStatusesOrAny' },
			default: '',
			description:
				'Only changes away from this network status, or Any. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{
			displayName: 'To Status Name or ID',
			name: 'toStatus',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getNetworkStatusesOrAny' },
			default: '',
			description:
				'Only changes to this network status, or Any. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		proxyFiltersProperty,
		...outputProperties,
	],
	stateKeys: ['status'],
	readParameters(ctx) {
		const status = (name: string, label: string) =>
			filterText(ctx.getNode(), undefined, ctx.getNodeParameter(name, ''), label).toLowerCase();
		return {
			event: 'proxyStatusChanged',
			fromStatus: status('fromStatus', 'From Status Name or ID'),
			toStatus: status('toStatus', 'To Status Name or ID'),
			...proxyEventParameters(ctx),
		};
	},
	loadState: (staticData) =>
		loadMapState<StatusState>(staticData, 'proxyStatusChanged', 'status', (value) =>
			checkedMap<string>(value, isText),
		),
	...proxyEvent('proxy_status_changed'),
	detect: detectStatusChanges,
	samples: statusSamples,
};
