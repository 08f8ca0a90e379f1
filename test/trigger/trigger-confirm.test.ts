/**
 * Issue 36: what a reply leaves out is confirmed by name (`GET /v1/proxies/{name}`), not inferred
 * from its absence. Real polls through n8n-core's PollContext (PollHarness) against the simulator,
 * behind the hostile front where a reply must leave proxies out. Each test fails on the code that
 * inferred a removal from an absence of 3 polls and an hour:
 * - an empty list for 80 minutes: no removal, no new proxy, no expiry reported again, and a status
 *   change made meanwhile is reported once;
 * - replies that leave live proxies out for hours: no false removal, no false new proxy;
 * - a real removal is reported at the next poll, the last proxies' too (an empty list);
 * - a confirmation in doubt (5xx, 429, a web page with 404) decides nothing: read again next poll;
 * - at most CONFIRMATIONS_PER_POLL reads a poll, the others in turn at the next polls.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { CONFIRMATIONS_PER_POLL } from '../../nodes/ProxyAccount/trigger/confirm';
import { createHarness, PollHarness } from '../harness';
import { HostileFront } from '../harness/hostile';
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.parse('2025-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;
let front: HostileFront;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 36, proxies: 12, cities: 6, frozenClock: true, now: START });
	front = await HostileFront.start(sim.url);
});
afterEach(async () => {
	await front.stop();
	await sim.stop();
});

const trigger = (parameters: INodeParameters) =>
	new PollHarness(harness, { type: 'proxyAccountTrigger', parameters }, { baseUrl: front.url, apiKey: sim.demoApiKey });

async function poll(t: PollHarness): Promise<IDataObject[]> {
	const result = await t.poll();
	return result === null ? [] : result[0].map((item) => item.json);
}

const names = () => [...sim.account().proxies.keys()];
const reads = () => sim.requests.filter((r) => r.route === 'GET /v1/proxies/:name').map((r) => decodeURIComponent(r.path.split('/').pop()!));

/** Polls every `stepMs`, `count` times; returns every item emitted. */
async function pollFor(t: PollHarness, count: number, stepMs: number): Promise<IDataObject[]> {
	const out: IDataObject[] = [];
	for (let i = 0; i < count; i++) {
		sim.clock.advance(stepMs);
		out.push(...(await poll(t)));
	}
	return out;
}

/** Baseline, then polls until the baseline has settled (3 polls and an hour). */
async function settled(t: PollHarness): Promise<void> {
	expect(await poll(t)).toEqual([]);
	expect(await pollFor(t, 4, 20 * MINUTE)).toEqual([]);
}

const EVENTS = ['proxyRemoved', 'newProxy', 'proxyExpiring', 'proxyStatusChanged'];

describe('an empty list for 80 minutes, then the list as before', () => {
	it.each(EVENTS)('%s: nothing is reported, then or after', async (event) => {
		// One proxy inside the window, reported before the empty replies: not reported again after them.
		const soon = names()[0];
		const t = trigger({ event });
		await settled(t);
		sim.account().proxies.get(soon)!.expires_at = formatTimestamp(sim.clock.now() + 10 * HOUR);
		const reported = await pollFor(t, 1, 5 * MINUTE);
		expect(reported.map((i) => i.proxy_name)).toEqual(event === 'proxyExpiring' ? [soon] : []);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: 16 });
		expect(await pollFor(t, 16, 5 * MINUTE)).toEqual([]);
		expect(front.pending()).toEqual([]);
		expect(await pollFor(t, 6, 5 * MINUTE)).toEqual([]);
		// Every remembered proxy was read by name, in turn (12 left out, at most 10 a poll).
		expect(new Set(reads())).toEqual(new Set(names()));
	});

	it('Proxy Status Changed: a status that changed while the list was empty is reported once, from the status it had', async () => {
		const t = trigger({ event: 'proxyStatusChanged' });
		await settled(t);
		const flaky = names().find((name) => sim.account().proxies.get(name)!.network_status === 'online')!;
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: 16 });
		expect(await pollFor(t, 8, 5 * MINUTE)).toEqual([]);
		sim.account().proxies.get(flaky)!.network_status = 'offline';
		const items = await pollFor(t, 14, 5 * MINUTE);
		expect(items.map((i) => [i.proxy_name, i.before, i.after])).toEqual([
			[flaky, { network_status: 'online' }, { network_status: 'offline' }],
		]);
	});
});

