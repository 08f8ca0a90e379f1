/**
 * Quote math of the Proxy Account service, computed in integer cents.
 *
 * - Bulk: when two or more items share a period (and the bulk price of that period is not null for
 *   their carriers), every item of the period is charged the bulk unit price.
 * - Otherwise members pay the member unit price, non-members the standard unit price.
 * - Item total = interval x unit price due. Period totals and the top-level total are sums.
 * - savings.member = standard - member per unit (0 for non-members); savings.bulk = (member or
 *   standard) - bulk per unit when bulk applies; savings.interval = 0; savings.total = standard - due.
 */
import type { Period, SimCarrier, UnitPrices } from './types';

export const DEFAULT_PRICES: Readonly<Record<Period, Readonly<UnitPrices>>> = {
	hourly: { standard: 2, member: 1.5, bulk: null },
	daily: { standard: 20, member: 17, bulk: null },
	weekly: { standard: 99, member: 89, bulk: 79 },
	monthly: { standard: 279, member: 229, bulk: 219 },
	yearly: { standard: 2790, member: 2290, bulk: 2190 },
};

/** A fresh, mutable copy of the default price table, optionally overridden per period. */
export function defaultPriceTable(overrides?: Partial<Record<Period, UnitPrices>>): Record<Period, UnitPrices> {
	const table = {} as Record<Period, UnitPrices>;
	for (const period of Object.keys(DEFAULT_PRICES) as Period[]) {
		table[period] = { ...DEFAULT_PRICES[period], ...(overrides?.[period] ?? {}) };
	}
	return table;
}

export function toCents(amount: number): number {
	return Math.round(amount * 100);
}

export function fromCents(cents: number): number {
	return cents / 100;
}

export interface QuoteLine {
	carrier: SimCarrier;
	/** City name (its two-letter code goes into the item key). */
	city: string;
	interval: number;
	period: Period;
}

export interface QuoteItem {
	interval: number;
	standard: number;
	member: number;
	total: number;
}

export interface Totals {
	standard: number;
	member: number;
	due: number;
}

export interface QuotePeriod {
	individual: Record<string, QuoteItem>;
	bulk: { individual: number; price: number | null };
	total: Totals;
}

export interface Saving {
	individual: number;
	total: number;
}

export interface QuoteData {
	member: boolean;
	periods: Partial<Record<Period, QuotePeriod>>;
	savings: {
		member: Partial<Record<Period, Saving>>;
		bulk: Partial<Record<Period, Saving>>;
		interval: number;
		total: number;
	};
	total: Totals;
}

export interface QuoteResult {
	data: QuoteData;
	/** Amount due per input line, in cents, in input order. */
	lineDueCents: number[];
	/** Total due in cents. */
	totalDueCents: number;
}

/**
 * Prices `lines` for an account. `itemKey` makes the key of each item (it must return distinct
 * keys); `prices` is looked up by carrier key.
 */
export function computeQuote(
	lines: readonly QuoteLine[],
	prices: Record<string, Record<Period, UnitPrices>>,
	member: boolean,
	itemKey: (line: QuoteLine) => string,
): QuoteResult {
	const byPeriod = new Map<Period, number[]>();
	lines.forEach((line, index) => {
		const group = byPeriod.get(line.period);
		if (group) group.push(index);
		else byPeriod.set(line.period, [index]);
	});

	const unit = (line: QuoteLine): UnitPrices => {
		const table = prices[line.carrier.key]?.[line.period] ?? DEFAULT_PRICES[line.period];
		return table;
	};

	const lineDueCents: number[] = new Array(lines.length).fill(0);
	const data: QuoteData = {
		member,
		periods: {},
		savings: { member: {}, bulk: {}, interval: 0, total: 0 },
		total: { standard: 0, member: 0, due: 0 },
	};
	let topStandard = 0;
	let topMember = 0;
	let topDue = 0;

	for (const [period, indexes] of byPeriod) {
		const bulkApplies = indexes.length >= 2 && indexes.every((i) => unit(lines[i]).bulk !== null);
		const individual: Record<string, QuoteItem> = {};
		let pStandard = 0;
		let pMember = 0;
		let pDue = 0;
		let memberSavingTotal = 0;
		let bulkSavingTotal = 0;
		let memberSavingUnit: number | null = null;
		let bulkSavingUnit: number | null = null;
		let bulkPrice: number | null = null;

		for (const i of indexes) {
			const line = lines[i];
			const prices = unit(line);
			const standard = toCents(prices.standard);
			const memberPrice = toCents(prices.member);
			const base = member ? memberPrice : standard;
			const bulk = bulkApplies && prices.bulk !== null ? toCents(prices.bulk) : null;
			const due = bulk ?? base;
			const memberSaving = member ? standard - memberPrice : 0;
			const bulkSaving = bulk === null ? 0 : base - bulk;
			if (bulkPrice === null && bulk !== null) bulkPrice = bulk;
			if (memberSavingUnit === null) memberSavingUnit = memberSaving;
			if (bulkSavingUnit === null) bulkSavingUnit = bulkSaving;

			const itemDue = line.interval * due;
			individual[itemKey(line)] = {
				interval: line.interval,
				standard: fromCents(standard),
				member: fromCents(memberPrice),
				total: fromCents(itemDue),
			};
			lineDueCents[i] = itemDue;
			pStandard += line.interval * standard;
			pMember += line.interval * memberPrice;
			pDue += itemDue;
			memberSavingTotal += line.interval * memberSaving;
			bulkSavingTotal += line.interval * bulkSaving;
		}

		data.periods[period] = {
			individual,
			bulk: { individual: indexes.length, price: bulkPrice === null ? null : fromCents(bulkPrice) },
			total: { standard: fromCents(pStandard), member: fromCents(pMember), due: fromCents(pDue) },
		};
		data.savings.member[period] = { individual: fromCents(memberSavingUnit ?? 0), total: fromCents(memberSavingTotal) };
		data.savings.bulk[period] = { individual: fromCents(bulkSavingUnit ?? 0), total: fromCents(bulkSavingTotal) };
		topStandard += pStandard;
		topMember += pMember;
		topDue += pDue;
	}

	data.savings.total = fromCents(topStandard - topDue);
	data.total = { standard: fromCents(topStandard), member: fromCents(topMember), due: fromCents(topDue) };
	return { data, lineDueCents, totalDueCents: topDue };
}
