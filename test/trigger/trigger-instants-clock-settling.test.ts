/**
 * Issue 36 (h36b), through n8n-core's PollContext (PollHarness) against the simulator over
 * loopback. Each test fails on the code before its fix:
 * - IP Changed compares instants, to the second: one rotation written without, then with,
 *   milliseconds is reported once;
 * - the first reply's `Date` is checked against this machine's clock: dated a day ahead, it is not
 *   believed (Proxy Expiring reports a proxy when it really comes within 24 h; New Proxy reports a
 *   proxy bought after the first poll);
 * - a new baseline settles for its first hour, not for 3 polls: at daily polls, a city that
 *   appears with stock on day 1 is news at the second poll.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, credentialsFor, PollHarness } from '../harness';
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.parse('2025-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 36, proxies: 6, cities: 5, frozenClock: true, now: START });
});
afterEach(async () => await sim.stop());

const trigger = (parameters: INodeParameters) =>
	new PollHarness(harness, { type: 'proxyAccountTrigger', parameters }, credentialsFor(sim));

async function poll(t: PollHarness): Promise<IDataObject[]> {
	const result = await t.poll();
	return result === null ? [] : result[0].map((item) => item.json);
}

const record = (name: string) => sim.account().proxies.get(name)!;

describe('IP Changed compares instants', () => {
	it('one rotation written without, then with, milliseconds (then without again) is reported once', async () => {
		const t = trigger({ event: 'ipChanged', onlyAutoRotating: false });
		for (const proxy of sim.account().proxies.values()) {
			proxy.auto_change = false;
			proxy.auto_change_time = 0;
			proxy.last_ip_change = '2025-03-01T11:50:00-06:00';
		}
		const [name] = [...sim.account().proxies.keys()];
		expect(await poll(t)).toEqual([]);
		// The rotation, written to the second.
		record(name).last_ip_change = '2025-03-01T12:00:00-06:00';
		sim.clock.advance(5 * MINUTE);
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual([name]);
		// The same rotation, now written with its milliseconds; then without them again.
		record(name).last_ip_change = '2025-03-01T18:00:00.734Z';
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		record(name).last_ip_change = '2025-03-01T12:00:00-06:00';
		sim.clock.advance(5 * MINUTE);
		expect(await poll(t)).toEqual([]);
		// A later rotation is reported, its before written like its after.
		record(name).last_ip_change = '2025-03-01T12:10:00.120-06:00';
		sim.clock.advance(5 * MINUTE);
		const [item] = await poll(t);
		expect(item).toMatchObject({ proxy_name: name, after: { last_ip_change: '2025-03-01T12:10:00.120-06:00' } });
		expect(Date.parse(String((item.before as IDataObject).last_ip_change))).toBe(Date.parse('2025-03-01T18:00:00Z'));
	});
});

describe("the first reply's Date, checked against this machine's clock", () => {
	it('dated a day ahead: not believed; Proxy Expiring reports a proxy when it really comes within 24 h, New Proxy one bought after the first poll', async () => {
		const expiring = trigger({ event: 'proxyExpiring', withinHours: 24 });
		const added = trigger({ event: 'newProxy' });
		sim.addProxy(null, { proxy_name: 'PRX-30H', expires_at: formatTimestamp(START + 30 * HOUR) });
		sim.replyDate.dateSkewMs = DAY;
		expect(await poll(expiring)).toEqual([]);
		expect(await poll(added)).toEqual([]);
		sim.replyDate.dateSkewMs = 0;
		sim.clock.advance(30 * MINUTE);
		sim.addProxy(null, { proxy_name: 'PRX-BOUGHT' });
		sim.clock.advance(5 * MINUTE);
		expect(await poll(expiring)).toEqual([]);
		expect((await poll(added)).map((item) => item.proxy_name)).toEqual(['PRX-BOUGHT']);
		// 6.5 hours more: PRX-30H is 23 h from its expiry.
		sim.clock.advance(6 * HOUR + 25 * MINUTE);
		expect((await poll(expiring)).map((item) => item.proxy_name)).toEqual(['PRX-30H']);
	});

	it("a service whose clock is off for good: two replies in a row confirm it", async () => {
		const t = trigger({ event: 'proxyExpiring', withinHours: 24 });
		sim.addProxy(null, { proxy_name: 'PRX-30H', expires_at: formatTimestamp(START + 30 * HOUR) });
		sim.replyDate.dateSkewMs = 10 * HOUR;
		expect(await poll(t)).toEqual([]);
		sim.clock.advance(2 * HOUR);
		// Confirmed: the service says PRX-30H is 18 h away (inside the window since the first poll's
		// time was this machine's, so it is news).
		expect((await poll(t)).map((item) => item.proxy_name)).toEqual(['PRX-30H']);
	});
});

describe('a new baseline settles for its first hour, not for 3 polls', () => {
	it('daily polls: a city that appears with stock on day 1 is reported at the second poll', async () => {
		const t = trigger({ event: 'stockChanged' });
		const listed = sim.stock.length;
		expect(await poll(t)).toEqual([]);
		sim.stock.push({ ...sim.stock[0], city: 'Boise', state: 'ID', open: true, counts: { att: 0, verizon: 0, tmobile: 3 } });
		expect(sim.stock).toHaveLength(listed + 1);
		sim.clock.advance(DAY);
		expect((await poll(t)).map((item) => [item.city, item.carrier])).toEqual([['Boise', 'tmobile']]);
	});

	it('within the first hour, a city first listed then joins the baseline quietly', async () => {
		const t = trigger({ event: 'stockChanged' });
		expect(await poll(t)).toEqual([]);
		sim.stock.push({ ...sim.stock[0], city: 'Boise', state: 'ID', open: true, counts: { att: 0, verizon: 0, tmobile: 3 } });
		sim.clock.advance(50 * MINUTE);
		expect(await poll(t)).toEqual([]);
		// An hour after the first poll the baseline has settled: the next city is news, after 2 polls.
		sim.stock.push({ ...sim.stock[0], city: 'Tulsa', state: 'OK', open: true, counts: { att: 2, verizon: 0, tmobile: 0 } });
		sim.clock.advance(10 * MINUTE);
		expect((await poll(t)).map((item) => [item.city, item.carrier])).toEqual([['Tulsa', 'att']]);
	});

});
