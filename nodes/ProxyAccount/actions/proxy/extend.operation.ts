import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { hoursUntil, expiresWithin } from '../../helpers/time';
import {
	invalidParameter,
	parseAmount,
	parseHours,
	parseInterval,
	parseName,
	parsePeriod,
	parseTimeoutSeconds,
} from '../../helpers/validation';
import type { AllocateLine, Period, ProxyRecord } from '../../transport';
import { allocateTime, DEFAULT_TIMEOUT_MS, listProxies, quotePrices } from '../../transport';
import { asNodeError, errorItem } from '../common';
import { linesWithPrices, periodOptions } from '../price/quote.operation';
import { proxyLocator } from './fields';

const show = { resource: ['proxy'], operation: ['extend'] };

export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;
const DEFAULT_TIMEOUT_SECONDS = 60;

export const description: INodeProperties[] = [
	proxyLocator(['extend'], 'The proxy to add paid time to. With several input items, each item names one proxy.'),
	{
		displayName: 'Interval',
		name: 'interval',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1,
		required: true,
		displayOptions: { show },
		description: 'Number of periods to add, e.g. 1 with Weekly for one more week',
	},
	{
		displayName: 'Period',
		name: 'period',
		type: 'options',
		options: periodOptions,
		default: 'weekly',
		displayOptions: { show },
		description: 'Unit of the interval',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		description: 'These apply to the whole run (they are read from the first item)',
		options: [
			{
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_BATCH_SIZE, numberPrecision: 0 },
				default: DEFAULT_BATCH_SIZE,
				description: 'How many proxies to extend per request. All input items go out in as few requests as this allows.',
			},
			{
				displayName: 'Dry Run',
				name: 'dryRun',
				type: 'boolean',
				default: false,
				description: 'Whether to only return what the extension would cost (from a price quote), charging nothing',
			},
			{
				displayName: 'Maximum Total Cost',
				name: 'maxTotalCost',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 100,
				description:
					'Get a quote first and extend nothing, sending no extension at all, when the total for all proxies of the run would be more than this amount',
			},
			{
				displayName: 'Only If Expiring Within (Hours)',
				name: 'onlyIfExpiringWithinHours',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 24,
				description:
					'Skip proxies that expire later than this many hours from now. A scheduled workflow that runs twice then pays only once: the second run finds the proxies already extended.',
			},
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeoutSeconds',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: DEFAULT_TIMEOUT_SECONDS,
				description:
					'How long to wait for the service to answer one request (its reads wait at most 30 s). An extension request that times out is never sent again automatically.',
			},
		],
	},
];

interface Wanted {
	item: number;
	name: string;
	interval: number;
	period: Period;
}

interface Planned extends Wanted {
	record: ProxyRecord;
}

interface RunOptions {
	batchSize: number;
	dryRun: boolean;
	maxTotalCost?: number;
	window?: number;
	timeoutMs: number;
	/** For the reads around the extension (look-up, quote, read-back): the timeout, at most the reads' default. */
	readTimeoutMs: number;
}

function readOptions(ctx: IExecuteFunctions): RunOptions {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
	if (typeof batchSize !== 'number' || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
		throw invalidParameter(
			node,
			0,
			'Batch Size',
			`must be a whole number from 1 to ${MAX_BATCH_SIZE}, but it is ${String(batchSize)}`,
			`Enter how many proxies to extend per request, e.g. ${DEFAULT_BATCH_SIZE}.`,
		);
	}
	const timeoutMs = parseTimeoutSeconds(node, 0, options.timeoutSeconds, DEFAULT_TIMEOUT_SECONDS);
	return {
		batchSize,
		dryRun: options.dryRun === true,
		maxTotalCost:
			options.maxTotalCost === undefined ? undefined : parseAmount(node, 0, options.maxTotalCost, 'Maximum Total Cost'),
		window:
			options.onlyIfExpiringWithinHours === undefined
				? undefined
				: parseHours(node, 0, options.onlyIfExpiringWithinHours, 'Only If Expiring Within (Hours)'),
		timeoutMs,
		readTimeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
	};
}

