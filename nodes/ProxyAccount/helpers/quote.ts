import type { QuoteData, QuoteLine } from '../transport';

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
