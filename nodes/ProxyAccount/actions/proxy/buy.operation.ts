import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { carrierKey } from '../../helpers/framework/carriers';
import { cents, chargeExcess } from '../../helpers/money/charges';
import { proxiesCount, proxiesWere } from '../../common/wording';
import {
	carrierField,
	cityField,
	DEFAULT_READ_TIMEOUT_SECONDS,
	dryRunOption,
	intervalField,
	keepWalletAtLeastOption,
	maxTotalCostOption,
	periodOptions,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	sentOnceTimeoutOption,
	waitTimeoutOption,
	wholeNumberField,
} from '../../helpers/framework/descriptions';
import type { BatchedExecute, ItemResults } from '../../helpers/framework/batchedRun';
import { asNodeError } from '../../helpers/framework/itemLoop';
import { spendingRefusal } from '../../helpers/guards/runGuards';
import { sameName } from '../../helpers/framework/filters';
import type { OrderedProxies, Waited } from '../../helpers/money/newProxies';
import { newProxiesReport, waitForNewProxies } from '../../helpers/money/newProxies';
import { linesWithPrices, quoteOwnedLines } from '../../helpers/money/quote';
import { readWallet, walletAboveFloor } from '../../helpers/money/wallet';
import type { BeforeOrder } from '../../helpers/money/ordersInDoubt';
import { orderInDoubtRefusal, rememberOrderInDoubt } from '../../helpers/money/ordersInDoubt';
import {
	parseInterval,
	parseName,
	parsePeriod,
	parseWholeNumber,
} from '../../helpers/framework/validation';
import type { RunOptions } from '../../helpers/framework/runOptions';
import { readRunOptions } from '../../helpers/framework/runOptions';
import type { QuoteLine, StockEntry } from '../../transport';
import { DEFAULT_TIMEOUT_MS, getStock, requestErrorFacts, send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'buy',
	name: 'Buy',
	description:
		'Buy new proxies in a city. Charges the wallet the quoted price; as an AI tool only within Maximum Total Cost.',
	action: 'Buy proxies (charges the wallet)',
	subtitle: 'Buy Proxies',
	notices: {
		panel:
			'Buying charges your Proxy Account wallet, and the service cannot undo it. Turn on Dry Run (in Options) to see the cost first; all items of a run are bought in one order. Retry On Fail (in Settings) is refused unless Dry Run is on.',
		tool: 'set Options > Maximum Total Cost and Keep Wallet At Least (above 0) here (a value the agent fills in does not count), or every purchase is refused. A Dry Run needs neither.',
	},
};

/** Proxies one item may buy. */
const MAX_QUANTITY = 100;
const DEFAULT_WAIT_SECONDS = 120;

export const spendsMoney = true;

export const properties: INodeProperties[] = [
	carrierField('Carrier of the new proxies, e.g. AT&T'),
	cityField('City of the new proxies, as listed in stock, e.g. Austin'),
	{
		...wholeNumberField(
			['Quantity', 'quantity'],
			[1, MAX_QUANTITY],
			1,
			'How many proxies this item buys, 1 to 100',
		),
		required: true,
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
				'Whether to read the proxy list until new proxies of the carrier and city appear (the service deploys them shortly after the order) and return them as candidates: the service does not say which proxies it deployed, so a purchase of the same carrier and city by someone else at the same time would be among them',
		},
		waitTimeoutOption(
			DEFAULT_WAIT_SECONDS,
			1,
			'How long to wait for the new proxies with Wait for New Proxies (at most 600). Those not there by then are reported as not yet visible.',
		),
	]),
];

/**
 * Proxy > Buy: every item's order checked, one quote of exactly what would be bought (a Dry Run
 * previews it), the cap and the wallet floor held, one order sent once, then the new proxies read.
 */
