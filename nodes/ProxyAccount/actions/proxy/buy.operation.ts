import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { carrierKey } from '../../helpers/carriers';
import { cents, chargeExcess } from '../../helpers/charges';
import { proxiesCount, proxiesWere } from '../../helpers/wording';
import {
	carrierField,
	cityField,
	intervalField,
	keepWalletAtLeastOption,
	sentOnceTimeoutOption,
	dryRunOption,
	maxTotalCostOption,
	SENT_ONCE_TIMEOUT_SECONDS,
	waitTimeoutOption,
	runWideOptionsCollection,
	periodOptions,
	DEFAULT_READ_TIMEOUT_SECONDS,
} from '../../helpers/descriptions';
import { asNodeError } from '../../helpers/execution';
import { sameName } from '../../helpers/filters';
import type { NewProxies } from '../../helpers/newProxies';
import { matchNewProxies, newProxiesReport } from '../../helpers/newProxies';
import { linesWithPrices } from '../../helpers/quote';
import { agentRefusal, itemResults, retryRefusal, spendingLimitMissing } from '../../helpers/run';
import { walletFloorRefusal } from '../../helpers/wallet';
import { parseInterval, parseName, parsePeriod, parseWholeNumber } from '../../helpers/validation';
import type { RunOptions } from '../../helpers/runOptions';
import { readRunOptions } from '../../helpers/runOptions';
import type { DeployLine, StockEntry } from '../../transport';
import {
	DEFAULT_TIMEOUT_MS,
	deployProxies,
	getStock,
	listProxies,
	quotePrices,
} from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'buy',
	name: 'Buy',
	description:
		'Buy new proxies in a city. Charges the wallet the quoted price; as an AI tool only within Maximum Total Cost.',
	action:
		'Buy proxies, charging the wallet (within the Maximum Total Cost and Keep Wallet At Least set by the builder)',
	subtitle: 'Buy Proxies',
};

/** Proxies one item may buy. */
const MAX_QUANTITY = 100;
const DEFAULT_WAIT_SECONDS = 120;
/** Pause between reads of the list while waiting for the new proxies. */
const WAIT_PAUSE_MS = 3_000;

export const properties: INodeProperties[] = [
	{
		displayName:
			'Buying charges your Proxy Account wallet, and the service cannot undo it. Turn on Dry Run (in Options) to see the cost first; all items of a run are bought in one order. Retry On Fail (in Settings) is refused unless Dry Run is on.',
		name: 'buyNotice',
		type: 'notice',
		default: '',
	},
	carrierField('Carrier of the new proxies, e.g. AT&T'),
	cityField('City of the new proxies, as listed in stock, e.g. Austin'),
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_QUANTITY, numberPrecision: 0 },
		default: 1,
		required: true,
		description: 'How many proxies this item buys, 1 to 100',
	},
	intervalField('Number of periods paid for, 1 to 1000, e.g. 1 with Weekly for one week'),
	{
		displayName: 'Period',
		name: 'period',
		type: 'options',
		options: periodOptions,
		default: 'weekly',
		description: 'Unit of the interval',
	},
	runWideOptionsCollection([
		dryRunOption(
			'Whether to only return what the purchase would cost (from a price quote of exactly what would be bought), buying nothing',
		),
		maxTotalCostOption(
			"Get a quote first and buy nothing when the total for all items of the run would be more than this amount, in your account's currency",
		),
		keepWalletAtLeastOption,
		sentOnceTimeoutOption(SENT_ONCE_TIMEOUT_SECONDS, 'A purchase'),
		{
			displayName: 'Wait for New Proxies',
			name: 'waitForNewProxies',
			type: 'boolean',
			default: false,
			description:
				'Whether to read the proxy list until the new proxies appear (the service deploys them shortly after the order) and return their names',
		},
		waitTimeoutOption(
			DEFAULT_WAIT_SECONDS,
			1,
			'How long to wait for the new proxies with Wait for New Proxies (at most 600). Those not there by then are reported as not yet visible.',
		),
	]),
];

interface Order {
	item: number;
	line: DeployLine;
	quantity: number;
}

type BuyOptions = RunOptions;

/** The quote of exactly what would be bought: its total, and each order's cost (null when the quote did not price it). */
interface Priced {
	total: number;
	costs: Map<number, number | null>;
}

function readOptions(ctx: IExecuteFunctions, itemCount: number): BuyOptions {
	return readRunOptions(ctx, itemCount, properties);
}

/** Why the run may not buy at all (a retry, or an agent without a builder's cap), before anything is sent. */
function runRefusal(ctx: IExecuteFunctions, options: BuyOptions) {
	return (
		retryRefusal(ctx, options.dryRun, {
			twice: 'buy the same proxies twice',
			check: 'read the proxy list (Proxy Account > Get Many) and the wallet to see what was bought',
		}) ?? agentRefusal(ctx, spendingLimitMissing('Buy', options))
	);
}

