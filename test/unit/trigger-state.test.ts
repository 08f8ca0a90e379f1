/**
 * The trigger's stored state (no engine): `loadState` reads each event's layout and trusts nothing
 * damaged or foreign; `commitState` leaves the static data alone when nothing changed and replaces
 * it, foreign keys included, otherwise. The grace period's marks are in trigger-grace.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TriggerEvent, TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import { commitState, loadState, TRIGGER_EVENTS } from '../harness/trigger-state';
import { sameJson, STATE_VERSION } from '../../nodes/ProxyAccount/trigger/state';

/** A valid version 3 state of each event, as the static data holds it. */
const VALID: Record<TriggerEvent, IDataObject> = {
	stockChanged: { v: 3, event: 'stockChanged', stock: { 'Austin|TX': { s: 'available', c: { att: 3 } }, 'Miami|FL': { s: 'out', c: {} } } },
	proxyExpiring: { v: 3, event: 'proxyExpiring', reported: { A: Date.parse('2025-03-02T00:00:00.000Z') } },
	proxyStatusChanged: { v: 3, event: 'proxyStatusChanged', status: { A: 'online', B: 'offline' } },
	newProxy: { v: 3, event: 'newProxy', ids: { A: [1000, 2000, 0], B: 0 }, plans: ['monthly\u00011'] },
	proxyRemoved: { v: 3, event: 'proxyRemoved', known: { A: [2000, 1000, 0, 1, 3405803786, 8000, 9000] }, texts: ['online\u0001AT&T\u0001monthly\u00011\u0001Z', 'Austin\u0001TX'] },
	lowFunds: { v: 3, event: 'lowFunds', below: true },
	ipChanged: { v: 3, event: 'ipChanged', ips: { A: Date.parse('2025-03-01T12:00:00.000Z'), B: Date.parse('2025-03-01T12:10:00.000Z') } },
};

