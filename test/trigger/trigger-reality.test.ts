/**
 * What the trigger reports against what really happened (issue 27), through n8n-core's PollContext
 * (PollHarness) against the simulator over loopback. Each test fails on the code before its fix:
 * - a proxy extended (or auto-renewed) at a poll n8n 2.x did not save, then moved after a restart,
 *   is a move, not a removal (moves match on added_at, with an expiry no earlier than the stored one);
 * - an empty or partial first reply does not flood the next poll (the baseline settles);
 * - one expiry written with, then without, milliseconds is reported once;
 * - one reply dated a day ahead does not make Proxy Expiring report proxies a day early; a reply
 *   without a `Date` header is dated by this machine's clock and the accepted offset;
 * - a move whose reply lists both names is a move (Proxy Removed: nothing; New Proxy: moved_from).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, credentialsFor, PollHarness } from '../harness';
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';
import { simClient } from '../simulator/testkit';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.parse('2025-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 31, proxies: 10, cities: 6, frozenClock: true, now: START });
	sim.orders.swapDelayMs = 0;
});
afterEach(async () => await sim.stop());

const trigger = (parameters: INodeParameters, staticData: IDataObject = {}) =>
	new PollHarness(harness, { type: 'proxyAccountTrigger', parameters }, credentialsFor(sim), staticData);

async function poll(t: PollHarness): Promise<IDataObject[]> {
	const result = await t.poll();
	return result === null ? [] : result[0].map((item) => item.json);
}

const names = () => [...sim.account().proxies.keys()];
const record = (name: string) => sim.account().proxies.get(name)!;

/** Change Location as the service does it (the simulator's swap endpoint); returns the new name. */
async function move(name: string, keepOld = false): Promise<string> {
	const before = new Set(names());
	const saved = { ...record(name) };
	const city = sim.stock.find((c) => c.open)!;
	sim.setStockCount(city.city, 'tmobile', 5);
	const client = simClient(sim.url, sim.demoApiKey);
	expect((await client.call('POST', `/v1/proxies/swap/${name}`, { body: { isp: 'T-Mobile', location: city.city, copy_settings: true } })).status).toBe(202);
	expect((await client.call('GET', '/v1/proxies')).status).toBe(200);
	const newName = names().find((n) => !before.has(n))!;
	// A reply that lists both names: the old one is still shown for a while.
	if (keepOld) sim.account().proxies.set(name, saved);
	return newName;
}

describe('a move after an n8n 2.x restart (static data as of the last emitting poll)', () => {
	it.each(['proxyRemoved', 'newProxy'])('%s: the proxy was extended at a lost poll, then moved: a move, never a removal', async (event) => {
		const t = trigger({ event });
		await poll(t); // baseline (n8n 2.x saves nothing yet)
		// An event, so that n8n 2.x saves the static data: a proxy bought (New Proxy), or one removed (Proxy Removed).
		const [subject, victim] = names();
		if (event === 'newProxy') sim.addProxy(null, { proxy_name: 'PRX-BOUGHT-1' });
		else sim.account().proxies.delete(victim);
		const saved: IDataObject[] = [];
		for (let i = 0; i < 5 && saved.length === 0; i++) {
			sim.clock.advance(30 * MINUTE);
			if ((await poll(t)).length > 0) saved.push(t.staticData);
		}
		expect(saved).toHaveLength(1);
		// Auto-renewed a week at a poll that emits nothing (not saved by n8n 2.x).
		const week = 7 * 24 * HOUR;
		record(subject).expires_at = formatTimestamp(Date.parse(record(subject).expires_at) + week);
		sim.clock.advance(10 * MINUTE);
		expect(await poll(t)).toEqual([]);
		// n8n restarts with the saved static data; then the proxy is moved.
		t.restartFrom(saved[0]);
		const newName = await move(subject);
		const emitted: IDataObject[] = [];
		for (let i = 0; i < 6; i++) {
			sim.clock.advance(30 * MINUTE);
			emitted.push(...(await poll(t)));
		}
		if (event === 'newProxy') expect(emitted.map((item) => [item.proxy_name, item.moved_from])).toEqual([[newName, subject]]);
		else expect(emitted).toEqual([]);
	});
});