export const execute: BatchedExecute<RunOptions> = async function ({ run, options, items }) {
	const orders = readOrders(this, items.length, run);
	if (orders.length === 0) return run.output();
	const lines = orders.flatMap((order) => Array.from({ length: order.quantity }, () => order.line));
	const failOrders = (error: unknown) => {
		for (const order of orders) run.fail(order.item, error);
		return run.output();
	};
	// The same order as one whose answer was lost (an agent retrying): refused if it went through.
	const inDoubt = options.dryRun
		? undefined
		: await orderInDoubtRefusal(this, orders, orders[0].item);
	if (inDoubt !== undefined) return failOrders(inDoubt);
	let priced: Priced;
	try {
		priced = await quoteOrders(this, orders, lines, options);
	} catch (error) {
		return failOrders(error);
	}
	if (options.dryRun) {
		await previewOrders(this, orders, priced, options.maxTotalCost, run);
		return run.output();
	}
	// Past Maximum Total Cost, or below Keep Wallet At Least (the wallet read now): nothing is sent.
	const { maxTotalCost: cap } = options;
	const sent = { itemIndex: orders[0].item, timeoutMs: options.timeoutMs };
	if (cap !== undefined && priced.total > cap) {
		const message = `The purchase would cost ${priced.total}, more than the Maximum Total Cost of ${cap}`;
		return failOrders(
			new NodeOperationError(this.getNode(), message, {
				description: `${proxiesWere(lines.length)} quoted. Nothing was bought or charged. Raise Maximum Total Cost, or buy fewer proxies or for a shorter time.`,
			}),
		);
	}
	// The wallet (held against Keep Wallet At Least) and the list, as a lost answer is checked later.
	const account = await accountBeforeOrder(this, orders[0].item, priced.total, options);
	if ('refusal' in account) return failOrders(account.refusal);
	// One order for the whole run, sent once: never again once it may have reached the service.
	let charged: number;
	try {
		charged = (await send(this, 'deployProxies', { ...sent, body: lines })).result.total;
	} catch (error) {
		if (requestErrorFacts(error)?.mayHaveActed) await rememberOrderInDoubt(this, orders, account);
		return failOrders(asNodeError(this, error, orders[0].item));
	}
	// What the service charged, held against the quote and the cap: more is a failure, never a plain "bought".
	const excess = chargeExcess(charged, { quote: priced.total, cap: options.maxTotalCost });
	if (excess !== undefined) {
		const message = `The proxies were bought, but the service charged ${charged}, ${excess}`;
		return failOrders(
			new NodeOperationError(this.getNode(), message, {
				description: `The order for ${proxiesCount(lines.length)} was placed and paid: do not run the purchase again. Check the wallet (Proxy Account > Get Funds) and the proxy list (Get Many), and ask the service about the difference.`,
			}),
		);
	}
	const waited = options.wait
		? await waitForNewProxies(this, orders, account.names, options.waitMs)
		: undefined;
	reportBought(orders, priced.costs, charged, waited, run);
	return run.output();
};

/** An item's order: its quote line, and its carrier and city to tell its new proxies apart. */
interface Order extends OrderedProxies {
	line: QuoteLine;
}

type Priced = Awaited<ReturnType<typeof quoteOrders>>;

export function readOptions(ctx: IExecuteFunctions, itemCount: number): RunOptions {
	return readRunOptions(ctx, itemCount, properties);
}

/** Why the run may not buy at all (a retry, or an agent without a builder's cap), before anything is sent. */
export function guards(ctx: IExecuteFunctions, options: RunOptions) {
	return spendingRefusal(ctx, 'Buy', options, {
		twice: 'buy the same proxies twice',
		check: 'read the proxy list (Proxy Account > Get Many) and the wallet to see what was bought',
	});
}

/**
 * The account just before the order: the wallet, held against Keep Wallet At Least, and the names
 * in the list (to tell the new proxies apart, now or when a lost answer is checked later).
 */
async function accountBeforeOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	total: number,
	options: RunOptions,
): Promise<BeforeOrder | { refusal: unknown }> {
	let wallet: number | undefined;
	if (options.floor !== undefined) {
		const what = { itemIndex, timeoutMs: options.timeoutMs, spend: 'This purchase' };
		const checked = await walletAboveFloor(ctx, options.floor, total, what);
		if ('refusal' in checked) return checked;
		wallet = checked.funds;
	}
	try {
		wallet ??= await readWallet(ctx, itemIndex, options.timeoutMs);
		const listed = await send(ctx, 'listProxies', { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS });
		return { quoted: total, wallet, names: new Set(listed.result.map((p) => p.proxy_name)) };
	} catch (error) {
		return { refusal: error };
	}
}

