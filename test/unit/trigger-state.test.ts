/**
 * The trigger's stored state (no engine): `loadState` reads each event's layout and trusts nothing
 * damaged or foreign; `commitState` leaves the static data alone when nothing changed and replaces
 * it, foreign keys included, otherwise. The grace period's marks are in trigger-grace.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TriggerEvent, TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import { commitState, loadState, TRIGGER_EVENTS } from '../../nodes/ProxyAccount/trigger/events';
import { sameJson, STATE_VERSION } from '../../nodes/ProxyAccount/trigger/state';

/** A valid version 2 state of each event, as the static data holds it. */
const VALID: Record<TriggerEvent, IDataObject> = {
	stockChanged: { v: 2, event: 'stockChanged', stock: { 'Austin|TX': { s: 'available', c: { att: 3 } }, 'Miami|FL': { s: 'out', c: {} } } },
	proxyExpiring: { v: 2, event: 'proxyExpiring', reported: { A: '2025-03-02T00:00:00.000Z' } },
	proxyStatusChanged: { v: 2, event: 'proxyStatusChanged', status: { A: 'online', B: 'offline' } },
	newProxy: { v: 2, event: 'newProxy', names: ['A', 'B'] },
	proxyRemoved: { v: 2, event: 'proxyRemoved', known: { A: { proxy_name: 'A', city: 'Austin', nickname: null, h_port: 8000, auto_renew: true } } },
	lowFunds: { v: 2, event: 'lowFunds', below: true },
	ipChanged: { v: 2, event: 'ipChanged', ips: { A: '2025-03-01T12:00:00.000Z', B: '2025-03-01T12:10:00.000Z' } },
};

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('loadState', () => {
	it('the state version is 2', () => {
		expect(STATE_VERSION).toBe(2);
	});

	it.each(TRIGGER_EVENTS)('%s: a valid state is read as it was stored', (event) => {
		expect(loadState(copy(VALID[event]), event)).toEqual(VALID[event]);
		const withMarks = { ...copy(VALID[event]), gone: { A: [1, 1000] } };
		expect(loadState(withMarks, event)).toEqual(withMarks);
	});

	it.each(TRIGGER_EVENTS)('%s: empty static data (the first poll) is no state', (event) => {
		expect(loadState({}, event)).toBeNull();
	});

	it.each(TRIGGER_EVENTS)('%s: the state of another event is not trusted', (event) => {
		for (const other of TRIGGER_EVENTS) {
			if (other === event) continue;
			expect(loadState(copy(VALID[other]), event)).toBeNull();
			// Nor is a state that names this event but holds another event's map.
			expect(loadState({ ...copy(VALID[other]), event }, event)).toBeNull();
		}
	});

	it.each(TRIGGER_EVENTS)('%s: another layout version is not trusted', (event) => {
		for (const v of [undefined, 0, 3, '2', null, 2.5]) expect(loadState({ ...copy(VALID[event]), v } as IDataObject, event)).toBeNull();
	});

	it.each(TRIGGER_EVENTS)('%s: a version 1 state is read as version 2 with no marks (whatever its gone holds)', (event) => {
		const v1 = { ...copy(VALID[event]), v: 1, gone: 'junk' };
		expect(loadState(v1, event)).toEqual(VALID[event]);
	});

	it.each([
		['stockChanged', 'stock', ['not a map', ['Austin|TX'], null, 7]],
		['stockChanged', 'stock', [{ 'Austin|TX': null }, { 'Austin|TX': { c: { att: 3 } } }, { 'Austin|TX': { s: 5, c: {} } }, { 'Austin|TX': { s: 'out' } }, { 'Austin|TX': { s: 'out', c: [3] } }]],
		['stockChanged', 'stock', [{ 'Austin|TX': { s: 'out', c: { att: '3' } } }, { 'Austin|TX': { s: 'out', c: { att: null } } }, { 'Austin|TX': { s: 'out', c: { att: Number.NaN } } }, { 'Austin|TX': { s: 'out', c: { att: Infinity } } }]],
		['proxyExpiring', 'reported', ['x', ['A'], null, { A: 5 }, { A: null }, { A: { at: 'x' } }]],
		['proxyStatusChanged', 'status', ['x', ['A'], null, { A: true }, { A: ['online'] }]],
		['newProxy', 'names', ['A', { 0: 'A' }, null, ['A', 2], [null]]],
	] as const)('%s: a damaged %s is not trusted', (event, key, damaged) => {
		for (const value of damaged) {
			expect(loadState({ ...copy(VALID[event]), [key]: value } as IDataObject, event)).toBeNull();
		}
		const missing = copy(VALID[event]);
		delete missing[key];
		expect(loadState(missing, event)).toBeNull();
	});

	it('damaged marks in a version 2 state are not trusted', () => {
		for (const gone of ['x', [], { A: [0, 1] }, { A: [1] }, { A: [1.5, 1] }, { A: [1, '1'] }, { A: [1, Infinity] }, { A: null }]) {
			expect(loadState({ ...copy(VALID.newProxy), gone } as IDataObject, 'newProxy')).toBeNull();
		}
	});

	it('a stored city keeps only its status and counts, in a copy detached from the static data', () => {
		const staticData: IDataObject = { v: 2, event: 'stockChanged', stock: { 'Austin|TX': { s: 'out', c: { att: 0 }, extra: true } } };
		const state = loadState(staticData, 'stockChanged');
		expect(state).toEqual({ v: 2, event: 'stockChanged', stock: { 'Austin|TX': { s: 'out', c: { att: 0 } } } });
		if (state?.event !== 'stockChanged') throw new Error('expected a stock state');
		state.stock['Austin|TX'].c.att = 9;
		expect(staticData.stock).toEqual({ 'Austin|TX': { s: 'out', c: { att: 0 }, extra: true } });
	});
});

