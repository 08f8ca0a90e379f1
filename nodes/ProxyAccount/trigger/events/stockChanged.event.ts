import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../common/objects';
import { carrierDisplayName } from '../../helpers/framework/carriers';
import { carrierFilter, cityFilter, stateFilter } from '../../helpers/framework/descriptions';
import type { PlaceFilters } from '../../helpers/framework/filters';
import {
	carrierPasses,
	matchesStockPlace,
	readPlaceFilters,
} from '../../helpers/framework/filters';
import { stockOutput } from '../../helpers/framework/output';
import { parseChoice, parseWholeNumber } from '../../helpers/framework/validation';
import type { StockEntry } from '../../transport';
import { getStock } from '../../transport';
import { collection } from '../params';
import { ownValue } from '../proxies';
import type { Observed, TriggerEventModule } from '../registry';
import type { Detection, MapState } from '../state';
import { hasOwn, isTrusted, loadMapState, settling, STATE_VERSION, withGrace } from '../state';

export type StockChange = 'becameAvailable' | 'anyChange' | 'reachedThreshold';

const STOCK_CHANGES: readonly StockChange[] = ['becameAvailable', 'anyChange', 'reachedThreshold'];

export interface StockParams {
	event: 'stockChanged';
	change: StockChange;
	threshold: number;
	filters: PlaceFilters;
}

/** One city: its status and the carriers with a count above zero (a missing carrier counts 0). */
export interface CityState {
	s: string;
	c: Record<string, number>;
}

/** By city key (`city|state`), the cities listed and the cities kept while missing. */
export type StockState = MapState<'stockChanged', 'stock', CityState>;

export type StockChangeKind = 'became_available' | 'count_changed' | 'reached_threshold';

/** The `change` an item reports for each Stock Change. */
const KIND: Record<StockChange, StockChangeKind> = {
	becameAvailable: 'became_available',
	anyChange: 'count_changed',
	reachedThreshold: 'reached_threshold',
};

export interface StockSide {
	count: number;
	/** Null when the city was not in the previous stock. */
	status: string | null;
}

export interface StockObservation extends Observed {
	entries: StockEntry[];
}

function stockMap(value: unknown): Record<string, CityState> | undefined {
	if (isTrusted(value)) return value as Record<string, CityState>;
	if (!isRecord(value)) return undefined;
	const out: Array<[string, CityState]> = [];
	for (const [key, item] of Object.entries(value)) {
		if (!isRecord(item) || typeof item.s !== 'string' || !isRecord(item.c)) return undefined;
		const counts = Object.entries(item.c);
		if (counts.some(([, count]) => typeof count !== 'number' || !Number.isFinite(count)))
			return undefined;
		out.push([key, { s: item.s, c: Object.fromEntries(counts) as Record<string, number> }]);
	}
	return Object.fromEntries(out);
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
	const happened =
		change === 'becameAvailable'
			? !isAvailable(before) && isAvailable(after)
			: change === 'anyChange'
				? before.count !== after.count
				: change === 'reachedThreshold' && before.count < threshold && after.count >= threshold;
	return happened ? KIND[change] : undefined;
}

/** The entries with one per city key (the first wins: a repeat says nothing new). */
export function uniqueEntries(entries: StockEntry[]): StockEntry[] {
	const keys = new Set<string>();
	return entries.filter((entry) => {
		const key = cityKey(entry);
		if (keys.has(key)) return false;
		keys.add(key);
		return true;
	});
}

function cityState(entry: StockEntry): CityState {
	const counts: Array<[string, number]> = [];
	for (const [carrier, count] of Object.entries(entry.carriers))
		if (count !== 0) counts.push([carrier, count]);
	return { s: entry.status, c: Object.fromEntries(counts) };
}

export function stockEventItem(
	entry: StockEntry,
	carrier: string,
	change: StockChangeKind,
	before: StockSide,
	after: StockSide,
	threshold?: number,
): IDataObject {
	return {
		event: 'stock_changed',
		change,
		city: entry.city,
		state: entry.state,
		carrier,
		carrier_name: carrierDisplayName(carrier),
		...(change === 'reached_threshold' && threshold !== undefined ? { threshold } : {}),
		before: { ...before },
		after: { ...after },
		record: stockOutput(entry),
	};
}

