/**
 * Stock Changed detection on the pure functions (no engine, no HTTP): the baseline, each change
 * kind, filters (which limit what is emitted, never what is remembered), repeated cities in one
 * reply, and the "Fetch Test Event" samples. The grace period of missing cities is in
 * trigger-grace.test.ts.
 */
import { readPlaceFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { FILTER_NODE } from '../harness/filter-node';
import { stockOutput } from '../../nodes/ProxyAccount/helpers/framework/output';
import type { StockEntry } from '../../nodes/ProxyAccount/transport/schemas';
import type { StockChange, StockParams, StockState } from '../../nodes/ProxyAccount/trigger/events/stockChanged.event';
import { cityKey, detectStockChanges, isAvailable, stockChangeOf, stockSamples, uniqueEntries } from '../../nodes/ProxyAccount/trigger/events/stockChanged.event';
import { stockEntry, T0 } from '../fixtures/records';

function params(change: StockChange, filters: Record<string, string> = {}, threshold = 5): StockParams {
	return { event: 'stockChanged', change, threshold, filters: readPlaceFilters(FILTER_NODE, undefined, filters) };
}

function state(stock: StockState['stock']): StockState {
	return { v: 3, event: 'stockChanged', stock };
}

const detect = (previous: StockState | null, entries: StockEntry[], p: StockParams) => detectStockChanges(previous, { entries, now: T0 }, p);

describe('cityKey, isAvailable', () => {
	it('keys a city by name and state, so one name in two states is two cities', () => {
		expect(cityKey({ city: 'Portland', state: 'OR' })).toBe('Portland|OR');
		expect(cityKey({ city: 'Portland', state: 'ME' })).not.toBe(cityKey({ city: 'Portland', state: 'OR' }));
	});

	it.each([
		[{ count: 1, status: 'available' }, true],
		[{ count: 3, status: 'AVAILABLE' }, true],
		[{ count: 0, status: 'available' }, false],
		[{ count: 5, status: 'out' }, false],
		[{ count: 5, status: 'coming' }, false],
		[{ count: 5, status: null }, false],
	])('%j is available: %s', (side, expected) => {
		expect(isAvailable(side)).toBe(expected);
	});
});

describe('stockChangeOf', () => {
	const side = (count: number, status: string | null = 'available') => ({ count, status });
	it.each([
		['becameAvailable', side(0, 'out'), side(2), 'became_available'],
		['becameAvailable', side(3, 'coming'), side(3), 'became_available'],
		['becameAvailable', side(0, null), side(1), 'became_available'],
		['becameAvailable', side(1), side(9), undefined],
		['becameAvailable', side(2), side(0, 'out'), undefined],
		['anyChange', side(3), side(4), 'count_changed'],
		['anyChange', side(3), side(0, 'out'), 'count_changed'],
		['anyChange', side(3, 'available'), side(3, 'out'), undefined],
		['reachedThreshold', side(4), side(5), 'reached_threshold'],
		['reachedThreshold', side(0), side(7), 'reached_threshold'],
		['reachedThreshold', side(5), side(6), undefined],
		['reachedThreshold', side(6), side(4), undefined],
		['reachedThreshold', side(3), side(4), undefined],
	] as const)('%s: %j -> %j is %s', (change, before, after, expected) => {
		expect(stockChangeOf(before, after, change, 5)).toBe(expected);
	});

	it('an unknown change kind is never a change', () => {
		expect(stockChangeOf(side(0), side(10), 'other' as StockChange, 5)).toBeUndefined();
	});
});

describe('detectStockChanges', () => {
	it('baseline: emits nothing and records every city with its carriers above zero', () => {
		const result = detect(null, [stockEntry('Austin', 'TX', 'available', { att: 3, verizon: 0 }), stockEntry('Miami', 'FL', 'out', { att: 0 })], params('becameAvailable'));
		expect(result.events).toEqual([]);
		expect(result.nextState).toEqual({
			v: 3,
			event: 'stockChanged',
			stock: { 'Austin|TX': { s: 'available', c: { att: 3 } }, 'Miami|FL': { s: 'out', c: {} } },
		});
		expect('gone' in result.nextState).toBe(false);
	});

	it('becameAvailable: one item for the carrier that became available, with before, after and the record', () => {
		const previous = state({ 'Austin|TX': { s: 'out', c: { verizon: 1 } } });
		const entry = stockEntry('Austin', 'TX', 'available', { att: 2, verizon: 1 });
		const result = detect(previous, [entry], params('becameAvailable'));
		expect(result.events).toEqual([
			{
				event: 'stock_changed',
				change: 'became_available',
				city: 'Austin',
				state: 'TX',
				carrier: 'att',
				carrier_name: 'AT&T',
				before: { count: 0, status: 'out' },
				after: { count: 2, status: 'available' },
				record: stockOutput(entry),
			},
			{
				event: 'stock_changed',
				change: 'became_available',
				city: 'Austin',
				state: 'TX',
				carrier: 'verizon',
				carrier_name: 'Verizon',
				before: { count: 1, status: 'out' },
				after: { count: 1, status: 'available' },
				record: stockOutput(entry),
			},
		]);
		expect(result.events[0].record).toMatchObject({ total: 3, carriers: { att: 2, verizon: 1 } });
		expect(result.nextState.stock).toEqual({ 'Austin|TX': { s: 'available', c: { att: 2, verizon: 1 } } });
	});

	it('becameAvailable: a carrier that stays available emits nothing, even when its count changes', () => {
		const previous = state({ 'Austin|TX': { s: 'available', c: { att: 2 } } });
		const result = detect(previous, [stockEntry('Austin', 'TX', 'available', { att: 9 })], params('becameAvailable'));
		expect(result.events).toEqual([]);
		expect(result.nextState.stock['Austin|TX']).toEqual({ s: 'available', c: { att: 9 } });
	});

	it('becameAvailable: a city that was not stored counts zero with an unknown status', () => {
		const previous = state({});
		const result = detect(previous, [stockEntry('Boise', 'ID', 'available', { tmobile: 4 })], params('becameAvailable'));
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ carrier: 'tmobile', carrier_name: 'T-Mobile', before: { count: 0, status: null }, after: { count: 4, status: 'available' } });
	});

	it('anyChange: a changed count emits count_changed; a status change alone emits nothing', () => {
		const previous = state({ 'Austin|TX': { s: 'available', c: { att: 3, verizon: 2 } } });
		const result = detect(previous, [stockEntry('Austin', 'TX', 'out', { att: 3, verizon: 5 })], params('anyChange'));
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ change: 'count_changed', carrier: 'verizon', before: { count: 2, status: 'available' }, after: { count: 5, status: 'out' } });
		expect(result.events[0]).not.toHaveProperty('threshold');
	});

	it('anyChange: a stored carrier no longer listed in the entry counts zero', () => {
		const previous = state({ 'Austin|TX': { s: 'available', c: { att: 3, verizon: 2 } } });
		const result = detect(previous, [stockEntry('Austin', 'TX', 'available', { att: 3 })], params('anyChange'));
		expect(result.events.map((event) => [event.carrier, event.before, event.after])).toEqual([['verizon', { count: 2, status: 'available' }, { count: 0, status: 'available' }]]);
		expect(result.nextState.stock['Austin|TX']).toEqual({ s: 'available', c: { att: 3 } });
	});

	it('reachedThreshold: only crossing the threshold upwards emits, with the threshold in the item', () => {
		const previous = state({ 'A|TX': { s: 'available', c: { att: 4 } }, 'B|TX': { s: 'available', c: { att: 5 } }, 'C|TX': { s: 'available', c: { att: 9 } } });
		const entries = [stockEntry('A', 'TX', 'available', { att: 5 }), stockEntry('B', 'TX', 'available', { att: 8 }), stockEntry('C', 'TX', 'available', { att: 2 })];
		const result = detect(previous, entries, params('reachedThreshold', {}, 5));
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ change: 'reached_threshold', city: 'A', threshold: 5, before: { count: 4 }, after: { count: 5 } });
	});

	it('items follow the order of the payload', () => {
		const previous = state({});
		const entries = [stockEntry('Zeta', 'TX', 'available', { verizon: 1, att: 1 }), stockEntry('Alpha', 'TX', 'available', { att: 1 })];
		const result = detect(previous, entries, params('becameAvailable'));
		expect(result.events.map((event) => `${event.city}/${event.carrier}`)).toEqual(['Zeta/verizon', 'Zeta/att', 'Alpha/att']);
	});

	it('a city filter limits what is emitted, not what is remembered', () => {
		const previous = state({});
		const entries = [stockEntry('Austin', 'TX', 'available', { att: 1 }), stockEntry('Denver', 'CO', 'available', { att: 2 })];
		const result = detect(previous, entries, params('becameAvailable', { city: ' denver ' }));
		expect(result.events.map((event) => event.city)).toEqual(['Denver']);
		expect(Object.keys(result.nextState.stock)).toEqual(['Austin|TX', 'Denver|CO']);
	});

	it('a state filter limits what is emitted, not what is remembered', () => {
		const previous = state({});
		const entries = [stockEntry('Portland', 'OR', 'available', { att: 1 }), stockEntry('Portland', 'ME', 'available', { att: 2 })];
		const result = detect(previous, entries, params('becameAvailable', { state: 'me' }));
		expect(result.events.map((event) => event.state)).toEqual(['ME']);
		expect(Object.keys(result.nextState.stock)).toEqual(['Portland|OR', 'Portland|ME']);
	});

	it('a carrier filter (display name or key) emits that carrier only and remembers every carrier', () => {
		const previous = state({});
		const entries = [stockEntry('Austin', 'TX', 'available', { att: 1, verizon: 2, tmobile: 3 })];
		for (const carrier of ['T-Mobile', 'tmobile']) {
			const result = detect(previous, entries, params('becameAvailable', { carrier }));
			expect(result.events.map((event) => event.carrier)).toEqual(['tmobile']);
			expect(result.nextState.stock['Austin|TX'].c).toEqual({ att: 1, verizon: 2, tmobile: 3 });
		}
	});

	it('a city repeated in one reply: the first entry wins, for the events and for the state', () => {
		const previous = state({ 'Austin|TX': { s: 'available', c: { att: 3 } } });
		const entries = [stockEntry('Austin', 'TX', 'available', { att: 4 }), stockEntry('Austin', 'TX', 'available', { att: 7 })];
		const result = detect(previous, entries, params('anyChange'));
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ before: { count: 3 }, after: { count: 4 } });
		expect(result.nextState.stock).toEqual({ 'Austin|TX': { s: 'available', c: { att: 4 } } });
	});

	it('carrier and city names that are Object.prototype keys are read as counts, never inherited', () => {
		const previous = state({ 'Austin|TX': { s: 'available', c: {} } });
		const result = detect(previous, [stockEntry('Austin', 'TX', 'available', { constructor: 2, toString: 1 })], params('becameAvailable'));
		expect(result.events.map((event) => [event.carrier, event.before])).toEqual([
			['constructor', { count: 0, status: 'available' }],
			['toString', { count: 0, status: 'available' }],
		]);
		const fresh = detect(state({}), [stockEntry('__proto__', 'x', 'available', { att: 1 })], params('becameAvailable'));
		expect(fresh.events).toHaveLength(1);
		expect(Object.keys(fresh.nextState.stock)).toEqual(['__proto__|x']);
	});

	it('an unchanged reply emits nothing and gives back an equal state', () => {
		const entries = [stockEntry('Austin', 'TX', 'available', { att: 3 }), stockEntry('Miami', 'FL', 'out', {})];
		for (const change of ['becameAvailable', 'anyChange', 'reachedThreshold'] as const) {
			const baseline = detect(null, entries, params(change, {}, 1));
			const again = detect(baseline.nextState, entries, params(change, {}, 1));
			expect(again.events).toEqual([]);
			expect(again.nextState).toEqual(baseline.nextState);
		}
	});
});