describe('replies that leave live proxies out', () => {
	it.each(['proxyRemoved', 'newProxy'])('%s: the same two proxies left out for 2 hours, then a third of the list at random: nothing false, the real removal once', async (event) => {
		const t = trigger({ event });
		await settled(t);
		const [a, b, , victim] = names();
		front.add({ route: 'GET /v1/proxies', kind: 'drop', names: [a, b], times: 12 });
		expect(await pollFor(t, 12, 10 * MINUTE)).toEqual([]);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 0.34, seed: 7, times: Infinity });
		const items = await pollFor(t, 10, 10 * MINUTE);
		sim.discardProxy(null, victim);
		items.push(...(await pollFor(t, 10, 10 * MINUTE)));
		front.clear();
		items.push(...(await pollFor(t, 3, 10 * MINUTE)));
		expect(items.map((i) => i.proxy_name)).toEqual(event === 'proxyRemoved' ? [victim] : []);
	});
});

describe('a real removal', () => {
	it('is reported at the next poll, confirmed by name, with its last record', async () => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const gone = names()[3];
		const last = { ...sim.account().proxies.get(gone)! };
		sim.discardProxy(null, gone);
		sim.resetLogs();
		const items = await pollFor(t, 1, 5 * MINUTE);
		expect(sim.requests.map((r) => r.route)).toEqual(['GET /v1/proxies', 'GET /v1/proxies/:name']);
		expect(reads()).toEqual([gone]);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			proxy_name: gone,
			removed_at: new Date(sim.clock.now()).toISOString(),
			missing_since: new Date(sim.clock.now()).toISOString(),
			before: { expires_at: last.expires_at },
		});
		expect(JSON.stringify(items)).not.toContain(last.password);
		expect(await pollFor(t, 4, 30 * MINUTE)).toEqual([]);
	});

	it.each(['proxyRemoved', 'newProxy'])('%s: the account\'s last proxies (an empty list) are confirmed gone: removals at once, and a proxy bought later under an old name is new', async (event) => {
		const t = trigger({ event });
		await settled(t);
		const all = names().slice(0, CONFIRMATIONS_PER_POLL);
		for (const name of names()) if (!all.includes(name)) sim.discardProxy(null, name);
		expect(await pollFor(t, 1, 5 * MINUTE)).toHaveLength(event === 'proxyRemoved' ? 2 : 0);
		for (const name of all) sim.discardProxy(null, name);
		const items = await pollFor(t, 1, 5 * MINUTE);
		expect(items.map((i) => i.proxy_name).sort()).toEqual(event === 'proxyRemoved' ? [...all].sort() : []);
		expect(await pollFor(t, 3, 30 * MINUTE)).toEqual([]);
		expect((t.staticData['node:Trigger Under Test'] as IDataObject).gone).toBeUndefined();
		sim.addProxy(null, { proxy_name: all[0] });
		const again = await pollFor(t, 1, 5 * MINUTE);
		expect(again.map((i) => i.proxy_name)).toEqual(event === 'newProxy' ? [all[0]] : []);
	});
});

describe('a reply known to be partial (a left-out proxy was found by name)', () => {
	/** A move as the trigger sees one: the old name gone, a new name with the same paid time. */
	function moveInSimulator(name: string): string {
		const record = { ...sim.account().proxies.get(name)! };
		const newName = `${name}-MOVED`;
		sim.account().proxies.delete(name);
		sim.account().proxies.set(newName, { ...record, proxy_name: newName, h_port: record.h_port + 1 });
		return newName;
	}

	it.each(['proxyRemoved', 'newProxy'])('%s: a move whose new name that reply leaves out is still a move', async (event) => {
		const t = trigger({ event });
		await settled(t);
		const [moved, live] = names();
		const newName = moveInSimulator(moved);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', names: [newName, live] });
		expect(await pollFor(t, 1, 5 * MINUTE)).toEqual([]);
		const items = await pollFor(t, 3, 5 * MINUTE);
		expect(items.map((i) => [i.proxy_name, i.moved_from])).toEqual(event === 'newProxy' ? [[newName, moved]] : []);
	});

	it('a removal found in such a reply is reported once missing from 3 polls in a row', async () => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const [gone, live] = names();
		sim.discardProxy(null, gone);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', names: [live], times: Infinity });
		const perPoll: unknown[][] = [];
		for (let i = 0; i < 4; i++) perPoll.push((await pollFor(t, 1, 5 * MINUTE)).map((item) => item.proxy_name));
		expect(perPoll).toEqual([[], [], [gone], []]);
	});

	it.each(['proxyRemoved', 'newProxy'])('%s: a move during 80 minutes of empty replies is still a move', async (event) => {
		const t = trigger({ event });
		await settled(t);
		const [moved] = names();
		const newName = moveInSimulator(moved);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: 16 });
		expect(await pollFor(t, 16, 5 * MINUTE)).toEqual([]);
		const items = await pollFor(t, 3, 5 * MINUTE);
		expect(items.map((i) => [i.proxy_name, i.moved_from])).toEqual(event === 'newProxy' ? [[newName, moved]] : []);
	});

	it('a removal during empty replies is reported at the first reply that is not mostly empty', async () => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const gone = names()[0];
		sim.discardProxy(null, gone);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: 16 });
		const perPoll: unknown[][] = [];
		for (let i = 0; i < 18; i++) perPoll.push((await pollFor(t, 1, 5 * MINUTE)).map((item) => item.proxy_name));
		expect(perPoll.flatMap((items, i) => items.map((name) => [i, name]))).toEqual([[16, gone]]);
	});

	it('while every reply stays empty and known to be partial, a removal is reported once missing from 3 polls and a day', async () => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const gone = names()[0];
		sim.discardProxy(null, gone);
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: Infinity });
		const reported: Array<[number, unknown]> = [];
		for (let i = 0; i < 300; i++) for (const item of await pollFor(t, 1, 5 * MINUTE)) reported.push([i, item.proxy_name]);
		// Missing since poll 0 (5 minutes apart), read at least every other poll: first due a day after.
		expect(reported.length).toBe(1);
		expect(reported[0][1]).toBe(gone);
		expect(reported[0][0]).toBeGreaterThanOrEqual(288);
		expect(reported[0][0]).toBeLessThanOrEqual(290);
	});
});

