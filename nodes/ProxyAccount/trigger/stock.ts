import type { IDataObject } from 'n8n-workflow';

import { stockOutput } from '../helpers/output';
import { carrierDisplayName } from '../helpers/carriers';
import type { StockEntry } from '../transport';
import { carrierPasses, matchesStockPlace } from '../helpers/filters';
import type { StockChange, StockParams } from './params';
import type { CityState, StockState } from './state';
import { keepMissing, STATE_VERSION } from './state';

export type StockChangeKind = 'became_available' | 'count_changed' | 'reached_threshold';

export interface StockSide {
	count: number;
	/** The city's status; null when the city was not in the previous stock. */
	status: string | null;
}

export interface StockObservation {
	entries: StockEntry[];
	/** The service's clock when it answered. */
	now: number;
}

export interface Detection<S> {
	/** One output item's json per event, in the order of the payload. */
	events: IDataObject[];
	nextState: S;
}

/** A city's key in the state: the same city name may exist in two states. */
export function cityKey(entry: { city: string; state: string }): string {
	return `${entry.city}|${entry.state}`;
}

/** A carrier is available in a city when it has a count above zero and the city is `available`. */
export function isAvailable(side: StockSide): boolean {
	return (
		side.count > 0 && typeof side.status === 'string' && side.status.toLowerCase() === 'available'
	);
}

/** Which change of the chosen kind happened between two sides of one carrier in one city, if any. */
export function stockChangeOf(
	before: StockSide,
	after: StockSide,
	change: StockChange,
	threshold: number,
): StockChangeKind | undefined {
	switch (change) {
		case 'becameAvailable':
			return !isAvailable(before) && isAvailable(after) ? 'became_available' : undefined;
		case 'anyChange':
			return before.count !== after.count ? 'count_changed' : undefined;
		case 'reachedThreshold':
			return before.count < threshold && after.count >= threshold ? 'reached_threshold' : undefined;
		default:
			return undefined;
	}
}

/** The entries with one entry per city key (the first wins), and the set of those keys. */
function listedEntries(entries: StockEntry[]): { unique: StockEntry[]; keys: Set<string> } {
	const keys = new Set<string>();
	const unique = entries.filter((entry) => {
		const key = cityKey(entry);
		if (keys.has(key)) return false;
		keys.add(key);
		return true;
	});
	return { unique, keys };
}

/** Stock entries with one entry per city key (the first wins, as a repeated entry says nothing new). */
export function uniqueEntries(entries: StockEntry[]): StockEntry[] {
	return listedEntries(entries).unique;
}

function cityState(entry: StockEntry): CityState {
	const counts: Array<[string, number]> = [];
	for (const [carrier, count] of Object.entries(entry.carriers))
		if (count !== 0) counts.push([carrier, count]);
	return { s: entry.status, c: Object.fromEntries(counts) };
}

