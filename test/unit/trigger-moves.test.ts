/**
 * The pure rules that tell a proxy moved by Change Location from a removal and a purchase
 * (trigger/moves.ts), and how New Proxy and Proxy Removed use them across polls.
 */
import { readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { FILTER_NODE } from '../harness/filter-node';
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport';
import type { Identity } from '../../nodes/ProxyAccount/trigger/moves';
import { pairMoves } from '../../nodes/ProxyAccount/trigger/moves';
import { detectNewProxies, identityOf, loadNewProxyState } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import { detectRemoved } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import type { NewProxyState } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import type { RemovedState } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import { HOUR, T0, iso, proxy } from '../fixtures/records';

const MINUTE = 60_000;
const EXPIRES = iso(T0 + 100 * HOUR);
const ADDED = iso(T0 - 100 * HOUR);
interface PaidTime {
	expires_at?: unknown;
	added_at?: unknown;
	period?: unknown;
	auto_renew?: unknown;
}
const paid = (fields: PaidTime = {}): PaidTime => ({ expires_at: EXPIRES, added_at: ADDED, period: 'weekly', auto_renew: false, ...fields });
const idOf = (fields: PaidTime): Identity => identityOf(fields as ProxyRecord);
const pairs = (vanished: Record<string, PaidTime>, appeared: Record<string, PaidTime>) =>
	Object.fromEntries(
		pairMoves(
			Object.entries(vanished).map(([name, fields]): [string, Identity] => [name, idOf(fields)]),
			Object.entries(appeared).map(([name, fields]): [string, Identity] => [name, idOf(fields)]),
		),
	);

describe('pairMoves', () => {
	it('pairs the same expiry and added_at; the same instant in another notation is the same', () => {
		expect(pairs({ OLD: paid() }, { NEW: paid({ expires_at: '2025-03-05T17:00:00+01:00', added_at: ADDED }) })).toEqual({ NEW: 'OLD' });
	});

	it('falls back to expiry, period and auto-renew when added_at changed; not when one of them differs', () => {
		expect(pairs({ OLD: paid() }, { NEW: paid({ added_at: iso(T0) }) })).toEqual({ NEW: 'OLD' });
		expect(pairs({ OLD: paid() }, { NEW: paid({ added_at: iso(T0), period: 'monthly' }) })).toEqual({});
		expect(pairs({ OLD: paid() }, { NEW: paid({ added_at: iso(T0), auto_renew: true }) })).toEqual({});
	});

	it('the same added_at with a later expiry is the proxy extended (or auto-renewed) since it was stored: a move; an earlier one is not', () => {
		expect(pairs({ OLD: paid() }, { NEW: paid({ expires_at: iso(T0 + 101 * HOUR) }) })).toEqual({ NEW: 'OLD' });
		expect(pairs({ OLD: paid() }, { NEW: paid({ expires_at: iso(T0 + 99 * HOUR) }) })).toEqual({});
	});

	it('never pairs without a readable expiry, and an unreadable added_at alone decides nothing', () => {
		expect(pairs({ OLD: paid({ expires_at: undefined }) }, { NEW: paid({ expires_at: undefined }) })).toEqual({});
		expect(pairs({ OLD: paid({ expires_at: null }) }, { NEW: paid({ expires_at: null }) })).toEqual({});
		expect(pairs({ OLD: paid({ added_at: null, period: null }) }, { NEW: paid({ added_at: null, period: null }) })).toEqual({});
	});

	it('ambiguous: two vanished and two (or one) appeared with the same paid time pair nothing', () => {
		expect(pairs({ A: paid(), B: paid() }, { C: paid(), D: paid() })).toEqual({});
		expect(pairs({ A: paid(), B: paid() }, { C: paid() })).toEqual({});
		expect(pairs({ A: paid() }, { C: paid(), D: paid() })).toEqual({});
		expect(pairs({ A: paid(), B: paid() }, { C: paid({ added_at: iso(T0) }), D: paid({ added_at: iso(T0) }) })).toEqual({});
	});

	it('the stronger rule decides first, and the fallback pairs what it left unambiguous', () => {
		const older = iso(T0 - 200 * HOUR);
		// A and B expire together but were added at different times: C is A (same added_at); D got a
		// new added_at and is the only one left for B.
		expect(pairs({ A: paid(), B: paid({ added_at: older }) }, { C: paid(), D: paid({ added_at: iso(T0) }) })).toEqual({ C: 'A', D: 'B' });
		// Different expiries are separate groups.
		expect(pairs({ A: paid(), B: paid({ expires_at: iso(T0 + 5 * HOUR) }) }, { D: paid({ expires_at: iso(T0 + 5 * HOUR) }), C: paid() })).toEqual({ C: 'A', D: 'B' });
	});
});

const filters = readProxyFilters(FILTER_NODE, undefined, {});
const output = { simplify: true, includePassword: false };
const at = (minutes: number) => T0 + minutes * MINUTE;

describe('New Proxy across polls', () => {
	const list = () => [proxy('A', { expires_at: EXPIRES, added_at: ADDED }), proxy('B')];
	const detect = (previous: NewProxyState | null, proxies: ProxyRecord[], now: number) =>
		detectNewProxies(previous, { proxies, now }, { event: 'newProxy', filters, output });

	it('a moved proxy is found moved once; a partial list that hid the old name does not make its return new', () => {
		const baseline = detect(null, list(), T0).nextState;
		const moved = proxy('C', { expires_at: EXPIRES, added_at: ADDED, city: 'Denver' });
		const first = detect(baseline, [list()[1], moved], at(10));
		expect(first.events.map((item) => [item.proxy_name, item.moved_from])).toEqual([['C', 'A']]);
		expect(first.nextState.ids.A).toBe(0);
		// Another proxy with A's paid time next poll is not A again (C, listed with the very same
		// added_at, is the one it moved from).
		const again = detect(first.nextState, [...list().slice(1), moved, proxy('D', { expires_at: EXPIRES, added_at: ADDED })], at(20));
		expect(again.events.map((item) => [item.proxy_name, item.moved_from])).toEqual([['D', 'C']]);
		// A was only hidden: its return is not new.
		expect(detect(again.nextState, [...list(), moved], at(30)).events).toEqual([]);
	});

	it('a state written before moves were recognized (no paid times) reports a moved proxy as new, with moved_from null', () => {
		const old = loadNewProxyState({ v: 2, event: 'newProxy', names: list().map((p) => p.proxy_name) })!;
		const moved = proxy('C', { expires_at: EXPIRES, added_at: ADDED });
		expect(detect(old, [list()[1], moved], at(10)).events.map((item) => item.moved_from)).toEqual([null]);
	});
});

describe('Proxy Removed across polls', () => {
	const detect = (previous: RemovedState | null, proxies: ProxyRecord[], now: number, gone: string[] = []) =>
		detectRemoved(previous, { proxies, now, gone: new Set(gone) }, { event: 'proxyRemoved', filters });

	it('a move found at the poll that confirms the old name gone still wins: nothing is reported', () => {
		const a = proxy('A', { expires_at: EXPIRES, added_at: ADDED });
		let state = detect(null, [a, proxy('B')], T0).nextState;
		for (const minutes of [10, 40]) state = detect(state, [proxy('B')], at(minutes)).nextState;
		expect(state.gone).toHaveProperty('A');
		const last = detect(state, [proxy('B'), proxy('C', { expires_at: EXPIRES, added_at: ADDED })], at(75), ['A']);
		expect(last.events).toEqual([]);
		expect(Object.keys(last.nextState.known).sort()).toEqual(['B', 'C']);
		expect(last.nextState.gone).toBeUndefined();
	});

	it('a new proxy with another paid time is no move: the vanished one is reported once, when the service confirms it gone', () => {
		let state = detect(null, [proxy('A', { expires_at: EXPIRES }), proxy('B')], T0).nextState;
		const emitted: string[] = [];
		for (const minutes of [10, 40, 75, 100]) {
			const gone = minutes >= 75 ? ['A'] : [];
			const result = detect(state, [proxy('B'), proxy('C', { expires_at: iso(T0 + 7 * 24 * HOUR), added_at: iso(at(5)) })], at(minutes), gone);
			emitted.push(...result.events.map((item) => String(item.proxy_name)));
			state = result.nextState;
		}
		expect(emitted).toEqual(['A']);
	});
});
