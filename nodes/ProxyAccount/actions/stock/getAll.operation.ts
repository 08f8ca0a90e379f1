import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { paired } from '../../helpers/output';
import { carrierFilter, cityFilter, DEFAULT_READ_TIMEOUT_SECONDS, readTimeoutOption, stateFilter } from '../../helpers/fields';
import { parseLimit, parseTimeoutSeconds } from '../../helpers/validation';
import { matchesStockPlace, readPlaceFilters } from '../../helpers/filters';
import { carrierKey } from '../../methods/carriers';
import type { StockEntry } from '../../transport';
import { getStock } from '../../transport';
import { forEachItem, once, returnAllAndLimit } from '../common';

const show = { resource: ['stock'], operation: ['getAll'] };

export const description: INodeProperties[] = [
	...returnAllAndLimit('stock', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show },
		options: [
			carrierFilter(
				'getStockCarriers',
				'Only cities with stock for this carrier (with Only Available) and only its count in the total',
			),
			cityFilter('stock'),
			{
				displayName: 'Only Available',
				name: 'onlyAvailable',
				type: 'boolean',
				default: true,
				description: 'Whether to return only open cities with at least one proxy in stock',
			},
			stateFilter('cities'),
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [readTimeoutOption],
	},
];

/**
 * One stock entry as an output item: the entry as returned, its carrier counts as a map, and their
 * total; with `onlyCarrier` (a carrier filter), the total counts that carrier only.
 */
export function stockOutput(entry: StockEntry, onlyCarrier?: string): IDataObject {
	const { carriers, ...raw } = entry;
	const total =
		onlyCarrier === undefined
			? Object.values(carriers).reduce((sum, count) => sum + count, 0)
			: (carriers[onlyCarrier] ?? 0);
	return { ...(raw as IDataObject), carriers, total };
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	// One read serves every input item, with the timeout of the first item that needs it.
	let timeoutMs: number | undefined;
	const load = once(async () => await getStock(this, { timeoutMs }));
	return await forEachItem(this, items, async (i) => {
		const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
		const options = this.getNodeParameter('options', i, {}) as IDataObject;
		timeoutMs ??= parseTimeoutSeconds(this.getNode(), i, options, DEFAULT_READ_TIMEOUT_SECONDS);
		const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
		const limit = returnAll ? Infinity : parseLimit(this.getNode(), i, this.getNodeParameter('limit', i, 50));
		const place = readPlaceFilters(filters);
		const { entries } = await load();
		const out: INodeExecutionData[] = [];
		for (const entry of entries) {
			if (out.length >= limit) break;
			if (!matchesStockPlace(entry, place)) continue;
			const matchedKey = place.carrier === undefined ? undefined : Object.keys(entry.carriers).find((key) => carrierKey(key) === place.carrier);
			if (place.carrier !== undefined && matchedKey === undefined) continue;
			const relevant = matchedKey === undefined ? Object.values(entry.carriers) : [entry.carriers[matchedKey]];
			if (filters.onlyAvailable === true && !(entry.open && relevant.some((count) => count > 0))) continue;
			out.push(paired(stockOutput(entry, matchedKey), i));
		}
		return out;
	});
}
