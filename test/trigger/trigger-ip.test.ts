/**
 * The IP Changed event through n8n-core's PollContext against the simulator: automatic rotation
 * moves `last_ip_change` on the simulator's clock; each change is reported once.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, createHarness, credentialsFor, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

const START = Date.parse('2025-03-01T18:00:00.000Z');
const MINUTE = 60_000;
const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 33, proxies: 6, frozenClock: true, now: START });
	for (const proxy of sim.account().proxies.values()) {
		proxy.auto_change = false;
		proxy.auto_change_time = 0;
		proxy.last_ip_change = new Date(START - 30 * MINUTE).toISOString();
	}
});
afterEach(async () => await sim.stop());

const trigger = (parameters: INodeParameters = {}) =>
	new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'ipChanged', ...parameters } }, credentialsFor(sim));

async function poll(t: PollHarness, kind: 'activate' | 'manual' = 'activate'): Promise<IDataObject[] | null> {
	const result = await t.poll(kind);
	return result === null ? null : result[0].map((item) => item.json);
}

describe('IP Changed', () => {
	it('reports each automatic rotation of an auto-rotating proxy once, with before and after', async () => {
		const [rotating, still] = [...sim.account().proxies.keys()];
		const proxy = sim.account().proxies.get(rotating)!;
		proxy.auto_change = true;
		proxy.auto_change_time = 10;
		proxy.last_ip_change = new Date(START).toISOString();
		const t = trigger();
		expect(await poll(t)).toBeNull(); // baseline
		expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/proxies']);
		sim.clock.advance(10 * MINUTE + 1_000);
		const events = (await poll(t))!;
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({ event: 'ip_changed', proxy_name: rotating, auto_change: true, auto_change_time: 10 });
		expect(Date.parse(String((events[0].after as IDataObject).last_ip_change))).toBe(START + 10 * MINUTE);
		expect(Date.parse(String((events[0].before as IDataObject).last_ip_change))).toBe(START);
		expect(JSON.stringify(events)).not.toContain(proxy.password);
		expect(await poll(t)).toBeNull();
		expect(events.map((e) => e.proxy_name)).not.toContain(still);
	});

	it('a proxy rotated by hand counts only with Only Auto-Rotating Proxies off', async () => {
		const [name] = [...sim.account().proxies.keys()];
		const onlyAuto = trigger();
		const any = trigger({ onlyAutoRotating: false });
		// Off through an expression that resolves to the text "false": read as off, not as "set".
		const anyByExpression = trigger({ onlyAutoRotating: '={{ "false" }}' });
		expect(await poll(onlyAuto)).toBeNull();
		expect(await poll(any)).toBeNull();
		expect(await poll(anyByExpression)).toBeNull();
		sim.account().proxies.get(name)!.last_ip_change = new Date(START + MINUTE).toISOString();
		expect(await poll(onlyAuto)).toBeNull();
		expect((await poll(any))!.map((e) => e.proxy_name)).toEqual([name]);
		expect((await poll(anyByExpression))!.map((e) => e.proxy_name)).toEqual([name]);
	});

	it('a proxy missing from a partial list is kept: it comes back unchanged without an event, changed with one', async () => {
		const [name] = [...sim.account().proxies.keys()];
		const t = trigger({ onlyAutoRotating: false });
		await poll(t);
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'drift', remove: ['data.0'] });
		expect(await poll(t)).toBeNull();
		expect(await poll(t)).toBeNull();
		sim.account().proxies.get(name)!.last_ip_change = new Date(START + 2 * MINUTE).toISOString();
		expect((await poll(t))!.map((e) => e.proxy_name)).toEqual([name]);
	});

	it('Fetch Test Event returns items shaped like real events, and never touches the state', async () => {
		const t = trigger();
		const samples = (await poll(t, 'manual'))!;
		expect(samples.length).toBeGreaterThan(0);
		expect(samples[0]).toMatchObject({ event: 'ip_changed', sample: true });
		expect(samples[0].before).not.toEqual(samples[0].after);
		expect(JSON.stringify(t.staticData)).toBe('{}');
	});
});
