import type { INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	carrierFilter,
	filtersCollection,
	cityFilter,
	optionsCollection,
	readTimeoutOption,
	returnAllAndLimit,
	stateFilter,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import {
	carrierPasses,
	matchesStockPlace,
	readPlaceFilters,
} from '../../helpers/framework/filters';
import { paired, readRequest, stockOutput } from '../../helpers/framework/output';
import { switchOption } from '../../helpers/framework/validation';
import { getStock } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'getAll',
	name: 'Get Many',
	description: 'Get the stock of every city, with counts per carrier',
	action: 'Get many stock entries',
	subtitle: 'Get Many Stock Entries',
};

export const properties: INodeProperties[] = [
	...returnAllAndLimit,
	filtersCollection([
		carrierFilter(
			'getStockCarriers',
			'Only cities with stock for these carriers (with Only Available) and only their counts in the total',
		),
		cityFilter('stock'),
		{
			displayName: 'Only Available',
			name: 'onlyAvailable',
			type: 'boolean',
			default: true,
			description:
				'Whether to return only open cities with at least one proxy in stock (also when this filter is not added). Turn off to list sold-out and closed cities too.',
		},
		stateFilter('cities'),
	]),
	optionsCollection([readTimeoutOption]),
];

export const executeItem: ItemExecute = async function (i, run) {
	const node = this.getNode();
	const { filters, limit, timeoutMs } = readRequest(this, i);
	const onlyAvailable = switchOption(node, i, filters, 'onlyAvailable', 'Only Available', true);
	const place = readPlaceFilters(node, i, filters);
	// One read serves every input item.
	const { entries } = await run.shared('stock', async () => await getStock(this, { timeoutMs }));
	const out: INodeExecutionData[] = [];
	for (const entry of entries) {
		if (out.length >= limit) break;
		if (!matchesStockPlace(entry, place)) continue;
		const filtered = place.carriers.length > 0;
		const matchedKeys = Object.keys(entry.carriers).filter((key) => carrierPasses(place, key));
		if (filtered && matchedKeys.length === 0) continue;
		const relevant = matchedKeys.map((key) => entry.carriers[key]);
		if (onlyAvailable && !(entry.open && relevant.some((count) => count > 0))) continue;
		out.push(paired(stockOutput(entry, filtered ? matchedKeys : undefined), i));
	}
	return out;
};
