import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseInterval } from '../../helpers/framework/validation';
import type { AllocateLine } from '../../transport';
import { requestErrorFacts, send } from '../../transport';
import {
	batchSizeOption,
	dryRunOption,
	intervalField,
	keepWalletAtLeastOption,
	maxTotalCostOption,
	periodOptions,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	timeoutOption,
} from '../../helpers/framework/descriptions';
import { proxySourceProperties } from '../../helpers/framework/proxySource';
import { cents, CostLedger } from '../../helpers/money/charges';
import { countOf } from '../../common/wording';
import type { BatchedExecute, ItemResults } from '../../helpers/framework/batchedRun';
import { itemParameter } from '../../helpers/framework/parameterCache';
import { spendingRefusal } from '../../helpers/guards/runGuards';
import { walletFloorRefusal } from '../../helpers/money/wallet';
import { readRunOptions } from '../../helpers/framework/runOptions';
import {
	collectRequests,
	doneBefore,
	lookUpProxies,
	sendInBatches,
} from '../../helpers/money/batches';
import type { Charged, Planned, Quoted, Wanted } from './extend.plan';
import {
	extendedItem,
	overchargedError,
	planAgainstList,
	quoteAgainstCap,
	readBack,
	readPeriod,
	SAME_AS_PROXY,
	stillExpiring,
	windowNotShorter,
} from './extend.plan';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'extend',
	name: 'Extend',
	description:
		'Add paid time to proxies. Charges the wallet: as an AI tool only within Maximum Total Cost.',
	action: 'Extend proxies (charges the wallet)',
	subtitle: 'Extend Proxies',
	notices: {
		panel:
			'Extending charges your Proxy Account wallet. Turn on Dry Run (in Options) to see the cost first. Retry On Fail (in Settings) is refused unless Dry Run is on, so that a run never pays twice.',
		tool: 'set Options > Maximum Total Cost and Keep Wallet At Least (above 0) here (a value the agent fills in does not count), or every extension is refused. A Dry Run needs neither.',
	},
};

export const spendsMoney = true;

