import type { IDataObject, INodeExecutionData, INodeParameters, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { pollTrigger, SAMPLE_LIMIT } from '../../nodes/ProxyAccount/trigger/poll';
import { STATE_VERSION } from '../../nodes/ProxyAccount/trigger/state';
import { createHarness, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';
import type { FaultSpec, ProxyRecord, RequestLogEntry } from '../simulator';
import { simClient } from '../simulator/testkit';
import { prng } from '../harness/prng';

const HOUR = 3_600_000;
const START = Date.parse('2025-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);

/**
 * The trigger with a short timeout and no retries: a timeout test then takes 2 s. Not shorter: the
 * next good poll must answer within it on a machine busy with other test suites (issue 35).
 */
class QuickTimeoutTrigger extends ProxyAccountTrigger {
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger(this, { timeoutMs: 2_000, retry: { maxAttempts: 1 } });
	}
}
const quickHarness = createHarness([new QuickTimeoutTrigger()]);

let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 21, proxies: 12, cities: 8, frozenClock: true, now: START, balance: 100_000 });
});
afterEach(async () => await sim.stop());

function trigger(parameters: INodeParameters, staticData: IDataObject = {}, quick = false): PollHarness {
	return new PollHarness(
		quick ? quickHarness : harness,
		{ type: 'proxyAccountTrigger', parameters },
		{ baseUrl: sim.url, apiKey: sim.demoApiKey },
		staticData,
	);
}

/** The items a poll returned, as json; null when it returned null. */
async function poll(t: PollHarness, kind: 'activate' | 'manual' = 'activate'): Promise<IDataObject[] | null> {
	const result = await t.poll(kind);
	if (result === null) return null;
	expect(result).toHaveLength(1);
	return result[0].map((item) => item.json);
}

/** Polls and returns the items with the requests the poll made. */
async function pollWithRequests(t: PollHarness): Promise<{ items: IDataObject[] | null; requests: RequestLogEntry[] }> {
	sim.resetLogs();
	const items = await poll(t);
	return { items, requests: [...sim.requests] };
}

async function pollError(t: PollHarness): Promise<unknown> {
	try {
		await t.poll();
	} catch (error) {
		return error;
	}
	throw new Error('expected the poll to fail');
}

function proxy(name: string): ProxyRecord {
	const found = sim.account().proxies.get(name);
	if (!found) throw new Error(`no proxy ${name}`);
	return found;
}

function timestamp(ms: number): string {
	return new Date(ms).toISOString().replace('Z', '+00:00');
}

async function extend(name: string, interval: number, period: string): Promise<void> {
	const response = await simClient(sim.url, sim.demoApiKey).call('POST', '/v1/proxies/allocate', {
		body: { proxies: { time: [{ proxy_name: name, interval, period }] } },
	});
	expect(response.status).toBe(200);
}

const stockTrigger = (extra: INodeParameters = {}) => trigger({ event: 'stockChanged', ...extra });

describe('baseline', () => {
	it.each([
		['stockChanged', 'GET /v1/stock', 'stock'],
		// Proxy Expiring also keeps the paid time of each proxy inside the window, to carry its mark through a move.
		['proxyExpiring', 'GET /v1/proxies', 'reported,paid,plans'],
		['proxyStatusChanged', 'GET /v1/proxies', 'status'],
		// New Proxy also keeps each proxy's paid time, to recognize a proxy moved by Change Location.
		['newProxy', 'GET /v1/proxies', 'ids,plans'],
	])('%s: the first poll records a baseline and emits nothing, with one request to %s', async (event, route, key) => {
		const t = trigger({ event });
		const first = await pollWithRequests(t);
		expect(first.items).toBeNull();
		expect(first.requests.map((r) => r.route)).toEqual([route]);
		const state = t.staticData['node:Trigger Under Test'] as IDataObject;
		expect(state).toMatchObject({ v: STATE_VERSION, event });
		// No `gone` (missing marks) while nothing is missing; the service's clock, and the new
		// baseline's settling mark (see README, Partial lists).
		expect(Object.keys(state).sort()).toEqual(['clock', 'event', ...key.split(','), 'settle', 'v'].sort());

		const second = await pollWithRequests(t);
		expect(second.items).toBeNull();
		expect(second.requests.map((r) => r.route)).toEqual([route]);
	});

	it('does not report proxies that are already expired or inside the window at the baseline, ever', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		expect(await poll(t)).toBeNull();
		const reported = (t.staticData['node:Trigger Under Test'] as IDataObject).reported as Record<string, number>;
		// The seed has expired proxies and proxies expiring within hours: all are recorded as seen (the
		// others too, while the baseline settles, as -expiry: listed, not reported).
		expect(Object.keys(reported).filter((name) => reported[name] >= 0).sort()).toEqual(
			['PRX-US-AU2-0001', 'PRX-US-DE1-0009', 'PRX-US-HO1-0011', 'PRX-US-HO3-0002', 'PRX-US-HO3-0010', 'PRX-US-NY1-0003'].sort(),
		);
		for (let i = 0; i < 5; i++) {
			sim.clock.advance(6 * HOUR);
			expect(await poll(t)).toBeNull();
		}
	});

	it('starts a new baseline when the event is changed, instead of replaying the old state', async () => {
		const stock = stockTrigger();
		await poll(stock);
		const saved = stock.staticData;
		sim.addProxy(null, { proxy_name: 'PRX-NEW-1' });
		const switched = trigger({ event: 'newProxy' }, saved);
		expect(await poll(switched)).toBeNull();
		const state = switched.staticData['node:Trigger Under Test'] as IDataObject;
		expect(state.event).toBe('newProxy');
		expect(state.stock).toBeUndefined();
		sim.addProxy(null, { proxy_name: 'PRX-NEW-2' });
		expect((await poll(switched))?.map((item) => item.proxy_name)).toEqual(['PRX-NEW-2']);
	});

	it('treats damaged static data as no state: a new baseline, no burst of events', async () => {
		const t = trigger({ event: 'stockChanged' }, { 'node:Trigger Under Test': { v: 1, event: 'stockChanged', stock: { 'Austin|TX': 'broken' } } });
		expect(await poll(t)).toBeNull();
		expect(Object.keys((t.staticData['node:Trigger Under Test'] as IDataObject).stock as object)).toHaveLength(8);
	});
});

