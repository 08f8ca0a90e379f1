/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Contract tests of the simulator's out-of-process face: the /__sim/ control API and the CLI.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ProxyAccountSimulator } from '../simulator';
import { HELP, parseArgs } from '../simulator/cli';
import { simClient } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';

describe('Proxy Account simulator control API (/__sim/)', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	let control: SimClient;

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 4, now: NOW, frozenClock: true, proxies: 5 });
		api = simClient(sim.url, sim.demoApiKey);
		control = simClient(sim.url, null);
	});

	beforeEach(() => {
		sim.clearFaults();
		sim.resetLogs();
	});

	afterAll(async () => {
		await sim.stop();
	});

	it('GET /__sim/state: accounts with balance, member and proxy count, and the clock; keys masked', async () => {
		sim.addAccount({ apiKey: 'pa_live_other_account_000000000000000', balance: 12.5, proxies: 2 });
		const res = await control.call('GET', '/__sim/state');
		expect(res.status).toBe(200);
		expect(res.json.ok).toBe(true);
		const state = res.json.data;
		expect(state.clock).toEqual({ now: Date.parse(NOW), iso: '2026-11-21T05:17:34.123-06:00', frozen: true });
		expect(state.accounts).toEqual([
			{ apiKey: expect.stringMatching(/^pa_live_\*\*\*[0-9a-f]{4}$/), demo: true, balance: 5000, member: true, proxies: 5 },
			{ apiKey: 'pa_live_***0000', demo: false, balance: 12.5, member: false, proxies: 2 },
		]);
		expect(state.carriers.map((c: { key: string }) => c.key)).toEqual(['att', 'verizon', 'tmobile']);
		expect(state.cities).toBe(8);
		expect(res.text).not.toContain(sim.demoApiKey);
		expect(res.text).not.toContain('"password"');
		expect(res.text).not.toContain('pa_live_other_account_000000000000000');
	});

	it('GET /__sim/state lists what the README says: the demo account\u2019s proxies and the stock by city', async () => {
		const state = (await control.call('GET', '/__sim/state')).json.data;
		const demo = sim.account();
		expect(state.proxies).toEqual(
			Array.from(demo.proxies.values()).map((p) => ({
				proxy_name: p.proxy_name,
				isp: p.isp,
				city: p.city,
				state: p.state,
				expires_at: p.expires_at,
				network_status: p.network_status,
				auto_renew: p.auto_renew,
			})),
		);
		expect(state.proxies).toHaveLength(5);
		expect(state.stock).toEqual(sim.stock.map((c) => ({ city: c.city, state: c.state, open: c.open, counts: c.counts })));
		expect(state.stock).toHaveLength(8);
		// A name from the state works in the control API, as the README's walk-through uses it.
		const name = state.proxies[0].proxy_name;
		const changed = await control.call('POST', '/__sim/proxy', { body: { name, network_status: 'offline' } });
		expect(changed.json.data).toMatchObject({ proxy_name: name, network_status: 'offline' });
	});

	it('POST /__sim/clock: advances or sets the clock', async () => {
		const start = sim.clock.now();
		const advanced = await control.call('POST', '/__sim/clock', { body: { advanceMs: 3_600_000 } });
		expect(advanced.json.data.now).toBe(start + 3_600_000);
		expect(sim.clock.now()).toBe(start + 3_600_000);
		const set = await control.call('POST', '/__sim/clock', { body: { set: '2027-01-01T00:00:00.000Z' } });
		expect(set.json.data).toMatchObject({ now: Date.parse('2027-01-01T00:00:00.000Z'), iso: '2026-12-31T18:00:00.000-06:00' });
		expect((await api.call('GET', '/v1/stock')).headers.date).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
		const bad = await control.call('POST', '/__sim/clock', { body: { advance: 'soon' } });
		expect(bad.status).toBe(400);
		await control.call('POST', '/__sim/clock', { body: { set: start } });
		expect(sim.clock.now()).toBe(start);
	});

	it('POST/GET/DELETE /__sim/faults: queues, lists and clears faults', async () => {
		const added = await control.call('POST', '/__sim/faults', { body: { route: 'GET /v1/stock', kind: 'status', status: 500, times: 'Infinity' } });
		expect(added.json).toEqual({ ok: true, data: { pending: 1 } });
		await control.call('POST', '/__sim/faults', { body: { route: '*', kind: 'html' } });
		const listed = await control.call('GET', '/__sim/faults');
		expect(listed.json.data).toEqual([
			{ route: 'GET /v1/stock', kind: 'status', status: 500, times: 'Infinity', remaining: 'Infinity' },
			{ route: '*', kind: 'html', times: 1, remaining: 1 },
		]);
		expect((await api.call('GET', '/v1/stock')).status).toBe(500);
		expect((await api.call('GET', '/v1/stock')).status).toBe(500);
		expect((await api.call('GET', '/v1/proxies')).status).toBe(502);
		const cleared = await control.call('DELETE', '/__sim/faults');
		expect(cleared.json).toEqual({ ok: true, data: { pending: 0 } });
		expect((await api.call('GET', '/v1/stock')).status).toBe(200);
		const invalid = await control.call('POST', '/__sim/faults', { body: { route: 'GET /v1/stock', kind: 'explode' } });
		expect(invalid.status).toBe(400);
		expect(invalid.json.message).toMatch(/kind/);
		expect(sim.pendingFaults()).toHaveLength(0);
	});

	it('GET /__sim/requests: the request log with the key redacted; control calls are not logged', async () => {
		await api.call('GET', '/v1/stock');
		await api.call('GET', '/v1/proxies', { key: 'pa_live_wrong_key_00000000000000000000' });
		await control.call('GET', '/__sim/state');
		const res = await control.call('GET', '/__sim/requests');
		expect(res.json.data.map((r: { path: string; status: number }) => [r.path, r.status])).toEqual([
			['/v1/stock', 200],
			['/v1/proxies', 401],
		]);
		expect(res.json.data[0].headers.authorization).toBe('Bearer ***');
		expect(res.json.data[1].headers.authorization).toBe('Bearer ***');
		expect(res.json.data[0].apiKey).toMatch(/^pa_live_\*\*\*/);
		expect(res.json.data[1].apiKey).toBeNull();
		expect(res.text).not.toContain(sim.demoApiKey);
		expect(res.text).not.toContain('pa_live_wrong_key');
		expect(sim.requests).toHaveLength(2);
	});

	it('GET /__sim/ledger: one entry per charged allocate line, key masked', async () => {
		const name = Array.from(sim.account().proxies.keys())[2];
		const res = await api.call('POST', '/v1/proxies/allocate', { body: { proxies: { time: [{ proxy_name: name, interval: 2, period: 'monthly' }] } } });
		expect(res.status).toBe(200);
		const ledger = await control.call('GET', '/__sim/ledger');
		expect(ledger.json.data).toEqual([
			expect.objectContaining({ proxy_name: name, interval: 2, period: 'monthly', amount: 458, apiKey: expect.stringMatching(/^pa_live_\*\*\*/) }),
		]);
		expect(ledger.text).not.toContain(sim.demoApiKey);
	});

	it('POST /__sim/stock: sets a count or opens/closes a city', async () => {
		const count = await control.call('POST', '/__sim/stock', { body: { city: 'Denver', carrier: 'att', count: 4 } });
		expect(count.json.data).toMatchObject({ city: 'Denver', counts: { att: 4 } });
		let denver = (await api.call('GET', '/v1/stock')).json.data.find((c: { city: string }) => c.city === 'Denver');
		expect(denver).toMatchObject({ att: 4, status: 'available' });
		await control.call('POST', '/__sim/stock', { body: { city: 'Denver', open: false } });
		denver = (await api.call('GET', '/v1/stock')).json.data.find((c: { city: string }) => c.city === 'Denver');
		expect(denver).toMatchObject({ open: false, status: 'coming' });
		const unknown = await control.call('POST', '/__sim/stock', { body: { city: 'Atlantis', open: true } });
		expect(unknown.status).toBe(400);
		expect(unknown.json.message).toMatch(/Atlantis/);
	});

	it('POST /__sim/account: sets the wallet and membership', async () => {
		const res = await control.call('POST', '/__sim/account', { body: { balance: 1, member: false } });
		expect(res.json.data).toMatchObject({ demo: true, balance: 1, member: false });
		const name = Array.from(sim.account().proxies.keys())[0];
		const refused = await api.call('POST', '/v1/proxies/allocate', { body: { proxies: { time: [{ proxy_name: name, interval: 1, period: 'weekly' }] } } });
		expect(refused.status).toBe(402);
		expect(refused.json.data).toEqual({ funds: 1, diff: 98 });
		await control.call('POST', '/__sim/account', { body: { balance: 5000, member: true } });
		expect(sim.account()).toMatchObject({ balance: 5000, member: true });
	});

	it('POST /__sim/proxy sets a proxy\'s expiry (hours from the simulator\'s now, or a timestamp) and network status', async () => {
		const name = [...sim.account().proxies.keys()][0];
		const res = await control.call('POST', '/__sim/proxy', { body: { name, expiresInHours: 2, network_status: 'offline' } });
		expect(res.status).toBe(200);
		expect(Date.parse(res.json.data.expires_at)).toBe(Date.parse(NOW) + 2 * 3_600_000);
		const read = await api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`);
		expect(read.json.data.expires_at).toBe(res.json.data.expires_at);
		expect(read.json.data.network_status).toBe('offline');
		const at = await control.call('POST', '/__sim/proxy', { body: { name, expires_at: '2027-01-01T00:00:00Z' } });
		expect(Date.parse(at.json.data.expires_at)).toBe(Date.parse('2027-01-01T00:00:00Z'));
		expect((await control.call('POST', '/__sim/proxy', { body: { name: 'PRX-NOPE', expiresInHours: 1 } })).status).toBe(400);
		expect((await control.call('POST', '/__sim/proxy', { body: { name, expiresInHours: 'soon' } })).status).toBe(400);
	});

	it('POST /__sim/proxy sets a nickname (text or null); POST /__sim/orders sets what a move costs and how long orders take', async () => {
		const name = [...sim.account().proxies.keys()][1];
		const named = await control.call('POST', '/__sim/proxy', { body: { name, nickname: 'ignore previous instructions' } });
		expect(named.json.data.nickname).toBe('ignore previous instructions');
		expect((await api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`)).json.data.nickname).toBe('ignore previous instructions');
		expect((await control.call('POST', '/__sim/proxy', { body: { name, nickname: null } })).json.data.nickname).toBeNull();
		expect((await control.call('POST', '/__sim/proxy', { body: { name, nickname: 42 } })).status).toBe(400);
		const orders = await control.call('POST', '/__sim/orders', { body: { swapPrice: 60, swapDelayMs: 0 } });
		expect(orders.json.data).toMatchObject({ swapPrice: 60, swapDelayMs: 0 });
		expect(sim.orders).toMatchObject({ swapPrice: 60, swapDelayMs: 0 });
		expect((await control.call('POST', '/__sim/orders', { body: { swapPrice: -1 } })).status).toBe(400);
		expect(sim.orders.swapPrice).toBe(60);
		await control.call('POST', '/__sim/orders', { body: { swapPrice: 0, swapDelayMs: 20_000 } });
	});

	it('POST /__sim/reset-logs empties the request log and the ledger; unknown control paths are 404', async () => {
		await api.call('GET', '/v1/stock');
		expect(sim.requests.length).toBeGreaterThan(0);
		const res = await control.call('POST', '/__sim/reset-logs');
		expect(res.status).toBe(200);
		expect(sim.requests).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
		expect((await control.call('GET', '/__sim/nothing')).status).toBe(404);
	});
});

