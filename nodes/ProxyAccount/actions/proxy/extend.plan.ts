/*
 * Extend's plan of the proxies found, its quote of exactly the batches it would send, and its
 * reads before and after each charge.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { Period, ProxyRecord, QuoteLine } from '../../transport';
import { PERIODS, send } from '../../transport';
import type { ItemResults } from '../../helpers/framework/batchedRun';
import { asNodeError } from '../../helpers/framework/itemLoop';
import type { RunOptions } from '../../helpers/framework/runOptions';
import type { Known, ProxyRequest } from '../../helpers/money/batches';
import { chunk } from '../../helpers/money/batches';
import { cents } from '../../helpers/money/charges';
import { linesWithPrices, refusedLine } from '../../helpers/money/quote';
import { expiresWithin, hoursUntil } from '../../helpers/framework/time';
import { parsePeriod } from '../../helpers/framework/validation';
import { countOf, proxiesWere } from '../../common/wording';

/** The Period value that extends each proxy by its own billing period. */
export const SAME_AS_PROXY = 'same';

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

/** The extension one item asks for. */
export interface Wanted extends ProxyRequest {
	interval: number;
	/** `same`: each proxy's own billing period, known once its record is read. */
	period: Period | typeof SAME_AS_PROXY;
}

/** An extension to quote and charge: its proxy's record, as the list showed it, and its period. */
export interface Planned extends Wanted {
	period: Period;
	record: ProxyRecord;
}

/** What the service reported for an extended proxy. */
export interface Charged {
	amount: number | null;
	batch: number;
	overcharge?: string;
	/** What the service says it applied, when it lists the proxy. */
	echo?: { interval: number; period: string };
}

/** A proxy's own billing period, when it is one the service extends by. */
export function ownPeriod(record: ProxyRecord): Period | undefined {
	const period = typeof record.period === 'string' ? record.period.trim().toLowerCase() : '';
	return (PERIODS as readonly string[]).includes(period) ? (period as Period) : undefined;
}

/** The Period of an item: Same as Proxy, or a period the service extends by. */
export function readPeriod(node: INode, itemIndex: number, value: unknown): Wanted['period'] {
	if (typeof value === 'string' && value.trim().toLowerCase() === SAME_AS_PROXY)
		return SAME_AS_PROXY;
	return parsePeriod(node, itemIndex, value);
}

export const quoteLineOf = (p: Planned): QuoteLine => ({
	isp: p.record.isp,
	location: p.record.city,
	interval: p.interval,
	period: p.period,
});

/** The item of a proxy the expiring-only guard leaves out: nothing charged, its expiry as read. */
export function skippedItem(p: Planned, reason: string): IDataObject {
	return {
		proxy_name: p.name,
		status: 'skipped',
		reason,
		interval: p.interval,
		period: p.period,
		charged: 0,
		previous_expires_at: p.record.expires_at,
		new_expires_at: p.record.expires_at,
	};
}

/**
 * The extensions of the proxies the look-up found: one without a period the service extends by
 * fails its item; one that expires later than `window` hours is skipped; the rest is planned.
 */
export function planAgainstList(
	node: INode,
	known: Array<Known<Wanted>>,
	serverTime: number,
	window: number | undefined,
) {
	const planned: Planned[] = [];
	const skipped: Array<{ item: number; json: IDataObject }> = [];
	const failed: Array<{ item: number; error: NodeOperationError }> = [];
	for (const w of known) {
		const period = w.period === SAME_AS_PROXY ? ownPeriod(w.record) : w.period;
		if (period === undefined) {
			const error = new NodeOperationError(
				node,
				`Proxy \u201c${w.name}\u201d has no billing period the service extends by (its period is ${JSON.stringify(w.record.period)}) [item ${w.item}]`,
				{
					description: `Choose a Period (e.g. Weekly) instead of Same as Proxy for this proxy. Nothing was charged for it.`,
					itemIndex: w.item,
				},
			);
			failed.push({ item: w.item, error });
			continue;
		}
		const p: Planned = { ...w, period };
		if (window !== undefined && !expiresWithin(w.record.expires_at, serverTime, window)) {
			const reason = `expires in ${hoursUntil(w.record.expires_at, serverTime)} h, later than the ${window} h window`;
			skipped.push({ item: w.item, json: skippedItem(p, reason) });
			continue;
		}
		planned.push(p);
	}
	return { planned, skipped, failed };
}