/** Stock Changed (docs/trigger.md): a city or carrier not stored counts zero, its status unknown. */
export function detectStockChanges(
	previous: StockState | null,
	observation: StockObservation,
	params: StockParams,
): Detection<StockState> {
	const next: Record<string, CityState> = {};
	const events: IDataObject[] = [];
	const unique = uniqueEntries(observation.entries);
	const absorbing = settling(previous, observation.now) !== undefined;
	for (const entry of unique) {
		const key = cityKey(entry);
		// A city key holds `|`: never an array index nor `__proto__`, so the map keeps the list's order.
		next[key] = cityState(entry);
		if (!previous || !matchesStockPlace(entry, params.filters)) continue;
		const before = ownValue(previous.stock, key);
		// A new baseline settling: a city a partial (or empty) first reply left out joins it quietly.
		if (before === undefined && absorbing) continue;
		const carriers = Object.keys(entry.carriers);
		for (const carrier of Object.keys(before?.c ?? {}))
			if (!carriers.includes(carrier)) carriers.push(carrier);
		for (const carrier of carriers) {
			if (!carrierPasses(params.filters, carrier)) continue;
			const beforeSide: StockSide = {
				count: (before && ownValue(before.c, carrier)) ?? 0,
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
	const stored = previous?.stock;
	const missing: Array<[string, CityState]> = [];
	// `next` holds only the listed cities until the missing ones are kept.
	for (const key in stored)
		if (!hasOwn(next, key) && hasOwn(stored, key)) missing.push([key, stored[key]]);
	const keep = (key: string, city: CityState) => (next[key] = city);
	const nextState = withGrace<StockState, CityState>(
		{ missing, marks: previous?.gone, now: observation.now, keep },
		() => ({ v: STATE_VERSION, event: 'stockChanged', stock: next }),
	);
	return { events, nextState };
}

/** A count before the sample's current one that makes the chosen change happen. */
function sampleBefore(change: StockChange, side: StockSide, threshold: number): StockSide {
	if (change === 'becameAvailable') return { count: 0, status: 'out' };
	const count =
		change === 'reachedThreshold'
			? Math.max(0, threshold - 1)
			: side.count > 0
				? side.count - 1
				: 1;
	return { count, status: side.status };
}

/** "Fetch Test Event": what meets the change now, with a `before` that makes it happen; else one city. */
export function stockSamples(
	entries: StockEntry[],
	params: StockParams,
	limit: number,
): IDataObject[] {
	const kind = KIND[params.change];
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
	// The city as it is: a test event never shows counts the account does not have.
	const current: StockSide = { count: entry.carriers[carrier] ?? 0, status: entry.status };
	const before = sampleBefore(params.change, current, params.threshold);
	return [stockEventItem(entry, carrier, kind, before, current, params.threshold)];
}

/** The item describing the stock when no city matches the filters and the chosen change. */
function stockSummary(observation: StockObservation, params: StockParams): IDataObject {
	const cities = uniqueEntries(observation.entries);
	return {
		event: 'stock_changed',
		sample: true,
		message:
			'No city matches the filters and the chosen change right now. Items will look like the ones described in the node\u2019s documentation.',
		checked_at: new Date(observation.now).toISOString(),
		cities: cities.length,
		matching_cities: cities.filter((entry) => matchesStockPlace(entry, params.filters)).length,
	};
}

export const stockChanged: TriggerEventModule<StockParams, StockState, StockObservation> = {
	event: {
		name: 'Stock Changed',
		value: 'stockChanged',
		action: 'On Stock Changed',
		description: 'The stock of a city changes for a carrier, e.g. proxies come back in stock',
	},
	properties: [
		{
			displayName: 'Stock Change',
			name: 'stockChange',
			type: 'options',
			default: 'becameAvailable',
			options: [
				{
					name: 'Any Count Change',
					value: 'anyChange',
					description: 'Trigger whenever the count of a carrier in a city changes',
				},
				{
					name: 'Became Available',
					value: 'becameAvailable',
					description:
						'Trigger when a city gets proxies for a carrier: its count goes from zero to above zero, or the city\u2019s status turns available',
				},
				{
					name: 'Reached Threshold',
					value: 'reachedThreshold',
					description:
						'Trigger when the count of a carrier in a city goes from below the threshold to at or above it',
				},
			],
		},
		{
			displayName: 'Threshold',
			name: 'threshold',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 5,
			displayOptions: { show: { stockChange: ['reachedThreshold'] } },
			description: 'The count a carrier must reach in a city, e.g. 5',
		},
		{
			displayName: 'Filters',
			name: 'stockFilters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: [
				carrierFilter('getStockCarriers', 'Only changes of these carriers'),
				cityFilter('stock'),
				stateFilter('cities'),
			],
		},
	],
	stateKeys: ['stock'],
	readParameters(ctx) {
		const node = ctx.getNode();
		const change = parseChoice(
			node,
			undefined,
			ctx.getNodeParameter('stockChange', 'becameAvailable'),
			'Stock Change',
			STOCK_CHANGES,
			'the options in the list',
			'Open the node and pick a stock change from the list.',
		);
		const threshold =
			change === 'reachedThreshold'
				? parseWholeNumber(
						node,
						undefined,
						ctx.getNodeParameter('threshold', 5),
						'Threshold',
						{ min: 1 },
						'Enter the count a carrier must reach in a city, e.g. 5.',
					)
				: 1;
		const filters = readPlaceFilters(node, undefined, collection(ctx, 'stockFilters'));
		return { event: 'stockChanged', change, threshold, filters };
	},
	loadState: (staticData) =>
		loadMapState<StockState>(staticData, 'stockChanged', 'stock', stockMap),
	async observe(ctx, requestOptions) {
		const { entries, serverTime, dated } = await getStock(ctx, requestOptions);
		return { entries, now: serverTime, dated };
	},
	detect: detectStockChanges,
	samples: (observation, params, limit) => stockSamples(observation.entries, params, limit),
	summary: stockSummary,
};