describe('an empty or partial first reply', () => {
	it.each([
		['newProxy', 'GET /v1/proxies'],
		['proxyExpiring', 'GET /v1/proxies'],
		['stockChanged', 'GET /v1/stock'],
	] as const)('%s: an empty first reply, then the full list with nothing changed: nothing is emitted', async (event, route) => {
		const t = trigger({ event, withinHours: 24 });
		sim.injectFault({ route, kind: 'emptyList' });
		expect(await poll(t)).toEqual([]);
		for (let i = 0; i < 6; i++) {
			sim.clock.advance(15 * MINUTE);
			expect(await poll(t)).toEqual([]);
		}
	});

	it('a partial first reply: the proxies it left out are no news; a proxy bought after the first poll is', async () => {
		const t = trigger({ event: 'newProxy' });
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'drift', remove: ['data.0', 'data.1'] });
		expect(await poll(t)).toEqual([]);
		sim.clock.advance(5 * MINUTE);
		sim.addProxy(null, { proxy_name: 'PRX-BOUGHT-2' });
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(['PRX-BOUGHT-2']);
		expect(await poll(t)).toEqual([]);
	});

	it('Proxy Expiring after a partial first reply: a proxy left out that was already inside the window is no news; one that enters the window later is', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		const inside = names().filter((name) => Date.parse(record(name).expires_at) - START <= 24 * HOUR && Date.parse(record(name).expires_at) > START);
		expect(inside.length).toBeGreaterThan(0);
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'drift', remove: [`data.${names().indexOf(inside[0])}`] });
		expect(await poll(t)).toEqual([]);
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		sim.addProxy(null, { proxy_name: 'PRX-SOON', expires_at: formatTimestamp(START + 30 * HOUR) });
		sim.clock.advance(7 * HOUR);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(expect.arrayContaining(['PRX-SOON']));
	});
});

describe('a listed proxy while the baseline settles', () => {
	it('Proxy Expiring reports a listed proxy whose expiry comes into the window in the first hour (found by test:durable)', async () => {
		for (const name of names()) record(name).expires_at = formatTimestamp(START + 720 * HOUR, 0);
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		expect(await poll(t)).toEqual([]);
		expect(await poll(t)).toEqual([]);
		const [first] = names();
		record(first).expires_at = formatTimestamp(START + 2 * HOUR, 0);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual([first]);
		expect(await poll(t)).toEqual([]);
	});
});

describe('Proxy Expiring and the format of a timestamp', () => {
	it('the same expiry with milliseconds, then without (truncated, another offset): reported once', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		await poll(t);
		sim.addProxy(null, { proxy_name: 'PRX-FMT', expires_at: '2025-03-02T12:00:00.480Z' });
		sim.clock.advance(5 * MINUTE);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(['PRX-FMT']);
		record('PRX-FMT').expires_at = '2025-03-02T06:00:00-06:00';
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
	});
});

describe("the service's clock, checked against this machine's", () => {
	it('one reply dated a day ahead does not make Proxy Expiring report proxies 30-40 h from expiry; the real time does', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-30H', expires_at: formatTimestamp(START + 30 * HOUR) });
		sim.addProxy(null, { proxy_name: 'PRX-40H', expires_at: formatTimestamp(START + 40 * HOUR) });
		await poll(t);
		sim.clock.advance(5 * MINUTE);
		await poll(t);
		sim.replyDate.dateSkewMs = 24 * HOUR;
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		sim.replyDate.dateSkewMs = 0;
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		// Real time passes: 10 hours on both clocks brings PRX-30H inside the window.
		sim.clock.advance(10 * HOUR);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(['PRX-30H']);
	});

	it('the service clock moved for good: two replies in a row confirm it', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-30H', expires_at: formatTimestamp(START + 30 * HOUR) });
		await poll(t);
		sim.replyDate.dateSkewMs = 10 * HOUR;
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		sim.clock.advance(5 * MINUTE);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(['PRX-30H']);
	});

	it('replies without a Date header are dated by this machine, with the offset accepted before', async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-30H', expires_at: formatTimestamp(START + 30 * HOUR) });
		await poll(t);
		sim.replyDate.dateSkewMs = null;
		sim.clock.advance(5 * HOUR);
		expect(await poll(t)).toEqual([]);
		sim.clock.advance(HOUR + MINUTE);
		const [item] = await poll(t);
		expect(item).toMatchObject({ proxy_name: 'PRX-30H' });
		expect(item.expires_in_hours).toBeCloseTo(24, 0);
	});
});

describe('a move whose reply lists both names', () => {
	it('Proxy Removed: the old name leaving later is a move, not a removal; New Proxy: moved_from the old name', async () => {
		const removed = trigger({ event: 'proxyRemoved' });
		const added = trigger({ event: 'newProxy' });
		await poll(removed);
		await poll(added);
		const [subject] = names();
		const newName = await move(subject, true);
		sim.clock.advance(5 * MINUTE);
		expect(await poll(removed)).toEqual([]);
		expect((await poll(added)).map((item) => [item.proxy_name, item.moved_from])).toEqual([[newName, subject]]);
		sim.account().proxies.delete(subject);
		const emitted: IDataObject[] = [];
		for (let i = 0; i < 6; i++) {
			sim.clock.advance(30 * MINUTE);
			emitted.push(...(await poll(removed)), ...(await poll(added)));
		}
		expect(emitted).toEqual([]);
	});
});
