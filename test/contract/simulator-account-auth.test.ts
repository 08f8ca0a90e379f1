/**
 * Contract tests of the simulator's IPv4 and authentication endpoints (account operations #6-#8)
 * and of its discard-proxy control, over real loopback HTTP.
 */
import { IPV4_DELAY_MS, ProxyAccountSimulator } from '../simulator';
import { simClient, TIMESTAMP_RE } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';

describe('Proxy Account simulator: IPv4, authentication, discard', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	const names = () => [...sim.account().proxies.keys()];
	const record = (name: string) => sim.account().proxies.get(name)!;

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 77, now: NOW, frozenClock: true, proxies: 12 });
		api = simClient(sim.url, sim.demoApiKey);
	});
	afterAll(async () => await sim.stop());
	beforeEach(() => {
		sim.clearFaults();
		sim.resetLogs();
	});

	describe('POST /v1/proxies/ipv4/:name', () => {
		it.each([
			[false, false],
			['false', false],
			[true, true],
			['true', true],
		])('accepts enable = %j: 202, the setting takes effect after the delay (sim clock)', async (enable, expected) => {
			const name = names()[0];
			const before = record(name).ipv4;
			const res = await api.call('POST', `/v1/proxies/ipv4/${encodeURIComponent(name)}`, { body: { enable } });
			expect(res.status).toBe(202);
			expect(res.json.ok).toBe(true);
			expect(Object.keys(res.json.data).sort()).toEqual(['ipv4', 'last_ipv4_update', 'proxy_name']);
			expect(res.json.data).toMatchObject({ proxy_name: name, ipv4: expected });
			expect(res.json.data.last_ipv4_update).toMatch(TIMESTAMP_RE);
			// Not yet in effect: a read right after the 202 still shows the old address.
			const now = await api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`);
			expect(now.json.data.ipv4).toEqual(before);
			expect(now.json.data.last_ipv4_update).toBe(res.json.data.last_ipv4_update);
			sim.clock.advance(IPV4_DELAY_MS);
			const later = await api.call('GET', '/v1/proxies');
			const after = later.json.data.find((p: { proxy_name: string }) => p.proxy_name === name);
			if (expected) expect(after.ipv4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
			else expect(after.ipv4).toBeNull();
		});

		it.each([[{}], [{ enable: 'yes' }], [{ enable: 1 }], [[true]], ['"true"']])('refuses a body of %j with 400, changing nothing', async (body) => {
			const name = names()[1];
			const before = JSON.stringify(record(name));
			const res = await api.call('POST', `/v1/proxies/ipv4/${encodeURIComponent(name)}`, { body });
			expect(res.status).toBe(400);
			expect(res.json.ok).toBe(false);
			expect(JSON.stringify(record(name))).toBe(before);
		});

		it('404 for an unknown proxy, 401 without a key; a GET reads a proxy named "ipv4/…" (404)', async () => {
			expect((await api.call('POST', '/v1/proxies/ipv4/PRX-NOPE', { body: { enable: true } })).status).toBe(404);
			expect((await api.call('POST', `/v1/proxies/ipv4/${names()[0]}`, { body: { enable: true }, key: null })).status).toBe(401);
			const res = await api.call('GET', `/v1/proxies/ipv4/${names()[0]}`);
			expect(res.status).toBe(404);
			expect(sim.requests.at(-1)?.route).toBe('GET /v1/proxies/:name');
		});
	});

	describe('PATCH /v1/proxies/auth/basic/:name', () => {
		it('sets the given username and password, switches to basic auth and clears the whitelist', async () => {
			const name = names()[2];
			await api.call('PATCH', `/v1/proxies/auth/whitelist/${name}`, { body: { authorize_ip: '203.0.113.7' } });
			const res = await api.call('PATCH', `/v1/proxies/auth/basic/${name}`, { body: { username: 'scraper_01', password: 'S3cret-pass!' } });
			expect(res.status).toBe(200);
			expect(res.json.data).toEqual({
				proxy_name: name,
				last_auth_change: expect.stringMatching(TIMESTAMP_RE),
				username: 'scraper_01',
				password: 'S3cret-pass!',
			});
			expect(record(name)).toMatchObject({ auth_method: 'basic', whitelist: null, username: 'scraper_01', password: 'S3cret-pass!' });
		});

		it.each([[{}], [{ username: null, password: null }], [{ username: 'keepme_1' }], [null]])('generates what is null or absent (%j)', async (body) => {
			const name = names()[3];
			const old = { ...record(name) };
			const res = await api.call('PATCH', `/v1/proxies/auth/basic/${name}`, { body: body === null ? undefined : body });
			expect(res.status).toBe(200);
			expect(res.json.data.password).toMatch(/^[A-Za-z0-9]{16}$/);
			expect(res.json.data.password).not.toBe(old.password);
			if (body && typeof body === 'object' && 'username' in body && body.username) expect(res.json.data.username).toBe('keepme_1');
			else expect(res.json.data.username).toMatch(/^pa[a-z0-9]{8}$/);
			expect(record(name).password).toBe(res.json.data.password);
		});

		it.each([[{ username: 'a b' }], [{ username: 5 }], [{ password: 'short' }], [{ password: 'has space inside' }], ['[]']])('refuses %j with 400, changing nothing', async (body) => {
			const name = names()[4];
			const before = JSON.stringify(record(name));
			const res = await api.call('PATCH', `/v1/proxies/auth/basic/${name}`, { body });
			expect(res.status).toBe(400);
			expect(JSON.stringify(record(name))).toBe(before);
		});
	});

	describe('PATCH /v1/proxies/auth/whitelist/:name', () => {
		it('stores the whitelist as a comma-separated string and switches to whitelist auth', async () => {
			const name = names()[5];
			const res = await api.call('PATCH', `/v1/proxies/auth/whitelist/${name}`, {
				body: { authorize_ip: '1.2.3.4, 5.6.7.0/24,2001:db8::/32,::1' },
			});
			expect(res.status).toBe(200);
			expect(res.json.data).toEqual({
				proxy_name: name,
				last_auth_change: expect.stringMatching(TIMESTAMP_RE),
				whitelist: '1.2.3.4,5.6.7.0/24,2001:db8::/32,::1',
			});
			expect(record(name)).toMatchObject({ auth_method: 'whitelist', whitelist: '1.2.3.4,5.6.7.0/24,2001:db8::/32,::1' });
			// Reads return the string form; seeded records keep their list form.
			const read = await api.call('GET', `/v1/proxies/${name}`);
			expect(read.json.data.whitelist).toBe('1.2.3.4,5.6.7.0/24,2001:db8::/32,::1');
			expect(read.json.data.password).toBe(record(name).password);
		});

		it.each([
			[{ authorize_ip: '' }],
			[{ authorize_ip: '1.2.3' }],
			[{ authorize_ip: '1.2.3.4/33' }],
			[{ authorize_ip: '2001:db8::/129' }],
			[{ authorize_ip: '1.2.3.4,,5.6.7.8' }],
			[{ authorize_ip: ['1.2.3.4'] }],
			[{ authorize_ip: 'example.com' }],
			[{}],
		])('refuses %j with 400, changing nothing', async (body) => {
			const name = names()[6];
			const before = JSON.stringify(record(name));
			const res = await api.call('PATCH', `/v1/proxies/auth/whitelist/${name}`, { body });
			expect(res.status).toBe(400);
			expect(res.json.ok).toBe(false);
			expect(JSON.stringify(record(name))).toBe(before);
		});

		it('404 for an unknown proxy', async () => {
			const res = await api.call('PATCH', '/v1/proxies/auth/whitelist/PRX-NOPE', { body: { authorize_ip: '1.2.3.4' } });
			expect(res.status).toBe(404);
		});
	});

	describe('faults on the new routes', () => {
		it('a malformed fault does not process the change', async () => {
			const name = names()[7];
			const before = JSON.stringify(record(name));
			sim.injectFault({ route: 'PATCH /v1/proxies/auth/basic/:name', kind: 'malformed' });
			const res = await api.call('PATCH', `/v1/proxies/auth/basic/${name}`, { body: {} });
			expect(res.status).toBe(200);
			expect(res.json).toBeUndefined();
			expect(JSON.stringify(record(name))).toBe(before);
		});

		it('the request log names the route', async () => {
			await api.call('POST', `/v1/proxies/ipv4/${names()[8]}`, { body: { enable: true } });
			expect(sim.requests.map((r) => r.route)).toEqual(['POST /v1/proxies/ipv4/:name']);
		});
	});

	describe('POST /__sim/discard-proxy', () => {
		it('deletes a proxy at once, and says whether it existed', async () => {
			const name = names()[9];
			const res = await api.call('POST', '/__sim/discard-proxy', { body: { name } });
			expect(res.json).toEqual({ ok: true, data: { discarded: true } });
			expect(sim.account().proxies.has(name)).toBe(false);
			expect((await api.call('GET', `/v1/proxies/${name}`)).status).toBe(404);
			const again = await api.call('POST', '/__sim/discard-proxy', { body: { name } });
			expect(again.json.data.discarded).toBe(false);
			expect((await api.call('POST', '/__sim/discard-proxy', { body: {} })).status).toBe(400);
		});
	});
});
