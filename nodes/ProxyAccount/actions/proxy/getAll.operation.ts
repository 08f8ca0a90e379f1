import type { INodeProperties } from 'n8n-workflow';

import {
	carrierFilter,
	filtersCollection,
	cityFilter,
	includePasswordOption,
	nameContainsFilter,
	optionsCollection,
	readTimeoutOption,
	returnAllAndLimit,
	simplifyField,
	stateFilter,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import {
	matchesProxyFilters,
	readExpiringWithin,
	readProxyFilters,
} from '../../helpers/framework/filters';
import { proxyItems, readRequest } from '../../helpers/framework/output';
import { expiresWithin } from '../../helpers/framework/time';
import { filterText, parseChoice } from '../../helpers/framework/validation';
import type { ProxyRecord } from '../../transport';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'getAll',
	name: 'Get Many',
	description: 'Get the proxies of the account, with filters',
	action: 'Get many proxies',
	subtitle: 'Get Many Proxies',
};

const SORTS = ['none', 'expiresAsc', 'expiresDesc'] as const;

export const properties: INodeProperties[] = [
	...returnAllAndLimit,
	filtersCollection([
		carrierFilter('getCarriers', 'Only proxies of these carriers'),
		cityFilter('proxies'),
		{
			displayName: 'Expiring Within (Hours)',
			name: 'expiringWithinHours',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 24,
			description:
				'Only proxies that expire within this many hours from now, expired ones included',
		},
		nameContainsFilter,
		{
			displayName: 'Network Status Name or ID',
			name: 'networkStatus',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getNetworkStatuses' },
			default: '',
			description:
				'Only proxies with this network status (online, offline, or any other the account\'s proxies show). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		stateFilter('proxies'),
	]),
	{
		displayName: 'Sort',
		name: 'sort',
		type: 'options',
		default: 'none',
		options: [
			{ name: 'As Returned', value: 'none', description: 'Keep the order the service returns' },
			{
				name: 'Soonest Expiry First',
				value: 'expiresAsc',
				description: 'The proxy that expires first comes first (an expired one before it)',
			},
			{
				name: 'Latest Expiry First',
				value: 'expiresDesc',
				description: 'The proxy paid for longest comes first',
			},
		],
	},
	simplifyField,
	optionsCollection([includePasswordOption, readTimeoutOption]),
];

export const executeItem: ItemExecute = async function (i, run) {
	const node = this.getNode();
	const read = readRequest(this, i);
	const { filters } = read;
	const sort = parseChoice(
		node,
		i,
		this.getNodeParameter('sort', i, 'none'),
		'Sort',
		SORTS,
		'none, expiresAsc, expiresDesc',
		'Pick an order from the list (As Returned, Soonest Expiry First, Latest Expiry First).',
	);
	const window = readExpiringWithin(node, i, filters);
	const place = readProxyFilters(node, i, filters);
	const statusFilter = filterText(node, i, filters.networkStatus, 'Network Status Name or ID');
	const status = statusFilter.toLowerCase();

	// The list endpoint takes no parameters: one request serves every input item.
	const load = async () => await send(this, 'listProxies', { timeoutMs: read.timeoutMs });
	const { result: proxies, serverTime } = await run.shared('proxies', load);
	let selected: ProxyRecord[] = proxies.filter((proxy) => {
		if (!matchesProxyFilters(proxy, place)) return false;
		if (status !== '' && String(proxy.network_status).toLowerCase() !== status) return false;
		if (window !== undefined && !expiresWithin(proxy.expires_at, serverTime, window)) return false;
		return true;
	});
	if (sort !== 'none') {
		const direction = sort === 'expiresDesc' ? -1 : 1;
		// An expiry that does not parse sorts last.
		const key = (at: number) => (Number.isNaN(at) ? Infinity : at);
		selected = selected
			.map((proxy) => ({ proxy, at: Date.parse(proxy.expires_at) }))
			.sort((a, b) => direction * (key(a.at) - key(b.at)))
			.map(({ proxy }) => proxy);
	}
	return proxyItems(selected.slice(0, read.limit), { ...read, now: serverTime }, i);
};
