import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	carrierFilter,
	cityFilter,
	includePasswordOption,
	nameContainsFilter,
	stateFilter,
} from '../helpers/descriptions';

const stockEvent = { event: ['stockChanged'] };
const proxyEvents = { event: ['proxyExpiring', 'proxyStatusChanged', 'newProxy', 'ipChanged'] };

/*
 * Each event's `action` is how n8n's node creator lists it ("On IP Changed"): without one, n8n 2.x
 * shows "On " and the name in lower case ("On ip changed").
 */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		default: 'stockChanged',
		options: [
			{
				name: 'IP Changed',
				value: 'ipChanged',
				action: 'On IP Changed',
				description:
					'The mobile IP of a proxy changes (its last_ip_change moves), e.g. by its automatic rotation',
			},
			{
				name: 'Low Funds',
				value: 'lowFunds',
				action: 'On Low Funds',
				description:
					'The wallet balance goes below a threshold or below the upcoming renewals; once per drop',
			},
			{
				name: 'New Proxy',
				value: 'newProxy',
				action: 'On New Proxy',
				description:
					'A proxy appears in the account that was not there at the previous poll; a proxy moved by Change Location carries its old name in moved_from',
			},
			{
				name: 'Proxy Expiring',
				value: 'proxyExpiring',
				action: 'On Proxy Expiring',
				description:
					'A proxy comes within a number of hours of its expiry; once per proxy per expiry',
			},
			{
				name: 'Proxy Removed',
				value: 'proxyRemoved',
				action: 'On Proxy Removed',
				description:
					'A proxy disappears from the account for good (removed or expired, not moved by Change Location); reported after a grace period of 3 polls and 1 hour',
			},
			{
				name: 'Proxy Status Changed',
				value: 'proxyStatusChanged',
				action: 'On Proxy Status Changed',
				description: 'The network status of a proxy changes, e.g. from online to offline',
			},
			{
				name: 'Stock Changed',
				value: 'stockChanged',
				action: 'On Stock Changed',
				description: 'The stock of a city changes for a carrier, e.g. proxies come back in stock',
			},
		],
	},
	{
		displayName: 'Only Auto-Rotating Proxies',
		name: 'onlyAutoRotating',
		type: 'boolean',
		default: true,
		displayOptions: { show: { event: ['ipChanged'] } },
		description:
			'Whether to report only proxies on automatic IP rotation (turned on with Proxy > Set Auto Rotation)',
	},
	{
		displayName: 'Stock Change',
		name: 'stockChange',
		type: 'options',
		default: 'becameAvailable',
		displayOptions: { show: stockEvent },
		options: [
			{
				name: 'Any Count Change',
				value: 'anyChange',
				description: 'Trigger whenever the count of a carrier in a city changes',
			},
			{
				name: 'Became Available',
				value: 'becameAvailable',
				description:
					'Trigger when a city gets proxies for a carrier: its count goes from zero to above zero, or the city\u2019s status turns available',
			},
			{
				name: 'Reached Threshold',
				value: 'reachedThreshold',
				description:
					'Trigger when the count of a carrier in a city goes from below the threshold to at or above it',
			},
		],
	},
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
		displayOptions: { show: { ...stockEvent, stockChange: ['reachedThreshold'] } },
		description: 'The count a carrier must reach in a city, e.g. 5',
	},
	{
		displayName: 'Filters',
		name: 'stockFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: stockEvent },
		options: [
			carrierFilter('getStockCarriers', 'Only changes of these carriers'),
			cityFilter('stock'),
			stateFilter('cities'),
		],
	},
	{
		displayName: 'Expiring Within (Hours)',
		name: 'withinHours',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 24,
		displayOptions: { show: { event: ['proxyExpiring'] } },
		description:
			'Trigger once per proxy when its expiry comes within this many hours. Extending the proxy arms it again.',
	},
	{
		displayName: 'From Status Name or ID',
		name: 'fromStatus',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getNetworkStatusesOrAny' },
		default: '',
		displayOptions: { show: { event: ['proxyStatusChanged'] } },
		description:
			'Only changes away from this network status, or Any. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'To Status Name or ID',
		name: 'toStatus',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getNetworkStatusesOrAny' },
		default: '',
		displayOptions: { show: { event: ['proxyStatusChanged'] } },
		description:
			'Only changes to this network status, or Any. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Threshold',
		name: 'fundsThreshold',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 50,
		displayOptions: { show: { event: ['lowFunds'] } },
		description:
			'Trigger when the balance goes below this amount, in the account currency. 0 for no fixed threshold.',
	},
	{
		displayName: 'Below Upcoming Renewals',
		name: 'belowUpcomingRenewals',
		type: 'boolean',
		default: false,
		displayOptions: { show: { event: ['lowFunds'] } },
		description:
			'Whether to trigger when the balance goes below what the auto-renewals coming up will charge',
	},
	{
		displayName: 'Filters',
		name: 'proxyFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: [...proxyEvents.event, 'proxyRemoved'] } },
		options: [
			carrierFilter('getCarriers', 'Only proxies of these carriers'),
			cityFilter('proxies'),
			nameContainsFilter,
			stateFilter('proxies'),
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: proxyEvents },
		options: [
			includePasswordOption,
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return a simplified version of the proxy record instead of the raw data',
			},
		],
	},
];

/** The canvas subtitle: the chosen event's name, for every event of the Event dropdown. */
export function eventSubtitle(properties: INodeProperties[]): string {
	const event = properties.find((property) => property.name === 'event');
	const names: Record<string, string> = {};
	for (const option of (event?.options ?? []) as INodePropertyOptions[])
		names[String(option.value)] = option.name;
	return `={{ ${JSON.stringify(names)}[$parameter["event"]] }}`;
}