describe('Stock Changed', () => {
	it('emits became_available once when a carrier count goes from zero to above zero', async () => {
		const t = stockTrigger();
		await poll(t);
		sim.setStockCount('Denver', 'verizon', 4);
		const items = await poll(t);
		expect(items).toEqual([
			{
				event: 'stock_changed',
				change: 'became_available',
				city: 'Denver',
				state: 'CO',
				carrier: 'verizon',
				carrier_name: 'Verizon',
				before: { count: 0, status: 'out' },
				after: { count: 4, status: 'available' },
				record: {
					city: 'Denver',
					state: 'CO',
					att: 0,
					verizon: 4,
					tmobile: 0,
					status: 'available',
					open: true,
					visible: true,
					carriers: { att: 0, verizon: 4, tmobile: 0 },
					total: 4,
				},
			},
		]);
		expect(await poll(t)).toBeNull();
		// More stock in a city that already has some is not "became available".
		sim.setStockCount('Denver', 'verizon', 9);
		expect(await poll(t)).toBeNull();
	});

	it('emits became_available when a closed city with stock opens (status turns available)', async () => {
		sim.setStockCount('Miami', 'att', 3);
		sim.setStockCount('Miami', 'tmobile', 1);
		const t = stockTrigger();
		await poll(t);
		sim.setCityOpen('Miami', true);
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => [item.city, item.carrier, item.before, item.after])).toEqual([
			['Miami', 'att', { count: 3, status: 'coming' }, { count: 3, status: 'available' }],
			['Miami', 'tmobile', { count: 1, status: 'coming' }, { count: 1, status: 'available' }],
		]);
		// Closing is not an availability event; opening again is.
		sim.setCityOpen('Miami', false);
		expect(await poll(t)).toBeNull();
		sim.setCityOpen('Miami', true);
		expect((await poll(t))?.length).toBe(2);
	});

	it('filters by city, state and carrier', async () => {
		const byCity = stockTrigger({ stockFilters: { city: 'denver, Miami' } });
		const byState = stockTrigger({ stockFilters: { state: 'ca' } });
		const byCarrier = stockTrigger({ stockFilters: { carrier: 'tmobile' } });
		const byCarrierName = stockTrigger({ stockFilters: { carrier: 'T-Mobile', state: 'CO' } });
		const byTwoCarriers = stockTrigger({ stockFilters: { carrier: ['tmobile', 'Verizon'] } });
		const all = [byCity, byState, byCarrier, byCarrierName, byTwoCarriers];
		for (const t of all) await poll(t);
		sim.setStockCount('Denver', 'att', 2);
		sim.setStockCount('Denver', 'tmobile', 2);
		sim.setCityOpen('Los Angeles', true);
		sim.setStockCount('Los Angeles', 'verizon', 7);
		sim.setCityOpen('Miami', true);
		sim.setStockCount('Miami', 'tmobile', 1);
		const keys = async (t: PollHarness) => ((await poll(t)) ?? []).map((item) => `${item.city}/${item.carrier}`);
		expect(await keys(byCity)).toEqual(['Denver/att', 'Denver/tmobile', 'Miami/tmobile']);
		expect(await keys(byState)).toEqual(['Los Angeles/verizon']);
		expect(await keys(byCarrier)).toEqual(['Denver/tmobile', 'Miami/tmobile']);
		expect(await keys(byCarrierName)).toEqual(['Denver/tmobile']);
		expect(await keys(byTwoCarriers)).toEqual(['Denver/tmobile', 'Miami/tmobile', 'Los Angeles/verizon']);
		for (const t of all) expect(await poll(t)).toBeNull();
	});

	it('Any Count Change emits every count change with before and after, and nothing for a status-only change', async () => {
		const t = stockTrigger({ stockChange: 'anyChange' });
		await poll(t);
		sim.setStockCount('Austin', 'att', 64);
		sim.setStockCount('Houston', 'verizon', 1);
		sim.setStockCount('Houston', 'tmobile', 0);
		sim.setCityOpen('Chicago', false);
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => [item.change, item.city, item.carrier, item.before, item.after])).toEqual([
			['count_changed', 'Austin', 'att', { count: 65, status: 'available' }, { count: 64, status: 'available' }],
			['count_changed', 'Houston', 'verizon', { count: 0, status: 'available' }, { count: 1, status: 'available' }],
			['count_changed', 'Houston', 'tmobile', { count: 79, status: 'available' }, { count: 0, status: 'available' }],
		]);
		expect(await poll(t)).toBeNull();
	});

	it('Reached Threshold emits when a count goes from below the threshold to at or above it', async () => {
		const t = stockTrigger({ stockChange: 'reachedThreshold', threshold: 5 });
		await poll(t);
		sim.setStockCount('New York', 'tmobile', 4); // 3 -> 4: still below
		sim.setStockCount('Denver', 'att', 5); // 0 -> 5: reached
		sim.setStockCount('Austin', 'att', 80); // already above
		const first = (await poll(t)) ?? [];
		expect(first.map((item) => [item.change, item.city, item.carrier, item.threshold, item.after])).toEqual([
			['reached_threshold', 'Denver', 'att', 5, { count: 5, status: 'available' }],
		]);
		sim.setStockCount('New York', 'tmobile', 12);
		sim.setStockCount('Denver', 'att', 6);
		expect((await poll(t))?.map((item) => `${item.city}/${item.carrier}`)).toEqual(['New York/tmobile']);
		sim.setStockCount('Denver', 'att', 2);
		expect(await poll(t)).toBeNull();
		sim.setStockCount('Denver', 'att', 5);
		expect((await poll(t))?.map((item) => `${item.city}/${item.carrier}`)).toEqual(['Denver/att']);
	});

	it('discovers a new carrier from the payload, without a release', async () => {
		const t = stockTrigger();
		await poll(t);
		sim.addCarrier({ key: 'uscellular', name: 'US Cellular', code: 'UC' });
		expect(await poll(t)).toBeNull();
		sim.setStockCount('Austin', 'uscellular', 2);
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => [item.city, item.carrier, item.carrier_name, item.before])).toEqual([
			['Austin', 'uscellular', 'Uscellular', { count: 0, status: 'available' }],
		]);
	});
});

describe('Proxy Expiring', () => {
	it('emits once when a proxy comes within the window, with the password left out', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-EXP-1', expires_at: timestamp(START + 30 * HOUR), password: 'hunter2-secret' });
		expect(await poll(t)).toBeNull();
		sim.clock.advance(5 * HOUR);
		expect(await poll(t)).toBeNull();
		sim.clock.advance(1 * HOUR);
		const items = (await poll(t)) ?? [];
		expect(items).toHaveLength(1);
		const [item] = items;
		expect(item).toMatchObject({
			event: 'proxy_expiring',
			proxy_name: 'PRX-EXP-1',
			expires_at: timestamp(START + 30 * HOUR),
			expires_in_hours: 24,
			within_hours: 24,
			before: { expires_at: null },
			after: { expires_at: timestamp(START + 30 * HOUR), expires_in_hours: 24 },
			record: { proxy_name: 'PRX-EXP-1', expires_in_hours: 24 },
		});
		expect(JSON.stringify(item)).not.toContain('hunter2-secret');
		expect(item.record).not.toHaveProperty('password');
		for (let i = 0; i < 6; i++) {
			sim.clock.advance(5 * HOUR); // into the past too: still reported only once
			expect(await poll(t)).toBeNull();
		}
	});

	it('is armed again by an extension (through the allocate endpoint) and reports the new expiry once', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-EXP-2', expires_at: timestamp(START + 30 * HOUR) });
		await poll(t);
		sim.clock.advance(10 * HOUR);
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual(['PRX-EXP-2']);
		const firstExpiry = proxy('PRX-EXP-2').expires_at;

		// One hour more: the new expiry is still inside the window, so it is reported again, once.
		await extend('PRX-EXP-2', 1, 'hourly');
		const again = (await poll(t)) ?? [];
		expect(again).toHaveLength(1);
		// The same instant, written like the new expiry beside it.
		expect(Date.parse(String((again[0].before as IDataObject).expires_at))).toBe(Date.parse(firstExpiry));
		expect(again[0].expires_at).toBe(proxy('PRX-EXP-2').expires_at);
		expect(await poll(t)).toBeNull();

		// One week more: out of the window; reported again only when the new expiry comes near.
		await extend('PRX-EXP-2', 1, 'weekly');
		expect(await poll(t)).toBeNull();
		sim.clock.advance(6 * 24 * HOUR);
		expect(await poll(t)).toBeNull();
		sim.clock.advance(22 * HOUR);
		const third = (await poll(t)) ?? [];
		expect(third.map((item) => item.proxy_name)).toEqual(['PRX-EXP-2']);
		expect(third[0].expires_in_hours).toBeGreaterThan(0);
		expect(third[0].expires_in_hours).toBeLessThanOrEqual(24);
		expect(await poll(t)).toBeNull();
	});

	it('reports a proxy whose whole window passed between two polls, once, with negative hours', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 2, proxyFilters: { nameContains: 'prx-exp' } });
		sim.addProxy(null, { proxy_name: 'PRX-EXP-3', expires_at: timestamp(START + 10 * HOUR) });
		await poll(t);
		sim.clock.advance(12 * HOUR);
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => [item.proxy_name, item.expires_in_hours])).toEqual([['PRX-EXP-3', -2]]);
		expect(await poll(t)).toBeNull();
	});

	it('filters by city, state, carrier and name, and reports a new proxy that is already inside the window', async () => {
		const t = trigger({
			event: 'proxyExpiring',
			withinHours: 48,
			proxyFilters: { city: 'Austin', state: 'tx', carrier: 'AT&T', nameContains: 'keep' },
		});
		await poll(t);
		sim.addProxy(null, { proxy_name: 'PRX-KEEP-1', city: 'Austin', state: 'TX', isp: 'AT&T', expires_at: timestamp(START + HOUR) });
		sim.addProxy(null, { proxy_name: 'PRX-KEEP-2', city: 'Austin', state: 'TX', isp: 'Verizon', expires_at: timestamp(START + HOUR) });
		sim.addProxy(null, { proxy_name: 'PRX-KEEP-3', city: 'Houston', state: 'TX', isp: 'AT&T', expires_at: timestamp(START + HOUR) });
		sim.addProxy(null, { proxy_name: 'PRX-DROP-4', city: 'Austin', state: 'TX', isp: 'AT&T', expires_at: timestamp(START + HOUR) });
		sim.addProxy(null, { proxy_name: 'PRX-X-5', nickname: 'keeper', city: 'Austin', state: 'TX', isp: 'AT&T', expires_at: timestamp(START + HOUR) });
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual(['PRX-KEEP-1', 'PRX-X-5']);
		expect(await poll(t)).toBeNull();
	});

	it('can include the password and return the raw record', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24, options: { includePassword: true, simplify: false } });
		await poll(t);
		sim.addProxy(null, { proxy_name: 'PRX-PW', expires_at: timestamp(START + HOUR), password: 'pw-visible' });
		const [item] = (await poll(t)) ?? [];
		const record = item.record as IDataObject;
		expect(record.password).toBe('pw-visible');
		expect(record).toHaveProperty('last_reboot');
		expect(record).toHaveProperty('h_threads');
	});
});

