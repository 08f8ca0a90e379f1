/**
 * Contract tests of the simulator's IP rotation, reboot, automatic rotation and Limited keys
 * (account operations #2-#5), over real loopback HTTP: throttles answered with 429 and retry-after,
 * effects shown after the device delay on the simulator's clock.
 */
import { ProxyAccountSimulator } from '../simulator';
import { simClient } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';
const MINUTE = 60_000;

describe('Proxy Account simulator: rotation, reboot, Limited keys', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	let anonymous: SimClient;
	let name: string;

	beforeEach(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 79, now: NOW, frozenClock: true, proxies: 4 });
		api = simClient(sim.url, sim.demoApiKey);
		anonymous = simClient(sim.url, null);
		name = [...sim.account().proxies.keys()][0];
		const proxy = sim.account().proxies.get(name)!;
		proxy.auto_change = false;
		proxy.last_ip_change = new Date(Date.parse(NOW) - 60 * MINUTE).toISOString();
		proxy.last_reboot = new Date(Date.parse(NOW) - 60 * MINUTE).toISOString();
	});
	afterEach(async () => await sim.stop());

	it('POST changeip: 202 {proxy_name, last_ip_change}; shown on the proxy after the device delay; once a minute, else 429 with retry-after', async () => {
		const res = await api.call('POST', `/v1/proxies/changeip/${name}`);
		expect(res.status).toBe(202);
		expect(Object.keys(res.json.data).sort()).toEqual(['last_ip_change', 'proxy_name']);
		expect(Date.parse(res.json.data.last_ip_change)).toBe(Date.parse(NOW));
		const before = (await api.call('GET', `/v1/proxies/${name}`)).json.data.last_ip_change;
		expect(Date.parse(before)).toBe(Date.parse(NOW) - 60 * MINUTE);
		const again = await api.call('POST', `/v1/proxies/changeip/${name}`);
		expect(again.status).toBe(429);
		expect(again.headers['retry-after']).toBe('60');
		sim.clock.advance(10_000);
		expect(Date.parse((await api.call('GET', `/v1/proxies/${name}`)).json.data.last_ip_change)).toBe(Date.parse(NOW));
		expect((await api.call('POST', `/v1/proxies/changeip/${name}`)).headers['retry-after']).toBe('50');
		sim.clock.advance(50_000);
		expect((await api.call('POST', `/v1/proxies/changeip/${name}`)).status).toBe(202);
	});

	it('POST reboot: 202 {proxy_name, last_reboot}; rebooting, then online; once every 5 minutes', async () => {
		const res = await api.call('POST', `/v1/proxies/reboot/${name}`);
		expect(res.status).toBe(202);
		expect(Object.keys(res.json.data).sort()).toEqual(['last_reboot', 'proxy_name']);
		expect((await api.call('GET', `/v1/proxies/${name}`)).json.data.network_status).toBe('rebooting');
		sim.clock.advance(10_000);
		expect((await api.call('GET', `/v1/proxies/${name}`)).json.data.network_status).toBe('online');
		const again = await api.call('POST', `/v1/proxies/reboot/${name}`);
		expect(again.status).toBe(429);
		expect(Number(again.headers['retry-after'])).toBe(290);
	});

	it('POST autochangeip: {enable, rate 1..1440}; the proxy then changes its IP every rate minutes by the clock', async () => {
		const res = await api.call('POST', `/v1/proxies/autochangeip/${name}`, { body: { enable: true, rate: 15 } });
		expect(res.status).toBe(200);
		expect(res.json.data).toMatchObject({ proxy_name: name, auto_change: true, auto_change_time: 15 });
		const first = Date.parse((await api.call('GET', `/v1/proxies/${name}`)).json.data.last_ip_change);
		sim.clock.advance(61 * MINUTE);
		const later = Date.parse((await api.call('GET', `/v1/proxies/${name}`)).json.data.last_ip_change);
		expect(later - first).toBeGreaterThanOrEqual(60 * MINUTE);
		expect((later - first) % (15 * MINUTE)).toBe(0);
		for (const rate of [0, 1441, 2.5, '10']) {
			expect((await api.call('POST', `/v1/proxies/autochangeip/${name}`, { body: { enable: true, rate } })).status).toBe(400);
		}
		const off = await api.call('POST', `/v1/proxies/autochangeip/${name}`, { body: { enable: false } });
		expect(off.json.data).toMatchObject({ auto_change: false, auto_change_time: 0, next_ip_change: null });
	});

	it('a Limited key: the rotation link with no header, POST changeip as bearer; 403 everywhere else; a wrong key in the link is a 401', async () => {
		const limited = sim.account().limitedKey;
		const link = await anonymous.call('GET', `/v1/proxies/changeip/${limited}/${name}`);
		expect(link.status).toBe(202);
		expect(link.json.data.proxy_name).toBe(name);
		const other = [...sim.account().proxies.keys()][1];
		sim.account().proxies.get(other)!.last_ip_change = new Date(Date.parse(NOW) - 60 * MINUTE).toISOString();
		sim.account().proxies.get(other)!.auto_change = false;
		expect((await simClient(sim.url, limited).call('POST', `/v1/proxies/changeip/${other}`)).status).toBe(202);
		for (const [method, path] of [['GET', '/v1/proxies'], ['GET', '/v1/stock'], ['GET', '/v1/funds'], ['POST', `/v1/proxies/reboot/${name}`]] as const) {
			expect((await simClient(sim.url, limited).call(method, path)).status).toBe(403);
		}
		expect((await anonymous.call('GET', `/v1/proxies/changeip/pa_lim_wrong/${name}`)).status).toBe(401);
		expect((await anonymous.call('GET', `/v1/proxies/changeip/${sim.demoApiKey}/${name}`)).status).toBe(401);
	});
});
