/*
 * Extend's quote of exactly the batches it would send, for Dry Run, Maximum Total Cost and Keep
 * Wallet At Least: a line the service will not price fails its own item and the rest is quoted
 * again; over the cap nothing is sent; a Dry Run answers with the estimates.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { send } from '../../transport';
import { chunk } from '../../helpers/money/batches';
import { cents } from '../../helpers/money/charges';
import { asNodeError } from '../../helpers/framework/itemLoop';
import type { Planned } from './extend.plan';
import { quoteLineOf } from './extend.plan';
import { linesWithPrices, refusedLine } from '../../helpers/money/quote';
import type { ItemResults } from '../../helpers/framework/batchedRun';
import type { RunOptions } from '../../helpers/framework/runOptions';
import { proxiesWere } from '../../common/wording';

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
			const { result: quote } = await send(ctx, 'quotePrices', {
				body: lines,
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
