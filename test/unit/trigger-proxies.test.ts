/**
 * Proxy Expiring, Proxy Status Changed and New Proxy detection on the pure functions (no engine, no
 * HTTP): the baseline, each change, filters (which limit what is emitted, never what is
 * remembered), repeated proxies in one reply, and the "Fetch Test Event" samples. The grace period
 * of missing proxies is in trigger-grace.test.ts.
 */
import { readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { FILTER_NODE } from '../harness/filter-node';
import { proxyOutput } from '../../nodes/ProxyAccount/helpers/framework/output';
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport/schemas';
import type { ExpiringParams, ExpiringState } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import type { IpChangedParams } from '../../nodes/ProxyAccount/trigger/events/ipChanged.event';
import type { NewProxyParams, NewProxyState } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import type { OutputOptions } from '../../nodes/ProxyAccount/trigger/params';
import type { StatusParams, StatusState } from '../../nodes/ProxyAccount/trigger/events/proxyStatusChanged.event';
import { detectExpiring, expiringSamples } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectIpChanges } from '../../nodes/ProxyAccount/trigger/events/ipChanged.event';
import { detectNewProxies, newProxySamples } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import { detectStatusChanges, statusSamples } from '../../nodes/ProxyAccount/trigger/events/proxyStatusChanged.event';
import { uniqueProxies } from '../../nodes/ProxyAccount/trigger/proxies';
import { epochMs } from '../../nodes/ProxyAccount/trigger/compact';
import { HOUR, iso, proxy, T0 } from '../fixtures/records';

const OUTPUT: OutputOptions = { simplify: true, includePassword: false };
const observed = (proxies: ProxyRecord[], now = T0) => ({ proxies, now });
const names = (items: Array<{ proxy_name?: unknown }>) => items.map((item) => item.proxy_name);

/** Timestamps as the state stores them: epoch milliseconds (an unreadable one is not stored). */
const ms = (map: Record<string, string>): Record<string, number> =>
	Object.fromEntries(Object.entries(map).filter(([, at]) => !Number.isNaN(Date.parse(at))).map(([key, at]) => [key, Date.parse(at)]));

describe('epochMs and uniqueProxies', () => {
	it.each([
		['2025-03-02T12:00:00.000Z', '2025-03-02T12:00:00.000Z', true],
		['2025-03-02T12:00:00.000Z', '2025-03-02T06:00:00.000-06:00', true],
		['2025-03-02T12:00:00Z', '2025-03-02T12:00:00.000Z', true],
		['2025-03-02T12:00:00.000Z', '2025-03-02T12:00:01.000Z', false],
		['soon', 'soon', false],
		['soon', '2025-03-02T12:00:00.000Z', false],
	])('%s and %s: the same instant: %s', (a, b, expected) => {
		expect(epochMs(a) === epochMs(b)).toBe(expected);
		expect(epochMs(b) === epochMs(a)).toBe(expected);
	});

	it('uniqueProxies keeps the first record of each name, in order', () => {
		const a = proxy('A', { network_status: 'online' });
		const b = proxy('B');
		const again = proxy('A', { network_status: 'offline' });
		const unique = uniqueProxies([a, b, again]);
		expect(unique).toEqual([a, b]);
		expect(unique[0]).toBe(a);
	});
});