describe('commitState', () => {
	it('leaves the static data untouched when nothing changed and it holds nothing else', () => {
		const staticData = copy(VALID.proxyStatusChanged);
		const maps = staticData.status;
		const previous = loadState(staticData, 'proxyStatusChanged');
		// The same state, its keys in another order.
		const next: TriggerState = { event: 'proxyStatusChanged', status: { B: 'offline', A: 'online' }, v: 2 };
		commitState(staticData, next, previous);
		expect(staticData).toEqual(VALID.proxyStatusChanged);
		expect(staticData.status).toBe(maps);
		expect(Object.keys(staticData)).toEqual(['v', 'event', 'status']);
	});

	it('leaves a version 1 state as it is when nothing changed (it is read as version 2 anyway)', () => {
		const staticData: IDataObject = { v: 1, event: 'newProxy', names: ['A'] };
		commitState(staticData, { v: 2, event: 'newProxy', names: ['A'] }, loadState(staticData, 'newProxy'));
		expect(staticData).toEqual({ v: 1, event: 'newProxy', names: ['A'] });
	});

	it('writes the state on the first poll', () => {
		const staticData: IDataObject = {};
		const next: TriggerState = { v: 2, event: 'newProxy', names: ['A'] };
		commitState(staticData, next, null);
		expect(staticData).toEqual(next);
	});

	it('replaces the static data when the state changed', () => {
		const staticData = copy(VALID.proxyStatusChanged);
		const next: TriggerState = { v: 2, event: 'proxyStatusChanged', status: { A: 'offline' }, gone: { B: [1, 5] } };
		commitState(staticData, next, loadState(staticData, 'proxyStatusChanged'));
		expect(staticData).toEqual(next);
		// And back without marks: `gone` goes.
		const after: TriggerState = { v: 2, event: 'proxyStatusChanged', status: { A: 'offline' } };
		commitState(staticData, after, loadState(staticData, 'proxyStatusChanged'));
		expect(staticData).toEqual(after);
		expect('gone' in staticData).toBe(false);
	});

	it('removes the keys of another event when the event changed', () => {
		const staticData = copy(VALID.stockChanged);
		const next: TriggerState = { v: 2, event: 'newProxy', names: [] };
		commitState(staticData, next, loadState(staticData, 'newProxy'));
		expect(staticData).toEqual(next);
	});

	it('removes foreign keys even when the state itself did not change', () => {
		const staticData: IDataObject = { ...copy(VALID.newProxy), lastTimeChecked: 123, other: { a: 1 } };
		const previous = loadState(staticData, 'newProxy');
		expect(previous).toEqual(VALID.newProxy);
		commitState(staticData, { v: 2, event: 'newProxy', names: ['A', 'B'] }, previous);
		expect(staticData).toEqual(VALID.newProxy);
	});
});

describe('sameJson', () => {
	it.each([
		[{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
		[{ a: 1 }, { a: 1, b: 2 }, false],
		[{ a: undefined }, { b: undefined }, false],
		[[1, 2], [2, 1], false],
		[[], {}, false],
		[{ 0: 'a' }, ['a'], false],
		[null, {}, false],
		['2', 2, false],
	])('%j and %j: %s', (a, b, expected) => {
		expect(sameJson(a, b)).toBe(expected);
	});
});
