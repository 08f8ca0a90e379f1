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
import { inVersion, isVersion1 } from '../../helpers/framework/versions';
import { getStock } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'getAll',
	name: 'Get Many',
	description: 'Get the stock of every city, with counts per carrier',
	action: 'Get many stock entries',
	subtitle: 'Get Many Stock Entries',
};

/** The Filters; `implicit`: version 1's Only Available, on also when not added. */
const filters = (implicit: boolean) =>
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
			description: implicit
				? 'Whether to return only open cities with at least one proxy in stock (also when this filter is not added). Turn off to list sold-out and closed cities too.'
				: 'Whether to return only open cities with at least one proxy in stock. Without this filter, sold-out and closed cities are listed too.',
		},
		stateFilter('cities'),
	]);

export const properties: INodeProperties[] = [
	...returnAllAndLimit,
	...inVersion(1, [filters(true)]),
	...inVersion(2, [filters(false)]),
	optionsCollection([readTimeoutOption]),
];

export const executeItem: ItemExecute = async function (i, run) {
	const node = this.getNode();
	const { filters, limit, timeoutMs } = readRequest(this, i);
	// Version 1 filters also when Only Available is not added; version 2 only when it is.
	const onlyAvailable = switchOption(
		node,
		i,
		filters,
		'onlyAvailable',
		'Only Available',
		isVersion1(node),
	);
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