/** Whether a window of `window` hours is not shorter than some extension: a second run pays again. */
export const windowNotShorter = (planned: Planned[], window: number | undefined) =>
	window !== undefined && planned.some((p) => window >= p.interval * MIN_PERIOD_HOURS[p.period]);

export interface Quoted {
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
export async function quoteAgainstCap(
	ctx: IExecuteFunctions,
	planned: Planned[],
	options: RunOptions,
	run: ItemResults,
): Promise<Quoted | undefined> {
	if (!options.dryRun && options.maxTotalCost === undefined && options.floor === undefined)
		return { planned, batches: chunk(planned, options.batchSize), quotes: [] };
	const estimates = new Map<number, number | null>();
	for (;;) {
		const batches = chunk(planned, options.batchSize);
		const quotes: number[] = [];
		let bad: { p: Planned; error: unknown } | undefined;
		try {
			// One quote per batch; stops at the first line the service refuses to price.
			for (const batch of batches) {
				const lines = batch.map(quoteLineOf);
				const itemIndex = batch[0].item;
				try {
					const call = { body: lines, itemIndex, timeoutMs: options.readTimeoutMs };
					const { result: quote } = await send(ctx, 'quotePrices', call);
					linesWithPrices(lines, quote).forEach(({ item }, k) =>
						estimates.set(batch[k].item, item?.total ?? null),
					);
					quotes.push(quote.total.due);
				} catch (error) {
					const culprit = await refusedLine(ctx, lines, error, options.readTimeoutMs, itemIndex);
					if (culprit === undefined) throw asNodeError(ctx, error, itemIndex);
					bad = { p: batch[culprit], error };
					break;
				}
			}
		} catch (error) {
			for (const p of planned) run.fail(p.item, error);
			return undefined;
		}
		if (bad === undefined)
			return withinCap(ctx, { planned, batches, quotes }, estimates, options, run);
		const { p, error } = bad;
		const said = error instanceof NodeApiError ? error.message : String(error);
		const unpriceable = new NodeOperationError(
			ctx.getNode(),
			`Proxy \u201c${p.name}\u201d cannot be priced for this extension [item ${p.item}]`,
			{
				description: `The service refused to quote a ${p.record.isp} proxy in ${p.record.city} for ${p.interval} ${p.period} (e.g. the city is no longer sold): ${said} It was not extended and nothing was charged for it; the other proxies go on.`,
				itemIndex: p.item,
			},
		);
		run.fail(p.item, unpriceable);
		planned = planned.filter((other) => other !== p);
		if (planned.length === 0) return undefined;
	}
}

/** The quote against Maximum Total Cost; a Dry Run always previews, past the cap with both amounts. */
function withinCap(
	ctx: IExecuteFunctions,
	quoted: Quoted,
	estimates: Map<number, number | null>,
	options: RunOptions,
	run: ItemResults,
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

/**
 * The proxies of a batch that still expire within the window, by a read of the list right before
 * the batch is charged. Another run of the workflow (a second execution overlapping this one, on
 * another worker in queue mode) or a person may have extended some since this run read the list:
 * those are skipped instead of paid again. The service has no idempotency key, so this narrows
 * the window in which two runs can both pay to the time between this read and the charge; it
 * cannot close it. When the read fails, the batch goes ahead as planned from the earlier read.
 */
export async function stillExpiring(
	ctx: IExecuteFunctions,
	batch: Planned[],
	window: number,
	timeoutMs: number,
	skip: (item: number, json: IDataObject) => void,
): Promise<Planned[]> {
	const read = send(ctx, 'listProxies', { itemIndex: batch[0].item, timeoutMs });
	const fresh = await read.catch(() => undefined);
	if (fresh === undefined) return batch;
	const byName = new Map(fresh.result.map((proxy) => [proxy.proxy_name, proxy]));
	const kept: Planned[] = [];
	for (const p of batch) {
		const record = byName.get(p.name);
		if (
			record !== undefined &&
			Date.parse(record.expires_at) > Date.parse(p.record.expires_at) &&
			!expiresWithin(record.expires_at, fresh.serverTime, window)
		) {
			const reason = `extended meanwhile (by another run or in the dashboard): expires in ${hoursUntil(record.expires_at, fresh.serverTime)} h, later than the ${window} h window`;
			skip(p.item, skippedItem({ ...p, record }, reason));
			continue;
		}
		kept.push(record === undefined ? p : { ...p, record });
	}
	return kept;
}

/** What the list read back after the charge shows, or why it could not be read. */
export interface ReadBack {
	after?: Map<string, ProxyRecord>;
	error?: string;
	reads: number;
}

/** Whether the list read back shows the proxy's expiry moved past the one read before. */
export function confirmedBy(list: Map<string, ProxyRecord> | undefined, p: Planned): boolean {
	const after = list?.get(p.name);
	return after !== undefined && Date.parse(after.expires_at) > Date.parse(p.record.expires_at);
}

/**
 * The list after the charge. A list that still shows the old expiry (a read lagging behind the
 * charge) is read again, a few times; a failed read is said, not thrown: the money has moved.
 */
export async function readBack(
	ctx: IExecuteFunctions,
	done: Planned[],
	charged: Map<number, Charged>,
	timeoutMs: number,
): Promise<ReadBack> {
	const state: ReadBack = { reads: 0 };
	while (done.length > 0 && state.reads < READ_BACK_ATTEMPTS) {
		if (state.reads > 0) await sleep(READ_BACK_PAUSE_MS * state.reads);
		state.reads++;
		try {
			const call = { itemIndex: done[0].item, timeoutMs };
			const { result: proxies } = await send(ctx, 'listProxies', call);
			state.after = new Map(proxies.map((proxy) => [proxy.proxy_name, proxy]));
			state.error = undefined;
		} catch (error) {
			state.error = asNodeError(ctx, error, done[0].item).message;
			break;
		}
		const settled = (p: Planned) =>
			charged.get(p.item)?.amount === null || confirmedBy(state.after, p);
		if (done.every(settled)) break;
	}
	return state;
}

/** Why an extended proxy is not confirmed by the read-back, or undefined when it is. */
function unconfirmedNote(p: Planned, entry: Charged, back: ReadBack): string | undefined {
	const paid = entry.amount === null ? '' : ` (charged ${entry.amount})`;
	if (entry.amount === null)
		return 'The service\u2019s answer did not list this proxy, so whether it was extended and what it cost is not known. Check its expiry (Proxy Account > Get) before running the extension again.';
	if (back.error !== undefined)
		return `The service reported the extension${paid}, but the new expiry could not be read back to confirm it: ${back.error}`;
	if (!back.after?.get(p.name))
		return `The service reported the extension${paid}, but the proxy was not in the list read back afterwards, so its new expiry is unknown.`;
	if (!confirmedBy(back.after, p))
		return `The service reported the extension${paid}, but the proxy\u2019s expiry had not moved when it was read back (${countOf(back.reads, 'read')}). Check it (Proxy Account > Get) before running the extension again.`;
	return undefined;
}

/** The item of an extended proxy: what the service applied and charged, and what the list shows. */
export function extendedItem(p: Planned, entry: Charged, back: ReadBack): IDataObject {
	const json: IDataObject = {
		proxy_name: p.name,
		status: 'extended',
		interval: p.interval,
		period: p.period,
		charged: entry.amount,
		previous_expires_at: p.record.expires_at,
		new_expires_at: back.after?.get(p.name)?.expires_at ?? null,
		batch: entry.batch,
	};
	const note = unconfirmedNote(p, entry, back);
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
	return json;
}

/** An extended proxy the service charged more than allowed: never a plain success. */
export function overchargedError(node: INode, p: Planned, entry: Charged, progress: string) {
	const listed = entry.amount !== null;
	const paid = listed ? ` (charged ${entry.amount})` : '';
	return new NodeOperationError(
		node,
		`Proxy \u201c${p.name}\u201d ${listed ? `was extended${paid}` : 'may have been extended'}, but the service charged more than allowed [item ${p.item}]`,
		{
			description: `${entry.overcharge}. ${listed ? 'The extension was applied and paid: do not run it again.' : 'The service\u2019s answer did not list this proxy: its extension may have been applied and charged.'} ${progress} Check the wallet (Proxy Account > Get Funds) and ask the service about the difference.`,
			itemIndex: p.item,
		},
	);
}