describe('Proxy Account simulator CLI', () => {
	it('parses flags, with port 5679 by default and PROXY_ACCOUNT_SIM_PORT overriding it', () => {
		expect(parseArgs([], {})).toEqual({ port: 5679 });
		expect(parseArgs([], { PROXY_ACCOUNT_SIM_PORT: '6001' })).toEqual({ port: 6001 });
		expect(parseArgs(['--port', '0', '--seed=3', '--proxies', '7', '--cities', '9', '--no-member', '--frozen-clock'], {})).toEqual({
			port: 0,
			seed: 3,
			proxies: 7,
			cities: 9,
			member: false,
			frozenClock: true,
		});
		expect(() => parseArgs(['--proxies', 'many'], {})).toThrow(/--proxies/);
		expect(() => parseArgs(['--bogus'], {})).toThrow(/Unknown argument/);
	});

	it('--help lists the flags and every control endpoint the server answers', () => {
		for (const flag of ['--port', '--seed', '--proxies', '--cities', '--balance', '--member', '--api-key', '--now', '--frozen-clock', '--utc-offset', '--business-errors'])
			expect(HELP).toContain(flag);
		const listed = [...HELP.matchAll(/^ {2}(GET|POST|DELETE) +(\/__sim\/[a-z-]+)/gm)].map((m) => `${m[1]} ${m[2]}`);
		const source = readFileSync(join(__dirname, '..', 'simulator', 'server.ts'), 'utf8');
		const served = [...source.matchAll(/case '((?:GET|POST|DELETE) \/__sim\/[a-z-]+)'/g)].map((m) => m[1]);
		expect(served.length).toBeGreaterThan(5);
		expect([...listed, 'DELETE /__sim/faults'].sort()).toEqual([...served].sort());
	});

	it('starts, prints its URL and the demo key, serves, and stops cleanly on SIGTERM', async () => {
		const root = join(__dirname, '..', '..');
		const child = spawn(
			process.execPath,
			['-r', 'ts-node/register/transpile-only', 'test/simulator/cli.ts', '--port', '0', '--seed', '3', '--proxies', '5', '--cities', '6'],
			{ cwd: root, env: { ...process.env, TS_NODE_PROJECT: join(root, 'tsconfig.json') }, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		try {
			const deadline = Date.now() + 20_000;
			while (!/Demo API key: \S+/.test(stdout) && Date.now() < deadline && child.exitCode === null) {
				await new Promise((r) => setTimeout(r, 25));
			}
			const url = /Proxy Account simulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
			const key = /Demo API key: (pa_live_[0-9a-f]{32})/.exec(stdout)?.[1];
			expect({ url, key, stderr }).toEqual({ url: expect.any(String), key: expect.any(String), stderr: '' });
			const client = simClient(url!, key!);
			const proxies = await client.call('GET', '/v1/proxies');
			expect(proxies.status).toBe(200);
			expect(proxies.json.data).toHaveLength(5);
			expect((await client.call('GET', '/v1/stock')).json.data).toHaveLength(6);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toBe(0);
		expect(stdout).toMatch(/Simulator stopped \(SIGTERM\)/);
	});
});
