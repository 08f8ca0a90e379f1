import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import type { ProxyRecord, StockEntry } from '../../transport';
import { DEFAULT_READ_TIMEOUT_SECONDS } from './descriptions';
import { hoursUntil } from './time';
import { parseBoolean, parseLimit, parseTimeoutSeconds, switchOption } from './validation';

/**
 * What a read (Get, Get Many, Stock > Get Many, Get Funds) takes from item `i`: Filters, Return
 * All / Limit, Simplify, and the Options' Timeout and Include Password (each its default where the
 * operation does not declare it).
 */
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

/**
 * Whether the Options ask for the proxy's password (Include Password): off unless set, and an
 * expression that resolves to anything but true or false is refused, never read as a yes.
 */
export function includePasswordOf(
	node: INode,
	itemIndex: number | undefined,
	options: IDataObject,
): boolean {
	return switchOption(node, itemIndex, options, 'includePassword', 'Include Password');
}

/**
 * One proxy as an output item. The password leaves the node only when asked for; the simplified
 * form keeps the fields workflows use and adds the time left before expiry.
 */
export function proxyOutput(
	record: ProxyRecord,
	options: { simplify: boolean; includePassword: boolean; now: number },
): IDataObject {
	let out: IDataObject;
	if (options.simplify) {
		out = {};
		for (const field of SIMPLE_PROXY_FIELDS) out[field] = record[field] as IDataObject[string];
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

/**
 * One stock entry as an output item: the entry as returned, its carrier counts as a map, and their
 * total; with `onlyCarrier` (a carrier filter), the total counts that carrier only.
 */
export function stockOutput(entry: StockEntry, onlyCarriers?: string[]): IDataObject {
	const { carriers, ...raw } = entry;
	const counted = onlyCarriers ?? Object.keys(carriers);
	const total = counted.reduce((sum, key) => sum + (carriers[key] ?? 0), 0);
	return { ...(raw as IDataObject), carriers, total };
}
