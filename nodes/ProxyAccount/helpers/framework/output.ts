import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import type { ProxyRecord, StockEntry } from '../../transport';
import { DEFAULT_READ_TIMEOUT_SECONDS } from './descriptions';
import { hoursUntil } from './time';
import { parseBoolean, parseLimit, parseTimeoutSeconds, switchOption } from './validation';

/** What a read (Get, Get Many, Get Funds) takes from item `i`, each its default where undeclared. */
export function readRequest(ctx: IExecuteFunctions, i: number) {
	const node = ctx.getNode();
	const switchOf = (name: string, field: string, fallback: boolean) =>
		parseBoolean(node, i, ctx.getNodeParameter(name, i, fallback), field);
	const filters = ctx.getNodeParameter('filters', i, {}) as IDataObject;
	const returnAll = switchOf('returnAll', 'Return All', false);
	const limit = returnAll ? Infinity : parseLimit(node, i, ctx.getNodeParameter('limit', i, 50));
	const simplify = switchOf('simplify', 'Simplify', true);
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const timeoutMs = parseTimeoutSeconds(node, i, options, DEFAULT_READ_TIMEOUT_SECONDS);
	const includePassword = includePasswordOf(node, i, options);
	return { filters, limit, simplify, timeoutMs, includePassword };
}

/** Fields of the simplified proxy: what an auto-extend or monitoring workflow needs. */
export const SIMPLE_PROXY_FIELDS = [
	'proxy_name',
	'nickname',
	'isp',
	'city',
	'state',
	'period',
	'expires_at',
	'network_status',
	'server_ip',
	'h_port',
	's_port',
	'username',
	'auto_renew',
] as const;

/** SIMPLE_PROXY_FIELDS written out in order: one object shape for thousands of items (helpers.test.ts). */
const simpleProxy = (r: ProxyRecord): IDataObject => ({
	proxy_name: r.proxy_name,
	nickname: r.nickname,
	isp: r.isp,
	city: r.city,
	state: r.state,
	period: r.period,
	expires_at: r.expires_at,
	network_status: r.network_status,
	server_ip: r.server_ip,
	h_port: r.h_port,
	s_port: r.s_port,
	username: r.username,
	auto_renew: r.auto_renew,
});

/** Include Password of the Options: off unless set; anything but true or false is refused. */
export function includePasswordOf(
	node: INode,
	itemIndex: number | undefined,
	options: IDataObject,
): boolean {
	return switchOption(node, itemIndex, options, 'includePassword', 'Include Password');
}

/** One proxy as an output item, with the time left; the password only when asked for. */
export function proxyOutput(
	record: ProxyRecord,
	options: { simplify: boolean; includePassword: boolean; now: number },
): IDataObject {
	let out: IDataObject;
	if (options.simplify) {
		out = simpleProxy(record);
	} else {
		out = { ...(record as IDataObject) };
		if (!options.includePassword) delete out.password;
	}
	out.expires_in_hours = hoursUntil(record.expires_at, options.now);
	if (options.simplify && options.includePassword) out.password = record.password;
	return out;
}

export function paired(json: IDataObject, item: number): INodeExecutionData {
	return { json, pairedItem: { item } };
}

/** Proxies as output items of item `i`, as Simplify and Include Password ask. */
export function proxyItems(
	proxies: ProxyRecord[],
	options: { simplify: boolean; includePassword: boolean; now: number },
	i: number,
): INodeExecutionData[] {
	return proxies.map((proxy) => paired(proxyOutput(proxy, options), i));
}

/** One stock entry as an output item, with the total of its carriers (or of `onlyCarriers`). */
export function stockOutput(entry: StockEntry, onlyCarriers?: string[]): IDataObject {
	const { carriers, ...raw } = entry;
	const counted = onlyCarriers ?? Object.keys(carriers);
	const total = counted.reduce((sum, key) => sum + (carriers[key] ?? 0), 0);
	return { ...(raw as IDataObject), carriers, total };
}
