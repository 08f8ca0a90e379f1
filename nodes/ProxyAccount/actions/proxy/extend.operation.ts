import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	isSet,
	MAX_TIMEOUT_SECONDS,
	parseBoolean,
	parseHours,
	parseInterval,
	parseTimeoutSeconds,
	parseWholeNumber,
} from '../../helpers/validation';
import type { AllocateLine } from '../../transport';
import {
	allocateTime,
	DEFAULT_TIMEOUT_MS,
	listProxies,
	quotePrices,
	requestErrorFacts,
} from '../../transport';
import {
	intervalField,
	optionsCollection,
	keepWalletAtLeastOption,
	periodOptions,
	RUN_WIDE_NOTE,
} from '../../helpers/descriptions';
import { proxyNameReader, proxySourceProperties } from '../../helpers/proxySource';
import { limitOption } from '../../helpers/agent';
import { cents, CostLedger } from '../../helpers/charges';
import { countOf, proxiesCount, proxiesWere } from '../../helpers/wording';
import type { Repeat } from '../../helpers/run';
import { agentRefusal, itemResults, retryRefusal, spendingLimitMissing } from '../../helpers/run';
import { walletFloorRefusal } from '../../helpers/wallet';
import { runWideOptions } from '../../helpers/runOptions';
import { asNodeError, itemParameter } from '../../helpers/execution';
import { linesWithPrices, refusedLine } from '../../helpers/quote';
import {
	addToDescription,
	chunk,
	groupByProxy,
	itemList,
	nameList,
	repeatsOf,
} from '../../helpers/batches';
import type { Charged, Planned, ReadBack, Wanted } from '../../helpers/extension';
import {
	extendedItem,
	overchargedError,
	planAgainstList,
	quoteLineOf,
	readBack,
	readPeriod,
	SAME_AS_PROXY,
	stillExpiring,
	windowNotShorter,
} from '../../helpers/extension';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'extend',
	name: 'Extend',
	description:
		'Add paid time to proxies. Charges the wallet: as an AI tool only within Maximum Total Cost.',
	action:
		'Extend proxies, charging the wallet (within the Maximum Total Cost and Keep Wallet At Least set by the builder)',
	subtitle: 'Extend Proxies',
};

export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;
const DEFAULT_TIMEOUT_SECONDS = 60;

export const properties: INodeProperties[] = [
	{
		displayName:
			'Extending charges your Proxy Account wallet. Turn on Dry Run (in Options) to see the cost first. Retry On Fail (in Settings) is refused unless Dry Run is on, so that a run never pays twice.',
		name: 'chargeNotice',
		type: 'notice',
		default: '',
	},
	...proxySourceProperties(
		'The proxy to add paid time to. With several input items, each item names one proxy.',
	),
	intervalField('Number of periods to add, 1 to 1000, e.g. 1 with Weekly for one more week'),
	{
		displayName: 'Period',
		name: 'period',
		type: 'options',
		options: [
			{
				name: 'Same as Proxy',
				value: SAME_AS_PROXY,
				description: 'Each proxy is extended by its own billing period (its period field)',
			},
			...periodOptions,
		],
		default: SAME_AS_PROXY,
		description: 'Unit of the interval',
	},
	optionsCollection(
		[
			{
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_BATCH_SIZE, numberPrecision: 0 },
				default: DEFAULT_BATCH_SIZE,
				description:
					'How many proxies to extend per request. All input items go out in as few requests as this allows.',
			},
			{
				displayName: 'Dry Run',
				name: 'dryRun',
				type: 'boolean',
				default: false,
				description:
					'Whether to only return what the extension would cost (from a price quote), charging nothing',
			},
			{
				displayName: 'Maximum Total Cost',
				name: 'maxTotalCost',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 100,
				description:
					"Get a quote first and extend nothing when the total for all proxies of the run would be more than this amount, in your account's currency. During the run, no further batch is sent once what was charged (or a batch charged more than its quote) would pass it.",
			},
			keepWalletAtLeastOption,
			{
				displayName: 'Only If Expiring Within (Hours)',
				name: 'onlyIfExpiringWithinHours',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 24,
				description:
					'Skip proxies that expire later than this many hours from now. Keep it shorter than the extension (Interval \u00d7 Period), e.g. 24 with 1 week: a second run then finds the proxies extended past the window and pays nothing.',
				hint: 'A window as long as the extension or longer extends the same proxies again on a second run',
			},
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeoutSeconds',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS, numberPrecision: 0 },
				default: DEFAULT_TIMEOUT_SECONDS,
				description:
					'The longest one request may take, its whole answer included (at most 600; the reads around the extension wait at most 30 s). An extension request that times out is never sent again automatically.',
			},
		],
		RUN_WIDE_NOTE,
	),
];