/** Every item's order, checked before anything is sent; a bad item fails alone. */
function readOrders(ctx: IExecuteFunctions, itemCount: number, run: ItemResults) {
	const node = ctx.getNode();
	const orders: Order[] = [];
	for (let i = 0; i < itemCount; i++) {
		if (run.failures.has(i)) continue;
		try {
			const line: QuoteLine = {
				isp: parseName(node, i, ctx.getNodeParameter('carrier', i, ''), 'Carrier', 'AT&T'),
				location: parseName(node, i, ctx.getNodeParameter('city', i, ''), 'City', 'Austin'),
				interval: parseInterval(node, i, ctx.getNodeParameter('interval', i, undefined)),
				period: parsePeriod(node, i, ctx.getNodeParameter('period', i, 'weekly')),
			};
			orders.push({
				item: i,
				line,
				carrier: line.isp,
				city: line.location,
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
			run.fail(i, error);
		}
	}
	return orders;
}

/**
 * A quote of exactly what would be bought: it charges nothing. Its total, and each order's cost
 * (null when the quote did not price it).
 */
async function quoteOrders(
	ctx: IExecuteFunctions,
	orders: Order[],
	lines: QuoteLine[],
	options: RunOptions,
) {
	const owners = orders.flatMap((order) =>
		Array.from({ length: order.quantity }, () => order.item),
	);
	const quote = await quoteOwnedLines(
		ctx,
		lines,
		owners,
		Math.min(options.timeoutMs, DEFAULT_READ_TIMEOUT_SECONDS * 1000),
		'The quote before the order was refused: nothing was bought or charged.',
	);
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

/** Per order: its carrier's stock in its city and what the run asks there (or why unread). */
async function stockOf(ctx: IExecuteFunctions, orders: Order[]) {
	let entries: StockEntry[];
	try {
		const call = { itemIndex: orders[0].item, timeoutMs: DEFAULT_TIMEOUT_MS };
		({ entries } = await getStock(ctx, call));
	} catch (error) {
		return asNodeError(ctx, error, orders[0].item).message;
	}
	const place = (order: Order) =>
		`${carrierKey(order.line.isp)}@${order.line.location.toLowerCase()}`;
	const asked = new Map<string, number>();
	for (const order of orders)
		asked.set(place(order), (asked.get(place(order)) ?? 0) + order.quantity);
	return (order: Order) => {
		const entry = entries.find((candidate) => sameName(candidate.city, order.line.location));
		const open = entry !== undefined && entry.open !== false;
		const available = open ? (entry.carriers[carrierKey(order.line.isp)] ?? 0) : 0;
		return { available, asked: asked.get(place(order))! };
	};
}

/** Dry Run: always a preview, whatever the cap, with what the stock cannot fill. */
async function previewOrders(
	ctx: IExecuteFunctions,
	orders: Order[],
	priced: Priced,
	cap: number | undefined,
	run: ItemResults,
): Promise<void> {
	const stock = await stockOf(ctx, orders);
	const overCap = cap !== undefined && priced.total > cap;
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
		if (typeof stock === 'string') {
			json.in_stock = null;
			notes.push(`Stock could not be read: ${stock}`);
		} else {
			const { available, asked } = stock(order);
			json.in_stock = available >= asked;
			json.available = available;
			if (available < asked)
				notes.push(
					`Out of stock: ${available} ${order.line.isp} ${available === 1 ? 'proxy is' : 'proxies are'} available in ${order.line.location}, and this run asks for ${asked}. The service would refuse the order.`,
				);
		}
		if (notes.length > 0) json.note = notes.join(' ');
		run.set(order.item, json);
	}
}

/** Each order's item: what it cost, and the new proxies when the run waited for them. */
function reportBought(
	orders: Order[],
	costs: Map<number, number | null>,
	charged: number,
	waited: Waited | undefined,
	run: ItemResults,
): void {
	for (const order of orders) {
		const json: IDataObject = {
			status: 'bought',
			...described(order),
			cost: costs.get(order.item) ?? null,
			total_charged: charged,
		};
		if (waited === undefined) {
			json.note = `The service accepted the order; the new proxies appear in the proxy list shortly (turn on Wait for New Proxies to get the candidates).`;
		} else {
			const found = waited.found.get(order.item)!;
			const how = { waitedMs: waited.waitedMs, error: waited.error };
			Object.assign(json, newProxiesReport(order, found, how));
		}
		run.set(order.item, json);
	}
}
