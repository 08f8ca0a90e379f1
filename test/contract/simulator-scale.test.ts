/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Contract tests of the simulator's seeded generation: determinism, bounds, and speed at the sizes
 * the benchmarks use (10,000 proxies, 1,000 cities).
 */
import { parseTimestamp, ProxyAccountSimulator } from '../simulator';
import { simClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';

async function snapshotOf(options: Parameters<typeof ProxyAccountSimulator.start>[0]) {
	const sim = await ProxyAccountSimulator.start(options);
	try {
		const api = simClient(sim.url, sim.demoApiKey);
		const stock = (await api.call('GET', '/v1/stock')).text;
		const proxies = (await api.call('GET', '/v1/proxies')).text;
		const quote = (
			await api.call('POST', '/v1/price', {
				body: { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }, { isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] },
			})
		).json.data;
		return { key: sim.demoApiKey, stock, proxies, itemKeys: Object.keys(quote.periods.weekly.individual) };
	} finally {
		await sim.stop();
	}
}

describe('Proxy Account simulator seeded generation', () => {
	it('is deterministic under a seed: same accounts, proxies, stock, keys', async () => {
		const a = await snapshotOf({ seed: 77, now: NOW, frozenClock: true, proxies: 40, cities: 30 });
		const b = await snapshotOf({ seed: 77, now: NOW, frozenClock: true, proxies: 40, cities: 30 });
		expect(a.key).toMatch(/^pa_live_[0-9a-f]{32}$/);
		expect(b).toEqual(a);
		const c = await snapshotOf({ seed: 78, now: NOW, frozenClock: true, proxies: 40, cities: 30 });
		expect(c.key).not.toBe(a.key);
		expect(c.proxies).not.toBe(a.proxies);
		expect(c.stock).not.toBe(a.stock);
	});

	it('keeps the stock independent of the number of proxies, and honours an explicit API key', async () => {
		const a = await snapshotOf({ seed: 3, now: NOW, frozenClock: true, proxies: 0 });
		const b = await snapshotOf({ seed: 3, now: NOW, frozenClock: true, proxies: 100, demoApiKey: 'pa_live_explicit_key_0000000000000000' });
		expect(b.stock).toBe(a.stock);
		expect(b.key).toBe('pa_live_explicit_key_0000000000000000');
		expect(JSON.parse(a.proxies)).toEqual({ ok: true, data: [] });
		expect(JSON.parse(b.proxies).data).toHaveLength(100);
	});

	it('rejects sizes outside the supported bounds', async () => {
		await expect(ProxyAccountSimulator.start({ cities: 4 })).rejects.toThrow(/cities/);
		await expect(ProxyAccountSimulator.start({ cities: 1001 })).rejects.toThrow(/cities/);
		await expect(ProxyAccountSimulator.start({ proxies: 10_001 })).rejects.toThrow(/proxies/);
		await expect(ProxyAccountSimulator.start({ proxies: -1 })).rejects.toThrow(/proxies/);
	});

	// Speed is measured by the benchmarks (npm run bench), not asserted here: timings depend on load.
	it('generates 10,000 proxies and 1,000 cities and serves them whole', async () => {
		const sim = await ProxyAccountSimulator.start({ seed: 11, now: NOW, frozenClock: true, proxies: 10_000, cities: 1000 });
		try {
			const api = simClient(sim.url, sim.demoApiKey);
			const stockRes = await api.call('GET', '/v1/stock');
			const proxiesRes = await api.call('GET', '/v1/proxies');

			const stock = stockRes.json.data as Array<{ city: string; state: string; status: string }>;
			expect(stock).toHaveLength(1000);
			expect(new Set(stock.map((c) => c.city)).size).toBe(1000);
			expect(stock.slice(0, 3).map((c) => `${c.city}, ${c.state}`)).toEqual(['Austin, TX', 'Cleveland, OH', 'New York, NY']);
			for (const c of stock) expect(c.state).toMatch(/^[A-Z]{2}$/);
			const statusCount = (s: string) => stock.filter((c) => c.status === s).length;
			expect(statusCount('available')).toBeGreaterThan(500);
			expect(statusCount('out')).toBeGreaterThan(50);
			expect(statusCount('coming')).toBeGreaterThan(50);

			const proxies = proxiesRes.json.data as Array<Record<string, string>>;
			expect(proxies).toHaveLength(10_000);
			expect(new Set(proxies.map((p) => p.proxy_name)).size).toBe(10_000);
			const cities = new Map(stock.map((c) => [c.city, c.state]));
			expect(proxies.every((p) => cities.get(p.city) === p.state)).toBe(true);
			const share = (pred: (p: Record<string, string>) => boolean) => proxies.filter(pred).length / proxies.length;
			expect(share((p) => p.period === 'weekly' || p.period === 'monthly')).toBeGreaterThan(0.7);
			expect(share((p) => p.network_status === 'online')).toBeGreaterThan(0.7);
			expect(share((p) => p.network_status === 'offline')).toBeGreaterThan(0.02);
			expect(share((p) => p.network_status === 'rebooting')).toBeGreaterThan(0.01);
			const now = sim.clock.now();
			expect(share((p) => parseTimestamp(p.expires_at) < now)).toBeGreaterThan(0.05);
			expect(share((p) => parseTimestamp(p.expires_at) >= now && parseTimestamp(p.expires_at) < now + 86_400_000)).toBeGreaterThan(0.1);
			expect(share((p) => (p as unknown as { whitelist: unknown }).whitelist !== null)).toBeGreaterThan(0.1);
		} finally {
			await sim.stop();
		}
	});
});