describe('uniqueEntries', () => {
	it('keeps the first entry of each city key, in order', () => {
		const first = stockEntry('Austin', 'TX', 'available', { att: 1 });
		const other = stockEntry('Austin', 'OK', 'available', { att: 2 });
		const repeat = stockEntry('Austin', 'TX', 'out', { att: 0 });
		expect(uniqueEntries([first, other, repeat])).toEqual([first, other]);
		expect(uniqueEntries([first, other, repeat])[0]).toBe(first);
	});
});

describe('stockSamples', () => {
	const entries = [
		stockEntry('Austin', 'TX', 'available', { att: 6, verizon: 0 }),
		stockEntry('Miami', 'FL', 'coming', { att: 9 }),
		stockEntry('Austin', 'TX', 'out', { att: 1 }),
		stockEntry('Denver', 'CO', 'available', { att: 2, tmobile: 5 }),
	];

	it('becameAvailable: the carriers available now, each as if it had been out before', () => {
		const samples = stockSamples(entries, params('becameAvailable'), 10);
		expect(samples.map((item) => `${item.city}/${item.carrier}`)).toEqual(['Austin/att', 'Denver/att', 'Denver/tmobile']);
		expect(samples[0]).toMatchObject({ event: 'stock_changed', change: 'became_available', before: { count: 0, status: 'out' }, after: { count: 6, status: 'available' } });
	});

	it('every sample has a before that makes its change happen, never equal to after', () => {
		for (const change of ['becameAvailable', 'anyChange', 'reachedThreshold'] as const) {
			for (const item of stockSamples(entries, params(change, {}, 5), 10)) {
				expect(item.before).not.toEqual(item.after);
				const before = item.before as { count: number };
				const after = item.after as { count: number };
				if (change === 'reachedThreshold') expect([before.count < 5, after.count >= 5]).toEqual([true, true]);
			}
		}
	});

	it('nothing meets the change now: one example from a real city, shaped like the event, with the counts it has (none invented)', () => {
		const soldOut = [stockEntry('Austin', 'TX', 'out', { att: 0, verizon: 0 }), stockEntry('Denver', 'CO', 'out', { tmobile: 0 })];
		const [example, ...rest] = stockSamples(soldOut, params('becameAvailable', { carrier: 'T-Mobile' }), 10);
		expect(rest).toEqual([]);
		expect(example).toMatchObject({ city: 'Denver', carrier: 'tmobile', carrier_name: 'T-Mobile', change: 'became_available', after: { count: 0, status: 'out' } });
		expect((example.record as { tmobile: number; total: number }).tmobile).toBe(0);
		expect(stockSamples(soldOut, params('reachedThreshold', {}, 8), 10)).toEqual([expect.objectContaining({ change: 'reached_threshold', threshold: 8, after: { count: 0, status: 'out' } })]);
		expect(stockSamples([], params('becameAvailable'), 10)).toEqual([]);
	});

	it('reachedThreshold: the carriers at or above the threshold, with the threshold', () => {
		const samples = stockSamples(entries, params('reachedThreshold', {}, 5), 10);
		expect(samples.map((item) => `${item.city}/${item.carrier}/${item.threshold}`)).toEqual(['Austin/att/5', 'Miami/att/5', 'Denver/tmobile/5']);
	});

	it('anyChange: every carrier of every matching city', () => {
		const samples = stockSamples(entries, params('anyChange'), 10);
		expect(samples.map((item) => `${item.city}/${item.carrier}/${item.change}`)).toEqual([
			'Austin/att/count_changed',
			'Austin/verizon/count_changed',
			'Miami/att/count_changed',
			'Denver/att/count_changed',
			'Denver/tmobile/count_changed',
		]);
	});

	it('filters and the limit', () => {
		expect(stockSamples(entries, params('anyChange', { carrier: 'AT&T', state: 'tx,co' }), 10).map((item) => item.city)).toEqual(['Austin', 'Denver']);
		expect(stockSamples(entries, params('anyChange'), 2).map((item) => `${item.city}/${item.carrier}`)).toEqual(['Austin/att', 'Austin/verizon']);
		expect(stockSamples(entries, params('anyChange'), 0)).toEqual([]);
	});
});