describe('Proxy Status Changed', () => {
	it('emits once per change with the status before and after', async () => {
		const t = trigger({ event: 'proxyStatusChanged' });
		await poll(t);
		proxy('PRX-US-CL1-0004').network_status = 'offline';
		const items = (await poll(t)) ?? [];
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'proxy_status_changed',
			proxy_name: 'PRX-US-CL1-0004',
			before: { network_status: 'online' },
			after: { network_status: 'offline' },
			record: { proxy_name: 'PRX-US-CL1-0004', network_status: 'offline' },
		});
		expect(items[0].record).not.toHaveProperty('password');
		expect(await poll(t)).toBeNull();
		proxy('PRX-US-CL1-0004').network_status = 'online';
		expect((await poll(t))?.map((item) => item.after)).toEqual([{ network_status: 'online' }]);
	});

	it('filters by From Status, To Status and proxy filters; a new proxy is not a status change', async () => {
		const leavesOnline = trigger({ event: 'proxyStatusChanged', fromStatus: 'Online' });
		const toOffline = trigger({ event: 'proxyStatusChanged', toStatus: 'offline', proxyFilters: { state: 'NY' } });
		await poll(leavesOnline);
		await poll(toOffline);
		proxy('PRX-US-NY1-0003').network_status = 'offline';
		proxy('PRX-US-HO2-0008').network_status = 'rebooting';
		proxy('PRX-US-CH3-0005').network_status = 'offline';
		sim.addProxy(null, { proxy_name: 'PRX-NEW-OFF', network_status: 'offline', state: 'NY' });
		expect((await poll(leavesOnline))?.map((item) => item.proxy_name)).toEqual(['PRX-US-CH3-0005', 'PRX-US-NY1-0003', 'PRX-US-HO2-0008'].sort((a, b) => order(a) - order(b)));
		expect((await poll(toOffline))?.map((item) => item.proxy_name)).toEqual(['PRX-US-NY1-0003']);
		proxy('PRX-US-HO2-0008').network_status = 'offline';
		expect(await poll(leavesOnline)).toBeNull();
		expect(await poll(toOffline)).toBeNull();
	});
});

/** Position of a proxy in the service's list (the order items come in). */
function order(name: string): number {
	return [...sim.account().proxies.keys()].indexOf(name);
}

describe('New Proxy', () => {
	it('emits once per new name, filtered, and forgets a proxy at the poll that confirms it gone (issue 36)', async () => {
		const all = trigger({ event: 'newProxy' });
		const filtered = trigger({ event: 'newProxy', proxyFilters: { nameContains: 'fleet' } });
		await poll(all);
		await poll(filtered);
		sim.addProxy(null, { proxy_name: 'PRX-FLEET-1' });
		sim.addProxy(null, { proxy_name: 'PRX-OTHER-2' });
		const items = (await poll(all)) ?? [];
		expect(items.map((item) => item.proxy_name)).toEqual(['PRX-FLEET-1', 'PRX-OTHER-2']);
		expect(items[0]).toMatchObject({
			event: 'new_proxy',
			before: null,
			after: { proxy_name: 'PRX-FLEET-1', expires_at: proxy('PRX-FLEET-1').expires_at },
			record: { proxy_name: 'PRX-FLEET-1' },
		});
		expect((await poll(filtered))?.map((item) => item.proxy_name)).toEqual(['PRX-FLEET-1']);
		expect(await poll(all)).toBeNull();
		expect(await poll(filtered)).toBeNull();

		// A proxy that is gone (the service answers not found by name) is forgotten at the next poll.
		sim.account().proxies.delete('PRX-OTHER-2');
		const names = () => Object.keys((all.staticData['node:Trigger Under Test'] as IDataObject).ids as object);
		expect(names()).toContain('PRX-OTHER-2');
		expect(await poll(all)).toBeNull();
		expect(names()).not.toContain('PRX-OTHER-2');
		expect(names()).toHaveLength(sim.account().proxies.size);
		expect((all.staticData['node:Trigger Under Test'] as IDataObject).gone).toBeUndefined();
	});
});