export const properties: INodeProperties[] = [
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

/** Proxy > Extend: every item checked and every proxy looked up before anything is charged. */
export const execute: BatchedExecute<RunOptions> = async function (opened) {
	const { run, options, items, proxyNameOf } = opened;
	const node = this.getNode();
	const intervalOf = itemParameter(this, 'interval', undefined);
	const periodOf = itemParameter(this, 'period', SAME_AS_PROXY);
	const { unique, repeats } = collectRequests<Wanted>(this, run, items.length, {
		read: (i) => ({
			item: i,
			name: proxyNameOf(i),
			interval: parseInterval(node, i, intervalOf(i)),
			period: readPeriod(node, i, periodOf(i)),
		}),
		asked: (w) => `${w.interval} ${w.period}`,
		fields: 'Interval and Period',
		repeatFields: (w) => ({ interval: w.interval, period: w.period, charged: 0 }),
	});
	// The proxies looked up in one read of the list; Only If Expiring Within skips those expiring later.
	const { window } = options;
	const { known, serverTime } = await lookUpProxies(this, run, unique, options.readTimeoutMs);
	const { planned, skipped, failed } = planAgainstList(node, known, serverTime, window);
	for (const { item, error } of failed) run.fail(item, error);
	for (const { item, json } of skipped) run.set(item, json);
	if (windowNotShorter(planned, window)) {
		// Said where n8n shows it, on every run where it applies: the guard does not make a second run pay nothing.
		this.addExecutionHints?.({
			message: `Only If Expiring Within (${window} h) is not shorter than the extension, so a second run extends the same proxies again. Keep it shorter than Interval \u00d7 Period.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	const quoted =
		planned.length > 0 ? await quoteAgainstCap(this, planned, options, run) : undefined;
	if (quoted !== undefined) await charge(this, quoted, options, run);
	return run.finishRepeats(repeats);
};

/** The run's options (helpers/framework/runOptions.ts), with Only If Expiring Within as `window`. */
export function readOptions(ctx: IExecuteFunctions, itemCount: number) {
	const options = readRunOptions(ctx, itemCount, properties);
	return { ...options, window: options.hours('onlyIfExpiringWithinHours') };
}

type RunOptions = ReturnType<typeof readOptions>;

/**
 * Under a retry, an extension that timed out after the service applied it, or that the proxy list
 * does not show yet, would be paid again: no guard can rule that out (see `spendingRefusal`).
 */
export function guards(ctx: IExecuteFunctions, options: RunOptions) {
	return spendingRefusal(ctx, 'Extend', options, {
		twice: 'pay twice for the same extension',
		check: 'check the proxies\u2019 expiry dates (Proxy Account > Get Many)',
	});
}

/** What the earlier batches charged, and whether some may also have been applied. */
function spentSoFar(ledger: CostLedger, done: string[]): string {
	const earlier =
		ledger.uncertain === 1
			? 'An earlier batch'
			: countOf(ledger.uncertain, 'earlier batch', 'earlier batches');
	const maybe = ledger.uncertain === 0 ? '' : `. ${earlier} may also have been applied`;
	return `${done.length === 0 ? '' : `, charged ${cents(ledger.confirmed)} in all`}${maybe}`;
}

/** What a stopped batch's items say to do, unless the stop brings its own (the wallet floor's). */
const CHECK_PRICES =
	'Check the prices in the Proxy Account dashboard before running the extension again.';

/**
 * Extend, batch by batch, then the new expiry dates read back. No batch is sent once the run would
 * pass the cap, or after a batch was charged more than quoted. The money has moved: a failed
 * read-back leaves the item unconfirmed; a charge over the quote or the cap goes to the error output.
 */
async function charge(
	ctx: IExecuteFunctions,
	{ planned, batches, quotes }: Quoted,
	options: RunOptions,
	run: ItemResults,
): Promise<void> {
	const charged = new Map<number, Charged>();
	const ledger = new CostLedger(options.maxTotalCost);
	let stop: { message: string; fix: string } | undefined;
	const progress = (done: string[]) => doneBefore(done, 'extended', spentSoFar(ledger, done));
	const done = await sendInBatches(ctx, run, batches, {
		did: 'extended',
		spent: (done) => spentSoFar(ledger, done),
		before: async (batch, b, done) => {
			// With Only If Expiring Within, a batch sent after a quote or after an earlier batch is first
			// checked against a fresh read of the list (see `stillExpiring`).
			if (options.window !== undefined && stop === undefined && (b > 0 || quotes.length > 0))
				batch = await stillExpiring(ctx, batch, options.window, options.readTimeoutMs, run.set);
			if (batch.length === 0) return batch;
			stop ??= await stopBefore(ctx, batch, b, quotes[b], ledger, options);
			if (stop === undefined) return batch;
			const they = batch.length === 1 ? ['This proxy was', 'it'] : ['These proxies were', 'them'];
			return new NodeOperationError(ctx.getNode(), stop.message, {
				description: `${progress(done)} ${they[0]} not extended and nothing was charged for ${they[1]}. ${stop.fix}`,
				itemIndex: batch[0].item,
			});
		},
		send: async (batch, b) => {
			const lines: AllocateLine[] = batch.map((p) => ({
				proxy_name: p.name,
				interval: p.interval,
				period: p.period,
			}));
			const sent = { itemIndex: batch[0].item, timeoutMs: options.timeoutMs };
			const { result } = await send(ctx, 'allocateTime', { ...sent, body: lines });
			const replied = result.proxies.time;
			// What the service charged, held against the batch's quote and the run against the cap.
			const overcharge = ledger.charged(result.total, quotes[b], b + 1);
			if (overcharge !== undefined && b + 1 < batches.length)
				stop = { message: `${overcharge}, so no further batch was sent`, fix: CHECK_PRICES };
			batch.forEach((p, k) => {
				const line =
					replied[k]?.proxy_name === p.name
						? replied[k]
						: replied.find((l) => l.proxy_name === p.name);
				charged.set(p.item, {
					amount: line ? line.individual_total : null,
					batch: b + 1,
					overcharge,
					echo: line && { interval: line.interval, period: line.period },
				});
			});
		},
		// What the batch may have cost counts against the cap, as if it had been charged.
		afterFailure: (error, b) => {
			if (requestErrorFacts(error)?.mayHaveActed !== false) ledger.mayHaveCharged(quotes[b]);
		},
	});
	const sent = planned.filter((p) => charged.has(p.item));
	const back = await readBack(ctx, sent, charged, options.readTimeoutMs);
	for (const p of sent) {
		const entry = charged.get(p.item)!;
		if (entry.overcharge === undefined) run.set(p.item, extendedItem(p, entry, back));
		else run.fail(p.item, overchargedError(ctx.getNode(), p, entry, progress(done)));
	}
}

/** Why batch `b` may not be sent: it would pass Maximum Total Cost or Keep Wallet At Least. */
async function stopBefore(
	ctx: IExecuteFunctions,
	batch: Planned[],
	b: number,
	quote: number,
	ledger: CostLedger,
	options: RunOptions,
): Promise<{ message: string; fix: string } | undefined> {
	const passesCap = ledger.refusal(quote, b + 1);
	if (passesCap !== undefined) return { message: passesCap, fix: CHECK_PRICES };
	if (options.floor === undefined) return undefined;
	const spend = b === 0 ? 'This extension' : `Batch ${b + 1}`;
	const what = { itemIndex: batch[0].item, timeoutMs: options.timeoutMs, spend };
	const refusal = await walletFloorRefusal(ctx, options.floor, quote, what);
	// The floor's own cause (the wallet could not be read) and fix (add funds, lower the floor).
	const fix = refusal?.description?.replace(/^Nothing was sent or charged\. /, '');
	return refusal && { message: refusal.message, fix: fix ?? CHECK_PRICES };
}
