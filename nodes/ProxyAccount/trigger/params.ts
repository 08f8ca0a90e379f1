import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import type { ProxyFilters } from '../helpers/framework/filters';
import { readProxyFilters } from '../helpers/framework/filters';
import { includePasswordOf } from '../helpers/framework/output';
import { parseBoolean, switchOption } from '../helpers/framework/validation';
import { isVersion1 } from '../helpers/framework/versions';

export interface OutputOptions {
	simplify: boolean;
	includePassword: boolean;
}

/** A collection parameter as an object ({} when it is not one). */
export function collection(ctx: IPollFunctions, name: string): IDataObject {
	const value = ctx.getNodeParameter(name, {}) as unknown;
	return isRecord(value) ? (value as IDataObject) : {};
}

/** The Filters of the proxy events. */
export function proxyFilters(ctx: IPollFunctions): ProxyFilters {
	return readProxyFilters(ctx.getNode(), undefined, collection(ctx, 'proxyFilters'));
}

/** The parameters of an event that outputs proxy records: its Filters and its Options, besides its own. */
export interface ProxyEventParams<E extends string> {
	event: E;
	filters: ProxyFilters;
	output: OutputOptions;
}

/** The Filters and Options (Simplify, Include Password) of an event that outputs proxies. */
export function proxyEventParameters(
	ctx: IPollFunctions,
): Pick<ProxyEventParams<string>, 'filters' | 'output'> {
	const filters = proxyFilters(ctx);
	const options = collection(ctx, 'options');
	const node = ctx.getNode();
	// Simplify: an option in version 1, a parameter of its own from version 2 on (see proxies.ts).
	const simplify = isVersion1(node)
		? switchOption(node, undefined, options, 'simplify', 'Simplify', true)
		: parseBoolean(node, undefined, ctx.getNodeParameter('simplify', true), 'Simplify');
	return {
		filters,
		output: { simplify, includePassword: includePasswordOf(node, undefined, options) },
	};
}