describe('Fetch Test Event (manual mode)', () => {
	it.each([
		[{ event: 'stockChanged' }, 'stock_changed'],
		[{ event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 70 }, 'stock_changed'],
		[{ event: 'proxyExpiring', withinHours: 24 }, 'proxy_expiring'],
		[{ event: 'proxyStatusChanged' }, 'proxy_status_changed'],
		[{ event: 'newProxy' }, 'new_proxy'],
	])('returns current samples of %j and leaves static data identical', async (parameters, event) => {
		const t = trigger(parameters as INodeParameters);
		// Before any baseline: no state is created.
		const empty = JSON.stringify(t.staticData);
		const samples = (await poll(t, 'manual')) ?? [];
		expect(JSON.stringify(t.staticData)).toBe(empty);
		expect(samples.length).toBeGreaterThan(0);
		expect(samples.length).toBeLessThanOrEqual(SAMPLE_LIMIT);
		for (const sample of samples) expect(sample).toMatchObject({ event, sample: true });
		expect(samples[0]).toHaveProperty('record');
		expect(JSON.stringify(samples)).not.toMatch(/"password"/);

		// After a baseline, with changes pending: the sample changes nothing, the next poll emits them.
		await poll(t);
		const before = JSON.stringify(t.staticData);
		sim.setStockCount('Denver', 'att', 80);
		sim.addProxy(null, { proxy_name: 'PRX-PENDING', expires_at: timestamp(START + HOUR) });
		proxy('PRX-US-CL1-0004').network_status = 'offline';
		await poll(t, 'manual');
		await poll(t, 'manual');
		expect(JSON.stringify(t.staticData)).toBe(before);
		const pending = (await poll(t)) ?? [];
		expect(pending.length).toBeGreaterThan(0);
		for (const item of pending) expect(item).not.toHaveProperty('sample');
	});

	it('when nothing matches now, one example shaped like a real event, built from a real city or proxy as it is, its before empty', async () => {
		const t = trigger({ event: 'stockChanged', stockFilters: { city: 'Atlantis' } });
		const items = (await poll(t, 'manual'))!;
		expect(items).toHaveLength(1);
		const [example] = items;
		expect(sim.stock.map((c) => c.city)).toContain(example.city);
		expect(example).toMatchObject({ event: 'stock_changed', change: 'became_available', sample: true, before: { count: null, status: null } });
		// Its after is the city's real count and status: nothing invented.
		const real = sim.stock.find((c) => c.city === example.city)!;
		expect((example.after as IDataObject).count).toBe(real.counts[String(example.carrier)]);
		expect(String(example.sample_note)).toMatch(/^A test event, made up from the account as it is now: it reports no real change/);
		expect(Object.keys(example).sort()).toEqual(['after', 'before', 'carrier', 'carrier_name', 'change', 'city', 'event', 'record', 'sample', 'sample_note', 'state']);
		const proxies = (await poll(trigger({ event: 'newProxy', proxyFilters: { nameContains: 'nothing-like-this' } }), 'manual'))!;
		expect(proxies.length).toBeGreaterThan(0);
		expect(proxies[0]).toMatchObject({ event: 'new_proxy', sample: true, before: null });
		expect(sim.account().proxies.has(String(proxies[0].proxy_name))).toBe(true);
		const expiring = (await poll(trigger({ event: 'proxyExpiring', withinHours: 1, proxyFilters: { nameContains: 'nothing-like-this' } }), 'manual'))!;
		expect(expiring).toHaveLength(1);
		expect(expiring[0].expires_in_hours as number).toBeLessThanOrEqual(1);
		expect(expiring[0]).toMatchObject({ event: 'proxy_expiring', sample: true, within_hours: 1 });
		const status = (await poll(trigger({ event: 'proxyStatusChanged', fromStatus: 'online', toStatus: 'maintenance' }), 'manual'))!;
		expect(status).toHaveLength(1);
		// No proxy is in maintenance: the example is a real proxy with its real status, and no before.
		expect(status[0]).toMatchObject({ event: 'proxy_status_changed', sample: true, before: { network_status: null } });
		expect((status[0].after as IDataObject).network_status).toBe(sim.account().proxies.get(String(status[0].proxy_name))!.network_status);
		expect(JSON.stringify(t.staticData)).toBe('{}');
	});

	it('Proxy Expiring samples are proxies inside the window now (after now, within the hours), never ones that expired long ago', async () => {
		const proxies = [...sim.account().proxies.values()];
		const at = (p: { expires_at: string }) => Date.parse(p.expires_at);
		// The account holds both kinds: proxies expired days ago, and proxies expiring within a day.
		expect(proxies.some((p) => at(p) < START - 2 * HOUR)).toBe(true);
		const inside = proxies.filter((p) => at(p) > START && at(p) <= START + 24 * HOUR);
		expect(inside.length).toBeGreaterThan(0);
		const samples = (await poll(trigger({ event: 'proxyExpiring', withinHours: 24 }), 'manual'))!;
		expect(samples.map((s) => s.proxy_name).sort()).toEqual(inside.map((p) => p.proxy_name).sort().slice(0, SAMPLE_LIMIT));
		for (const sample of samples) {
			expect(Date.parse(String(sample.expires_at))).toBeGreaterThan(START);
			expect(sample.expires_in_hours as number).toBeGreaterThan(0);
			expect(sample.expires_in_hours as number).toBeLessThanOrEqual(24);
		}
		// Only expired proxies match: the one example is still inside the window.
		const expired = proxies.find((p) => at(p) < START - 2 * HOUR)!;
		const example = (await poll(trigger({ event: 'proxyExpiring', withinHours: 6, proxyFilters: { nameContains: expired.proxy_name } }), 'manual'))!;
		expect(example).toHaveLength(1);
		expect(example[0]).toMatchObject({ proxy_name: expired.proxy_name, sample: true });
		expect(example[0].expires_in_hours as number).toBeGreaterThan(0);
		expect(example[0].expires_in_hours as number).toBeLessThanOrEqual(6);
	});

	it('describes the current state in one item only when the list is empty', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'emptyList' });
		const items = await poll(trigger({ event: 'stockChanged' }), 'manual');
		expect(items).toEqual([expect.objectContaining({ event: 'stock_changed', sample: true, cities: 0, matching_cities: 0 })]);
	});

	it('a sample never has before equal to after', async () => {
		for (const change of ['becameAvailable', 'anyChange', 'reachedThreshold']) {
			const items = (await poll(trigger({ event: 'stockChanged', stockChange: change, threshold: 5 }), 'manual'))!;
			expect(items[0].change).toBe({ becameAvailable: 'became_available', anyChange: 'count_changed', reachedThreshold: 'reached_threshold' }[change]);
			expect(items.length).toBeGreaterThan(0);
			for (const item of items) expect(item.before).not.toEqual(item.after);
		}
		const status = (await poll(trigger({ event: 'proxyStatusChanged' }), 'manual'))!;
		for (const item of status) expect(item.before).not.toEqual(item.after);
	});
});