/** Every item's order, checked before anything is sent; a bad item fails alone. */
function readOrders(
	ctx: IExecuteFunctions,
	itemCount: number,
	fail: (i: number, e: unknown) => void,
) {
	const node = ctx.getNode();
	const orders: Order[] = [];
	for (let i = 0; i < itemCount; i++) {
		try {
			orders.push({
				item: i,
				line: {
					isp: parseName(node, i, ctx.getNodeParameter('carrier', i, ''), 'Carrier', 'AT&T'),
					location: parseName(node, i, ctx.getNodeParameter('city', i, ''), 'City', 'Austin'),
					interval: parseInterval(node, i, ctx.getNodeParameter('interval', i, undefined)),
					period: parsePeriod(node, i, ctx.getNodeParameter('period', i, 'weekly')),
				},
				quantity: parseWholeNumber(
					node,
					i,
					ctx.getNodeParameter('quantity', i, 1),
					'Quantity',
					{ min: 1, max: MAX_QUANTITY },
					'Enter how many proxies this item buys, e.g. 1.',
				),
			});
		} catch (error) {
			fail(i, error);
		}
	}
	return orders;
}

/** A quote of exactly what would be bought: it charges nothing, and gives the cost of each item. */
async function quoteOrders(
	ctx: IExecuteFunctions,
	orders: Order[],
	lines: DeployLine[],
	options: BuyOptions,
): Promise<Priced> {
	const { quote } = await quotePrices(ctx, lines, {
		itemIndex: orders[0].item,
		timeoutMs: Math.min(options.timeoutMs, DEFAULT_READ_TIMEOUT_SECONDS * 1000),
	});
	const priced = linesWithPrices(lines, quote);
	const costs = new Map<number, number | null>();
	let at = 0;
	for (const order of orders) {
		let cost: number | null = 0;
		for (let k = 0; k < order.quantity; k++, at++) {
			const price = priced[at].item?.total;
			cost = cost === null || price === undefined ? null : cents(cost + price);
		}
		costs.set(order.item, cost);
	}
	return { total: quote.total.due, costs };
}

const described = (order: Order): IDataObject => ({
	carrier: order.line.isp,
	city: order.line.location,
	quantity: order.quantity,
	interval: order.line.interval,
	period: order.line.period,
});

/**
 * How many proxies of each order's carrier the stock holds in its city, and whether the run's
 * orders for that carrier and city fit in it. Undefined for every order when stock cannot be read.
 */
async function stockOf(
	ctx: IExecuteFunctions,
	orders: Order[],
): Promise<{ failed: string } | { of: (order: Order) => { available: number; asked: number } }> {
	let entries: StockEntry[];
	try {
		({ entries } = await getStock(ctx, {
			itemIndex: orders[0].item,
			timeoutMs: DEFAULT_TIMEOUT_MS,
		}));
	} catch (error) {
		return { failed: asNodeError(ctx, error, orders[0].item).message };
	}
	const place = (order: Order) =>
		`${carrierKey(order.line.isp)}@${order.line.location.toLowerCase()}`;
	const asked = new Map<string, number>();
	for (const order of orders)
		asked.set(place(order), (asked.get(place(order)) ?? 0) + order.quantity);
	const available = (order: Order) => {
		const entry = entries.find((candidate) => sameName(candidate.city, order.line.location));
		if (!entry || entry.open === false) return 0;
		return entry.carriers[carrierKey(order.line.isp)] ?? 0;
	};
	return {
		of: (order: Order) => ({ available: available(order), asked: asked.get(place(order))! }),
	};
}

/**
 * Dry Run: always a preview, whatever the cap: each item's estimate, the run's total, the cap when
 * the estimate passes it (a real run would buy nothing), and the lines the stock cannot fill.
 */