describe('detectExpiring', () => {
	function params(withinHours = 24, filters: Record<string, string> = {}, output = OUTPUT): ExpiringParams {
		return { event: 'proxyExpiring', withinHours, filters: readProxyFilters(FILTER_NODE, undefined, filters), output };
	}
	const stored = (reported: Record<string, string>): ExpiringState => ({ v: 3, event: 'proxyExpiring', reported: ms(reported) });
	const soon = iso(T0 + 5 * HOUR);
	const later = iso(T0 + 100 * HOUR);

	it('baseline: emits nothing and records the proxies already inside the window as seen, the others (while it settles) as listed', () => {
		const result = detectExpiring(null, observed([proxy('A', { expires_at: soon }), proxy('B', { expires_at: later }), proxy('C', { expires_at: iso(T0 - HOUR) })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState).toMatchObject({ v: 3, event: 'proxyExpiring', reported: { ...ms({ A: soon, C: iso(T0 - HOUR) }), B: -Date.parse(later) } });
		// The proxies inside the window keep their paid time (added_at, plan), to carry their mark through a move.
		expect(Object.keys(result.nextState.paid ?? {}).sort()).toEqual(['A', 'C']);
	});

	it('a proxy that enters the window is reported once, with the hours left and the record', () => {
		const record = proxy('A', { expires_at: soon });
		const result = detectExpiring(stored({}), observed([record]), params());
		expect(result.events).toEqual([
			{
				event: 'proxy_expiring',
				proxy_name: 'A',
				expires_at: soon,
				expires_in_hours: 5,
				within_hours: 24,
				before: { expires_at: null },
				after: { expires_at: soon, expires_in_hours: 5 },
				record: proxyOutput(record, { simplify: true, includePassword: false, now: T0 }),
			},
		]);
		expect(result.nextState.reported).toEqual(ms({ A: soon }));
		const again = detectExpiring(result.nextState, observed([record], T0 + HOUR), params());
		expect(again.events).toEqual([]);
		expect(again.nextState.reported).toEqual(ms({ A: soon }));
	});

	it('the window is inclusive to the millisecond; an expired proxy is inside it', () => {
		const edge = proxy('Edge', { expires_at: iso(T0 + 24 * HOUR) });
		const past = proxy('Past', { expires_at: iso(T0 - 2 * HOUR) });
		const outside = proxy('Outside', { expires_at: iso(T0 + 24 * HOUR + 1) });
		const result = detectExpiring(stored({}), observed([edge, past, outside]), params());
		expect(result.events.map((event) => [event.proxy_name, event.expires_in_hours])).toEqual([
			['Edge', 24],
			['Past', -2],
		]);
	});

	it('the same instant written differently is the same expiry: not reported again', () => {
		const result = detectExpiring(stored({ A: '2025-03-01T17:00:00.000Z' }), observed([proxy('A', { expires_at: '2025-03-01T11:00:00-06:00' })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState.reported).toEqual(ms({ A: '2025-03-01T17:00:00.000Z' }));
	});

	it('extended beyond the window: no item, and the proxy is forgotten', () => {
		const result = detectExpiring(stored({ A: soon }), observed([proxy('A', { expires_at: later })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState.reported).toEqual(ms({}));
	});

	it('extended but still inside the window: reported again for the new expiry, with the old one as before', () => {
		const newer = iso(T0 + 20 * HOUR);
		const result = detectExpiring(stored({ A: soon }), observed([proxy('A', { expires_at: newer })]), params());
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ proxy_name: 'A', before: { expires_at: soon }, after: { expires_at: newer, expires_in_hours: 20 } });
		expect(result.nextState.reported).toEqual(ms({ A: newer }));
	});

	it('an unreadable expiry is never inside the window, nor stored', () => {
		const result = detectExpiring(stored({}), observed([proxy('A', { expires_at: 'soon' })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState.reported).toEqual({});
	});

	it('milliseconds present, then absent: one expiry, reported once (issue 27)', () => {
		const first = detectExpiring(stored({}), observed([proxy('A', { expires_at: '2025-03-01T17:00:00.000Z' })]), params());
		expect(first.events).toHaveLength(1);
		const second = detectExpiring(first.nextState, observed([proxy('A', { expires_at: '2025-03-01T11:00:00-06:00' })], T0 + HOUR), params());
		expect(second.events).toEqual([]);
	});

	it('filters limit what is emitted, not what is remembered', () => {
		const proxies = [proxy('PRX-AU1', { expires_at: soon, city: 'Austin' }), proxy('PRX-DE1', { expires_at: soon, city: 'Denver', state: 'CO' })];
		const result = detectExpiring(stored({}), observed(proxies), params(24, { city: 'denver' }));
		expect(names(result.events)).toEqual(['PRX-DE1']);
		expect(result.nextState.reported).toEqual(ms({ 'PRX-AU1': soon, 'PRX-DE1': soon }));
		// Once the filter is removed, the proxy filtered out is not reported for that expiry any more.
		expect(detectExpiring(result.nextState, observed(proxies), params()).events).toEqual([]);
	});

	it('a proxy repeated in one reply: the first record wins', () => {
		const result = detectExpiring(stored({}), observed([proxy('A', { expires_at: soon }), proxy('A', { expires_at: iso(T0 + HOUR) })]), params());
		expect(result.events).toHaveLength(1);
		expect(result.events[0].expires_at).toBe(soon);
		expect(result.nextState.reported).toEqual(ms({ A: soon }));
	});

	it('a proxy named like an Object.prototype key is not taken as reported', () => {
		const result = detectExpiring(stored({}), observed([proxy('constructor', { expires_at: soon })]), params());
		expect(names(result.events)).toEqual(['constructor']);
	});

	it('the record follows the output options', () => {
		const result = detectExpiring(stored({}), observed([proxy('A', { expires_at: soon })]), params(24, {}, { simplify: false, includePassword: true }));
		expect(result.events[0].record).toMatchObject({ password: 'secret', auth_method: 'userpass', expires_in_hours: 5 });
	});
});

describe('detectStatusChanges', () => {
	function params(fromStatus = '', toStatus = '', filters: Record<string, string> = {}): StatusParams {
		return { event: 'proxyStatusChanged', fromStatus, toStatus, filters: readProxyFilters(FILTER_NODE, undefined, filters), output: OUTPUT };
	}
	const stored = (status: Record<string, string>): StatusState => ({ v: 3, event: 'proxyStatusChanged', status });

	it('baseline: emits nothing and records every status', () => {
		const result = detectStatusChanges(null, observed([proxy('A'), proxy('B', { network_status: 'offline' })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState).toEqual({ v: 3, event: 'proxyStatusChanged', status: { A: 'online', B: 'offline' } });
	});

	it('a changed status emits one item with before and after', () => {
		const record = proxy('A', { network_status: 'offline' });
		const result = detectStatusChanges(stored({ A: 'online', B: 'online' }), observed([record, proxy('B')]), params());
		expect(result.events).toEqual([
			{
				event: 'proxy_status_changed',
				proxy_name: 'A',
				before: { network_status: 'online' },
				after: { network_status: 'offline' },
				record: proxyOutput(record, { simplify: true, includePassword: false, now: T0 }),
			},
		]);
		expect(result.nextState.status).toEqual({ A: 'offline', B: 'online' });
	});

	it('a proxy that was not stored is recorded without an item', () => {
		const result = detectStatusChanges(stored({}), observed([proxy('New', { network_status: 'offline' })]), params());
		expect(result.events).toEqual([]);
		expect(result.nextState.status).toEqual({ New: 'offline' });
	});

	it('From and To Status (lower-cased by the parameters) match the statuses trimmed and in any case', () => {
		const previous = stored({ A: 'Online ', B: 'rebooting', C: 'online' });
		const proxies = [proxy('A', { network_status: 'OFFLINE' }), proxy('B', { network_status: 'offline' }), proxy('C', { network_status: 'rebooting' })];
		expect(names(detectStatusChanges(previous, observed(proxies), params('online', 'offline')).events)).toEqual(['A']);
		expect(names(detectStatusChanges(previous, observed(proxies), params('', 'offline')).events)).toEqual(['A', 'B']);
		expect(names(detectStatusChanges(previous, observed(proxies), params('online', '')).events)).toEqual(['A', 'C']);
		// Whatever is emitted, every new status is remembered.
		expect(detectStatusChanges(previous, observed(proxies), params('online', 'offline')).nextState.status).toEqual({ A: 'OFFLINE', B: 'offline', C: 'rebooting' });
	});

	it('proxy filters limit what is emitted, not what is remembered', () => {
		const previous = stored({ 'PRX-AU1': 'online', 'PRX-DE1': 'online' });
		const proxies = [proxy('PRX-AU1', { network_status: 'offline' }), proxy('PRX-DE1', { network_status: 'offline', nickname: 'Office' })];
		const result = detectStatusChanges(previous, observed(proxies), params('', '', { nameContains: 'OFFICE' }));
		expect(names(result.events)).toEqual(['PRX-DE1']);
		expect(result.nextState.status).toEqual({ 'PRX-AU1': 'offline', 'PRX-DE1': 'offline' });
	});

	it('a proxy repeated in one reply: the first record wins', () => {
		const result = detectStatusChanges(stored({ A: 'online' }), observed([proxy('A', { network_status: 'offline' }), proxy('A', { network_status: 'online' })]), params());
		expect(result.events.map((event) => event.after)).toEqual([{ network_status: 'offline' }]);
		expect(result.nextState.status).toEqual({ A: 'offline' });
	});
});

describe('detectNewProxies', () => {
	function params(filters: Record<string, string> = {}): NewProxyParams {
		return { event: 'newProxy', filters: readProxyFilters(FILTER_NODE, undefined, filters), output: OUTPUT };
	}
	const stored = (list: string[]): NewProxyState => ({ v: 3, event: 'newProxy', ids: Object.fromEntries(list.map((name) => [name, 0])), plans: [] });
	const storedNames = (state: NewProxyState) => Object.keys(state.ids);

	it('baseline: emits nothing and records every name', () => {
		const result = detectNewProxies(null, observed([proxy('A'), proxy('B')]), params());
		expect(result.events).toEqual([]);
		const paid = [Date.parse(proxy('A').added_at), Date.parse(proxy('A').expires_at), 0];
		expect(result.nextState).toEqual({ v: 3, event: 'newProxy', ids: { A: paid, B: paid }, plans: ['weekly\u00010'] });
	});

	it('a name not stored emits one item, before null', () => {
		const record = proxy('B', { added_at: iso(T0 - HOUR) });
		const result = detectNewProxies(stored(['A']), observed([proxy('A'), record]), params());
		expect(result.events).toEqual([
			{
				event: 'new_proxy',
				proxy_name: 'B',
				moved_from: null,
				before: null,
				after: { proxy_name: 'B', added_at: iso(T0 - HOUR), expires_at: record.expires_at, network_status: 'online' },
				record: proxyOutput(record, { simplify: true, includePassword: false, now: T0 }),
			},
		]);
		expect(storedNames(result.nextState)).toEqual(['A', 'B']);
		expect(detectNewProxies(result.nextState, observed([proxy('A'), record]), params()).events).toEqual([]);
	});

	it('filters limit what is emitted, not what is remembered', () => {
		const proxies = [proxy('A', { isp: 'Verizon' }), proxy('B', { isp: 'AT&T' })];
		const result = detectNewProxies(stored([]), observed(proxies), params({ carrier: 'verizon' }));
		expect(names(result.events)).toEqual(['A']);
		expect(storedNames(result.nextState)).toEqual(['A', 'B']);
	});

	it('a name repeated in one reply is one item and one stored name', () => {
		const result = detectNewProxies(stored([]), observed([proxy('A'), proxy('A', { network_status: 'offline' })]), params());
		expect(result.events).toHaveLength(1);
		expect(result.events[0].after).toMatchObject({ network_status: 'online' });
		expect(storedNames(result.nextState)).toEqual(['A']);
	});
});

describe('samples for Fetch Test Event', () => {
	const proxies = [
		proxy('Late', { expires_at: iso(T0 + 20 * HOUR), added_at: iso(T0 - 3 * HOUR), network_status: 'Offline' }),
		proxy('Early', { expires_at: iso(T0 + 2 * HOUR), added_at: iso(T0 - 1 * HOUR), city: 'Denver', state: 'CO' }),
		proxy('Far', { expires_at: iso(T0 + 200 * HOUR), added_at: 'unknown' }),
		proxy('Late', { expires_at: iso(T0 + HOUR) }),
		proxy('Mid', { expires_at: iso(T0 + 10 * HOUR), added_at: iso(T0 - 2 * HOUR) }),
	];

	it('expiring: proxies inside the window, soonest first, limited, before null', () => {
		const params: ExpiringParams = { event: 'proxyExpiring', withinHours: 24, filters: readProxyFilters(FILTER_NODE, undefined, {}), output: OUTPUT };
		const samples = expiringSamples(observed(proxies), params, 10);
		expect(samples.map((item) => [item.proxy_name, item.expires_in_hours])).toEqual([
			['Early', 2],
			['Mid', 10],
			['Late', 20],
		]);
		expect(samples[0]).toMatchObject({ event: 'proxy_expiring', within_hours: 24, before: { expires_at: null } });
		expect(names(expiringSamples(observed(proxies), params, 2))).toEqual(['Early', 'Mid']);
		expect(names(expiringSamples(observed(proxies), { ...params, filters: readProxyFilters(FILTER_NODE, undefined, { state: 'co' }) }, 10))).toEqual(['Early']);
	});

	it('status: proxies in the To Status (any when empty), each with another status before (From Status when set)', () => {
		const params: StatusParams = { event: 'proxyStatusChanged', fromStatus: '', toStatus: 'offline', filters: readProxyFilters(FILTER_NODE, undefined, {}), output: OUTPUT };
		const samples = statusSamples(observed(proxies), params, 10);
		expect(samples).toHaveLength(1);
		expect(samples[0]).toMatchObject({ event: 'proxy_status_changed', proxy_name: 'Late', before: { network_status: 'online' }, after: { network_status: 'Offline' } });
		expect(statusSamples(observed(proxies), { ...params, fromStatus: 'rebooting' }, 10)[0]).toMatchObject({ before: { network_status: 'rebooting' } });
		const none = statusSamples(observed(proxies), { ...params, toStatus: 'maintenance' }, 10);
		expect(none).toHaveLength(1);
		expect(none[0]).toMatchObject({ proxy_name: 'Late', after: { network_status: 'Offline' } });
		expect(names(statusSamples(observed(proxies), { ...params, toStatus: '' }, 3))).toEqual(['Late', 'Early', 'Far']);
	});

	it('new proxy: newest added first, unreadable dates last, limited', () => {
		const params: NewProxyParams = { event: 'newProxy', filters: readProxyFilters(FILTER_NODE, undefined, {}), output: OUTPUT };
		expect(names(newProxySamples(observed(proxies), params, 10))).toEqual(['Early', 'Mid', 'Late', 'Far']);
		expect(names(newProxySamples(observed(proxies), params, 1))).toEqual(['Early']);
		expect(newProxySamples(observed(proxies), params, 1)[0]).toMatchObject({ event: 'new_proxy', before: null });
	});
});

describe('detectIpChanges', () => {
	const ipParams = (extra: Partial<IpChangedParams> = {}): IpChangedParams => ({ event: 'ipChanged', onlyAutoRotating: true, filters: readProxyFilters(FILTER_NODE, undefined, {}), output: OUTPUT, ...extra });
	const at = (minutes: number) => iso(T0 + minutes * 60_000);
	const rotating = (name: string, minutes: number) => proxy(name, { auto_change: true, auto_change_time: 10, last_ip_change: at(minutes) });

	it('baseline: nothing emitted, every proxy remembered', () => {
		const result = detectIpChanges(null, observed([rotating('A', 0), proxy('B')]), ipParams());
		expect(result.events).toEqual([]);
		expect(Object.keys(result.nextState.ips)).toEqual(['A', 'B']);
	});

	it('a later last_ip_change is one event; the same or an earlier one is none', () => {
		const base = detectIpChanges(null, observed([rotating('A', 0)]), ipParams()).nextState;
		const moved = detectIpChanges(base, observed([rotating('A', 10)]), ipParams());
		expect(moved.events).toEqual([expect.objectContaining({ event: 'ip_changed', proxy_name: 'A', before: { last_ip_change: at(0) }, after: { last_ip_change: at(10) } })]);
		expect(detectIpChanges(moved.nextState, observed([rotating('A', 10)]), ipParams()).events).toEqual([]);
		expect(detectIpChanges(moved.nextState, observed([rotating('A', 5)]), ipParams()).events).toEqual([]);
	});

	it('only auto-rotating proxies unless told otherwise; filters choose what is emitted, not what is remembered', () => {
		const manual = (minutes: number) => proxy('M', { auto_change: false, last_ip_change: at(minutes) });
		const base = detectIpChanges(null, observed([manual(0)]), ipParams()).nextState;
		const onlyAuto = detectIpChanges(base, observed([manual(3)]), ipParams());
		expect(onlyAuto.events).toEqual([]);
		expect(onlyAuto.nextState.ips.M).toBe(Date.parse(at(3)));
		expect(detectIpChanges(base, observed([manual(3)]), ipParams({ onlyAutoRotating: false })).events).toHaveLength(1);
	});
});
