import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseInterval } from '../../helpers/validation';
import type { AllocateLine, ProxyRecord } from '../../transport';
import { requestErrorFacts, send } from '../../transport';
import {
	asToolNotice,
	batchSizeOption,
	dryRunOption,
	intervalField,
	keepWalletAtLeastOption,
	maxTotalCostOption,
	periodOptions,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	timeoutOption,
} from '../../helpers/descriptions';
import { proxySourceProperties } from '../../helpers/proxySource';
import { cents, CostLedger } from '../../helpers/charges';
import { countOf, proxiesCount } from '../../common/wording';
import type { ItemResults, Repeat } from '../../helpers/itemLoop';
import {
	agentRefusal,
	openRun,
	retryRefusal,
	spendingLimitMissing,
	asNodeError,
	itemParameter,
} from '../../helpers/itemLoop';
import { walletFloorRefusal } from '../../helpers/wallet';
import type { RunOptions as SharedRunOptions } from '../../helpers/runOptions';
import { readRunOptions } from '../../helpers/runOptions';
import {
	addToDescription,
	groupByProxy,
	itemList,
	joinNames,
	repeatsOf,
} from '../../helpers/batches';
import type { Charged, Planned, ReadBack, Wanted } from '../../helpers/extension';
import type { Quoted } from '../../helpers/extensionQuote';
import { quoteAgainstCap } from '../../helpers/extensionQuote';
import {
	extendedItem,
	overchargedError,
	planAgainstList,
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
	action: 'Extend proxies (charges the wallet)',
	subtitle: 'Extend Proxies',
};

/** Spends from the wallet within bounds read from the account: one run at a time per credential. */
export const spendsMoney = true;

export const properties: INodeProperties[] = [
	{
		displayName:
			'Extending charges your Proxy Account wallet. Turn on Dry Run (in Options) to see the cost first. Retry On Fail (in Settings) is refused unless Dry Run is on, so that a run never pays twice.',
		name: 'chargeNotice',
		type: 'notice',
		default: '',
	},
	asToolNotice(
		'extendToolNotice',
		'set Options > Maximum Total Cost and Keep Wallet At Least here (a value the agent fills in does not count), or every extension is refused. A Dry Run needs neither.',
	),
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
	runWideOptionsCollection([
		batchSizeOption(
			'How many proxies to extend per request. All input items go out in as few requests as this allows.',
		),
		dryRunOption(
			'Whether to only return what the extension would cost (from a price quote), charging nothing',
		),
		maxTotalCostOption(
			"Get a quote first and extend nothing when the total for all proxies of the run would be more than this amount, in your account's currency. During the run, no further batch is sent once what was charged (or a batch charged more than its quote) would pass it.",
		),
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
		timeoutOption(
			SENT_ONCE_TIMEOUT_SECONDS,
			'The longest one request may take, its whole answer included (at most 600; the reads around the extension wait at most 30 s). An extension request that times out is never sent again automatically.',
		),
	]),
];

/**
 * Proxy > Extend. Every item is checked and every proxy looked up before anything is charged;
 * extensions go out in batches; an extension request is never repeated automatically, and the
 * node refuses to run where n8n would repeat it (Retry On Fail).
 */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const opened = openRun(this, items, readOptions, guards);
	if ('output' in opened) return opened.output;
	const { run, options, proxyNameOf } = opened;
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

interface RunOptions extends SharedRunOptions {
	/** Only If Expiring Within (Hours). */
	window?: number;
}

type Repeats = Repeat[];

/**
 * The options of the run, from the first item. An option that is set but resolves to nothing or
 * to something else than its type is an error: a safety option never falls back to "off".
 */
