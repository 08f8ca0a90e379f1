/**
 * Proxy Removed on the pure functions (no engine, no HTTP): the baseline, the confirmation (issue 36:
 * a proxy is reported at the poll whose read by name answered not found, `gone`; a proxy only left
 * out is kept, however long), partial lists, a proxy that comes back, filters, the item (last known
 * record, no password, removed_at), the stored state (loadState/commitState) and the test-event samples.
 */
import type { IDataObject } from 'n8n-workflow';

import { readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { FILTER_NODE } from '../harness/filter-node';
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport/schemas';
import type { RemovedParams, RemovedState } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import { detectRemoved, knownRecord, knownTuple, removedSamples } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import { TextTable } from '../../nodes/ProxyAccount/trigger/compact';
import { commitState, loadState } from '../harness/trigger-state';
import { withoutMarks } from '../../nodes/ProxyAccount/trigger/state';
import { HOUR, iso, proxy, T0 } from '../fixtures/records';

const MINUTE = 60_000;
const PARAMS: RemovedParams = { event: 'proxyRemoved', filters: readProxyFilters(FILTER_NODE, undefined, {}) };
const observed = (proxies: ProxyRecord[], now: number, gone: string[] = []) => ({ proxies, now, gone: new Set(gone) });
const names = (items: IDataObject[]) => items.map((item) => item.proxy_name);

/** Runs polls (list, time, names confirmed gone) from a baseline; returns the events of each poll and the last state. */
function polls(steps: Array<[ProxyRecord[], number, string[]?]>, params = PARAMS) {
	let state: RemovedState | null = null;
	const events: IDataObject[][] = [];
	for (const [list, now, gone] of steps) {
		const { events: emitted, nextState } = detectRemoved(state, observed(list, now, gone), params);
		events.push(emitted);
		state = nextState;
	}
	return { events, state: state! };
}

const a = proxy('PRX-A', { password: 'pw-A-secret', nickname: 'alpha' });
const b = proxy('PRX-B', { password: 'pw-B-secret', city: 'Dallas', isp: 'Verizon' });
const c = proxy('PRX-C', { password: 'pw-C-secret', expires_at: iso(T0 - HOUR) });

describe('Proxy Removed: detection', () => {
	it('the baseline reports nothing and remembers every listed proxy without its password', () => {
		const { events, state } = polls([[[a, b, c], T0]]);
		expect(events).toEqual([[]]);
		expect(Object.keys(state.known)).toEqual(['PRX-A', 'PRX-B', 'PRX-C']);
		expect(JSON.stringify(state)).not.toContain('secret');
		expect(state.gone).toBeUndefined();
	});

	it('reports a proxy at the poll that confirms it gone, once; missing without a confirmation, never', () => {
		const { events, state } = polls([
			[[a, b, c], T0],
			[[a, b], T0 + 10 * MINUTE], // missing 1, its read in doubt
			[[a, b], T0 + 20 * MINUTE], // 2
			[[a, b], T0 + 5 * HOUR], // 3 polls over hours: still kept
			[[a, b], T0 + 5 * HOUR + MINUTE, ['PRX-C']], // the service answered not found: gone
			[[a, b], T0 + 6 * HOUR, ['PRX-C']], // never again
		]);
		expect(events.map((e) => names(e))).toEqual([[], [], [], [], ['PRX-C'], []]);
		const item = events[4][0];
		expect(item).toEqual({
			event: 'proxy_removed',
			proxy_name: 'PRX-C',
			removed_at: iso(T0 + 5 * HOUR + MINUTE),
			missing_since: iso(T0 + 10 * MINUTE),
			expired: true,
			before: { expires_at: new Date(c.expires_at).toISOString(), network_status: 'online' },
			after: null,
			record: {
				proxy_name: 'PRX-C',
				nickname: c.nickname,
				isp: c.isp,
				city: c.city,
				state: c.state,
				period: c.period,
				added_at: new Date(c.added_at).toISOString(),
				expires_at: new Date(c.expires_at).toISOString(),
				network_status: c.network_status,
				server_ip: c.server_ip,
				h_port: c.h_port,
				s_port: c.s_port,
				auto_renew: c.auto_renew,
				expires_in_hours: expect.any(Number),
			},
		});
		expect((item.record as IDataObject).password).toBeUndefined();
		expect(JSON.stringify(events)).not.toContain('secret');
		expect(Object.keys(state.known)).toEqual(['PRX-A', 'PRX-B']);
		expect(state.gone).toBeUndefined();
	});

	it('confirmed gone at the first poll that misses it: reported at once, missing_since that poll', () => {
		const { events } = polls([
			[[a, b], T0],
			[[a], T0 + 2 * HOUR, ['PRX-B']],
			[[a], T0 + 4 * HOUR],
		]);
		expect(events.map((e) => names(e))).toEqual([[], ['PRX-B'], []]);
		expect(events[1][0].missing_since).toBe(iso(T0 + 2 * HOUR));
	});

	it('a partial list that later comes back whole reports nothing, and the count restarts', () => {
		const { events, state } = polls([
			[[a, b, c], T0],
			[[a], T0 + 30 * MINUTE],
			[[a], T0 + 60 * MINUTE],
			[[a, b, c], T0 + 90 * MINUTE], // back before the grace period ended
			[[a, b], T0 + 2 * HOUR],
			[[a, b], T0 + 2 * HOUR + 30 * MINUTE],
			[[a, b], T0 + 2 * HOUR + 59 * MINUTE],
		]);
		expect(events.flat()).toEqual([]);
		expect(state.gone).toEqual({ 'PRX-C': [3, T0 + 2 * HOUR] });
	});

	it('reports several proxies removed at once, each once, with the record last listed', () => {
		const changed = { ...b, network_status: 'offline', expires_at: iso(T0 + 48 * HOUR) };
		const { events } = polls([
			[[a, b, c], T0],
			[[a, changed, c], T0 + MINUTE],
			[[a], T0 + 2 * MINUTE],
			[[a], T0 + 3 * MINUTE],
			[[a], T0 + 4 * MINUTE, ['PRX-B', 'PRX-C']],
		]);
		expect(names(events[4])).toEqual(['PRX-B', 'PRX-C']);
		expect(events[4][0].before).toEqual({ expires_at: changed.expires_at, network_status: 'offline' });
		expect(events[4][0].expired).toBe(false);
	});

	it('filters limit what is reported, never what is remembered', () => {
		const params: RemovedParams = { event: 'proxyRemoved', filters: readProxyFilters(FILTER_NODE, undefined, { city: 'Dallas' }) };
		const { events, state } = polls(
			[
				[[a, b, c], T0],
				[[], T0 + MINUTE], // an empty list is the poll's business; detection sees it as all missing
				[[a], T0 + 2 * MINUTE],
				[[a], T0 + 3 * MINUTE],
				[[a], T0 + 2 * HOUR, ['PRX-B', 'PRX-C']],
			],
			params,
		);
		expect(names(events.flat())).toEqual(['PRX-B']);
		expect(Object.keys(state.known)).toEqual(['PRX-A']);
		const byName = polls([[[a, b], T0], [[b], T0 + MINUTE], [[b], T0 + 2 * MINUTE], [[b], T0 + 2 * HOUR, ['PRX-A']]], {
			event: 'proxyRemoved',
			filters: readProxyFilters(FILTER_NODE, undefined, { nameContains: 'ALPHA' }),
		});
		expect(names(byName.events.flat())).toEqual(['PRX-A']);
	});

	it('a new proxy is remembered without an event; a repeated record counts once', () => {
		const { events, state } = polls([
			[[a], T0],
			[[a, a, b], T0 + MINUTE],
		]);
		expect(events.flat()).toEqual([]);
		expect(Object.keys(state.known)).toEqual(['PRX-A', 'PRX-B']);
	});

	it('marks restarted (n8n 2.x after a restart) never repeat a report', () => {
		let { state } = polls([
			[[a, b], T0],
			[[a], T0 + MINUTE],
			[[a], T0 + 2 * MINUTE],
		]);
		state = withoutMarks(state);
		const steps: Array<[ProxyRecord[], number, string[]]> = [
			[[a], T0 + 3 * MINUTE, []],
			[[a], T0 + 4 * MINUTE, ['PRX-B']],
			[[a], T0 + 3 * MINUTE + HOUR, ['PRX-B']],
			[[a], T0 + 5 * HOUR, []],
		];
		const emitted: IDataObject[] = [];
		let current: RemovedState = state;
		for (const [list, now, gone] of steps) {
			const detection = detectRemoved(current, observed(list, now, gone), PARAMS);
			emitted.push(...detection.events);
			current = detection.nextState;
		}
		expect(names(emitted)).toEqual(['PRX-B']);
	});
});

describe('Proxy Removed: stored state', () => {
	it('round-trips through static data as JSON, and refuses damaged data', () => {
		const { state } = polls([
			[[a, b], T0],
			[[a], T0 + MINUTE],
		]);
		const staticData: IDataObject = {};
		commitState(staticData, state, null);
		const saved = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(loadState(saved, 'proxyRemoved')).toEqual(state);
		expect(loadState(saved, 'newProxy')).toBeNull();
		expect(loadState({ ...saved, known: { X: 'nope' } }, 'proxyRemoved')).toBeNull();
		expect(loadState({ ...saved, known: { X: [1, 2, 0, 0, null, 1] } }, 'proxyRemoved')).toBeNull();
		expect(loadState({ ...saved, known: [] }, 'proxyRemoved')).toBeNull();
		expect(loadState({ ...saved, gone: { 'PRX-B': [0, T0] } }, 'proxyRemoved')).toBeNull();
	});

	it('stores what its report shows, compactly: under 100 bytes a proxy, read back to the same record', () => {
		const big = Array.from({ length: 1000 }, (_, i) => proxy(`PRX-US-AU1-${String(i).padStart(4, '0')}`, { traffic: i * 1e9, nickname: i % 3 === 0 ? `fleet-${i}` : null }));
		const { state } = polls([[big, T0]]);
		expect(JSON.stringify(state).length).toBeLessThan(100 * 1000);
		const table = new TextTable();
		const tuple = knownTuple(big[3], table);
		expect(knownRecord('PRX-US-AU1-0003', tuple, table.texts)).toMatchObject({ nickname: 'fleet-3', server_ip: big[3].server_ip, h_port: big[3].h_port });
		expect(JSON.stringify(state)).not.toContain(big[3].username);
	});
});

describe('Proxy Removed: Fetch Test Event samples', () => {
	it('are shaped like real events, soonest expiry first, filtered, without the password', () => {
		const samples = removedSamples(observed([a, b, c], T0), PARAMS, 2);
		expect(names(samples)).toEqual(['PRX-C', 'PRX-A']);
		const real = polls([[[c], T0], [[], T0 + MINUTE, ['PRX-C']]]).events.flat()[0];
		expect(Object.keys(samples[0]).sort()).toEqual(Object.keys(real).sort());
		expect(samples[0].removed_at).toBe(iso(T0));
		expect(JSON.stringify(samples)).not.toContain('secret');
		const dallas = removedSamples(observed([a, b, c], T0), { event: 'proxyRemoved', filters: readProxyFilters(FILTER_NODE, undefined, { city: 'Dallas' }) }, 5);
		expect(names(dallas)).toEqual(['PRX-B']);
	});
});
