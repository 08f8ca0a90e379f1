import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { QuoteData, QuoteLine } from '../../transport';
import { requestErrorFacts, send } from '../../transport';
import { asNodeError } from '../framework/itemLoop';
import { cents } from './charges';

/**
 * Pairs each requested line with its item in the quote. Within a period the service keys items
 * by opaque keys in request order, so the n-th line of a period is the n-th key of that period.
 */
export function linesWithPrices(lines: QuoteLine[], quote: QuoteData) {
	const seen: Record<string, number> = {};
	return lines.map((line) => {
		const period = quote.periods[line.period];
		const position = (seen[line.period] = (seen[line.period] ?? -1) + 1);
		const entry = period ? Object.entries(period.individual)[position] : undefined;
		return { line, period, key: entry?.[0], item: entry?.[1] };
	});
}

/**
 * The one line a quote's refusal of its input (the service said no before doing anything) is about:
 * the line its message points at (`proxies[2]`) when that line alone is refused too, else the one
 * found by quoting halves (quotes charge nothing). Undefined for any other failure or refusal.
 */
export async function refusedLine(
	ctx: IExecuteFunctions,
	lines: QuoteLine[],
	error: unknown,
	timeoutMs: number,
	itemIndex: number,
): Promise<number | undefined> {
	const refusesInput = (failure: unknown) => requestErrorFacts(failure)?.kind === 'input-refused';
	if (!refusesInput(error)) return undefined;
	const isRefused = async (indices: number[]) => {
		try {
			await send(ctx, 'quotePrices', {
				body: indices.map((i) => lines[i]),
				itemIndex,
				timeoutMs,
			});
			return false;
		} catch (failure) {
			if (refusesInput(failure)) return true;
			throw asNodeError(ctx, failure, itemIndex);
		}
	};
	// Where the service points at a line, that line is tried first: a hint only.
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

/** The fields of a quote line as the editor names them. */
const LINE_FIELDS: Record<string, string> = {
	isp: 'Carrier',
	location: 'City',
	interval: 'Interval',
	period: 'Period',
};

/**
 * The service refused the input of a quote (e.g. a carrier or a city only it can tell it does not
 * know): the error names the item and, when the service points at a line's field
 * (`proxies[2].location`), that field as the editor shows it. Other errors are returned unchanged.
 */
function explainRefusal(
	ctx: IExecuteFunctions,
	error: unknown,
	lines: QuoteLine[],
	owners: number[],
	nothing = 'A quote charges nothing.',
): unknown {
	if (!(error instanceof NodeApiError)) return error;
	const facts = requestErrorFacts(error);
	if (facts?.kind !== 'input-refused' || facts.said === undefined) return error;
	const said = facts.said;
	const match = /proxies\[(\d+)\](?:\[\d+\])?\.(isp|location|interval|period)\b/.exec(said);
	const index = match ? Number(match[1]) : -1;
	const line = lines[index];
	const item = line ? owners[index] : owners[0];
	let message = `The Proxy Account service rejected the request: ${said} [item ${item}]`;
	let fix = 'Check the Carrier, City, Interval and Period of each line.';
	if (match && line) {
		const field = LINE_FIELDS[match[2]];
		const value = line[match[2] as keyof QuoteLine];
		// The item's own lines, numbered when it has several.
		const ofItem = owners.flatMap((owner, k) => (owner === item ? [k] : []));
		const label = ofItem.length > 1 ? ` (line ${ofItem.indexOf(index) + 1})` : '';
		message = `The Proxy Account service rejected the request: ${said} (${field}${label} \u201c${String(value)}\u201d) [item ${item}]`;
		fix =
			field === 'Carrier' || field === 'City'
				? `Pick the ${field.toLowerCase()} from the list (it is loaded from the service's live stock), or check the expression that sets it.`
				: `Check ${field}${label}.`;
	}
	return new NodeApiError(ctx.getNode(), error.errorResponse ?? { message }, {
		message,
		description: `${fix} ${nothing}`,
		httpCode: error.httpCode ?? undefined,
		itemIndex: item,
	});
}

/**
 * One quote request for `lines` (`owners[n]` is the item of line n), sent for the first owner: a
 * refusal is explained by the line it names; `nothing` says what did not happen.
 */
export async function quoteOwnedLines(
	ctx: IExecuteFunctions,
	lines: QuoteLine[],
	owners: number[],
	timeoutMs: number,
	nothing?: string,
): Promise<QuoteData> {
	try {
		return (await send(ctx, 'quotePrices', { body: lines, itemIndex: owners[0], timeoutMs }))
			.result;
	} catch (error) {
		throw asNodeError(ctx, explainRefusal(ctx, error, lines, owners, nothing), owners[0]);
	}
}

/**
 * What the lines cost one proxy at a time: each at the price it pays alone (e.g. its own renewal),
 * never the bulk price a quote of several lines of one period gives. One quote per distinct line
 * (carrier, city, interval, period), holding that line alone, times the lines that have it.
 */
export async function singleProxyTotal(
	ctx: IExecuteFunctions,
	lines: QuoteLine[],
	read: { itemIndex: number; timeoutMs: number },
): Promise<number> {
	const alike = new Map<string, { line: QuoteLine; count: number }>();
	for (const line of lines) {
		const key = JSON.stringify([line.isp, line.location, line.interval, line.period]);
		const seen = alike.get(key);
		if (seen) seen.count += 1;
		else alike.set(key, { line, count: 1 });
	}
	let total = 0;
	for (const { line, count } of alike.values()) {
		const { result } = await send(ctx, 'quotePrices', { ...read, body: [line] });
		total = cents(total + result.total.due * count);
	}
	return total;
}
