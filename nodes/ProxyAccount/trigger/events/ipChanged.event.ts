import type { IDataObject } from 'n8n-workflow';

import { matchesProxyFilters } from '../../helpers/framework/filters';
import { parseBoolean } from '../../helpers/framework/validation';
import type { ProxyRecord } from '../../transport';
import type { OutputOptions, ProxyEventParams } from '../params';
import { proxyEventParameters } from '../params';
import type { ProxyObservation } from '../proxies';
import {
	compare,
	instant,
	isNumber,
	outputProperties,
	proxyEvent,
	proxyFiltersProperty,
	record,
	uniqueProxies,
} from '../proxies';
import type { TriggerEventModule } from '../registry';
import type { Detection, MapState } from '../state';
import { loadInstantMapState } from '../state';
import type { PerProxyState } from '../listing';
import { nextPerProxy } from '../listing';
import { formatLike, sameSecond } from '../compact';

export interface IpChangedParams extends ProxyEventParams<'ipChanged'> {
	/** Whether only proxies on automatic rotation count (`auto_change` on). */
	onlyAutoRotating: boolean;
}

/** Proxy name => its last `last_ip_change` (epoch milliseconds). */
export type IpState = MapState<'ipChanged', 'ips', number>;

const BY_IP_CHANGE: PerProxyState<'ipChanged', 'ips'> = {
	event: 'ipChanged',
	field: 'ips',
	same: (a, b) => a.last_ip_change === b.last_ip_change,
	is: isNumber,
};

export function ipChangedItem(
	proxy: ProxyRecord,
	before: string | null,
	output: OutputOptions,
	now: number,
): IDataObject {
	return {
		event: 'ip_changed',
		proxy_name: proxy.proxy_name,
		auto_change: proxy.auto_change,
		auto_change_time: proxy.auto_change_time,
		before: { last_ip_change: before },
		after: { last_ip_change: proxy.last_ip_change },
		record: record(proxy, output, now),
	};
}

const counts = (proxy: ProxyRecord, params: IpChangedParams) =>
	matchesProxyFilters(proxy, params.filters) &&
	(!params.onlyAutoRotating || proxy.auto_change === true);

/** IP Changed: a proxy's `last_ip_change` moved later than the stored one. */
export function detectIpChanges(
	previous: IpState | null,
	observation: ProxyObservation,
	params: IpChangedParams,
): Detection<IpState> {
	const events: IDataObject[] = [];
	const nextState = nextPerProxy(
		previous,
		observation,
		BY_IP_CHANGE,
		(proxy, before, unchanged) => {
			if (unchanged) return before;
			// Read only when the text differs from the record the stored instant was made from.
			const current = instant(proxy.last_ip_change, Number.NaN);
			// A change reported is kept; an unreadable or earlier timestamp changes nothing (an
			// unreadable one is not stored: the next readable one is recorded without an event).
			if (before === undefined) return Number.isNaN(current) ? undefined : current;
			// Instants, to the second: the same rotation written with milliseconds, then without them
			// (or the other way round, or in another UTC offset), is one rotation.
			if (!(current > before) || sameSecond(before, current)) return before;
			if (counts(proxy, params)) {
				const was = formatLike(before, proxy.last_ip_change);
				events.push(ipChangedItem(proxy, was, params.output, observation.now));
			}
			return current;
		},
	);
	return { events, nextState };
}

/** "Fetch Test Event": the proxies that count, latest first, as if rotated now; else one. */
export function ipChangedSamples(
	observation: ProxyObservation,
	params: IpChangedParams,
	limit: number,
): IDataObject[] {
	const unique = uniqueProxies(observation.proxies);
	const counting = unique.filter((proxy) => counts(proxy, params));
	const base = counting.length > 0 ? counting : unique.slice(0, 1);
	return base
		.sort((a, b) =>
			compare(instant(b.last_ip_change, -Infinity), instant(a.last_ip_change, -Infinity)),
		)
		.slice(0, limit)
		.map((proxy) => {
			const at = instant(proxy.last_ip_change, observation.now);
			const every = (Number(proxy.auto_change_time) || 10) * 60_000;
			const after = Number.isFinite(at) ? at : observation.now;
			return ipChangedItem(
				{ ...proxy, last_ip_change: new Date(after).toISOString() },
				new Date(after - every).toISOString(),
				params.output,
				observation.now,
			);
		});
}

export const ipChanged: TriggerEventModule<IpChangedParams, IpState, ProxyObservation> = {
	event: {
		name: 'IP Changed',
		value: 'ipChanged',
		action: 'On IP Changed',
		description:
			'The mobile IP of a proxy changes (its last_ip_change moves), e.g. by its automatic rotation',
	},
	properties: [
		{
			displayName: 'Only Auto-Rotating Proxies',
			name: 'onlyAutoRotating',
			type: 'boolean',
			default: true,
			description:
				'Whether to report only proxies on automatic IP rotation (turned on with Proxy > Set Auto-Rotation)',
		},
		proxyFiltersProperty,
		...outputProperties,
	],
	stateKeys: ['ips'],
	readParameters: (ctx) => ({
		event: 'ipChanged',
		onlyAutoRotating: parseBoolean(
			ctx.getNode(),
			undefined,
			ctx.getNodeParameter('onlyAutoRotating', true),
			'Only Auto-Rotating Proxies',
		),
		...proxyEventParameters(ctx),
	}),
	loadState: (staticData) => loadInstantMapState<IpState>(staticData, 'ipChanged', 'ips'),
	...proxyEvent('ip_changed'),
	detect: detectIpChanges,
	samples: ipChangedSamples,
};