async function preview(
	ctx: IExecuteFunctions,
	orders: Order[],
	priced: Priced,
	cap: number | undefined,
): Promise<Map<number, IDataObject>> {
	const stock = await stockOf(ctx, orders);
	const overCap = cap !== undefined && priced.total > cap;
	const out = new Map<number, IDataObject>();
	for (const order of orders) {
		const notes: string[] = [];
		const json: IDataObject = {
			status: 'dry_run',
			...described(order),
			charged: 0,
			estimated_cost: priced.costs.get(order.item) ?? null,
			estimated_total: priced.total,
		};
		if (overCap) {
			json.max_total_cost = cap;
			json.over_max_total_cost = true;
			notes.push(
				`The estimate of ${priced.total} is more than the Maximum Total Cost of ${cap}: a real run would buy nothing.`,
			);
		}
		if ('of' in stock) {
			const { available, asked } = stock.of(order);
			json.in_stock = available >= asked;
			json.available = available;
			if (available < asked)
				notes.push(
					`Out of stock: ${available} ${order.line.isp} ${available === 1 ? 'proxy is' : 'proxies are'} available in ${order.line.location}, and this run asks for ${asked}. The service would refuse the order.`,
				);
		} else {
			json.in_stock = null;
			notes.push(`Stock could not be read: ${stock.failed}`);
		}
		if (notes.length > 0) json.note = notes.join(' ');
		out.set(order.item, json);
	}
	return out;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const run = itemResults(this, items.length);

	let options: BuyOptions;
	try {
		options = readOptions(this, items.length);
	} catch (error) {
		return run.failAll(error);
	}
	const refusal = runRefusal(this, options);
	if (refusal) return run.failAll(refusal);

	// 1. Every item's order, checked before anything is sent.
	const orders = readOrders(this, items.length, run.fail);
	if (orders.length === 0) return run.output();
	const lines = orders.flatMap((order) => Array.from({ length: order.quantity }, () => order.line));
	const failOrders = (error: unknown) => {
		for (const order of orders) run.fail(order.item, error);
		return run.output();
	};

	// 2. A quote of exactly what would be bought; a Dry Run previews it, a real run keeps within the cap.
	let priced: Priced;
	try {
		priced = await quoteOrders(this, orders, lines, options);
	} catch (error) {
		return failOrders(error);
	}
	const total = priced.total;
	const costs = priced.costs;
	if (options.dryRun) {
		const previews = await preview(this, orders, priced, options.maxTotalCost);
		for (const [item, json] of previews) run.set(item, json);
		return run.output();
	}
	if (options.maxTotalCost !== undefined && total > options.maxTotalCost) {
		return failOrders(
			new NodeOperationError(
				node,
				`The purchase would cost ${total}, more than the Maximum Total Cost of ${options.maxTotalCost}`,
				{
					description: `${proxiesWere(lines.length)} quoted. Nothing was bought or charged. Raise Maximum Total Cost, or buy fewer proxies or for a shorter time.`,
				},
			),
		);
	}

	// The wallet, read now, must keep Keep Wallet At Least after the quoted total.
	if (options.floor !== undefined) {
		const refusal = await walletFloorRefusal(this, options.floor, total, {
			itemIndex: orders[0].item,
			timeoutMs: options.timeoutMs,
			spend: 'This purchase',
		});
		if (refusal !== undefined) return failOrders(refusal);
	}

	// 3. The names there before, to tell the new proxies apart when waiting for them.
	let before: Set<string> | undefined;
	if (options.wait) {
		try {
			const { proxies } = await listProxies(this, {
				itemIndex: orders[0].item,
				timeoutMs: DEFAULT_TIMEOUT_MS,
			});
			before = new Set(proxies.map((proxy) => proxy.proxy_name));
		} catch (error) {
			return failOrders(error);
		}
	}

	// 4. One order for the whole run, sent once: never again once it may have reached the service.
	let charged: number;
	try {
		const { result } = await deployProxies(this, lines, {
			itemIndex: orders[0].item,
			timeoutMs: options.timeoutMs,
		});
		charged = result.total;
	} catch (error) {
		const failed = asNodeError(this, error, orders[0].item);
		if (!run.continueOnFail) throw failed;
		return failOrders(failed);
	}
	// What the service charged, held against the quote and the cap: more is a failure, never a plain "bought".
	const excess = chargeExcess(charged, { quote: total, cap: options.maxTotalCost });
	if (excess !== undefined) {
		return failOrders(
			new NodeOperationError(
				node,
				`The proxies were bought, but the service charged ${charged}, ${excess}`,
				{
					description: `The order for ${proxiesCount(lines.length)} was placed and paid: do not run the purchase again. Check the wallet (Proxy Account > Get Funds) and the proxy list (Get Many), and ask the service about the difference.`,
				},
			),
		);
	}
	// 5. Wait for the new proxies, when asked: read the list until they are all there, or time is up.
	// A proxy is named as an item's only when nothing else could be it (see matchNewProxies).
	const ordered = orders.map((order) => ({
		item: order.item,
		carrier: order.line.isp,
		city: order.line.location,
		quantity: order.quantity,
	}));
	let found = new Map<number, NewProxies>();
	let waitedMs = 0;
	let waitError: string | undefined;
	if (before !== undefined) {
		const started = Date.now();
		for (;;) {
			let fresh: Array<{ proxy_name: string; isp: unknown; city: unknown }> = [];
			try {
				const { proxies } = await listProxies(this, {
					itemIndex: orders[0].item,
					timeoutMs: DEFAULT_TIMEOUT_MS,
				});
				fresh = proxies.filter((proxy) => !before!.has(proxy.proxy_name));
				waitError = undefined;
			} catch (error) {
				waitError = asNodeError(this, error, orders[0].item).message;
			}
			found = matchNewProxies(ordered, fresh);
			waitedMs = Date.now() - started;
			const complete = [...found.values()].every((news) => news.complete);
			if (complete || waitedMs + WAIT_PAUSE_MS > options.waitMs) break;
			await sleep(WAIT_PAUSE_MS);
		}
	}

	for (const order of orders) {
		const json: IDataObject = {
			status: 'bought',
			...described(order),
			cost: costs.get(order.item) ?? null,
			total_charged: charged,
		};
		if (before === undefined) {
			json.note = `The service accepted the order; the new proxies appear in the proxy list shortly (turn on Wait for New Proxies to get their names).`;
		} else {
			const report = newProxiesReport(ordered[orders.indexOf(order)], found.get(order.item)!, {
				waitedMs,
				error: waitError,
			});
			Object.assign(json, report);
		}
		run.set(order.item, json);
	}
	return run.output();
}