function readOptions(ctx: IExecuteFunctions, itemCount: number): RunOptions {
	const options = readRunOptions(ctx, itemCount, properties);
	return { ...options, window: options.hours('onlyIfExpiringWithinHours') };
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
	run: ItemResults,
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
function group(ctx: IExecuteFunctions, wanted: Wanted[], run: ItemResults) {
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
	run: ItemResults,
): Promise<Planned[]> {
	let list: { proxies: ProxyRecord[]; serverTime: number };
	try {
		const { result, serverTime } = await send(ctx, 'listProxies', {
			itemIndex: unique[0].item,
			timeoutMs: options.readTimeoutMs,
		});
		list = { proxies: result, serverTime };
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

/** What the run charged so far, for the message of a later batch or an overcharge. */
function progressOf(extended: string[], ledger: CostLedger): string {
	const earlier =
		ledger.uncertain === 1
			? 'An earlier batch'
			: countOf(ledger.uncertain, 'earlier batch', 'earlier batches');
	const maybe = ledger.uncertain === 0 ? '' : ` ${earlier} may also have been applied.`;
	return extended.length === 0
		? `No proxy was extended before it.${maybe}`
		: `Extended before it in this run: ${joinNames(extended)} (${proxiesCount(extended.length)}), charged ${cents(ledger.confirmed)} in all.${maybe}`;
}

interface Charging {
	charged: Map<number, Charged>;
	extended: string[];
	ledger: CostLedger;
	/** Why no further batch is sent, and what to do about it. */
	stop?: { message: string; fix: string };
}

/** What a stopped batch's items say to do, unless the stop brings its own (the wallet floor's). */
const CHECK_PRICES =
	'Check the prices in the Proxy Account dashboard before running the extension again.';

/**
 * Extend, batch by batch. A failed batch fails only its own items; it is never sent again. With
 * Maximum Total Cost, what each batch was charged is held against its quote: no batch is sent
 * once the run would pass the cap, or after a batch was charged more than quoted.
 */
async function chargeInBatches(
	ctx: IExecuteFunctions,
	quoted: Quoted,
	options: RunOptions,
	run: ItemResults,
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
			const stopped = new NodeOperationError(ctx.getNode(), state.stop.message, {
				description: `${progressOf(state.extended, state.ledger)} ${batch.length === 1 ? 'This proxy was' : 'These proxies were'} not extended and nothing was charged for ${batch.length === 1 ? 'it' : 'them'}. ${state.stop.fix}`,
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
): Promise<Charging['stop']> {
	const passesCap = state.ledger.refusal(quote, b + 1);
	if (passesCap !== undefined) return { message: passesCap, fix: CHECK_PRICES };
	if (options.floor === undefined) return undefined;
	const refusal = await walletFloorRefusal(ctx, options.floor, quote, {
		itemIndex: batch[0].item,
		timeoutMs: options.readTimeoutMs,
		spend: b === 0 ? 'This extension' : `Batch ${b + 1}`,
	});
	// The floor's own cause (the wallet could not be read) and fix (add funds, lower the floor).
	const fix = refusal?.description?.replace(/^Nothing was sent or charged\. /, '');
	return refusal && { message: refusal.message, fix: fix ?? CHECK_PRICES };
}

/** One extension request: what the service charged and echoed for each proxy, or the batch's failure. */
async function chargeBatch(
	ctx: IExecuteFunctions,
	{ batch, b, count, quote }: { batch: Planned[]; b: number; count: number; quote?: number },
	state: Charging,
	options: RunOptions,
	run: ItemResults,
): Promise<void> {
	const lines: AllocateLine[] = batch.map((p) => ({
		proxy_name: p.name,
		interval: p.interval,
		period: p.period,
	}));
	try {
		const { result } = await send(ctx, 'allocateTime', {
			body: lines,
			itemIndex: batch[0].item,
			timeoutMs: options.timeoutMs,
		});
		const replied = result.proxies.time;
		// What the service charged, held against the batch's quote and the run against the cap.
		const overcharge = state.ledger.charged(result.total, quote, b + 1);
		if (overcharge !== undefined && b + 1 < count)
			state.stop = { message: `${overcharge}, so no further batch was sent`, fix: CHECK_PRICES };
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
	run: ItemResults,
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