describe('failed polls', () => {
	const cases: Array<[string, FaultSpec, RegExp, number]> = [
		['429 with a long retry-after', { route: 'GET /v1/stock', kind: 'rateLimit', retryAfter: 120 }, /limiting how often/, 429],
		['500', { route: 'GET /v1/stock', kind: 'status', status: 500 }, /could not handle the request \(HTTP 500/, 500],
		['a malformed body', { route: 'GET /v1/stock', kind: 'malformed' }, /not valid JSON/, 200],
		['a drifted body', { route: 'GET /v1/stock', kind: 'drift', remove: ['data.2.status'] }, /unexpected shape: data\[2\]\.status is missing/, 200],
		['ok: false', { route: 'GET /v1/stock', kind: 'okFalse', status: 400, message: 'Unexpected error' }, /the request: Unexpected error/, 400],
	];

	it.each(cases)('%s: throws a clear NodeApiError, keeps the state, and the next good poll emits what was pending', async (_label, fault, message, status) => {
		const t = stockTrigger();
		await poll(t);
		const baseline = JSON.stringify(t.staticData);
		sim.setStockCount('Denver', 'att', 3);
		sim.injectFault(fault);
		sim.resetLogs();
		const error = await pollError(t);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toMatch(message);
		expect(sim.requests.map((r) => r.status)).toEqual([status]);
		expect(JSON.stringify(t.staticData)).toBe(baseline);
		sim.setStockCount('Denver', 'tmobile', 1);
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => `${item.city}/${item.carrier}`)).toEqual(['Denver/att', 'Denver/tmobile']);
		expect(await poll(t)).toBeNull();
	});

	it('a timeout throws a clear NodeApiError and the next good poll emits what was pending', async () => {
		const t = trigger({ event: 'newProxy' }, {}, true);
		await poll(t);
		sim.addProxy(null, { proxy_name: 'PRX-AFTER-TIMEOUT' });
		// Held 15 s against a 2 s timeout: ending well before the answer (four times a quiet poll)
		// proves the timeout ended the poll, on a busy machine too.
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'latency', delayMs: 15_000, when: 'before' });
		const started = Date.now();
		const error = await pollError(t);
		expect(Date.now() - started).toBeLessThan(8_000);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toMatch(/did not answer within 2 s/);
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual(['PRX-AFTER-TIMEOUT']);
	});

	it('a failure on the proxy list does not lose an expiry or a status change', async () => {
		const expiring = trigger({ event: 'proxyExpiring', withinHours: 24 });
		const status = trigger({ event: 'proxyStatusChanged' });
		await poll(expiring);
		await poll(status);
		sim.addProxy(null, { proxy_name: 'PRX-F', expires_at: timestamp(START + 25 * HOUR) });
		await poll(expiring);
		await poll(status);
		sim.clock.advance(2 * HOUR);
		proxy('PRX-F').network_status = 'offline';
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'status', status: 500, times: 2 });
		expect(await pollError(expiring)).toBeInstanceOf(NodeApiError);
		expect(await pollError(status)).toBeInstanceOf(NodeApiError);
		expect((await poll(expiring))?.map((item) => item.proxy_name)).toEqual(['PRX-F']);
		expect((await poll(status))?.map((item) => item.proxy_name)).toEqual(['PRX-F']);
	});
});

describe('parameters', () => {
	it.each([
		[{ event: 'proxyExpiring', withinHours: -1 }, /^Expiring Within \(Hours\) must be a number of hours of 0 or more, but it is -1$/],
		[{ event: 'proxyExpiring', withinHours: 'soon' }, /^Expiring Within \(Hours\) must be .* but it is “soon”$/],
		[{ event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 0 }, /^Threshold must be a whole number of 1 or more, but it is 0$/],
		[{ event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 2.5 }, /^Threshold must be a whole number/],
		[{ event: 'somethingElse' }, /^Event must be one of the events in the list/],
		[{ event: 'lowFunds', fundsThreshold: -1 }, /^Threshold must be an amount of 0 or more, but it is -1$/],
		[{ event: 'lowFunds', fundsThreshold: 50, belowUpcomingRenewals: 'sometimes' }, /^Below Upcoming Renewals must be true or false, but it is “sometimes”$/],
		[{ event: 'ipChanged', onlyAutoRotating: 'no' }, /^Only Auto-Rotating Proxies must be true or false, but it is “no”$/],
		[{ event: 'newProxy', options: { includePassword: 'yes' } }, /^Include Password must be true or false, but it is “yes”$/],
		[{ event: 'proxyExpiring', options: { simplify: 'nope' } }, /^Simplify must be true or false, but it is “nope”$/],
	])('%j is refused with a NodeOperationError naming the field, before anything is sent', async (parameters, message) => {
		const t = trigger(parameters as INodeParameters);
		sim.resetLogs();
		const error = await pollError(t);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toMatch(message);
		expect(sim.requests).toHaveLength(0);
		expect(t.staticData).toEqual({});
	});

	it('the description follows the parameter contract', () => {
		const { description } = new ProxyAccountTrigger();
		expect(description).toMatchObject({ name: 'proxyAccountTrigger', displayName: 'Proxy Account Trigger', polling: true, inputs: [], group: ['trigger'] });
		expect(description.usableAsTool).toBeUndefined();
		const names = description.properties.map((p) => p.name);
		expect(names).toEqual(
			expect.arrayContaining(['event', 'stockChange', 'threshold', 'stockFilters', 'withinHours', 'proxyFilters', 'toStatus', 'options']),
		);
		const event = description.properties.find((p) => p.name === 'event');
		expect(event?.default).toBe('stockChanged');
		expect(event?.options?.map((o) => ('value' in o ? o.value : undefined)).sort()).toEqual(
			['ipChanged', 'lowFunds', 'newProxy', 'proxyExpiring', 'proxyRemoved', 'proxyStatusChanged', 'stockChanged'],
		);
		const stockFilters = description.properties.find((p) => p.name === 'stockFilters');
		expect(stockFilters?.options?.map((o) => o.name)).toEqual(['carrier', 'city', 'state']);
		const proxyFilters = description.properties.find((p) => p.name === 'proxyFilters');
		expect(proxyFilters?.options?.map((o) => o.name)).toEqual(['carrier', 'city', 'nameContains', 'state']);
	});
});

describe('state across restarts and over time', () => {
	it('a restart neither repeats nor loses events', async () => {
		const stock = stockTrigger();
		const status = trigger({ event: 'proxyStatusChanged' });
		const expiring = trigger({ event: 'proxyExpiring', withinHours: 24 });
		for (const t of [stock, status, expiring]) await poll(t);
		sim.setStockCount('Denver', 'att', 1);
		proxy('PRX-US-CL1-0004').network_status = 'offline';
		sim.addProxy(null, { proxy_name: 'PRX-R', expires_at: timestamp(START + 20 * HOUR) });
		for (const t of [stock, status, expiring]) t.restart();
		expect((await poll(stock))?.length).toBe(1);
		expect((await poll(status))?.length).toBe(1);
		expect((await poll(expiring))?.map((item) => item.proxy_name)).toEqual(['PRX-R']);
		for (const t of [stock, status, expiring]) {
			t.restart();
			expect(await poll(t)).toBeNull();
		}
		// A failed poll, a restart, then a good poll: the pending change comes out once.
		sim.setStockCount('Denver', 'verizon', 2);
		sim.injectFault({ route: 'GET /v1/stock', kind: 'status', status: 500 });
		await pollError(stock);
		stock.restart();
		expect((await poll(stock))?.map((item) => item.carrier)).toEqual(['verizon']);
		stock.restart();
		expect(await poll(stock)).toBeNull();
	});

	it('static data does not grow with the number of polls, and shrinks when proxies go', async () => {
		const expiring = trigger({ event: 'proxyExpiring', withinHours: 24 });
		const status = trigger({ event: 'proxyStatusChanged' });
		const stock = stockTrigger({ stockChange: 'anyChange' });
		const all = [expiring, status, stock];
		for (const t of all) await poll(t);
		const size = (t: PollHarness) => JSON.stringify(t.staticData).length;
		const initial = all.map(size);
		let emitted = 0;
		for (let i = 0; i < 60; i++) {
			sim.clock.advance(HOUR);
			sim.setStockCount('Austin', 'att', 60 + (i % 2));
			proxy('PRX-US-CL1-0004').network_status = i % 2 ? 'online' : 'offline';
			for (const t of all) emitted += (await poll(t))?.length ?? 0;
		}
		expect(emitted).toBeGreaterThan(100);
		// The stock and status maps keep one entry per city / proxy; the expiry map at most one per proxy.
		// (The baseline's settling mark is gone after its hour.)
		expect(size(stock)).toBeLessThanOrEqual(initial[2]);
		expect(size(status)).toBeLessThanOrEqual(initial[1]);
		expect(Object.keys((expiring.staticData['node:Trigger Under Test'] as IDataObject).reported as object).length).toBeLessThanOrEqual(
			sim.account().proxies.size,
		);
		// Proxies that go are forgotten at the next poll, once the service confirms them gone by name.
		for (const name of [...sim.account().proxies.keys()].slice(0, 6)) sim.account().proxies.delete(name);
		const statusMap = () => (status.staticData['node:Trigger Under Test'] as IDataObject).status as object;
		expect(Object.keys(statusMap())).toHaveLength(12);
		for (const t of all) await poll(t);
		expect(Object.keys(statusMap())).toHaveLength(6);
		expect(size(status)).toBeLessThan(initial[1]);
	});
});

