import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';

import {
	carrierField,
	DEFAULT_READ_TIMEOUT_SECONDS,
	intervalField,
	optionsCollection,
	periodOptions,
	readTimeoutOption,
} from '../../helpers/framework/descriptions';
import { forEachItem } from '../../helpers/framework/itemLoop';
import type { BatchedExecute, ItemResults } from '../../helpers/framework/batchedRun';
import { cents } from '../../helpers/money/charges';
import { linesWithPrices, quoteOwnedLines } from '../../helpers/money/quote';
import {
	invalidParameter,
	parseBoolean,
	parseInterval,
	parseName,
	parsePeriod,
	parseTimeoutSeconds,
} from '../../helpers/framework/validation';
import type { QuoteData, QuoteLine } from '../../transport';
import { runWideParameter } from '../../helpers/framework/runOptions';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'quote',
	name: 'Quote',
	description: 'Price proxies by carrier, city and period, with member and bulk prices',
	action: 'Quote a price',
	subtitle: 'Quote Price',
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Lines',
		name: 'lines',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Line',
		default: { line: [{ carrier: '', city: '', interval: 1, period: 'weekly' }] },
		description:
			'What to price: each line is one proxy of a carrier in a city for a number of periods',
		options: [
			{
				displayName: 'Line',
				name: 'line',
				values: [
					carrierField('Carrier of the proxy, e.g. AT&T'),
					{
						displayName: 'City Name or ID',
						name: 'city',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getCities', loadOptionsDependsOn: ['&carrier'] },
						default: '',
						required: true,
						description:
							'City of the proxy, as listed in stock, e.g. Austin (cities without stock for the chosen carrier say so). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					intervalField('Number of periods, e.g. 2 with Weekly for two weeks'),
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
		description:
			'Whether to send one quote for the lines of all input items together (e.g. one line per item, priced with bulk discounts) instead of one quote per item. One value for the whole run.',
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return one item per line (unit price, member price, line total, quote totals and savings) instead of the quote as the service returns it. One value for the whole run.',
	},
	optionsCollection([readTimeoutOption]),
];

/** Price > Quote: the run's mode, then one quote per item or one for all of them. */
export const execute: BatchedExecute<QuoteMode> = async function ({ run, options, items }) {
	if (options.combine) return await quoteAllItems(this, run, items.length, options.simplify);
	return await forEachItem(this, items, async (i) => {
		const lines = readLines(this, i);
		const owners = lines.map(() => i);
		const quote = await quoteOwnedLines(this, lines, owners, timeoutOf(this, i));
		return quoteItems(lines, owners, quote, options.simplify, { item: i });
	});
};

function timeoutOf(ctx: IExecuteFunctions, itemIndex: number): number {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return parseTimeoutSeconds(ctx.getNode(), itemIndex, options, DEFAULT_READ_TIMEOUT_SECONDS);
}

/** Reads and checks an item's lines; throws naming the item, the line and the field. */
export function readLines(ctx: IExecuteFunctions, itemIndex: number): QuoteLine[] {
	const node = ctx.getNode();
	const raw = ctx.getNodeParameter('lines.line', itemIndex, []) as IDataObject[];
	if (!Array.isArray(raw) || raw.length === 0) {
		throw invalidParameter(
			node,
			itemIndex,
			'Lines',
			'is empty',
			'Add at least one line with a carrier, a city, an interval and a period.',
		);
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

/**
 * Simplify and Combine All Items Into One Quote, which hold for the whole run: an expression that
 * gives items different values is refused (every item carries the refusal, or the node stops).
 */
export function readOptions(ctx: IExecuteFunctions, count: number) {
	const runWide = (name: string, label: string, fallback: boolean) => {
		const value = runWideParameter(ctx, count, properties, name, fallback);
		return parseBoolean(ctx.getNode(), undefined, value, label);
	};
	return {
		simplify: runWide('simplify', 'Simplify', true),
		combine: runWide('combineItems', 'Combine All Items Into One Quote', false),
	};
}

type QuoteMode = ReturnType<typeof readOptions>;

/** The output of a quote: as returned, paired with `pairedItem`, or one item per line (Simplify). */
function quoteItems(
	lines: QuoteLine[],
	owners: number[],
	quote: QuoteData,
	simplify: boolean,
	pairedItem: IPairedItemData | IPairedItemData[],
): INodeExecutionData[] {
	if (!simplify) return [{ json: quote as IDataObject, pairedItem }];
	return simplifyQuote(lines, quote).map((json, n) => ({ json, pairedItem: { item: owners[n] } }));
}

/**
 * One quote for all items: every item's lines are checked before the single request; an item whose
 * lines are bad fails alone, and a failed quote fails every item whose lines were in it.
 */
async function quoteAllItems(
	ctx: IExecuteFunctions,
	run: ItemResults,
	count: number,
	simplify: boolean,
): Promise<INodeExecutionData[]> {
	const lines: QuoteLine[] = [];
	const owners: number[] = [];
	for (let i = 0; i < count; i++) {
		try {
			for (const line of readLines(ctx, i)) {
				lines.push(line);
				owners.push(i);
			}
		} catch (error) {
			run.fail(i, error);
		}
	}
	if (lines.length === 0) return run.output();
	const quoted = [...new Set(owners)];
	try {
		const quote = await quoteOwnedLines(ctx, lines, owners, timeoutOf(ctx, owners[0]));
		const pairedItem = quoted.map((item) => ({ item }));
		return [...run.output(), ...quoteItems(lines, owners, quote, simplify, pairedItem)];
	} catch (error) {
		for (const item of quoted) run.fail(item, error);
		return run.output();
	}
}