function ownValue<T>(map: Record<string, T> | undefined, key: string): T | undefined {
	return map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

export function stockEventItem(
	entry: StockEntry,
	carrier: string,
	change: StockChangeKind,
	before: StockSide,
	after: StockSide,
	threshold?: number,
): IDataObject {
	const item: IDataObject = {
		event: 'stock_changed',
		change,
		city: entry.city,
		state: entry.state,
		carrier,
		carrier_name: carrierDisplayName(carrier),
	};
	if (change === 'reached_threshold' && threshold !== undefined) item.threshold = threshold;
	item.before = { ...before };
	item.after = { ...after };
	item.record = stockOutput(entry);
	return item;
}

/**
 * Stock Changed: compares the stock of every city (and every carrier, as discovered in the payload)
 * with the stored stock. Without a previous state it only records the baseline. A city or a
 * carrier missing from the stored stock counts zero with an unknown status. A stored city missing
 * from the current stock is kept as it was while its grace period lasts (see `keepMissing`), so
 * when it comes back it is compared with what it was before it went missing.
 */
export function detectStockChanges(
	previous: StockState | null,
	observation: StockObservation,
	params: StockParams,
): Detection<StockState> {
	const next: Array<[string, CityState]> = [];
	const events: IDataObject[] = [];
	const { unique, keys } = listedEntries(observation.entries);
	for (const entry of unique) {
		const key = cityKey(entry);
		next.push([key, cityState(entry)]);
		if (!previous || !matchesStockPlace(entry, params.filters)) continue;
		const before = ownValue(previous.stock, key);
		const carriers = Object.keys(entry.carriers);
		for (const carrier of Object.keys(before?.c ?? {}))
			if (!carriers.includes(carrier)) carriers.push(carrier);
		for (const carrier of carriers) {
			if (!carrierPasses(params.filters, carrier)) continue;
			const beforeSide: StockSide = {
				count: ownValue(before?.c, carrier) ?? 0,
				status: before?.s ?? null,
			};
			const afterSide: StockSide = {
				count: ownValue(entry.carriers, carrier) ?? 0,
				status: entry.status,
			};
			const change = stockChangeOf(beforeSide, afterSide, params.change, params.threshold);
			if (change)
				events.push(
					stockEventItem(entry, carrier, change, beforeSide, afterSide, params.threshold),
				);
		}
	}
	const gone = previous
		? keepMissing(previous.stock, keys, previous.gone, observation.now, next)
		: undefined;
	const nextState: StockState = {
		v: STATE_VERSION,
		event: 'stockChanged',
		stock: Object.fromEntries(next),
	};
	if (gone) nextState.gone = gone;
	return { events, nextState };
}

/** A count before the sample's current one that makes the chosen change happen. */
function sampleBefore(change: StockChange, side: StockSide, threshold: number): StockSide {
	switch (change) {
		case 'becameAvailable':
			return { count: 0, status: 'out' };
		case 'reachedThreshold':
			return { count: Math.max(0, threshold - 1), status: side.status };
		default:
			return { count: side.count > 0 ? side.count - 1 : 1, status: side.status };
	}
}

/** The current side, or one that meets the change when the city does not (for an example only). */
function sampleAfter(change: StockChange, side: StockSide, threshold: number): StockSide {
	switch (change) {
		case 'becameAvailable':
			return isAvailable(side) ? side : { count: Math.max(side.count, 3), status: 'available' };
		case 'reachedThreshold':
			return side.count >= threshold ? side : { count: threshold, status: side.status };
		default:
			return side;
	}
}

/**
 * Items for "Fetch Test Event", shaped exactly like real events: cities and carriers that match the
 * filters and meet the chosen change's condition now, each with a `before` that would have made the
 * change happen (e.g. 0 and `out` before becoming available). When none does, one example built
 * from a real city (matching the filters when one does) with the counts the change needs. Empty
 * only when the stock list is.
 */
export function stockSamples(
	entries: StockEntry[],
	params: StockParams,
	limit: number,
): IDataObject[] {
	const kind: StockChangeKind =
		params.change === 'becameAvailable'
			? 'became_available'
			: params.change === 'reachedThreshold'
				? 'reached_threshold'
				: 'count_changed';
	const unique = uniqueEntries(entries);
	const out: IDataObject[] = [];
	for (const entry of unique) {
		if (!matchesStockPlace(entry, params.filters)) continue;
		for (const [carrier, count] of Object.entries(entry.carriers)) {
			if (out.length >= limit) return out;
			if (!carrierPasses(params.filters, carrier)) continue;
			const side: StockSide = { count, status: entry.status };
			if (params.change === 'becameAvailable' && !isAvailable(side)) continue;
			if (params.change === 'reachedThreshold' && count < params.threshold) continue;
			const before = sampleBefore(params.change, side, params.threshold);
			out.push(stockEventItem(entry, carrier, kind, before, side, params.threshold));
		}
	}
	if (out.length > 0 || unique.length === 0) return out;
	// Nothing meets the change now: one example from a real city, as the event would report it.
	const places = unique.filter((candidate) => matchesStockPlace(candidate, params.filters));
	const entry =
		places.find((candidate) =>
			Object.keys(candidate.carriers).some((key) => carrierPasses(params.filters, key)),
		) ??
		places[0] ??
		unique[0];
	const carrier =
		Object.keys(entry.carriers).find((key) => carrierPasses(params.filters, key)) ??
		params.filters.carriers[0] ??
		Object.keys(entry.carriers)[0] ??
		'att';
	const current: StockSide = { count: entry.carriers[carrier] ?? 0, status: entry.status };
	const after = sampleAfter(params.change, current, params.threshold);
	const before = sampleBefore(params.change, after, params.threshold);
	const shown: StockEntry = {
		...entry,
		status: after.status ?? entry.status,
		[carrier]: after.count,
		carriers: { ...entry.carriers, [carrier]: after.count },
	};
	return [stockEventItem(shown, carrier, kind, before, after, params.threshold)];
}