describe('a confirmation in doubt decides nothing', () => {
	it.each([
		['a 5xx', { kind: 'status', status: 500 }],
		['a 429', { kind: 'rateLimit', retryAfter: 0 }],
		['a web page with 404', { kind: 'html', status: 404 }],
		['ok: false without a not found', { kind: 'okFalse', status: 200 }],
	] as const)('%s: no event, read again at the next poll, then reported', async (_label, fault) => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const gone = names()[2];
		sim.discardProxy(null, gone);
		sim.injectFault({ route: 'GET /v1/proxies/:name', ...fault, times: Infinity } as never);
		expect(await pollFor(t, 2, 5 * MINUTE)).toEqual([]);
		sim.clearFaults();
		const items = await pollFor(t, 1, 5 * MINUTE);
		expect(items.map((i) => i.proxy_name)).toEqual([gone]);
		expect(items[0].missing_since).toBe(new Date(START + 85 * MINUTE).toISOString());
	});

	it('the first read in doubt ends the poll\'s reads; the next poll starts after it', async () => {
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const [first, second] = names().sort();
		sim.discardProxy(null, first);
		sim.discardProxy(null, second);
		sim.resetLogs();
		sim.injectFault({ route: 'GET /v1/proxies/:name', kind: 'status', status: 500 });
		expect(await pollFor(t, 1, 5 * MINUTE)).toEqual([]);
		expect(reads()).toEqual([first]);
		const items = await pollFor(t, 1, 5 * MINUTE);
		expect(reads()).toEqual([first, second, first]);
		expect(items.map((i) => i.proxy_name).sort()).toEqual([first, second]);
	});
});

describe('the bound on reads', () => {
	it(`reads at most ${CONFIRMATIONS_PER_POLL} names a poll, in name order, the others in turn at the next polls`, async () => {
		for (let i = 0; i < 13; i++) sim.addProxy(null, {});
		const t = trigger({ event: 'proxyRemoved' });
		await settled(t);
		const all = names().sort();
		expect(all).toHaveLength(25);
		for (const name of all) sim.discardProxy(null, name);
		sim.resetLogs();
		const perPoll: string[][] = [];
		for (let i = 0; i < 3; i++) {
			const before = reads().length;
			const items = await pollFor(t, 1, 5 * MINUTE);
			perPoll.push(reads().slice(before));
			expect(items.map((item) => item.proxy_name).sort()).toEqual([...perPoll[i]].sort());
		}
		expect(perPoll).toEqual([all.slice(0, 10), all.slice(10, 20), all.slice(20)]);
	});

	it('an empty list with more proxies than the bound: every proxy is read in turn, none twice before all once', async () => {
		for (let i = 0; i < 13; i++) sim.addProxy(null, {});
		const t = trigger({ event: 'newProxy' });
		await settled(t);
		const all = names().sort();
		front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 1, times: Infinity });
		sim.resetLogs();
		expect(await pollFor(t, 5, 5 * MINUTE)).toEqual([]);
		expect(reads()).toEqual([...all, ...all].slice(0, 5 * CONFIRMATIONS_PER_POLL));
	});
});