interface RunOptions {
	batchSize: number;
	dryRun: boolean;
	maxTotalCost?: number;
	/** Keep Wallet At Least, as it counts (see `maxTotalCost`). */
	floor?: number;
	window?: number;
	timeoutMs: number;
	/** For the reads around the extension (look-up, quote, read-back): the timeout, at most the reads' default. */
	readTimeoutMs: number;
}

type Run = ReturnType<typeof itemResults>;
type Repeats = Repeat[];

/** The options apply to the whole run: a refusal of one names no item. */
const RUN_WIDE = undefined;

/**
 * The options of the run, from the first item. An option that is set but resolves to nothing or
 * to something else than its type is an error: a safety option never falls back to "off".
 */

function readOptions(ctx: IExecuteFunctions, itemCount: number): RunOptions {
	const node = ctx.getNode();
	const options = runWideOptions(ctx, itemCount, properties);
	const batchSize = isSet(options, 'batchSize')
		? parseWholeNumber(
				node,
				RUN_WIDE,
				options.batchSize,
				'Batch Size',
				{ min: 1, max: MAX_BATCH_SIZE },
				`Enter how many proxies to extend per request, e.g. ${DEFAULT_BATCH_SIZE}.`,
			)
		: DEFAULT_BATCH_SIZE;
	const timeoutMs = parseTimeoutSeconds(node, RUN_WIDE, options, DEFAULT_TIMEOUT_SECONDS);
	return {
		batchSize,
		dryRun: isSet(options, 'dryRun')
			? parseBoolean(node, RUN_WIDE, options.dryRun, 'Dry Run')
			: false,
		// As an AI agent's tool, a cap the agent filled in counts as no cap.
		maxTotalCost: limitOption(ctx, options, 'maxTotalCost', 'Maximum Total Cost'),
		floor: limitOption(ctx, options, 'keepWalletAtLeast', 'Keep Wallet At Least'),
		window: isSet(options, 'onlyIfExpiringWithinHours')
			? parseHours(
					node,
					RUN_WIDE,
					options.onlyIfExpiringWithinHours,
					'Only If Expiring Within (Hours)',
				)
			: undefined,
		timeoutMs,
		readTimeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
	};
}

/**
 * Proxy > Extend. Every item is checked and every proxy looked up before anything is charged;
 * extensions go out in batches; an extension request is never repeated automatically, and the
 * node refuses to run where n8n would repeat it (Retry On Fail).
 */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const run = itemResults(this, items.length);
	let options: RunOptions;
	let proxyNameOf: (itemIndex: number) => string;
	try {
		options = readOptions(this, items.length);
		const refusal = guards(this, options);
		if (refusal) return run.failAll(refusal);
		proxyNameOf = proxyNameReader(this, items);
	} catch (error) {
		return run.failAll(error);
	}
	const { unique, repeats } = group(this, collect(this, items.length, proxyNameOf, run), run);
	const finish = () => run.finishRepeats(repeats);
	if (unique.length === 0) return finish();
	const planned = await planAgainstTheList(this, unique, options, run);
	if (planned.length === 0) return finish();
	const quoted = await quoteAgainstCap(this, planned, options, run);
	if (quoted === undefined) return finish();
	const charged = await chargeInBatches(this, quoted, options, run);
	await reportCharged(this, quoted.planned, charged, options, run);
	return finish();
}

/**
 * n8n's Retry On Fail and its Retry of a failed execution run the node again: an extension that
 * timed out after the service applied it, or one that the proxy list does not show yet, would be
 * paid again. No guard can rule that out, so the node does not charge under them. An AI agent
 * chooses the proxies and the extension itself: it may spend only within a cap the builder set.
 */
function guards(ctx: IExecuteFunctions, options: RunOptions) {
	return (
		retryRefusal(ctx, options.dryRun, {
			twice: 'pay twice for the same extension',
			check: 'check the proxies\u2019 expiry dates (Proxy Account > Get Many)',
		}) ?? agentRefusal(ctx, spendingLimitMissing('Extend', options))
	);
}

/** Every item's extension, checked before anything is sent. */
function collect(
	ctx: IExecuteFunctions,
	count: number,
	proxyNameOf: (itemIndex: number) => string,
	run: Run,
): Wanted[] {
	const node = ctx.getNode();
	const intervalOf = itemParameter(ctx, 'interval', undefined);
	const periodOf = itemParameter(ctx, 'period', SAME_AS_PROXY);
	const wanted: Wanted[] = [];
	for (let i = 0; i < count; i++) {
		try {
			wanted.push({
				item: i,
				name: proxyNameOf(i),
				interval: parseInterval(node, i, intervalOf(i)),
				period: readPeriod(node, i, periodOf(i)),
			});
		} catch (error) {
			run.fail(i, error);
		}
	}
	return wanted;
}

