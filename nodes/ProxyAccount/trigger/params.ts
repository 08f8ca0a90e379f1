import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { ProxyFilters } from '../helpers/framework/filters';
import { readProxyFilters } from '../helpers/framework/filters';
import { includePasswordOf } from '../helpers/framework/output';
import { switchOption } from '../helpers/framework/validation';

/*
 * The parameter readers the events share. Each event reads and checks its own parameters in its
 * own module (see registry.ts).
 */

export interface OutputOptions {
	simplify: boolean;
	includePassword: boolean;
}

/** A collection parameter as an object ({} when it is not one). */
export function collection(ctx: IPollFunctions, name: string): IDataObject {
	const value = ctx.getNodeParameter(name, {}) as unknown;
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as IDataObject)
		: {};
}

/** The Filters of the proxy events. */
export function proxyFilters(ctx: IPollFunctions): ProxyFilters {
	return readProxyFilters(ctx.getNode(), undefined, collection(ctx, 'proxyFilters'));
}

/** The Options of the events that output a proxy record (Simplify, Include Password). */
export function outputOptions(ctx: IPollFunctions): OutputOptions {
	const options = collection(ctx, 'options');
	const node = ctx.getNode();
	return {
		simplify: switchOption(node, undefined, options, 'simplify', 'Simplify', true),
		includePassword: includePasswordOf(node, undefined, options),
	};
}

/** The parameters of an event that outputs proxy records: its Filters and its Options, besides its own. */
export interface ProxyEventParams<E extends string> {
	event: E;
	filters: ProxyFilters;
	output: OutputOptions;
}

/** The Filters and the Options of an event that outputs proxy records. */
export function proxyEventParameters(
	ctx: IPollFunctions,
): Pick<ProxyEventParams<string>, 'filters' | 'output'> {
	return { filters: proxyFilters(ctx), output: outputOptions(ctx) };
}
