import type {
	IDataObject,
	INode,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { hoursUntil, expiresWithin } from '../../helpers/time';
import {
	isSet,
	MAX_TIMEOUT_SECONDS,
	parseAmount,
	parseBoolean,
	parseHours,
	parseInterval,
	parsePeriod,
	parseTimeoutSeconds,
	parseWholeNumber,
} from '../../helpers/validation';
import type { AllocateLine, Period, ProxyRecord, QuoteLine } from '../../transport';
import {
	allocateTime,
	DEFAULT_TIMEOUT_MS,
	listProxies,
	PERIODS,
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
import { builderLimit } from '../../helpers/agent';
import { cents, chargeExcess, proxiesCount } from '../../helpers/charges';
import { agentRefusal, retryRefusal, spendingLimitMissing } from '../../helpers/run';
import { walletFloorRefusal } from '../../helpers/wallet';
import { runWideOptions } from '../../helpers/runOptions';
import { asNodeError, errorItem, itemParameter } from '../../helpers/execution';
import { linesWithPrices } from '../../helpers/quote';
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

/** The shortest length of each period, in hours (a month is at least 28 days). */
export const MIN_PERIOD_HOURS: Record<Period, number> = {
	hourly: 1,
	daily: 24,
	weekly: 168,
	monthly: 672,
	yearly: 8760,
};

/** Reads of the list after the charge, at most, while the service still shows the old expiry. */
const READ_BACK_ATTEMPTS = 3;
const READ_BACK_PAUSE_MS = 1_000;

/** Proxies named in a message before the rest is only counted. */
const NAMES_SHOWN = 20;

/** The Period value that extends each proxy by its own billing period. */
const SAME_AS_PROXY = 'same';

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

interface Wanted {
	item: number;
	name: string;
	interval: number;
	/** `same`: each proxy's own billing period, known once its record is read. */
	period: Period | typeof SAME_AS_PROXY;
}

interface Planned extends Wanted {
	period: Period;
	record: ProxyRecord;
}

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
		maxTotalCost: builderLimit(
			ctx,
			'options.maxTotalCost',
			isSet(options, 'maxTotalCost')
				? parseAmount(node, RUN_WIDE, options.maxTotalCost, 'Maximum Total Cost')
				: undefined,
		),
		floor: builderLimit(
			ctx,
			'options.keepWalletAtLeast',
			isSet(options, 'keepWalletAtLeast')
				? parseAmount(node, RUN_WIDE, options.keepWalletAtLeast, 'Keep Wallet At Least')
				: undefined,
		),
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

/** A proxy's own billing period, when it is one the service extends by. */
function ownPeriod(record: ProxyRecord): Period | undefined {
	const period = typeof record.period === 'string' ? record.period.trim().toLowerCase() : '';
	return (PERIODS as readonly string[]).includes(period) ? (period as Period) : undefined;
}

/** The Period of an item: Same as Proxy, or a period the service extends by. */
function readPeriod(node: INode, itemIndex: number, value: unknown): Period | typeof SAME_AS_PROXY {
	if (typeof value === 'string' && value.trim().toLowerCase() === SAME_AS_PROXY)
		return SAME_AS_PROXY;
	return parsePeriod(node, itemIndex, value);
}

function chunk<T>(list: T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

/** Up to NAMES_SHOWN names, then how many more. */
function nameList(names: string[]): string {
	const shown = names.slice(0, NAMES_SHOWN).join(', ');
	return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

function itemList(items: number[]): string {
	return items.length === 2
		? `${items[0]} and ${items[1]}`
		: `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const quoteLineOf = (p: Planned): QuoteLine => ({
	isp: p.record.isp,
	location: p.record.city,
	interval: p.interval,
	period: p.period,
});

/**
 * Proxy > Extend. Every item is checked and every proxy looked up before anything is charged;
 * extensions go out in batches; an extension request is never repeated automatically, and the
 * node refuses to run where n8n would repeat it (Retry On Fail).
 */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	const failures = new Map<number, NodeApiError | NodeOperationError>();

	// A failed item: an error item when the node continues on fail, otherwise the node stops here.
	const fail = (itemIndex: number, error: unknown) => {
		const nodeError = asNodeError(this, error, itemIndex);
		if (!continueOnFail) throw nodeError;
		failures.set(itemIndex, nodeError);
		results[itemIndex] = errorItem(nodeError, itemIndex);
	};
	const output = () =>
		results.filter((result): result is INodeExecutionData => result !== undefined);
	// A refusal of the whole run, before anything is sent: every item carries it.
	const failAll = (error: unknown) => {
		for (let i = 0; i < items.length; i++) fail(i, error);
		return output();
	};

	let options: RunOptions;
	try {
		options = readOptions(this, items.length);
	} catch (error) {
		return failAll(error);
	}

	// n8n's Retry On Fail and its Retry of a failed execution run the node again: an extension
	// that timed out after the service applied it, or one that the proxy list does not show yet,
	// would be paid again. No guard can rule that out, so the node does not charge under them.
	// An AI agent chooses the proxies and the extension itself: it may spend only within a cap
	// the workflow's builder set.
	const refusal =
		retryRefusal(this, options.dryRun, {
			twice: 'pay twice for the same extension',
			check: 'check the proxies\u2019 expiry dates (Proxy Account > Get Many)',
		}) ?? agentRefusal(this, spendingLimitMissing('Extend', options));
	if (refusal) return failAll(refusal);

	// 1. Check every item's parameters; nothing is sent before all are read.
	let proxyNameOf: (itemIndex: number) => string;
	try {
		proxyNameOf = proxyNameReader(this, items);
	} catch (error) {
		return failAll(error);
	}
	const intervalOf = itemParameter(this, 'interval', undefined);
	const periodOf = itemParameter(this, 'period', SAME_AS_PROXY);
	const wanted: Wanted[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			wanted.push({
				item: i,
				name: proxyNameOf(i),
				interval: parseInterval(node, i, intervalOf(i)),
				period: readPeriod(node, i, periodOf(i)),
			});
		} catch (error) {
			fail(i, error);
		}
	}

	// 2. A proxy named by several items is extended at most once. The same extension again is
	//    skipped; a different one is a contradiction that fails all its items before any charge.
	const byNameItems = new Map<string, Wanted[]>();
	for (const w of wanted) byNameItems.set(w.name, [...(byNameItems.get(w.name) ?? []), w]);
	const unique: Wanted[] = [];
	const repeats: Array<{ w: Wanted; first: Wanted }> = [];
	for (const [name, group] of byNameItems) {
		const [first] = group;
		if (group.some((w) => w.interval !== first.interval || w.period !== first.period)) {
			const list = group.map((w) => w.item);
			const asked = [...new Set(group.map((w) => `${w.interval} ${w.period}`))].join(' and ');
			for (const w of group) {
				fail(
					w.item,
					new NodeOperationError(
						node,
						`Proxy \u201c${name}\u201d is named by items ${itemList(list)} with different extensions (${asked}) [item ${w.item}]`,
						{
							description:
								'Each proxy can be extended once per run. Give its items the same Interval and Period, or remove the extra items. Nothing was sent or charged for this proxy.',
							itemIndex: w.item,
						},
					),
				);
			}
			continue;
		}
		unique.push(first);
		for (const w of group.slice(1)) repeats.push({ w, first });
	}
	const finishRepeats = () => {
		for (const { w, first } of repeats) {
			const failure = failures.get(first.item);
			if (failure) {
				fail(w.item, failure);
				continue;
			}
			results[w.item] = {
				json: {
					proxy_name: w.name,
					status: 'skipped',
					reason: `same proxy and extension as item ${first.item} of this run, which stands for both`,
					interval: w.interval,
					period: w.period,
					charged: 0,
				},
				pairedItem: { item: w.item },
			};
		}
		return output();
	};
	if (unique.length === 0) return finishRepeats();

	// 3. One read of the account's proxies: unknown names are caught before anything is charged,
	//    and it gives each proxy's expiry, carrier and city.
	let before: Awaited<ReturnType<typeof listProxies>>;
	try {
		before = await listProxies(this, {
			itemIndex: unique[0].item,
			timeoutMs: options.readTimeoutMs,
		});
	} catch (error) {
		for (const w of unique) fail(w.item, error);
		return finishRepeats();
	}
	const byName = new Map(before.proxies.map((proxy) => [proxy.proxy_name, proxy]));
	const now = before.serverTime;

	// A proxy the expiring-only guard leaves out: skipped, nothing charged, its expiry as read.
	const skipNotExpiring = (p: Planned, reason: string) => {
		results[p.item] = {
			json: {
				proxy_name: p.name,
				status: 'skipped',
				reason,
				interval: p.interval,
				period: p.period,
				charged: 0,
				previous_expires_at: p.record.expires_at,
				new_expires_at: p.record.expires_at,
			},
			pairedItem: { item: p.item },
		};
	};

	// 4. Resolve names and apply the expiring-only guard.
	let planned: Planned[] = [];
	for (const w of unique) {
		const record = byName.get(w.name);
		if (!record) {
			fail(
				w.item,
				new NodeOperationError(
					node,
					`Proxy \u201c${w.name}\u201d was not found in this Proxy Account [item ${w.item}]`,
					{
						description:
							'Check the name (names are case-sensitive) or pick the proxy from the list. Nothing was charged.',
						itemIndex: w.item,
					},
				),
			);
			continue;
		}
		const period = w.period === SAME_AS_PROXY ? ownPeriod(record) : w.period;
		if (period === undefined) {
			fail(
				w.item,
				new NodeOperationError(
					node,
					`Proxy \u201c${w.name}\u201d has no billing period the service extends by (its period is ${JSON.stringify(record.period)}) [item ${w.item}]`,
					{
						description: `Choose a Period (e.g. Weekly) instead of Same as Proxy for this proxy. Nothing was charged for it.`,
						itemIndex: w.item,
					},
				),
			);
			continue;
		}
		if (options.window !== undefined && !expiresWithin(record.expires_at, now, options.window)) {
			skipNotExpiring(
				{ ...w, period, record },
				`expires in ${hoursUntil(record.expires_at, now)} h, later than the ${options.window} h window`,
			);
			continue;
		}
		planned.push({ ...w, period, record });
	}
	if (
		options.window !== undefined &&
		planned.some((p) => options.window! >= p.interval * MIN_PERIOD_HOURS[p.period])
	) {
		// Said where n8n shows it, on every run where it applies: the guard does not make a second run pay nothing.
		this.addExecutionHints?.({
			message: `Only If Expiring Within (${options.window} h) is not shorter than the extension, so a second run extends the same proxies again. Keep it shorter than Interval \u00d7 Period.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	if (planned.length === 0) return finishRepeats();

	// 5. Dry Run and Maximum Total Cost: quote exactly the batches that would be sent. A line the
	//    service will not price fails its own item; the others are quoted again without it.
	let batches = chunk(planned, options.batchSize);
	let batchQuotes: number[] = [];
	if (options.dryRun || options.maxTotalCost !== undefined || options.floor !== undefined) {
		const estimates = new Map<number, number | null>();
		for (;;) {
			batches = chunk(planned, options.batchSize);
			batchQuotes = [];
			let refused: { planned: Planned; error: unknown } | undefined;
			try {
				for (const batch of batches) {
					const lines = batch.map(quoteLineOf);
					try {
						const { quote } = await quotePrices(this, lines, {
							itemIndex: batch[0].item,
							timeoutMs: options.readTimeoutMs,
						});
						linesWithPrices(lines, quote).forEach(({ item }, k) =>
							estimates.set(batch[k].item, item?.total ?? null),
						);
						batchQuotes.push(quote.total.due);
					} catch (error) {
						const culprit = await refusedLine(
							this,
							lines,
							error,
							options.readTimeoutMs,
							batch[0].item,
						);
						if (culprit === undefined) throw asNodeError(this, error, batch[0].item);
						refused = { planned: batch[culprit], error };
						break;
					}
				}
			} catch (error) {
				for (const p of planned) fail(p.item, error);
				return finishRepeats();
			}
			if (!refused) break;
			const bad = refused.planned;
			const said =
				refused.error instanceof NodeApiError ? refused.error.message : String(refused.error);
			fail(
				bad.item,
				new NodeOperationError(
					node,
					`Proxy \u201c${bad.name}\u201d cannot be priced for this extension [item ${bad.item}]`,
					{
						description: `The service refused to quote a ${bad.record.isp} proxy in ${bad.record.city} for ${bad.interval} ${bad.period} (e.g. the city is no longer sold): ${said} It was not extended and nothing was charged for it; the other proxies go on.`,
						itemIndex: bad.item,
					},
				),
			);
			planned = planned.filter((p) => p !== bad);
			if (planned.length === 0) return finishRepeats();
		}
		const total = cents(batchQuotes.reduce((sum, due) => sum + due, 0));
		const overCap = options.maxTotalCost !== undefined && total > options.maxTotalCost;
		if (overCap && !options.dryRun) {
			const refusal = new NodeOperationError(
				node,
				`The extension would cost ${total}, more than the Maximum Total Cost of ${options.maxTotalCost}`,
				{
					description: `${proxiesCount(planned.length)} ${planned.length === 1 ? 'was' : 'were'} quoted. Nothing was sent or charged. Raise Maximum Total Cost, or extend fewer proxies or for a shorter time.`,
					itemIndex: planned[0].item,
				},
			);
			for (const p of planned) fail(p.item, refusal);
			return finishRepeats();
		}
		if (options.dryRun) {
			// A Dry Run always previews; past the cap it shows both amounts (a real run would charge nothing).
			for (const p of planned) {
				const json: IDataObject = {
					proxy_name: p.name,
					status: 'dry_run',
					interval: p.interval,
					period: p.period,
					charged: 0,
					estimated_cost: estimates.get(p.item) ?? null,
					estimated_total: total,
					previous_expires_at: p.record.expires_at,
				};
				if (overCap) {
					json.max_total_cost = options.maxTotalCost;
					json.over_max_total_cost = true;
					json.note = `The estimate of ${total} is more than the Maximum Total Cost of ${options.maxTotalCost}: a real run would extend nothing.`;
				}
				results[p.item] = { json, pairedItem: { item: p.item } };
			}
			return finishRepeats();
		}
	}

	// 6. Extend, batch by batch. A failed batch fails only its own items; it is never sent again.
	//    With Maximum Total Cost, what each batch was charged is held against its quote: no batch
	//    is sent once the run would pass the cap, or after a batch was charged more than quoted.
	const charged = new Map<
		number,
		{
			amount: number | null;
			batch: number;
			overcharge?: string;
			/** What the service says it applied, when it lists the proxy. */
			echo?: { interval: number; period: string };
		}
	>();
	const extendedNames: string[] = [];
	// What the service said it charged, and what counts against the cap (that, plus the quote of
	// each batch that may have been applied).
	let chargedConfirmed = 0;
	let heldAgainstCap = 0;
	let uncertainBatches = 0;
	let stop: string | undefined;
	const progress = () => {
		const maybe =
			uncertainBatches === 0
				? ''
				: ` ${uncertainBatches === 1 ? 'An earlier batch' : `${uncertainBatches} earlier batches`} may also have been applied.`;
		return extendedNames.length === 0
			? `No proxy was extended before it.${maybe}`
			: `Extended before it in this run: ${nameList(extendedNames)} (${extendedNames.length} ${extendedNames.length === 1 ? 'proxy' : 'proxies'}), charged ${cents(chargedConfirmed)} in all.${maybe}`;
	};
	const cap = options.maxTotalCost;
	for (let b = 0; b < batches.length; b++) {
		let batch = batches[b];
		// With Only If Expiring Within, a batch sent after a quote or after an earlier batch is first
		// checked against a fresh read of the list (see `stillExpiring`).
		if (options.window !== undefined && stop === undefined && (b > 0 || batchQuotes.length > 0)) {
			batch = await stillExpiring(
				this,
				batch,
				options.window,
				options.readTimeoutMs,
				skipNotExpiring,
			);
			if (batch.length === 0) continue;
		}
		const lines: AllocateLine[] = batch.map((p) => ({
			proxy_name: p.name,
			interval: p.interval,
			period: p.period,
		}));
		if (cap !== undefined && stop === undefined && cents(heldAgainstCap + batchQuotes[b]) > cap) {
			stop = `Batch ${b + 1} was not sent: with ${cents(heldAgainstCap)} ${uncertainBatches > 0 ? 'charged or possibly charged' : 'charged'} so far, its quote of ${batchQuotes[b]} would pass the Maximum Total Cost of ${cap}`;
		}
		if (options.floor !== undefined && stop === undefined) {
			const refusal = await walletFloorRefusal(this, options.floor, batchQuotes[b], {
				itemIndex: batch[0].item,
				timeoutMs: options.readTimeoutMs,
				spend: b === 0 ? 'This extension' : `Batch ${b + 1}`,
			});
			if (refusal !== undefined) stop = refusal.message;
		}
		if (stop !== undefined) {
			const stopped = new NodeOperationError(node, stop, {
				description: `${progress()} These proxies were not extended and nothing was charged for them. Check the prices in the Proxy Account dashboard before running the extension again.`,
				itemIndex: batch[0].item,
			});
			for (const p of batch) fail(p.item, stopped);
			continue;
		}
		try {
			const { result } = await allocateTime(this, lines, {
				itemIndex: batch[0].item,
				timeoutMs: options.timeoutMs,
			});
			const replied = result.proxies.time;
			const batchCharged = result.total;
			// What the service charged, held against the batch's quote and the run against the cap.
			const batchExcess =
				cap === undefined ? undefined : chargeExcess(batchCharged, { quote: batchQuotes[b] });
			const runExcess = chargeExcess(cents(chargedConfirmed + batchCharged), { cap });
			let overcharge: string | undefined;
			if (batchExcess !== undefined || runExcess !== undefined) {
				overcharge = [
					batchExcess && `Batch ${b + 1} was charged ${batchCharged}, ${batchExcess}`,
					runExcess &&
						`This run was charged ${cents(chargedConfirmed + batchCharged)} in all, ${runExcess}`,
				]
					.filter(Boolean)
					.join('. ');
				if (b + 1 < batches.length) stop = `${overcharge}, so no further batch was sent`;
			}
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
			extendedNames.push(...batch.map((p) => p.name));
			chargedConfirmed = cents(chargedConfirmed + batchCharged);
			heldAgainstCap = cents(heldAgainstCap + batchCharged);
		} catch (error) {
			const uncertain = requestErrorFacts(error)?.mayHaveActed !== false;
			const nodeError = asNodeError(this, error, batch[0].item);
			if (batches.length > 1) {
				nodeError.description =
					`${nodeError.description ?? ''} This was batch ${b + 1} of ${batches.length} (${batch.length} proxies). ${progress()}`.trim();
			}
			if (uncertain) {
				uncertainBatches++;
				// What the batch may have cost counts against the cap, as if it had been charged.
				if (cap !== undefined) heldAgainstCap = cents(heldAgainstCap + batchQuotes[b]);
			}
			if (!continueOnFail) throw nodeError;
			for (const p of batch) fail(p.item, nodeError);
		}
	}

	// 7. Read the new expiry dates back. The money has moved: a failed read-back must not hide that,
	//    so it leaves the item unconfirmed rather than failed. A list that still shows the old
	//    expiry (a read lagging behind the charge) is read again, a few times.
	const confirmedBy = (list: Map<string, ProxyRecord> | undefined, p: Planned) => {
		const after = list?.get(p.name);
		return after !== undefined && Date.parse(after.expires_at) > Date.parse(p.record.expires_at);
	};
	const done = planned.filter((p) => charged.has(p.item));
	let after: Map<string, ProxyRecord> | undefined;
	let readBackError: string | undefined;
	let reads = 0;
	while (done.length > 0 && reads < READ_BACK_ATTEMPTS) {
		if (reads > 0) await sleep(READ_BACK_PAUSE_MS * reads);
		reads++;
		try {
			const { proxies } = await listProxies(this, {
				itemIndex: done[0].item,
				timeoutMs: options.readTimeoutMs,
			});
			after = new Map(proxies.map((proxy) => [proxy.proxy_name, proxy]));
			readBackError = undefined;
		} catch (error) {
			readBackError = asNodeError(this, error, done[0].item).message;
			break;
		}
		if (done.every((p) => charged.get(p.item)?.amount === null || confirmedBy(after, p))) break;
	}
	for (const p of done) {
		const entry = charged.get(p.item)!;
		const readBack = after?.get(p.name);
		const json: IDataObject = {
			proxy_name: p.name,
			status: 'extended',
			interval: p.interval,
			period: p.period,
			charged: entry.amount,
			previous_expires_at: p.record.expires_at,
			new_expires_at: readBack?.expires_at ?? null,
			batch: entry.batch,
		};
		const paid = entry.amount === null ? '' : ` (charged ${entry.amount})`;
		let note: string | undefined;
		if (entry.amount === null) {
			note =
				'The service\u2019s answer did not list this proxy, so whether it was extended and what it cost is not known. Check its expiry (Proxy Account > Get) before running the extension again.';
		} else if (readBackError !== undefined) {
			note = `The service reported the extension${paid}, but the new expiry could not be read back to confirm it: ${readBackError}`;
		} else if (!readBack) {
			note = `The service reported the extension${paid}, but the proxy was not in the list read back afterwards, so its new expiry is unknown.`;
		} else if (!confirmedBy(after, p)) {
			note = `The service reported the extension${paid}, but the proxy\u2019s expiry had not moved when it was read back (${reads} ${reads === 1 ? 'read' : 'reads'}). Check it (Proxy Account > Get) before running the extension again.`;
		}
		if (note !== undefined) {
			json.status = 'unconfirmed';
			json.note = note;
		}
		const echo = entry.echo;
		if (echo !== undefined && (echo.interval !== p.interval || echo.period !== p.period)) {
			// The service's answer is what was applied: said, with what was asked beside it.
			Object.assign(json, {
				status: 'applied_differently',
				interval: echo.interval,
				period: echo.period,
				requested_interval: p.interval,
				requested_period: p.period,
			});
			json.note = [
				`The service applied ${echo.interval} ${echo.period}, not the ${p.interval} ${p.period} asked for.`,
				note,
			]
				.filter(Boolean)
				.join(' ');
		}
		if (entry.overcharge !== undefined) {
			// Charged more than quoted or capped: never a plain success, the error output gets it.
			fail(
				p.item,
				new NodeOperationError(
					node,
					`Proxy \u201c${p.name}\u201d was extended${paid}, but the service charged more than allowed [item ${p.item}]`,
					{
						description: `${entry.overcharge}. The extension was applied and paid: do not run it again. ${progress()} Check the wallet (Proxy Account > Get Funds) and ask the service about the difference.`,
						itemIndex: p.item,
					},
				),
			);
			continue;
		}
		results[p.item] = { json, pairedItem: { item: p.item } };
	}
	return finishRepeats();
}

/**
 * The proxies of a batch that still expire within the window, by a read of the list right before
 * the batch is charged. Another run of the workflow (a second execution overlapping this one, on
 * another worker in queue mode) or a person may have extended some since this run read the list:
 * those are skipped instead of paid again. The service has no idempotency key, so this narrows
 * the window in which two runs can both pay to the time between this read and the charge; it
 * cannot close it. When the read fails, the batch goes ahead as planned from the earlier read.
 */
async function stillExpiring(
	ctx: IExecuteFunctions,
	batch: Planned[],
	window: number,
	timeoutMs: number,
	skip: (p: Planned, reason: string) => void,
): Promise<Planned[]> {
	let fresh: Awaited<ReturnType<typeof listProxies>>;
	try {
		fresh = await listProxies(ctx, { itemIndex: batch[0].item, timeoutMs });
	} catch {
		return batch;
	}
	const byName = new Map(fresh.proxies.map((proxy) => [proxy.proxy_name, proxy]));
	const kept: Planned[] = [];
	for (const p of batch) {
		const record = byName.get(p.name);
		if (
			record !== undefined &&
			Date.parse(record.expires_at) > Date.parse(p.record.expires_at) &&
			!expiresWithin(record.expires_at, fresh.serverTime, window)
		) {
			skip(
				{ ...p, record },
				`extended meanwhile (by another run or in the dashboard): expires in ${hoursUntil(record.expires_at, fresh.serverTime)} h, later than the ${window} h window`,
			);
			continue;
		}
		kept.push(record === undefined ? p : { ...p, record });
	}
	return kept;
}

/**
 * Which line of a refused quote the service will not price, if a quote refused it (a 4xx or an
 * `ok: false`: the service said no before doing anything) and one line alone is to blame: the
 * line its message points at (`proxies[2]`) when quoting that line alone is refused too, else the
 * one found by quoting halves. Quotes charge nothing. Undefined when the refusal is not about one
 * line, or for any other failure.
 */
async function refusedLine(
	ctx: IExecuteFunctions,
	lines: QuoteLine[],
	error: unknown,
	timeoutMs: number,
	itemIndex: number,
): Promise<number | undefined> {
	// Only a refusal of the input: the service said no to what was asked, before doing anything.
	const refusesInput = (failure: unknown) => requestErrorFacts(failure)?.kind === 'input-refused';
	if (!refusesInput(error)) return undefined;
	const isRefused = async (indices: number[]) => {
		try {
			await quotePrices(
				ctx,
				indices.map((i) => lines[i]),
				{ itemIndex, timeoutMs },
			);
			return false;
		} catch (failure) {
			if (refusesInput(failure)) return true;
			throw asNodeError(ctx, failure, itemIndex);
		}
	};
	// Where the service points at a line (`proxies[2]`), that line is tried first: a hint, as a quote charges nothing.
	const hint = /proxies\[(\d+)\]/.exec(requestErrorFacts(error)?.said ?? '')?.[1];
	if (
		hint !== undefined &&
		Number(hint) < lines.length &&
		(lines.length === 1 || (await isRefused([Number(hint)])))
	) {
		return Number(hint);
	}
	// The whole set is refused: narrow it down to one line, half by half.
	let candidates = lines.map((_, i) => i);
	while (candidates.length > 1) {
		const half = candidates.slice(0, Math.ceil(candidates.length / 2));
		const rest = candidates.slice(half.length);
		if (await isRefused(half)) candidates = half;
		else if (await isRefused(rest)) candidates = rest;
		else return undefined;
	}
	return candidates[0];
}