/**
 * A proxy named by several items is extended at most once. The same extension again is skipped;
 * a different one is a contradiction that fails all its items before any charge.
 */
function group(ctx: IExecuteFunctions, wanted: Wanted[], run: Run) {
	const { groups, conflicts } = groupByProxy(
		wanted,
		(a, b) => a.interval === b.interval && a.period === b.period,
	);
	for (const all of conflicts) {
		const list = itemList(all.map((w) => w.item));
		const asked = [...new Set(all.map((w) => `${w.interval} ${w.period}`))].join(' and ');
		for (const w of all) {
			run.fail(
				w.item,
				new NodeOperationError(
					ctx.getNode(),
					`Proxy \u201c${w.name}\u201d is named by items ${list} with different extensions (${asked}) [item ${w.item}]`,
					{
						description:
							'Each proxy can be extended once per run. Give its items the same Interval and Period, or remove the extra items. Nothing was sent or charged for this proxy.',
						itemIndex: w.item,
					},
				),
			);
		}
	}
	const repeats: Repeats = repeatsOf(groups).map(({ wanted: w, ...repeat }) => ({
		...repeat,
		same: 'proxy and extension',
		fields: { interval: w.interval, period: w.period, charged: 0 },
	}));
	return { unique: groups.map((g) => g.first), repeats };
}

/**
 * One read of the account's proxies: unknown names are caught before anything is charged, and it
 * gives each proxy's expiry, carrier and city; Only If Expiring Within skips the others.
 */
