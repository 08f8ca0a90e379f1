import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { paired } from '../../helpers/output';
import { carrierFilter, cityFilter, stateFilter } from '../../helpers/fields';
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
];

/** One stock entry as an output item: the entry as returned, its carrier counts as a map, and their total. */
export function stockOutput(entry: StockEntry): IDataObject {
	const { carriers, ...raw } = entry;
	const total = Object.values(carriers).reduce((sum, count) => sum + count, 0);
	return { ...(raw as IDataObject), carriers, total };
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const load = once(async () => await getStock(this));
	return await forEachItem(this, items, async (i) => {
		const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
		const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
		const limit = returnAll ? Infinity : (this.getNodeParameter('limit', i, 50) as number);
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
			out.push(paired(stockOutput(entry), i));
		}
		return out;
	});
}