function chunk<T>(list: T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

const cents = (amount: number) => Math.round(amount * 100) / 100;

/**
 * Proxy > Extend. Every item is checked and every proxy looked up before anything is charged;
 * extensions go out in batches; an extension request is never repeated automatically.
 */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const options = readOptions(this);
	const continueOnFail = this.continueOnFail();
	const results: Array<INodeExecutionData | undefined> = new Array(items.length);

	// A failed item: an error item when the node continues on fail, otherwise the node stops here.
	const fail = (itemIndex: number, error: unknown, extra: IDataObject = {}) => {
		const nodeError = asNodeError(this, error, itemIndex);
		if (!continueOnFail) throw nodeError;
		results[itemIndex] = errorItem(nodeError, itemIndex, extra);
	};
	const output = () => results.filter((result): result is INodeExecutionData => result !== undefined);

	// n8n's Retry On Fail would run the node again after a failure, paying again for every proxy
	// extended before it. That is only safe when a repeated run skips what is already extended.
	if (node.retryOnFail === true && !options.dryRun && options.window === undefined) {
		throw new NodeOperationError(node, 'Retry On Fail is on, which could pay twice for the same extension', {
			description:
				'Turn off Retry On Fail in this node\u2019s settings, or add the option Only If Expiring Within so a repeated run skips proxies that are already extended.',
		});
	}

	// 1. Check every item's parameters; nothing is sent before all are read.
	const wanted: Wanted[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			wanted.push({
				item: i,
				name: parseName(node, i, this.getNodeParameter('proxyName', i, '', { extractValue: true }), 'Proxy', 'PRX-US-AU1-0001'),
				interval: parseInterval(node, i, this.getNodeParameter('interval', i, undefined)),
				period: parsePeriod(node, i, this.getNodeParameter('period', i, undefined)),
			});
		} catch (error) {
			fail(i, error);
		}
	}
	if (wanted.length === 0) return output();

	// 2. One read of the account's proxies: unknown names are caught before anything is charged,
	//    and it gives each proxy's expiry, carrier and city.
	let before: Awaited<ReturnType<typeof listProxies>>;
	try {
		before = await listProxies(this, { itemIndex: wanted[0].item, timeoutMs: options.readTimeoutMs });
	} catch (error) {
		for (const w of wanted) fail(w.item, error, { proxy_name: w.name });
		return output();
	}
	const byName = new Map(before.proxies.map((proxy) => [proxy.proxy_name, proxy]));
	const now = before.serverTime;

	// 3. Resolve names and apply the expiring-only guard.
	const planned: Planned[] = [];
	const extendedBy = new Map<string, number>();
	for (const w of wanted) {
		const record = byName.get(w.name);
		if (!record) {
			fail(
				w.item,
				new NodeOperationError(node, `Proxy \u201c${w.name}\u201d was not found in this Proxy Account [item ${w.item}]`, {
					description: 'Check the name (names are case-sensitive) or pick the proxy from the list. Nothing was charged.',
					itemIndex: w.item,
				}),
				{ proxy_name: w.name },
			);
			continue;
		}
		if (options.window !== undefined) {
			const skipReason = !expiresWithin(record.expires_at, now, options.window)
				? `expires in ${hoursUntil(record.expires_at, now)} h, later than the ${options.window} h window`
				: extendedBy.has(w.name)
					? `already extended by item ${extendedBy.get(w.name)} of this run`
					: undefined;
			if (skipReason) {
				results[w.item] = {
					json: {
						proxy_name: w.name,
						status: 'skipped',
						reason: skipReason,
						interval: w.interval,
						period: w.period,
						charged: 0,
						previous_expires_at: record.expires_at,
						new_expires_at: record.expires_at,
					},
					pairedItem: { item: w.item },
				};
				continue;
			}
		}
		extendedBy.set(w.name, w.item);
		planned.push({ ...w, record });
	}
	if (planned.length === 0) return output();

	const batches = chunk(planned, options.batchSize);
	const linesOf = (batch: Planned[]): AllocateLine[] =>
		batch.map((p) => ({ proxy_name: p.name, interval: p.interval, period: p.period }));

	// 4. Dry Run and Maximum Total Cost: quote exactly the batches that would be sent.
	if (options.dryRun || options.maxTotalCost !== undefined) {
		const estimates = new Map<number, number | null>();
		let total = 0;
		try {
			for (const batch of batches) {
				const lines = batch.map((p) => ({ isp: p.record.isp, location: p.record.city, interval: p.interval, period: p.period }));
				const { quote } = await quotePrices(this, lines, { itemIndex: batch[0].item, timeoutMs: options.readTimeoutMs });
				linesWithPrices(lines, quote).forEach(({ item }, k) => estimates.set(batch[k].item, item?.total ?? null));
				total = cents(total + quote.total.due);
			}
		} catch (error) {
			for (const p of planned) fail(p.item, error, { proxy_name: p.name });
			return output();
		}
		if (options.maxTotalCost !== undefined && total > options.maxTotalCost) {
			const refusal = new NodeOperationError(
				node,
				`The extension would cost ${total}, more than the Maximum Total Cost of ${options.maxTotalCost}`,
				{
					description: `${planned.length} proxies were quoted. Nothing was sent or charged. Raise Maximum Total Cost, or extend fewer proxies or for a shorter time.`,
					itemIndex: planned[0].item,
				},
			);
			for (const p of planned) fail(p.item, refusal, { proxy_name: p.name, estimated_total: total });
			return output();
		}
		if (options.dryRun) {
			for (const p of planned) {
				results[p.item] = {
					json: {
						proxy_name: p.name,
						status: 'dry_run',
						interval: p.interval,
						period: p.period,
						charged: 0,
						estimated_cost: estimates.get(p.item) ?? null,
						estimated_total: total,
						previous_expires_at: p.record.expires_at,
					},
					pairedItem: { item: p.item },
				};
			}
			return output();
		}
	}

	// 5. Extend, batch by batch. A failed batch fails only its own items; it is not sent again.
	const charged = new Map<number, { amount: number | null; batch: number }>();
	let extendedCount = 0;
	for (let b = 0; b < batches.length; b++) {
		const batch = batches[b];
		try {
			const { result } = await allocateTime(this, linesOf(batch), {
				itemIndex: batch[0].item,
				timeoutMs: options.timeoutMs,
			});
			const lines = result.proxies.time;
			batch.forEach((p, k) => {
				const line = lines[k]?.proxy_name === p.name ? lines[k] : lines.find((l) => l.proxy_name === p.name);
				charged.set(p.item, { amount: line ? line.individual_total : null, batch: b + 1 });
			});
			extendedCount += batch.length;
		} catch (error) {
			const nodeError = asNodeError(this, error, batch[0].item);
			if (batches.length > 1) {
				const earlier = b > 0 ? ` Batches 1 to ${b} (${extendedCount} proxies) were extended before it and are not affected.` : '';
				nodeError.description = `${nodeError.description ?? ''} This was batch ${b + 1} of ${batches.length} (${batch.length} proxies).${earlier}`.trim();
			}
			if (!continueOnFail) throw nodeError;
			for (const p of batch) results[p.item] = errorItem(nodeError, p.item, { proxy_name: p.name, batch: b + 1 });
		}
	}

	// 6. Read the new expiry dates back (one request). The money has moved: a failed read-back
	//    must not hide that, so it leaves the new expiry empty instead of failing the items.
	let after: Map<string, ProxyRecord> | undefined;
	let readBackNote: string | undefined;
	if (charged.size > 0) {
		try {
			const { proxies } = await listProxies(this, { itemIndex: planned[0].item, timeoutMs: options.readTimeoutMs });
			after = new Map(proxies.map((proxy) => [proxy.proxy_name, proxy]));
		} catch (error) {
			readBackNote = `Extended, but the new expiry could not be read back: ${asNodeError(this, error, planned[0].item).message}`;
		}
	}
	for (const p of planned) {
		const done = charged.get(p.item);
		if (!done) continue;
		const readBack = after?.get(p.name);
		const json: IDataObject = {
			proxy_name: p.name,
			status: 'extended',
			interval: p.interval,
			period: p.period,
			charged: done.amount,
			previous_expires_at: p.record.expires_at,
			new_expires_at: readBack?.expires_at ?? null,
			batch: done.batch,
		};
		if (readBackNote) json.note = readBackNote;
		else if (after && !readBack) json.note = 'Extended, but the proxy was not in the list read back afterwards, so its new expiry is unknown';
		results[p.item] = { json, pairedItem: { item: p.item } };
	}
	return output();
}