// ----- partial lists (grace period) -------------------------------------------------------------------

const MINUTE = 60_000;

function nodeState(t: PollHarness): IDataObject {
	return t.staticData['node:Trigger Under Test'] as IDataObject;
}

/**
 * Polls while the service leaves `names` out of its proxy list (a partial reply), and the read by name
 * of the first of them is in doubt (a 500): they stay remembered as missing (docs/trigger.md,
 * "Partial lists"), as an absence the service has not answered for.
 */
async function pollWithoutProxies(t: PollHarness, names: string[]): Promise<IDataObject[] | null> {
	dropFromNextList('GET /v1/proxies', names.map(order));
	return await poll(t);
}

/** Polls while the service leaves `cities` out of its stock; they are put back, in place, after. */
async function pollWithoutCities(t: PollHarness, cities: string[]): Promise<IDataObject[] | null> {
	const all = [...sim.stock];
	sim.stock.splice(0, sim.stock.length, ...all.filter((entry) => !cities.includes(entry.city)));
	try {
		return await poll(t);
	} finally {
		sim.stock.splice(0, sim.stock.length, ...all);
	}
}

/**
 * A `drift` fault that removes the entries at these positions from the next list reply; for proxies,
 * the next read by name answers a 500 (in doubt: the poll's reads end, nothing is decided).
 */
function dropFromNextList(route: 'GET /v1/proxies' | 'GET /v1/stock', positions: number[]): void {
	// From the last position down, so that each removal leaves the next positions in place.
	const remove = [...positions].sort((a, b) => b - a).map((position) => `data.${position}`);
	sim.injectFault({ route, kind: 'drift', remove });
	if (route === 'GET /v1/proxies') sim.injectFault({ route: 'GET /v1/proxies/:name', kind: 'status', status: 500 });
}

describe('partial lists: a missing entry is kept for the grace period', () => {
	it('Proxy Expiring: a reported proxy missing from two replies (removed, then dropped by the service) is not reported a second time', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-EXP-P', expires_at: timestamp(START + 30 * HOUR) });
		expect(await poll(t)).toBeNull();
		sim.clock.advance(7 * HOUR);
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual(['PRX-EXP-P']);
		sim.clock.advance(10 * MINUTE);
		expect(await pollWithoutProxies(t, ['PRX-EXP-P'])).toBeNull();
		sim.clock.advance(10 * MINUTE);
		dropFromNextList('GET /v1/proxies', [order('PRX-EXP-P')]);
		expect(await poll(t)).toBeNull();
		expect(nodeState(t).gone).toEqual({ 'PRX-EXP-P': [2, START + 7 * HOUR + 10 * MINUTE] });
		expect((nodeState(t).reported as IDataObject)['PRX-EXP-P']).toBe(START + 30 * HOUR);
		// Back, with the same expiry: nothing, and the mark is gone.
		sim.clock.advance(10 * MINUTE);
		expect(await poll(t)).toBeNull();
		expect(nodeState(t).gone).toBeUndefined();
		// Missing again, and extended while missing: back with a new expiry inside the window, reported once.
		expect(await pollWithoutProxies(t, ['PRX-EXP-P'])).toBeNull();
		proxy('PRX-EXP-P').expires_at = timestamp(START + 31 * HOUR);
		const again = (await poll(t)) ?? [];
		expect(again.map((item) => [item.proxy_name, item.before, item.expires_at])).toEqual([
			['PRX-EXP-P', { expires_at: timestamp(START + 30 * HOUR) }, timestamp(START + 31 * HOUR)],
		]);
		expect(await poll(t)).toBeNull();
	});

	it('New Proxy: proxies missing from partial replies are not new when they come back; one the service removed is new when bought again', async () => {
		const t = trigger({ event: 'newProxy' });
		await poll(t);
		const [first, second, third] = [...sim.account().proxies.keys()];
		expect(await pollWithoutProxies(t, [first, second])).toBeNull();
		dropFromNextList('GET /v1/proxies', [order(first), order(third)]);
		expect(await poll(t)).toBeNull();
		// `second` was listed again: its mark is cleared; `first` is missing from 2 replies in a row.
		expect(nodeState(t).gone).toEqual({ [first]: [2, START], [third]: [1, START] });
		expect(await poll(t)).toBeNull();
		expect(nodeState(t).gone).toBeUndefined();
		// Removed (the service answers not found by name): forgotten at once, so a proxy bought again
		// under the same name is new (issue 36; before, within the grace period it was not).
		sim.account().proxies.delete(third);
		sim.clock.advance(30 * MINUTE);
		expect(await poll(t)).toBeNull();
		expect(Object.keys(nodeState(t).ids as object)).not.toContain(third);
		sim.addProxy(null, { proxy_name: third });
		sim.clock.advance(30 * MINUTE);
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual([third]);
	});

	it('Stock Changed (became available): a city missing from partial replies is not "available again" when it comes back; a change while missing is compared with what was kept', async () => {
		const t = stockTrigger();
		await poll(t);
		expect(await pollWithoutCities(t, ['Austin', 'Denver'])).toBeNull();
		dropFromNextList('GET /v1/stock', [sim.stock.findIndex((entry) => entry.city === 'Austin')]);
		expect(await poll(t)).toBeNull();
		expect(Object.keys(nodeState(t).gone as object).sort()).toEqual(['Austin|TX']);
		expect(await poll(t)).toBeNull();
		// Denver (out of stock) is missing while Verizon gets 4 there: back, it became available, once,
		// from the status that was kept ('out'), not from an unknown city.
		sim.setStockCount('Denver', 'verizon', 4);
		expect(await pollWithoutCities(t, ['Denver'])).toBeNull();
		const items = (await poll(t)) ?? [];
		expect(items.map((item) => [item.change, item.city, item.carrier, item.before, item.after])).toEqual([
			['became_available', 'Denver', 'verizon', { count: 0, status: 'out' }, { count: 4, status: 'available' }],
		]);
		expect(await poll(t)).toBeNull();
	});

	it('Stock Changed (any change, threshold): a city back unchanged is not a change from zero', async () => {
		const any = stockTrigger({ stockChange: 'anyChange' });
		const threshold = stockTrigger({ stockChange: 'reachedThreshold', threshold: 5 });
		for (const t of [any, threshold]) {
			await poll(t);
			expect(await pollWithoutCities(t, ['Austin', 'Houston'])).toBeNull();
			expect(await poll(t)).toBeNull();
		}
		sim.setStockCount('Austin', 'att', 64);
		for (const t of [any, threshold]) expect(await pollWithoutCities(t, ['Austin'])).toBeNull();
		expect((await poll(any))?.map((item) => [item.change, item.city, item.carrier, item.before])).toEqual([
			['count_changed', 'Austin', 'att', { count: 65, status: 'available' }],
		]);
		expect(await poll(threshold)).toBeNull();
	});

	it('Proxy Status Changed: a proxy back unchanged is no change; a status changed while it was missing is reported once, from the kept status', async () => {
		const t = trigger({ event: 'proxyStatusChanged' });
		await poll(t);
		expect(await pollWithoutProxies(t, ['PRX-US-CL1-0004'])).toBeNull();
		expect(await poll(t)).toBeNull();
		expect(await pollWithoutProxies(t, ['PRX-US-CL1-0004'])).toBeNull();
		proxy('PRX-US-CL1-0004').network_status = 'offline';
		dropFromNextList('GET /v1/proxies', [order('PRX-US-CL1-0004')]);
		expect(await poll(t)).toBeNull();
		expect((nodeState(t).status as IDataObject)['PRX-US-CL1-0004']).toBe('online');
		expect((await poll(t))?.map((item) => [item.proxy_name, item.before, item.after])).toEqual([
			['PRX-US-CL1-0004', { network_status: 'online' }, { network_status: 'offline' }],
		]);
		expect(await poll(t)).toBeNull();
	});

	it('an entirely empty list whose reads by name are in doubt keeps every entry (marked missing) and emits nothing; Fetch Test Event leaves the marks alone', async () => {
		const t = trigger({ event: 'newProxy' });
		await poll(t);
		expect(await pollWithoutProxies(t, ['PRX-US-CL1-0004'])).toBeNull();
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'emptyList' });
		sim.injectFault({ route: 'GET /v1/proxies/:name', kind: 'status', status: 500 });
		expect(await poll(t)).toBeNull();
		const stored = Object.keys(nodeState(t).ids as object);
		expect(stored).toHaveLength(sim.account().proxies.size);
		expect(Object.keys(nodeState(t).gone as object).sort()).toEqual([...stored].sort());
		expect((nodeState(t).gone as IDataObject)['PRX-US-CL1-0004']).toEqual([2, START]);
		const marked = JSON.stringify(t.staticData);
		await poll(t, 'manual');
		expect(JSON.stringify(t.staticData)).toBe(marked);
		// The list is back: nothing is new, no mark is left.
		expect(await poll(t)).toBeNull();
		expect(nodeState(t).gone).toBeUndefined();
	});

	it('a version 1 state from the previous release is used as it is: no new baseline, no event', async () => {
		const names = [...sim.account().proxies.keys()];
		const t = trigger({ event: 'newProxy' }, { 'node:Trigger Under Test': { v: 1, event: 'newProxy', names } });
		sim.addProxy(null, { proxy_name: 'PRX-AFTER-UPGRADE' });
		expect((await poll(t))?.map((item) => item.proxy_name)).toEqual(['PRX-AFTER-UPGRADE']);
		expect(nodeState(t)).toMatchObject({ v: STATE_VERSION });
		expect(Object.keys(nodeState(t).ids as object)).toEqual([...names, 'PRX-AFTER-UPGRADE']);
		const unchanged = trigger({ event: 'proxyStatusChanged' }, {
			'node:Trigger Under Test': { v: 1, event: 'proxyStatusChanged', status: Object.fromEntries([...sim.account().proxies.values()].map((p) => [p.proxy_name, p.network_status])) },
		});
		expect(await poll(unchanged)).toBeNull();
		// Read as it was, written back in the version 3 layout with the service's clock (no settling:
		// not a new baseline).
		expect(nodeState(unchanged)).toMatchObject({ v: STATE_VERSION, event: 'proxyStatusChanged' });
		expect(nodeState(unchanged).settle).toBeUndefined();
	});
});

