/**
 * Proxy Expiring and moves, on the pure detect function and the state loader: which moves carry the
 * mark (the rules of moves.ts, on the proxies inside the window) and which do not, as docs/trigger.md
 * states them; and a stored `paid` that cannot be read only turns move recognition off.
 */
import type { IDataObject } from 'n8n-workflow';

import { readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport/schemas';
import type { ExpiringState } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectExpiring, loadExpiringState } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { HOUR, iso, proxy, T0 } from '../fixtures/records';
import { FILTER_NODE } from '../harness/filter-node';

const params = {
	event: 'proxyExpiring' as const,
	withinHours: 24,
	filters: readProxyFilters(FILTER_NODE, undefined, {}),
	output: { simplify: true, includePassword: false },
};
const soon = iso(T0 + 5 * HOUR);
const old = proxy('OLD', { expires_at: soon });

/** The state after a baseline and a poll that reported nothing new: OLD inside the window, seen. */
function seen(): ExpiringState {
	const baseline = detectExpiring(null, { proxies: [old, proxy('B')], now: T0 }, params).nextState;
	delete baseline.settle;
	return baseline;
}

const names = (events: IDataObject[]) => events.map((item) => item.proxy_name);

describe('Proxy Expiring: which moves carry the mark', () => {
	it('the same added_at and expiry (the strong rule): the mark moves, nothing is reported; the old name stays while missing, without paid time', () => {
		const moved = { ...old, proxy_name: 'NEW', city: 'Denver' };
		const { events, nextState } = detectExpiring(seen(), { proxies: [moved, proxy('B')], now: T0 + HOUR }, params);
		expect(events).toEqual([]);
		expect(nextState.reported).toEqual({ NEW: Date.parse(soon), OLD: Date.parse(soon) });
		expect(Object.keys(nextState.paid ?? {})).toEqual(['NEW']);
		expect(nextState.gone).toEqual({ OLD: [1, T0 + HOUR] });
	});

	it('a false move (a partial list hid the old name while a proxy with its paid time appeared): the old name back is no news, and while missing it is paired once only', () => {
		const twin = { ...old, proxy_name: 'NEW' };
		const first = detectExpiring(seen(), { proxies: [twin, proxy('B')], now: T0 + HOUR }, params);
		expect(first.events).toEqual([]);
		// OLD is back with its expiry: no event (its mark was kept).
		const back = detectExpiring(first.nextState, { proxies: [old, twin, proxy('B')], now: T0 + 2 * HOUR }, params);
		expect(back.events).toEqual([]);
		// Still hidden while a third proxy with the same paid time appears: OLD moved once, no second pair.
		const third = { ...old, proxy_name: 'THIRD' };
		const again = detectExpiring(first.nextState, { proxies: [twin, third, proxy('B')], now: T0 + 2 * HOUR }, params);
		expect(names(again.events)).toEqual(['THIRD']);
	});

	it('a new added_at with the same expiry, period and auto-renew (the fallback rule): the mark moves', () => {
		const moved = { ...old, proxy_name: 'NEW', added_at: iso(T0 + HOUR) };
		expect(detectExpiring(seen(), { proxies: [moved, proxy('B')], now: T0 + HOUR }, params).events).toEqual([]);
	});

	it('a new added_at and another auto-renew: not recognized, the new name is reported (and the old one kept while missing)', () => {
		const moved = { ...old, proxy_name: 'NEW', added_at: iso(T0 + HOUR), auto_renew: true };
		const { events, nextState } = detectExpiring(seen(), { proxies: [moved, proxy('B')], now: T0 + HOUR }, params);
		expect(names(events)).toEqual(['NEW']);
		expect(nextState.gone).toEqual({ OLD: [1, T0 + HOUR] });
	});

	it('moved and extended (the strong rule, a later expiry): the new expiry is reported once, before = the expiry reported for the old name', () => {
		const later = iso(T0 + 9 * HOUR);
		const moved = { ...old, proxy_name: 'NEW', expires_at: later };
		const { events } = detectExpiring(seen(), { proxies: [moved, proxy('B')], now: T0 + HOUR }, params);
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({ proxy_name: 'NEW', expires_at: later, before: { expires_at: soon } });
	});

	it('the new name listed while the old one still is: not recognized, the new name is reported for the same expiry (documented)', () => {
		const moved = { ...old, proxy_name: 'NEW' };
		expect(names(detectExpiring(seen(), { proxies: [old, moved, proxy('B')], now: T0 + HOUR }, params).events)).toEqual(['NEW']);
	});

	it('two vanished proxies with the same paid time and one new name: ambiguous, reported', () => {
		const twin = proxy('TWIN', { expires_at: soon });
		const state = detectExpiring(null, { proxies: [old, twin], now: T0 }, params).nextState;
		delete state.settle;
		const moved = { ...old, proxy_name: 'NEW' };
		expect(names(detectExpiring(state, { proxies: [moved], now: T0 + HOUR }, params).events)).toEqual(['NEW']);
	});
});

describe('Proxy Expiring state: paid', () => {
	it('a stored state round-trips through JSON with its paid times', () => {
		const stored = JSON.parse(JSON.stringify(seen())) as IDataObject;
		const loaded = loadExpiringState(stored);
		expect(loaded?.paid).toEqual({ OLD: [Date.parse(old.added_at), 0] });
		expect(loaded?.plans).toEqual(['weekly\u00010']);
		const moved: ProxyRecord = { ...old, proxy_name: 'NEW' };
		expect(detectExpiring(loaded, { proxies: [moved, proxy('B')], now: T0 + HOUR }, params).events).toEqual([]);
	});

	it.each([
		['not a map', 'x'],
		['a bad tuple', { OLD: [1] }],
		['a plan out of the table', { OLD: [1, 5] }],
		['an unreadable instant', { OLD: ['x', 0] }],
	])('%s: the marks are kept, moves are not recognized (the new name is reported)', (_label, paid) => {
		const stored = { ...(JSON.parse(JSON.stringify(seen())) as IDataObject), paid };
		const loaded = loadExpiringState(stored);
		expect(loaded?.reported.OLD).toBe(Date.parse(soon));
		expect(loaded?.paid).toBeUndefined();
		const moved: ProxyRecord = { ...old, proxy_name: 'NEW' };
		expect(names(detectExpiring(loaded, { proxies: [moved, proxy('B')], now: T0 + HOUR }, params).events)).toEqual(['NEW']);
	});
});
