import type { IDataObject, INode, IPollFunctions } from 'n8n-workflow';

import type { PlaceFilters, ProxyFilters } from '../helpers/filters';
import { readPlaceFilters, readProxyFilters } from '../helpers/filters';
import { invalidParameter, numberFrom, parseHours, shown } from '../helpers/validation';
import type { TriggerEvent } from './state';
import { TRIGGER_EVENTS } from './state';

export type StockChange = 'becameAvailable' | 'anyChange' | 'reachedThreshold';

const STOCK_CHANGES: readonly StockChange[] = ['becameAvailable', 'anyChange', 'reachedThreshold'];

export type StockFilters = PlaceFilters;

export type { ProxyFilters };

export interface OutputOptions {
	simplify: boolean;
	includePassword: boolean;
}

export interface StockParams {
	event: 'stockChanged';
	change: StockChange;
	threshold: number;
	filters: StockFilters;
}

export interface ExpiringParams {
	event: 'proxyExpiring';
	withinHours: number;
	filters: ProxyFilters;
	output: OutputOptions;
}

export interface StatusParams {
	event: 'proxyStatusChanged';
	/** Lower-cased; empty = any. */
	fromStatus: string;
	toStatus: string;
	filters: ProxyFilters;
	output: OutputOptions;
}

export interface NewProxyParams {
	event: 'newProxy';
	filters: ProxyFilters;
	output: OutputOptions;
}

export interface RemovedParams {
	event: 'proxyRemoved';
	filters: ProxyFilters;
}

export interface IpChangedParams {
	event: 'ipChanged';
	/** Whether only proxies on automatic rotation count (`auto_change` on). */
	onlyAutoRotating: boolean;
	filters: ProxyFilters;
	output: OutputOptions;
}

export interface LowFundsParams {
	event: 'lowFunds';
	/** Below this balance the funds are low; undefined: no fixed threshold. */
	threshold?: number;
	/** Whether a balance below the upcoming renewals (`upcoming.total.renewal_required`) is low. */
	belowUpcomingRenewals: boolean;
}

export type TriggerParams =
	| StockParams
	| ExpiringParams
	| StatusParams
	| NewProxyParams
	| RemovedParams
	| LowFundsParams
	| IpChangedParams;

export function parseThreshold(node: INode, value: unknown): number {
	const number = numberFrom(value);
	if (!Number.isInteger(number) || number < 1) {
		throw invalidParameter(
			node,
			undefined,
			'Threshold',
			`must be a whole number of 1 or more, but it is ${shown(value)}`,
			'Enter the count a carrier must reach in a city, e.g. 5.',
		);
	}
	return number;
}

export function parseWithinHours(node: INode, value: unknown): number {
	return parseHours(
		node,
		undefined,
		value,
		'Expiring Within (Hours)',
		'Enter how long before its expiry a proxy should be reported, e.g. 24 for one day or 168 for one week.',
	);
}

function statusText(value: unknown): string {
	return typeof value === 'string' ? value.trim().toLowerCase() : '';
}

function collection(ctx: IPollFunctions, name: string): IDataObject {
	const value = ctx.getNodeParameter(name, {}) as unknown;
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as IDataObject)
		: {};
}

function proxyFilters(ctx: IPollFunctions): ProxyFilters {
	return readProxyFilters(collection(ctx, 'proxyFilters'));
}

function outputOptions(ctx: IPollFunctions): OutputOptions {
	const options = collection(ctx, 'options');
	return {
		simplify: options.simplify !== false,
		includePassword: options.includePassword === true,
	};
}

/** Reads and checks every parameter of the chosen event before anything is sent. */
export function readParameters(ctx: IPollFunctions): TriggerParams {
	const node = ctx.getNode();
	const event = ctx.getNodeParameter('event', 'stockChanged') as TriggerEvent;
	if (!(TRIGGER_EVENTS as readonly string[]).includes(event)) {
		throw invalidParameter(
			node,
			undefined,
			'Event',
			`must be one of the events in the list, but it is ${shown(event)}`,
			'Open the node and pick an event from the list.',
		);
	}
	switch (event) {
		case 'stockChanged': {
			const change = ctx.getNodeParameter('stockChange', 'becameAvailable') as StockChange;
			if (!STOCK_CHANGES.includes(change)) {
				throw invalidParameter(
					node,
					undefined,
					'Stock Change',
					`must be one of the options in the list, but it is ${shown(change)}`,
					'Open the node and pick a stock change from the list.',
				);
			}
			const threshold =
				change === 'reachedThreshold'
					? parseThreshold(node, ctx.getNodeParameter('threshold', 5))
					: 1;
			const filters = collection(ctx, 'stockFilters');
			return {
				event,
				change,
				threshold,
				filters: readPlaceFilters(filters),
			};
		}
		case 'proxyExpiring':
			return {
				event,
				withinHours: parseWithinHours(node, ctx.getNodeParameter('withinHours', 24)),
				filters: proxyFilters(ctx),
				output: outputOptions(ctx),
			};
		case 'proxyStatusChanged':
			return {
				event,
				fromStatus: statusText(ctx.getNodeParameter('fromStatus', '')),
				toStatus: statusText(ctx.getNodeParameter('toStatus', '')),
				filters: proxyFilters(ctx),
				output: outputOptions(ctx),
			};
		case 'proxyRemoved':
			return { event, filters: proxyFilters(ctx) };
		case 'lowFunds':
			return readLowFunds(ctx);
		case 'ipChanged':
			return {
				event,
				onlyAutoRotating: ctx.getNodeParameter('onlyAutoRotating', true) !== false,
				filters: proxyFilters(ctx),
				output: outputOptions(ctx),
			};
		default:
			return { event: 'newProxy', filters: proxyFilters(ctx), output: outputOptions(ctx) };
	}
}

/** Low Funds: a threshold (0 = none) and/or the upcoming renewals; at least one of them. */
function readLowFunds(ctx: IPollFunctions): LowFundsParams {
	const node = ctx.getNode();
	const raw = ctx.getNodeParameter('fundsThreshold', 0);
	const amount = numberFrom(raw);
	if (!Number.isFinite(amount) || amount < 0) {
		throw invalidParameter(
			node,
			undefined,
			'Threshold',
			`must be an amount of 0 or more, but it is ${shown(raw)}`,
			'Enter the balance below which to trigger, in the account currency, e.g. 50 (0 for none).',
		);
	}
	const belowUpcomingRenewals = ctx.getNodeParameter('belowUpcomingRenewals', false) === true;
	if (amount === 0 && !belowUpcomingRenewals) {
		throw invalidParameter(
			node,
			undefined,
			'Threshold',
			'is 0 and Below Upcoming Renewals is off, so the funds can never be low',
			'Enter a threshold above 0, e.g. 50, or turn on Below Upcoming Renewals.',
		);
	}
	return {
		event: 'lowFunds',
		threshold: amount > 0 ? amount : undefined,
		belowUpcomingRenewals,
	};
}
