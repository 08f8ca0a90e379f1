import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { paired } from '../../helpers/output';
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
			{
				displayName: 'Carrier Name or ID',
				name: 'carrier',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getStockCarriers' },
				default: '',
				description:
					'Only cities with stock for this carrier (with Only Available) and only its count in the total. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'City',
				name: 'city',
				type: 'string',
				default: '',
				placeholder: 'e.g. Austin',
				description: 'Only this city (not case-sensitive)',
			},
			{
				displayName: 'Only Available',
				name: 'onlyAvailable',
				type: 'boolean',
				default: true,
				description: 'Whether to return only open cities with at least one proxy in stock',
			},
			{
				displayName: 'State',
				name: 'state',
				type: 'string',
				default: '',
				placeholder: 'e.g. TX',
				description: 'Only cities in this two-letter state or region code',
			},
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
		const carrier = typeof filters.carrier === 'string' && filters.carrier.trim() !== '' ? carrierKey(filters.carrier) : undefined;
		const city = typeof filters.city === 'string' ? filters.city.trim().toLowerCase() : '';
		const state = typeof filters.state === 'string' ? filters.state.trim().toLowerCase() : '';
		const { entries } = await load();
		const out: INodeExecutionData[] = [];
		for (const entry of entries) {
			if (out.length >= limit) break;
			if (city !== '' && entry.city.toLowerCase() !== city) continue;
			if (state !== '' && entry.state.toLowerCase() !== state) continue;
			const matchedKey = carrier === undefined ? undefined : Object.keys(entry.carriers).find((key) => carrierKey(key) === carrier);
			if (carrier !== undefined && matchedKey === undefined) continue;
			const relevant = matchedKey === undefined ? Object.values(entry.carriers) : [entry.carriers[matchedKey]];
			if (filters.onlyAvailable === true && !(entry.open && relevant.some((count) => count > 0))) continue;
			out.push(paired(stockOutput(entry), i));
		}
		return out;
	});
}