/** The same states as version 2 wrote them (timestamps as text, whole records), and how they read. */
const VERSION_2: Record<TriggerEvent, [IDataObject, IDataObject]> = {
	stockChanged: [{ ...VALID.stockChanged, v: 2 }, VALID.stockChanged],
	proxyExpiring: [{ v: 2, event: 'proxyExpiring', reported: { A: '2025-03-01T18:00:00-06:00', B: 'junk' } }, VALID.proxyExpiring],
	proxyStatusChanged: [{ ...VALID.proxyStatusChanged, v: 2 }, VALID.proxyStatusChanged],
	newProxy: [
		{ v: 2, event: 'newProxy', names: ['A', 'B'], paid: { A: ['1970-01-01T00:00:02.000Z', '1970-01-01T00:00:01Z', 'monthly', true] } },
		VALID.newProxy,
	],
	proxyRemoved: [
		{ v: 2, event: 'proxyRemoved', known: { A: { proxy_name: 'A', isp: 'AT&T', city: 'Austin', state: 'TX', period: 'monthly', network_status: 'online', nickname: null, expires_at: '1970-01-01T00:00:02.000Z', added_at: '1970-01-01T00:00:01.000Z', server_ip: '203.0.113.10', h_port: 8000, s_port: 9000, username: 'u', auto_renew: true } } },
		VALID.proxyRemoved,
	],
	lowFunds: [{ ...VALID.lowFunds, v: 2 }, VALID.lowFunds],
	ipChanged: [{ v: 2, event: 'ipChanged', ips: { A: '2025-03-01T12:00:00.000Z', B: '2025-03-01T12:10:00Z' } }, VALID.ipChanged],
};

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('loadState', () => {
	it('the state version is 3', () => {
		expect(STATE_VERSION).toBe(3);
	});

	it.each(TRIGGER_EVENTS)('%s: a version 2 state is read and converted (instants as epoch ms, compact records), its marks kept', (event) => {
		const [v2, v3] = VERSION_2[event];
		expect(loadState(copy(v2), event)).toEqual(v3);
		expect(loadState({ ...copy(v2), gone: { A: [1, 1000] } }, event)).toEqual({ ...v3, gone: { A: [1, 1000] } });
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
		for (const v of [undefined, 0, 4, '2', null, 2.5]) expect(loadState({ ...copy(VALID[event]), v } as IDataObject, event)).toBeNull();
	});

	it.each(TRIGGER_EVENTS)('%s: a version 1 state is read as version 3 with no marks (whatever its gone holds)', (event) => {
		const [v2, v3] = VERSION_2[event];
		const v1 = { ...copy(v2), v: 1, gone: 'junk' };
		expect(loadState(v1, event)).toEqual(v3);
	});

	it.each([
		['stockChanged', 'stock', ['not a map', ['Austin|TX'], null, 7]],
		['stockChanged', 'stock', [{ 'Austin|TX': null }, { 'Austin|TX': { c: { att: 3 } } }, { 'Austin|TX': { s: 5, c: {} } }, { 'Austin|TX': { s: 'out' } }, { 'Austin|TX': { s: 'out', c: [3] } }]],
		['stockChanged', 'stock', [{ 'Austin|TX': { s: 'out', c: { att: '3' } } }, { 'Austin|TX': { s: 'out', c: { att: null } } }, { 'Austin|TX': { s: 'out', c: { att: Number.NaN } } }, { 'Austin|TX': { s: 'out', c: { att: Infinity } } }]],
		['proxyExpiring', 'reported', ['x', ['A'], null, { A: true }, { A: null }, { A: { at: 'x' } }, { A: Infinity }]],
		['proxyStatusChanged', 'status', ['x', ['A'], null, { A: true }, { A: ['online'] }]],
		['newProxy', 'ids', ['A', null, { A: [1, 2] }, { A: [1, 2, 5] }, { A: ['1', 2, 0] }, { A: 1 }]],
		['proxyRemoved', 'known', ['A', null, { A: [1, 2, 0] }, { A: [1, 2, 0, 9, null, 1, 1] }, { A: [1, 2, 0, 1, null, 1, 1, 5] }]],
	] as const)('%s: a damaged %s is not trusted', (event, key, damaged) => {
		for (const value of damaged) {
			expect(loadState({ ...copy(VALID[event]), [key]: value } as IDataObject, event)).toBeNull();
		}
		const missing = copy(VALID[event]);
		delete missing[key];
		expect(loadState(missing, event)).toBeNull();
	});

	it('damaged marks, clock or settling are not trusted', () => {
		for (const clock of ['x', [1], [1, 'x'], [Infinity, null]]) expect(loadState({ ...copy(VALID.newProxy), clock } as IDataObject, 'newProxy')).toBeNull();
		for (const settle of ['x', [0, 1], [1]]) expect(loadState({ ...copy(VALID.newProxy), settle } as IDataObject, 'newProxy')).toBeNull();
		const fine = { ...copy(VALID.newProxy), clock: [-5, null], settle: [2, 1000] };
		expect(loadState(fine, 'newProxy')).toEqual(fine);
		for (const gone of ['x', [], { A: [0, 1] }, { A: [1] }, { A: [1.5, 1] }, { A: [1, '1'] }, { A: [1, Infinity] }, { A: null }]) {
			expect(loadState({ ...copy(VALID.newProxy), gone } as IDataObject, 'newProxy')).toBeNull();
		}
	});

	it('a stored city keeps only its status and counts, in a copy detached from the static data', () => {
		const staticData: IDataObject = { v: 3, event: 'stockChanged', stock: { 'Austin|TX': { s: 'out', c: { att: 0 }, extra: true } } };
		const state = loadState(staticData, 'stockChanged');
		expect(state).toEqual({ v: 3, event: 'stockChanged', stock: { 'Austin|TX': { s: 'out', c: { att: 0 } } } });
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
		const next: TriggerState = { event: 'proxyStatusChanged', status: { B: 'offline', A: 'online' }, v: 3 };
		commitState(staticData, next, previous);
		expect(staticData).toEqual(VALID.proxyStatusChanged);
		expect(staticData.status).toBe(maps);
		expect(Object.keys(staticData)).toEqual(['v', 'event', 'status']);
	});

	it('leaves a version 1 state as it is when nothing changed (it reads as version 3)', () => {
		const staticData: IDataObject = { v: 1, event: 'newProxy', names: ['A'] };
		const next: TriggerState = { v: 3, event: 'newProxy', ids: { A: 0 }, plans: [] };
		const previous = loadState(staticData, 'newProxy');
		expect(previous).toEqual(next);
		commitState(staticData, next, previous);
		expect(staticData).toEqual({ v: 1, event: 'newProxy', names: ['A'] });
	});

	it('writes the state on the first poll', () => {
		const staticData: IDataObject = {};
		const next: TriggerState = { v: 3, event: 'newProxy', ids: { A: 0 }, plans: [] };
		commitState(staticData, next, null);
		expect(staticData).toEqual(next);
	});

	it('replaces the static data when the state changed', () => {
		const staticData = copy(VALID.proxyStatusChanged);
		const next: TriggerState = { v: 3, event: 'proxyStatusChanged', status: { A: 'offline' }, gone: { B: [1, 5] } };
		commitState(staticData, next, loadState(staticData, 'proxyStatusChanged'));
		expect(staticData).toEqual(next);
		// And back without marks: `gone` goes.
		const after: TriggerState = { v: 3, event: 'proxyStatusChanged', status: { A: 'offline' } };
		commitState(staticData, after, loadState(staticData, 'proxyStatusChanged'));
		expect(staticData).toEqual(after);
		expect('gone' in staticData).toBe(false);
	});

	it('removes the keys of another event when the event changed', () => {
		const staticData = copy(VALID.stockChanged);
		const next: TriggerState = { v: 3, event: 'newProxy', ids: {}, plans: [] };
		commitState(staticData, next, loadState(staticData, 'newProxy'));
		expect(staticData).toEqual(next);
	});

	it('removes foreign keys even when the state itself did not change', () => {
		const staticData: IDataObject = { ...copy(VALID.newProxy), lastTimeChecked: 123, other: { a: 1 } };
		const previous = loadState(staticData, 'newProxy');
		expect(previous).toEqual(VALID.newProxy);
		commitState(staticData, { v: 3, event: 'newProxy', ids: { A: [1000, 2000, 0], B: 0 }, plans: ['monthly\u00011'] }, previous);
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