// ----- n8n 2.x restarts: back to the state saved at the last emitting poll ---------------------------------

/**
 * n8n 2.x saves the trigger's static data only when a poll emits. This models it: `saved` is a copy
 * taken after each emitting poll, and a restart loads it (or nothing, before the first event).
 */
class N8n2 {
	saved: IDataObject = {};

	constructor(readonly t: PollHarness) {}

	async poll(kind: 'activate' | 'manual' = 'activate'): Promise<IDataObject[] | null> {
		const items = await poll(this.t, kind);
		if (items !== null && kind === 'activate') this.saved = this.t.staticData;
		return items;
	}

	async pollWithout(names: string[]): Promise<IDataObject[] | null> {
		const items = await pollWithoutProxies(this.t, names);
		if (items !== null) this.saved = this.t.staticData;
		return items;
	}

	async pollWithoutCities(cities: string[]): Promise<IDataObject[] | null> {
		const items = await pollWithoutCities(this.t, cities);
		if (items !== null) this.saved = this.t.staticData;
		return items;
	}

	/** Restarts n8n: the same trigger comes back with the static data of the last emitting poll. */
	restart(): void {
		this.t.restartFrom(this.saved);
	}
}

describe('n8n 2.x restarts: a revert to the last emitting poll can miss a change, never repeat one', () => {
	/**
	 * The hard case for the missing marks: an entry is marked missing at the last emitting poll, comes
	 * back in a poll that is then lost, is missing again, and n8n restarts. Counting on from the saved
	 * mark would take it for missing from 3 polls over an hour and forget it, and report it again
	 * when it returns. The trigger restarts marks it did not store itself, so it is kept.
	 */
	const flap: Array<[string, INodeParameters, string, (n: N8n2) => Promise<IDataObject[] | null>, (n: N8n2) => Promise<IDataObject[] | null>]> = [
		[
			'New Proxy',
			{ event: 'newProxy' },
			'PRX-US-CL1-0004',
			async (n) => {
				sim.addProxy(null, { proxy_name: 'PRX-EMIT-1' });
				return await n.pollWithout(['PRX-US-CL1-0004']);
			},
			async (n) => await n.pollWithout(['PRX-US-CL1-0004']),
		],
		[
			'Proxy Expiring',
			{ event: 'proxyExpiring', withinHours: 24 },
			'PRX-US-NY1-0003',
			async (n) => {
				sim.addProxy(null, { proxy_name: 'PRX-EMIT-2', expires_at: timestamp(START + 2 * HOUR) });
				return await n.pollWithout(['PRX-US-NY1-0003']);
			},
			async (n) => await n.pollWithout(['PRX-US-NY1-0003']),
		],
		[
			'Stock Changed',
			{ event: 'stockChanged' },
			'Austin',
			async (n) => {
				sim.setStockCount('Denver', 'verizon', 4);
				return await n.pollWithoutCities(['Austin']);
			},
			async (n) => await n.pollWithoutCities(['Austin']),
		],
		[
			'Proxy Status Changed',
			{ event: 'proxyStatusChanged' },
			'PRX-US-CL1-0004',
			async (n) => {
				proxy('PRX-US-HO2-0008').network_status = 'offline';
				return await n.pollWithout(['PRX-US-CL1-0004']);
			},
			async (n) => await n.pollWithout(['PRX-US-CL1-0004']),
		],
	];

	it.each(flap)(
		'%s: an entry missing at the last emitting poll, back only in lost polls, is not forgotten early nor reported again',
		async (_label, parameters, subject, emitWhileMissing, pollMissing) => {
			// The same trigger restarted in this process, then (second round) the saved static data loaded
			// by a trigger this process has never polled, as after a real restart of n8n.
			for (const newProcess of [false, true]) {
				const n = new N8n2(trigger(parameters));
				expect(await n.poll()).toBeNull(); // baseline (not saved by n8n 2.x)
				sim.clock.advance(10 * MINUTE);
				expect(await pollMissing(n)).toBeNull(); // missing: 1
				sim.clock.advance(10 * MINUTE);
				expect((await emitWhileMissing(n))?.length).toBe(1); // missing: 2, and saved
				expect(Object.keys(nodeState(n.t).gone as object).some((key) => key.startsWith(subject))).toBe(true);
				sim.clock.advance(10 * MINUTE);
				expect(await n.poll()).toBeNull(); // back: lost at the restart
				sim.clock.advance(10 * MINUTE);
				expect(await pollMissing(n)).toBeNull(); // missing again (1): lost too
				let t = n.t;
				if (newProcess) t = trigger(parameters, n.saved);
				else n.restart();
				sim.clock.advance(50 * MINUTE); // more than an hour after the first miss
				expect(await pollWithoutProxiesOrCities(t, subject)).toBeNull();
				expect(JSON.stringify(nodeState(t))).toContain(subject); // still kept
				sim.clock.advance(10 * MINUTE);
				expect(await poll(t)).toBeNull(); // back: not new, not expiring again, not available again
				expect(await poll(t)).toBeNull();
				// Undo this round's emitting change for the second round.
				sim.account().proxies.delete('PRX-EMIT-1');
				sim.account().proxies.delete('PRX-EMIT-2');
				sim.setStockCount('Denver', 'verizon', 0);
				proxy('PRX-US-HO2-0008').network_status = 'online';
			}
		},
	);

	it('a status change in a lost poll is missed, and the next one is reported once, from the saved status', async () => {
		const n = new N8n2(trigger({ event: 'proxyStatusChanged', toStatus: 'offline' }));
		await n.poll();
		proxy('PRX-US-HO2-0008').network_status = 'offline';
		expect((await n.poll())?.map((item) => item.proxy_name)).toEqual(['PRX-US-HO2-0008']);
		proxy('PRX-US-CL1-0004').network_status = 'rebooting';
		expect(await n.poll()).toBeNull(); // online -> rebooting: not to offline, nothing emitted, lost
		n.restart();
		proxy('PRX-US-CL1-0004').network_status = 'offline';
		// Without the restart the event would be rebooting -> offline; the intermediate change is missed.
		expect((await n.poll())?.map((item) => [item.proxy_name, item.before, item.after])).toEqual([
			['PRX-US-CL1-0004', { network_status: 'online' }, { network_status: 'offline' }],
		]);
		n.restart();
		expect(await n.poll()).toBeNull();
	});

	it('Stock Changed: a sell-out in a lost poll is missed, so stock coming back is not "available again"; nothing twice', async () => {
		const n = new N8n2(stockTrigger());
		await n.poll();
		sim.setStockCount('Denver', 'verizon', 4);
		expect((await n.poll())?.map((item) => `${item.city}/${item.carrier}`)).toEqual(['Denver/verizon']);
		for (const carrier of ['att', 'verizon', 'tmobile']) sim.setStockCount('Austin', carrier, 0);
		expect(await n.poll()).toBeNull(); // Austin sold out: not an availability event; lost at the restart
		n.restart();
		sim.setStockCount('Austin', 'att', 5);
		// Compared with Austin as saved (available): the sell-out and its end are both missed.
		expect(await n.poll()).toBeNull();
		// Without the restart, the same changes are reported once.
		const t = stockTrigger();
		await poll(t);
		for (const carrier of ['att', 'verizon', 'tmobile']) sim.setStockCount('Austin', carrier, 0);
		expect(await poll(t)).toBeNull();
		sim.setStockCount('Austin', 'att', 5);
		expect((await poll(t))?.map((item) => `${item.city}/${item.carrier}`)).toEqual(['Austin/att']);
	});

	it('a restart before the first event starts a new baseline: what changed meanwhile is missed, nothing is reported twice', async () => {
		const n = new N8n2(trigger({ event: 'newProxy' }));
		await n.poll();
		sim.addProxy(null, { proxy_name: 'PRX-BEFORE-RESTART' });
		expect((await n.poll())?.map((item) => item.proxy_name)).toEqual(['PRX-BEFORE-RESTART']);
		n.restart();
		expect(await n.poll()).toBeNull();
		const fresh = new N8n2(trigger({ event: 'newProxy' }));
		await fresh.poll();
		sim.addProxy(null, { proxy_name: 'PRX-MISSED' });
		fresh.restart(); // nothing was saved: the baseline is lost
		expect(await fresh.poll()).toBeNull();
		sim.addProxy(null, { proxy_name: 'PRX-AFTER' });
		expect((await fresh.poll())?.map((item) => item.proxy_name)).toEqual(['PRX-AFTER']);
	});

	it('random restarts back to the last emitting poll, with partial lists, over the four events: no event twice', async () => {
		const rnd = prng(20_250_301);
		const triggers = [
			new N8n2(trigger({ event: 'newProxy' })),
			new N8n2(trigger({ event: 'proxyExpiring', withinHours: 24 })),
			new N8n2(trigger({ event: 'proxyStatusChanged' })),
			new N8n2(stockTrigger({ stockChange: 'anyChange' })),
		];
		// A change's identity: for status and stock, which change of the entry it is (a counter).
		const version = new Map<string, number>();
		const bump = (key: string) => version.set(key, (version.get(key) ?? 0) + 1);
		const seen = new Set<string>();
		const repeated: string[] = [];
		let emitted = 0;
		let restarts = 0;
		const misses = new Map<string, number>();
		for (let round = 0; round < 40; round++) {
			sim.clock.advance(rnd.int(5, 40) * MINUTE);
			if (rnd.chance(0.3)) sim.addProxy(null, { proxy_name: `PRX-R-${round}`, expires_at: timestamp(sim.clock.now() + rnd.int(1, 30) * HOUR) });
			const names = [...sim.account().proxies.keys()];
			const flip = names[rnd.int(0, names.length - 1)];
			proxy(flip).network_status = proxy(flip).network_status === 'online' ? 'offline' : 'online';
			bump(flip);
			const place = sim.stock[rnd.int(0, sim.stock.length - 1)];
			sim.setStockCount(place.city, 'att', rnd.int(0, 9));
			bump(`${place.city}|${place.state}`);
			// A partial list: a few proxies and cities left out, none from more than 2 lists in a row.
			const dropNames = names.filter((name) => (misses.get(name) ?? 0) < 2 && rnd.chance(0.2));
			const dropCities = sim.stock.map((entry) => entry.city).filter((name) => (misses.get(name) ?? 0) < 2 && rnd.chance(0.2));
			for (const name of [...names, ...sim.stock.map((entry) => entry.city)]) misses.set(name, dropNames.includes(name) || dropCities.includes(name) ? (misses.get(name) ?? 0) + 1 : 0);
			for (const n of triggers) {
				if (rnd.chance(0.2)) {
					restarts += 1;
					n.restart();
				}
				const items = (n === triggers[3] ? await n.pollWithoutCities(dropCities) : await n.pollWithout(dropNames)) ?? [];
				for (const item of items) {
					const entry = item.event === 'stock_changed' ? `${item.city}|${item.state}` : String(item.proxy_name);
					const key =
						item.event === 'proxy_expiring'
							? `expiring|${entry}|${item.expires_at}`
							: item.event === 'new_proxy'
								? `new|${entry}`
								: `${item.event}|${entry}|${item.carrier ?? ''}|#${version.get(entry)}`;
					emitted += 1;
					if (seen.has(key)) repeated.push(`round ${round}: ${key}`);
					seen.add(key);
				}
			}
		}
		expect(repeated).toEqual([]);
		expect(restarts).toBeGreaterThan(20);
		expect(emitted).toBeGreaterThan(30);
	});
});

/** The subject left out of the next reply of the trigger's list, whichever list it is. */
async function pollWithoutProxiesOrCities(t: PollHarness, subject: string): Promise<IDataObject[] | null> {
	return subject.startsWith('PRX-') ? await pollWithoutProxies(t, [subject]) : await pollWithoutCities(t, [subject]);
}

