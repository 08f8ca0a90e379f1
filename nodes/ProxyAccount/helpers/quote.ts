import type { IExecuteFunctions } from 'n8n-workflow';

import type { QuoteData, QuoteLine } from '../transport';
import { quotePrices, requestErrorFacts } from '../transport';
import { asNodeError } from './itemLoop';

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
 * Which line of a refused quote the service will not price, if a quote refused it (a 4xx or an
 * `ok: false`: the service said no before doing anything) and one line alone is to blame: the
 * line its message points at (`proxies[2]`) when quoting that line alone is refused too, else the
 * one found by quoting halves. Quotes charge nothing. Undefined when the refusal is not about one
 * line, or for any other failure.
 */
export async function refusedLine(
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
