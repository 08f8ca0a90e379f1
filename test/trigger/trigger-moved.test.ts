/**
 * Proxy Removed and Change Location, through n8n-core's PollContext (PollHarness) and WorkflowExecute
 * against the simulator: a proxy moved by Proxy > Change Location (same paid time, new name and
 * port) is never reported removed, whether the service keeps its `added_at` (as the simulator does)
 * or not, and whether the new name shows at once or a few polls later; a real removal in the same
 * run is reported once, after the grace period; an ambiguous move (two proxies with the same paid
 * time moved at once) pairs nothing, so both are reported as before.
 */
import type { IDataObject } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, changeLocationInEngine, createHarness, credentialsFor, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';
import type { ProxyRecord } from '../simulator/types';
import { simClient } from '../simulator/testkit';

const MINUTE = 60_000;
const START = Date.parse('2025-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccount(), new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 23, proxies: 10, cities: 8, frozenClock: true, now: START });
	sim.orders.swapDelayMs = 0;
	sim.orders.removeDelayMs = 0;
});
afterEach(async () => await sim.stop());

function trigger(event = 'proxyRemoved'): PollHarness {
	return new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event } }, credentialsFor(sim));
}

const names = () => [...sim.account().proxies.keys()];
const record = (name: string) => sim.account().proxies.get(name)!;

/** Proxy > Change Location in the engine; returns the new name the node reported. */
const changeLocation = async (name: string) => await changeLocationInEngine(harness, sim, name);

/** `DELETE /v1/proxies/remove`, as Proxy > Remove sends it. */
async function remove(name: string): Promise<void> {
	const res = await simClient(sim.url, sim.demoApiKey).call('DELETE', '/v1/proxies/remove', { body: { proxies: [name] } });
	expect(res.status).toBe(202);
}

/** `count` polls every `stepMs`; every item emitted. `between` runs before each poll. */
async function pollFor(t: PollHarness, count: number, stepMs: number, between: (i: number) => void = () => {}) {
	const emitted: IDataObject[] = [];
	for (let i = 0; i < count; i++) {
		sim.clock.advance(stepMs);
		between(i);
		const result = await t.poll();
		if (result !== null) emitted.push(...result[0].map((item) => item.json));
	}
	return emitted;
}

/** Two proxies with the same paid time (bought in one order): the same expiry, added_at, period and auto-renew. */
function addTwins(): string[] {
	const paid = { expires_at: '2025-03-20T10:00:00.000Z', added_at: '2025-02-20T10:00:00.000Z', period: 'monthly', auto_renew: false };
	return [sim.addProxy(null, paid).proxy_name, sim.addProxy(null, paid).proxy_name];
}

function known(t: PollHarness): string[] {
	const state = t.staticData['node:Trigger Under Test'] as IDataObject;
	return Object.keys(state.known as IDataObject);
}

