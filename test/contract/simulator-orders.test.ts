/**
 * Contract tests of the simulator's buy, swap and remove endpoints (account operations #10-#12),
 * over real loopback HTTP: charges and stock before the 202, effects after their delay.
 */
import { ProxyAccountSimulator } from '../simulator';
import { cityCode } from '../simulator/seed';
import { simClient } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';

describe('Proxy Account simulator: deploy, swap, remove', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	const names = () => [...sim.account().proxies.keys()];
	const open = (key: string, count = 1) => sim.stock.find((c) => c.open && c.counts[key] >= count)!;

	beforeEach(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 78, now: NOW, frozenClock: true, proxies: 6, balance: 2_000 });
		api = simClient(sim.url, sim.demoApiKey);
	});
	afterEach(async () => await sim.stop());

	describe('POST /v1/proxies/deploy', () => {
		it('charges what /v1/price quotes, takes the proxies out of stock, answers 202 {user_id, total}; they appear after the delay', async () => {
			const city = open('att', 2);
			const lines = [1, 2].map(() => ({ isp: 'AT&T', location: city.city, interval: 1, period: 'weekly' }));
			const quote = await api.call('POST', '/v1/price', { body: { proxies: lines } });
			const stock = city.counts.att;
			const res = await api.call('POST', '/v1/proxies/deploy', { body: { proxies: [lines] } }); // the reference's nested slip
			expect(res.status).toBe(202);
			expect(Object.keys(res.json.data).sort()).toEqual(['total', 'user_id']);
			expect(res.json.data.total).toBe(quote.json.data.total.due);
			expect(sim.account().balance).toBe(2_000 - quote.json.data.total.due);
			expect(city.counts.att).toBe(stock - 2);
			expect(sim.ledger.map((e) => e.kind)).toEqual(['deploy', 'deploy']);
			expect(sim.account().proxies.size).toBe(6);
			sim.clock.advance(sim.orders.deployDelayMs);
			const list = await api.call('GET', '/v1/proxies');
			expect(list.json.data).toHaveLength(8);
			const added = sim.ledger.map((e) => e.proxy_name);
			expect(list.json.data.filter((p: { proxy_name: string }) => added.includes(p.proxy_name))).toEqual(
				added.map(() => expect.objectContaining({ isp: 'AT&T', city: city.city })),
			);
		});

		it('a bought proxy is named after its city, as seeded ones are (PRX-US-<city code><node>-<seq>), one name each', async () => {
			const cities = sim.stock.filter((c) => c.open && c.counts.att >= 1 && c.counts.verizon >= 1).slice(0, 4);
			expect(new Set(cities.map((c) => cityCode(c.city))).size).toBeGreaterThan(1);
			const lines = cities.flatMap((c) => [
				{ isp: 'AT&T', location: c.city, interval: 1, period: 'weekly' },
				{ isp: 'Verizon', location: c.city, interval: 1, period: 'daily' },
			]);
			expect((await api.call('POST', '/v1/proxies/deploy', { body: { proxies: lines } })).status).toBe(202);
			sim.clock.advance(sim.orders.deployDelayMs);
			const list = (await api.call('GET', '/v1/proxies')).json.data as Array<{ proxy_name: string; city: string }>;
			const added = list.filter((p) => sim.ledger.some((e) => e.proxy_name === p.proxy_name));
			expect(added).toHaveLength(lines.length);
			for (const p of added) expect(p.proxy_name).toMatch(new RegExp(`^PRX-US-${cityCode(p.city)}\\d+-\\d{4}$`));
			expect(new Set(list.map((p) => p.proxy_name)).size).toBe(list.length);
		});

		it('refuses before charging: out of stock, short wallet, unknown city; nothing in the ledger', async () => {
			const city = open('verizon');
			sim.setStockCount(city.city, 'verizon', 1);
			const two = [1, 2].map(() => ({ isp: 'Verizon', location: city.city, interval: 1, period: 'weekly' }));
			expect((await api.call('POST', '/v1/proxies/deploy', { body: { proxies: two } })).status).toBe(400);
			const poor = await ProxyAccountSimulator.start({ seed: 78, now: NOW, frozenClock: true, balance: 0 });
			try {
				const res = await simClient(poor.url, poor.demoApiKey).call('POST', '/v1/proxies/deploy', { body: { proxies: [two[0]] } });
				expect(res.status).toBe(402);
				expect(res.json.ok).toBe(false);
			} finally {
				await poor.stop();
			}
			expect((await api.call('POST', '/v1/proxies/deploy', { body: { proxies: [{ ...two[0], location: 'Atlantis' }] } })).status).toBe(400);
			expect(sim.ledger).toHaveLength(0);
			expect(sim.account().balance).toBe(2_000);
		});
	});

	describe('POST /v1/proxies/swap/:name', () => {
		it.each(['old', 'new', 'absent'] as const)('202 with the %s name (the reference leaves it open); the proxy moves after the delay', async (reply) => {
			sim.orders.swapReplyName = reply;
			const [name] = names();
			const before = sim.account().proxies.get(name)!;
			const city = open('tmobile');
			const res = await api.call('POST', `/v1/proxies/swap/${encodeURIComponent(name)}`, { body: { isp: 'T-Mobile', location: city.city, copy_settings: true } });
			expect(res.status).toBe(202);
			expect(sim.account().proxies.has(name)).toBe(true);
			sim.clock.advance(sim.orders.swapDelayMs);
			const list = (await api.call('GET', '/v1/proxies')).json.data as Array<Record<string, unknown>>;
			expect(list.some((p) => p.proxy_name === name)).toBe(false);
			const moved = list.find((p) => p.isp === 'T-Mobile' && p.city === city.city && p.username === before.username)!;
			expect(moved).toBeDefined();
			expect(moved.password).toBe(before.password);
			expect(moved.proxy_name).toMatch(new RegExp(`^PRX-US-${cityCode(city.city)}\\d+-\\d{4}$`));
			expect(res.json.data.proxy_name).toBe(reply === 'old' ? name : reply === 'new' ? moved.proxy_name : undefined);
			expect(sim.ledger).toHaveLength(0);
		});

		it('without copy_settings the credentials are new; an unknown proxy is a 404', async () => {
			const [name] = names();
			const before = sim.account().proxies.get(name)!;
			const city = open('att');
			await api.call('POST', `/v1/proxies/swap/${encodeURIComponent(name)}`, { body: { isp: 'AT&T', location: city.city, copy_settings: false } });
			sim.clock.advance(sim.orders.swapDelayMs);
			const list = (await api.call('GET', '/v1/proxies')).json.data as Array<Record<string, unknown>>;
			expect(list.some((p) => p.password === before.password && p.city === city.city && p.proxy_name !== name && p.isp === 'AT&T' && p.username === before.username)).toBe(false);
			expect((await api.call('POST', '/v1/proxies/swap/PRX-NOPE', { body: { isp: 'AT&T', location: city.city } })).status).toBe(404);
		});
	});

	describe('a proxy bought by someone else during an order (addProxyOnNextOrder)', () => {
		it('joins the list with the next deploy (plus its delay), not before; no charge of this account', async () => {
			const city = open('att');
			sim.addProxyOnNextOrder('deploy', null, { proxy_name: 'FOREIGN-1', isp: 'AT&T', city: city.city }, 1_000);
			sim.clock.advance(60_000);
			expect((await api.call('GET', '/v1/proxies')).json.data).toHaveLength(6);
			const res = await api.call('POST', '/v1/proxies/deploy', { body: { proxies: [{ isp: 'AT&T', location: city.city, interval: 1, period: 'weekly' }] } });
			expect(res.status).toBe(202);
			sim.clock.advance(sim.orders.deployDelayMs);
			let list = (await api.call('GET', '/v1/proxies')).json.data as Array<{ proxy_name: string }>;
			expect(list).toHaveLength(7);
			expect(list.map((p) => p.proxy_name)).not.toContain('FOREIGN-1');
			sim.clock.advance(1_000);
			list = (await api.call('GET', '/v1/proxies')).json.data as Array<{ proxy_name: string }>;
			expect(list.find((p) => p.proxy_name === 'FOREIGN-1')).toMatchObject({ isp: 'AT&T', city: city.city });
			expect(sim.ledger.map((e) => e.proxy_name)).not.toContain('FOREIGN-1');
			expect(sim.ledger).toHaveLength(1);
		});

		it('joins the list with the next swap when asked for a swap; a deploy does not take it', async () => {
			const city = open('tmobile');
			sim.addProxyOnNextOrder('swap', null, { proxy_name: 'FOREIGN-2', isp: 'T-Mobile', city: city.city });
			const [name] = names();
			await api.call('POST', '/v1/proxies/deploy', { body: { proxies: [{ isp: 'T-Mobile', location: city.city, interval: 1, period: 'weekly' }] } });
			sim.clock.advance(sim.orders.deployDelayMs);
			expect(sim.account().proxies.has('FOREIGN-2')).toBe(false);
			await api.call('POST', `/v1/proxies/swap/${encodeURIComponent(name)}`, { body: { isp: 'T-Mobile', location: city.city, copy_settings: true } });
			sim.clock.advance(sim.orders.swapDelayMs);
			const list = (await api.call('GET', '/v1/proxies')).json.data as Array<{ proxy_name: string }>;
			expect(list.map((p) => p.proxy_name)).toContain('FOREIGN-2');
			expect(list.map((p) => p.proxy_name)).not.toContain(name);
		});
	});

	describe('DELETE /v1/proxies/remove', () => {
		it('202; the proxies leave the list after the delay; an unknown name removes nothing', async () => {
			const [a, b] = names();
			expect((await api.call('DELETE', '/v1/proxies/remove', { body: { proxies: [a, 'PRX-NOPE'] } })).status).toBe(404);
			sim.clock.advance(60_000);
			expect(sim.account().proxies.has(a)).toBe(true);
			const res = await api.call('DELETE', '/v1/proxies/remove', { body: { proxies: [a, b] } });
			expect(res.status).toBe(202);
			expect((await api.call('GET', '/v1/proxies')).json.data).toHaveLength(6);
			sim.clock.advance(sim.orders.removeDelayMs);
			const after = (await api.call('GET', '/v1/proxies')).json.data as Array<{ proxy_name: string }>;
			expect(after.map((p) => p.proxy_name)).not.toContain(a);
			expect(after).toHaveLength(4);
			expect((await api.call('DELETE', '/v1/proxies/remove', { body: {} })).status).toBe(400);
		});
	});
});