async function planAgainstTheList(
	ctx: IExecuteFunctions,
	unique: Wanted[],
	options: RunOptions,
	run: Run,
): Promise<Planned[]> {
	let list: Awaited<ReturnType<typeof listProxies>>;
	try {
		list = await listProxies(ctx, { itemIndex: unique[0].item, timeoutMs: options.readTimeoutMs });
	} catch (error) {
		for (const w of unique) run.fail(w.item, error);
		return [];
	}
	const { planned, skipped, failed } = planAgainstList(ctx.getNode(), unique, list, options.window);
	for (const { item, error } of failed) run.fail(item, error);
	for (const { item, json } of skipped) run.set(item, json);
	if (windowNotShorter(planned, options.window)) {
		// Said where n8n shows it, on every run where it applies: the guard does not make a second run pay nothing.
		ctx.addExecutionHints?.({
			message: `Only If Expiring Within (${options.window} h) is not shorter than the extension, so a second run extends the same proxies again. Keep it shorter than Interval \u00d7 Period.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return planned;
}

interface Quoted {
	planned: Planned[];
	batches: Planned[][];
	/** The quote of each batch; empty when nothing asked for one (no Dry Run, cap or floor). */
	quotes: number[];
}

/**
 * Dry Run, Maximum Total Cost and Keep Wallet At Least: quote exactly the batches that would be
 * sent. A line the service will not price fails its own item; the others are quoted again without
 * it. Undefined when nothing is to be charged (all failed, over the cap, or a Dry Run answered).
 */
async function quoteAgainstCap(
	ctx: IExecuteFunctions,
	planned: Planned[],
	options: RunOptions,
	run: Run,
): Promise<Quoted | undefined> {
	if (!options.dryRun && options.maxTotalCost === undefined && options.floor === undefined)
		return { planned, batches: chunk(planned, options.batchSize), quotes: [] };
	const estimates = new Map<number, number | null>();
	let quoted: Quoted | undefined;
	while (quoted === undefined) {
		let refused: { planned: Planned; error: unknown } | undefined;
		try {
			({ quoted, refused } = await quoteEachBatch(ctx, planned, options, estimates));
		} catch (error) {
			for (const p of planned) run.fail(p.item, error);
			return undefined;
		}
		if (refused === undefined) break;
		run.fail(refused.planned.item, unpriceable(ctx, refused.planned, refused.error));
		planned = planned.filter((p) => p !== refused.planned);
		if (planned.length === 0) return undefined;
	}
	return withinCap(ctx, quoted!, estimates, options, run);
}

/** One quote per batch; stops at the first line the service refuses to price. */
async function quoteEachBatch(
	ctx: IExecuteFunctions,
	planned: Planned[],
	options: RunOptions,
	estimates: Map<number, number | null>,
): Promise<{ quoted?: Quoted; refused?: { planned: Planned; error: unknown } }> {
	const batches = chunk(planned, options.batchSize);
	const quotes: number[] = [];
	for (const batch of batches) {
		const lines = batch.map(quoteLineOf);
		const itemIndex = batch[0].item;
		try {
			const { quote } = await quotePrices(ctx, lines, {
				itemIndex,
				timeoutMs: options.readTimeoutMs,
			});
			linesWithPrices(lines, quote).forEach(({ item }, k) =>
				estimates.set(batch[k].item, item?.total ?? null),
			);
			quotes.push(quote.total.due);
		} catch (error) {
			const culprit = await refusedLine(ctx, lines, error, options.readTimeoutMs, itemIndex);
			if (culprit === undefined) throw asNodeError(ctx, error, itemIndex);
			return { refused: { planned: batch[culprit], error } };
		}
	}
	return { quoted: { planned, batches, quotes } };
}

function unpriceable(ctx: IExecuteFunctions, bad: Planned, error: unknown) {
	const said = error instanceof NodeApiError ? error.message : String(error);
	return new NodeOperationError(
		ctx.getNode(),
		`Proxy \u201c${bad.name}\u201d cannot be priced for this extension [item ${bad.item}]`,
		{
			description: `The service refused to quote a ${bad.record.isp} proxy in ${bad.record.city} for ${bad.interval} ${bad.period} (e.g. the city is no longer sold): ${said} It was not extended and nothing was charged for it; the other proxies go on.`,
			itemIndex: bad.item,
		},
	);
}

/** The quote against Maximum Total Cost; a Dry Run always previews, past the cap with both amounts. */
function withinCap(
	ctx: IExecuteFunctions,
	quoted: Quoted,
	estimates: Map<number, number | null>,
	options: RunOptions,
	run: Run,
): Quoted | undefined {
	const { planned } = quoted;
	const total = cents(quoted.quotes.reduce((sum, due) => sum + due, 0));
	const cap = options.maxTotalCost;
	const overCap = cap !== undefined && total > cap;
	if (overCap && !options.dryRun) {
		const refusal = new NodeOperationError(
			ctx.getNode(),
			`The extension would cost ${total}, more than the Maximum Total Cost of ${cap}`,
			{
				description: `${proxiesWere(planned.length)} quoted. Nothing was sent or charged. Raise Maximum Total Cost, or extend fewer proxies or for a shorter time.`,
				itemIndex: planned[0].item,
			},
		);
		for (const p of planned) run.fail(p.item, refusal);
		return undefined;
	}
	if (!options.dryRun) return quoted;
	for (const p of planned) {
		run.set(p.item, {
			proxy_name: p.name,
			status: 'dry_run',
			interval: p.interval,
			period: p.period,
			charged: 0,
			estimated_cost: estimates.get(p.item) ?? null,
			estimated_total: total,
			previous_expires_at: p.record.expires_at,
			...(overCap && {
				max_total_cost: cap,
				over_max_total_cost: true,
				note: `The estimate of ${total} is more than the Maximum Total Cost of ${cap}: a real run would extend nothing.`,
			}),
		});
	}
	return undefined;
}

/** What the run charged so far, for the message of a later batch or an overcharge. */
function progressOf(extended: string[], ledger: CostLedger): string {
	const earlier =
		ledger.uncertain === 1
			? 'An earlier batch'
			: countOf(ledger.uncertain, 'earlier batch', 'earlier batches');
	const maybe = ledger.uncertain === 0 ? '' : ` ${earlier} may also have been applied.`;
	return extended.length === 0
		? `No proxy was extended before it.${maybe}`
		: `Extended before it in this run: ${nameList(extended)} (${proxiesCount(extended.length)}), charged ${cents(ledger.confirmed)} in all.${maybe}`;
}

interface Charging {
	charged: Map<number, Charged>;
	extended: string[];
	ledger: CostLedger;
	stop?: string;
}

/**
 * Extend, batch by batch. A failed batch fails only its own items; it is never sent again. With
 * Maximum Total Cost, what each batch was charged is held against its quote: no batch is sent
 * once the run would pass the cap, or after a batch was charged more than quoted.
 */
async function chargeInBatches(
	ctx: IExecuteFunctions,
	quoted: Quoted,
	options: RunOptions,
	run: Run,
): Promise<Charging> {
	const state: Charging = {
		charged: new Map(),
		extended: [],
		ledger: new CostLedger(options.maxTotalCost),
	};
	const { batches, quotes } = quoted;
	for (let b = 0; b < batches.length; b++) {
		let batch = batches[b];
		// With Only If Expiring Within, a batch sent after a quote or after an earlier batch is first
		// checked against a fresh read of the list (see `stillExpiring`).
		if (options.window !== undefined && state.stop === undefined && (b > 0 || quotes.length > 0)) {
			batch = await stillExpiring(ctx, batch, options.window, options.readTimeoutMs, run.set);
			if (batch.length === 0) continue;
		}
		state.stop ??= await stopBefore(ctx, batch, b, quotes[b], state, options);
		if (state.stop !== undefined) {
			const stopped = new NodeOperationError(ctx.getNode(), state.stop, {
				description: `${progressOf(state.extended, state.ledger)} ${batch.length === 1 ? 'This proxy was' : 'These proxies were'} not extended and nothing was charged for ${batch.length === 1 ? 'it' : 'them'}. Check the prices in the Proxy Account dashboard before running the extension again.`,
				itemIndex: batch[0].item,
			});
			for (const p of batch) run.fail(p.item, stopped);
			continue;
		}
		await chargeBatch(
			ctx,
			{ batch, b, count: batches.length, quote: quotes[b] },
			state,
			options,
			run,
		);
	}
	return state;
}

/** Why batch `b` may not be sent: it would pass Maximum Total Cost or Keep Wallet At Least. */
async function stopBefore(
	ctx: IExecuteFunctions,
	batch: Planned[],
	b: number,
	quote: number,
	state: Charging,
	options: RunOptions,
): Promise<string | undefined> {
	const passesCap = state.ledger.refusal(quote, b + 1);
	if (passesCap !== undefined || options.floor === undefined) return passesCap;
	const refusal = await walletFloorRefusal(ctx, options.floor, quote, {
		itemIndex: batch[0].item,
		timeoutMs: options.readTimeoutMs,
		spend: b === 0 ? 'This extension' : `Batch ${b + 1}`,
	});
	return refusal?.message;
}

/** One extension request: what the service charged and echoed for each proxy, or the batch's failure. */
async function chargeBatch(
	ctx: IExecuteFunctions,
	{ batch, b, count, quote }: { batch: Planned[]; b: number; count: number; quote?: number },
	state: Charging,
	options: RunOptions,
	run: Run,
): Promise<void> {
	const lines: AllocateLine[] = batch.map((p) => ({
		proxy_name: p.name,
		interval: p.interval,
		period: p.period,
	}));
	try {
		const { result } = await allocateTime(ctx, lines, {
			itemIndex: batch[0].item,
			timeoutMs: options.timeoutMs,
		});
		const replied = result.proxies.time;
		// What the service charged, held against the batch's quote and the run against the cap.
		const overcharge = state.ledger.charged(result.total, quote, b + 1);
		if (overcharge !== undefined && b + 1 < count)
			state.stop = `${overcharge}, so no further batch was sent`;
		batch.forEach((p, k) => {
			const line =
				replied[k]?.proxy_name === p.name
					? replied[k]
					: replied.find((l) => l.proxy_name === p.name);
			state.charged.set(p.item, {
				amount: line ? line.individual_total : null,
				batch: b + 1,
				overcharge,
				echo: line && { interval: line.interval, period: line.period },
			});
		});
		state.extended.push(...batch.map((p) => p.name));
	} catch (error) {
		const nodeError = asNodeError(ctx, error, batch[0].item);
		if (count > 1)
			addToDescription(
				nodeError,
				`This was batch ${b + 1} of ${count} (${proxiesCount(batch.length)}). ${progressOf(state.extended, state.ledger)}`,
			);
		// What the batch may have cost counts against the cap, as if it had been charged.
		if (requestErrorFacts(error)?.mayHaveActed !== false) state.ledger.mayHaveCharged(quote);
		if (!run.continueOnFail) throw nodeError;
		for (const p of batch) run.fail(p.item, nodeError);
	}
}

/**
 * The new expiry dates, read back. The money has moved: a failed read-back leaves the item
 * unconfirmed rather than failed. A charge over the quote or the cap goes to the error output.
 */
async function reportCharged(
	ctx: IExecuteFunctions,
	planned: Planned[],
	state: Charging,
	options: RunOptions,
	run: Run,
): Promise<void> {
	const done = planned.filter((p) => state.charged.has(p.item));
	const back: ReadBack = await readBack(ctx, done, state.charged, options.readTimeoutMs);
	for (const p of done) {
		const entry = state.charged.get(p.item)!;
		if (entry.overcharge === undefined) run.set(p.item, extendedItem(p, entry, back));
		else
			run.fail(
				p.item,
				overchargedError(ctx.getNode(), p, entry, progressOf(state.extended, state.ledger)),
			);
	}
}