describe('Proxy Removed and Change Location', () => {
	it('a proxy moved by Change Location is not reported; a proxy removed in the same run is, once, at the next poll', async () => {
		const t = trigger();
		expect(await t.poll()).toBeNull(); // baseline
		const [moved, removed] = names();
		const paid = { ...record(moved) };
		const newName = await changeLocation(moved);
		await remove(removed);
		// The move kept the paid time: same expiry and added_at, another name and port.
		expect(record(newName)).toMatchObject({ expires_at: paid.expires_at, added_at: paid.added_at, isp: 'T-Mobile' });
		expect(names()).not.toContain(moved);
		const emitted = await pollFor(t, 12, 20 * MINUTE);
		expect(emitted.map((item) => item.proxy_name)).toEqual([removed]);
		const next = new Date(START + 20 * MINUTE).toISOString();
		expect(emitted[0]).toMatchObject({ event: 'proxy_removed', missing_since: next, removed_at: next });
		// The service saw one move and one removal; the trigger only read (the list, and names by name).
		expect(apiRequests(sim, 'POST /v1/proxies/swap/:name')).toHaveLength(1);
		expect(apiRequests(sim, 'DELETE /v1/proxies/remove')).toHaveLength(1);
		const stored = known(t);
		expect(stored).toContain(newName);
		expect(stored).not.toContain(moved);
		expect(stored).not.toContain(removed);
	});

	it('a move is recognized when the service gives the moved proxy a new added_at (expiry, period and auto-renew kept)', async () => {
		const t = trigger();
		await t.poll();
		const [moved] = names();
		const newName = await changeLocation(moved);
		const now = new Date(sim.clock.now()).toISOString();
		record(newName).added_at = now;
		expect(await pollFor(t, 10, 20 * MINUTE)).toEqual([]);
		expect(known(t)).not.toContain(moved);
	});

	it('a move is recognized when the new name shows while the old one is missing and not yet confirmed gone (its read in doubt)', async () => {
		const t = trigger();
		await t.poll();
		const [moved] = names();
		const newName = await changeLocation(moved);
		const late: ProxyRecord = record(newName);
		// The live service lists neither name for 40 minutes (two polls), then the new one; the reads
		// by name of the old one are in doubt meanwhile (a 500).
		sim.account().proxies.delete(newName);
		sim.injectFault({ route: 'GET /v1/proxies/:name', kind: 'status', status: 500, times: 2 });
		const emitted = await pollFor(t, 10, 20 * MINUTE, (i) => {
			if (i === 2) sim.account().proxies.set(newName, late);
		});
		expect(emitted).toEqual([]);
		expect(known(t)).toEqual(expect.arrayContaining([newName]));
		expect(known(t)).not.toContain(moved);
	});

	it.each(['proxyRemoved', 'newProxy'])('%s: a move whose new name shows only after the poll that finds the old one gone is a removal (at once) and a new proxy (issue 36)', async (event) => {
		const t = trigger(event);
		await t.poll();
		expect(await pollFor(t, 3, 30 * MINUTE)).toEqual([]); // the baseline has settled
		const [moved] = names();
		const newName = await changeLocation(moved);
		const late: ProxyRecord = record(newName);
		sim.account().proxies.delete(newName);
		const next = new Date(sim.clock.now() + 20 * MINUTE).toISOString();
		const emitted = await pollFor(t, 10, 20 * MINUTE, (i) => {
			if (i === 2) sim.account().proxies.set(newName, late);
		});
		if (event === 'proxyRemoved') {
			expect(emitted.map((item) => [item.proxy_name, item.removed_at])).toEqual([[moved, next]]);
			expect(known(t)).toEqual(expect.arrayContaining([newName]));
		} else expect(emitted.map((item) => [item.proxy_name, item.moved_from])).toEqual([[newName, null]]);
	});

	it('two proxies with the same paid time moved at once pair nothing: both are reported, once each', async () => {
		const t = trigger();
		const twins = addTwins();
		await t.poll();
		for (const name of twins) await changeLocation(name);
		const emitted = await pollFor(t, 12, 20 * MINUTE);
		expect(emitted.map((item) => item.proxy_name).sort()).toEqual([...twins].sort());
	});

	it('a twin moved while the other stays listed is a move (the one still listed is no candidate)', async () => {
		const t = trigger();
		const twins = addTwins();
		await t.poll();
		await changeLocation(twins[0]);
		expect(await pollFor(t, 12, 20 * MINUTE)).toEqual([]);
	});

	it('New Proxy reports the moved proxy under its new name with moved_from, once; a proxy new to the account has moved_from null', async () => {
		const t = trigger('newProxy');
		await t.poll();
		const [moved] = names();
		const newName = await changeLocation(moved);
		const bought = sim.addProxy(null, {}).proxy_name;
		const emitted = await pollFor(t, 10, 20 * MINUTE);
		expect(emitted.map((item) => [item.proxy_name, item.moved_from])).toEqual(
			expect.arrayContaining([
				[newName, moved],
				[bought, null],
			]),
		);
		expect(emitted).toHaveLength(2);
		// The old name is forgotten once its grace period is over; its paid time was dropped at the move.
		const state = t.staticData['node:Trigger Under Test'] as IDataObject;
		expect(Object.keys(state.ids as IDataObject).sort()).toEqual([...names()].sort());
		expect(Object.values(state.ids as IDataObject)).not.toContain(0);
	});

	it('Fetch Test Event items of New Proxy carry moved_from (null), shaped like the real ones', async () => {
		const t = trigger('newProxy');
		const samples = (await t.poll('manual'))![0].map((item) => item.json);
		expect(samples.length).toBeGreaterThan(0);
		expect(samples.every((item) => item.moved_from === null && item.sample === true)).toBe(true);
	});
});
