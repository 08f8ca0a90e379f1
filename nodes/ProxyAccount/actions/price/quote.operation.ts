import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, IPairedItemData } from 'n8n-workflow';

import { invalidParameter, parseInterval, parseName, parsePeriod } from '../../helpers/validation';
import type { QuoteData, QuoteLine } from '../../transport';
import { PERIODS, quotePrices } from '../../transport';
import { asNodeError, errorItem, forEachItem } from '../common';

const show = { resource: ['price'], operation: ['quote'] };

export const periodOptions = PERIODS.map((period) => ({
	name: period.charAt(0).toUpperCase() + period.slice(1),
	value: period,
}));

export const description: INodeProperties[] = [
	{
		displayName: 'Lines',
		name: 'lines',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Line',
		default: { line: [{ carrier: '', city: '', interval: 1, period: 'weekly' }] },
		displayOptions: { show },
		description: 'What to price: each line is one proxy of a carrier in a city for a number of periods',
		options: [
			{
				displayName: 'Line',
				name: 'line',
				values: [
					{
						displayName: 'Carrier Name or ID',
						name: 'carrier',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getCarriers' },
						default: '',
						required: true,
						description:
							'Carrier of the proxy, e.g. AT&T. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'City Name or ID',
						name: 'city',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getCities' },
						default: '',
						required: true,
						description:
							'City of the proxy, as listed in stock, e.g. Austin. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Interval',
						name: 'interval',
						type: 'number',
						typeOptions: { minValue: 1, numberPrecision: 0 },
						default: 1,
						required: true,
						description: 'Number of periods, e.g. 2 with Weekly for two weeks',
					},
					{
						displayName: 'Period',
						name: 'period',
						type: 'options',
						options: periodOptions,
						default: 'weekly',
						description: 'Billing period the interval counts in',
					},
				],
			},
		],
	},
	{
		displayName: 'Combine All Items Into One Quote',
		name: 'combineItems',
		type: 'boolean',
		default: false,
		displayOptions: { show },
		description:
			'Whether to send one quote for the lines of all input items together (e.g. one line per item, priced with bulk discounts) instead of one quote per item',
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		displayOptions: { show },
		description:
			'Whether to return one item per line (unit price, member price, line total, quote totals and savings) instead of the quote as the service returns it',
	},
];

/** Reads and checks an item's lines; throws naming the item, the line and the field. */
export function readLines(ctx: IExecuteFunctions, itemIndex: number): QuoteLine[] {
	const node = ctx.getNode();
	const raw = ctx.getNodeParameter('lines.line', itemIndex, []) as IDataObject[];
	if (!Array.isArray(raw) || raw.length === 0) {
		throw invalidParameter(node, itemIndex, 'Lines', 'is empty', 'Add at least one line with a carrier, a city, an interval and a period.');
	}
	return raw.map((line, n) => {
		const label = raw.length > 1 ? ` (line ${n + 1})` : '';
		return {
			isp: parseName(node, itemIndex, line.carrier, `Carrier${label}`, 'AT&T'),
			location: parseName(node, itemIndex, line.city, `City${label}`, 'Austin'),
			interval: parseInterval(node, itemIndex, line.interval, `Interval${label}`),
			period: parsePeriod(node, itemIndex, line.period, `Period${label}`),
		};
	});
}

/**
 * Pairs each requested line with its item in the quote. Within a period the service keys items
 * by opaque keys in request order, so the n-th line of a period is the n-th key of that period.
 */
export function linesWithPrices(lines: QuoteLine[], quote: QuoteData) {
	const seen: Record<string, number> = {};
	return lines.map((line) => {
		const period = quote.periods[line.period];
		const position = (seen[line.period] = (seen[line.period] ?? -1) + 1);
		const entry = period ? Object.entries(period.individual)[position] : undefined;
		return { line, period, key: entry?.[0], item: entry?.[1] };
	});
}

const cents = (amount: number) => Math.round(amount * 100) / 100;

/** One item per line, each with its unit prices, line total and the quote's totals and savings. */
export function simplifyQuote(lines: QuoteLine[], quote: QuoteData): IDataObject[] {
	return linesWithPrices(lines, quote).map(({ line, period, key, item }, n) => ({
		line: n + 1,
		carrier: line.isp,
		city: line.location,
		period: line.period,
		interval: line.interval,
		item_key: key ?? null,
		unit_standard: item?.standard ?? null,
		unit_member: item?.member ?? null,
		unit_price: item && item.interval > 0 ? cents(item.total / item.interval) : null,
		bulk_price: period?.bulk.price ?? null,
		line_total: item?.total ?? null,
		period_total_due: period?.total.due ?? null,
		quote_total_standard: quote.total.standard,
		quote_total_member: quote.total.member,
		quote_total_due: quote.total.due,
		savings_total: quote.savings.total,
		member: quote.member,
	}));
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const simplify = this.getNodeParameter('simplify', 0, false) as boolean;
	const combine = this.getNodeParameter('combineItems', 0, false) as boolean;
	if (!combine) {
		return await forEachItem(this, items, async (i) => {
			const lines = readLines(this, i);
			const { quote } = await quotePrices(this, lines, { itemIndex: i });
			if (!simplify) return [{ json: quote as IDataObject, pairedItem: { item: i } }];
			return simplifyQuote(lines, quote).map((json) => ({ json, pairedItem: { item: i } }));
		});
	}

	// One quote for all items: every item's lines are checked before the single request.
	const lines: QuoteLine[] = [];
	const owners: number[] = [];
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			for (const line of readLines(this, i)) {
				lines.push(line);
				owners.push(i);
			}
		} catch (error) {
			const nodeError = asNodeError(this, error, i);
			if (!this.continueOnFail()) throw nodeError;
			out.push(errorItem(nodeError, i));
		}
	}
	if (lines.length === 0) return out;
	const pairedItem: IPairedItemData[] = [...new Set(owners)].map((item) => ({ item }));
	try {
		const { quote } = await quotePrices(this, lines, { itemIndex: owners[0] });
		if (!simplify) {
			out.push({ json: quote as IDataObject, pairedItem });
		} else {
			simplifyQuote(lines, quote).forEach((json, n) => out.push({ json, pairedItem: { item: owners[n] } }));
		}
	} catch (error) {
		const nodeError = asNodeError(this, error, owners[0]);
		if (!this.continueOnFail()) throw nodeError;
		out.push({ ...errorItem(nodeError, owners[0]), pairedItem });
	}
	return out;
}
