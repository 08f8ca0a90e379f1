/**
 * The simulator's network model (benchmarks and `--network-model`): each reply waits a round trip,
 * and each endpoint has a rate limit per API key answered with 429 and retry-after.
 */
import { NETWORK_MODEL, ProxyAccountSimulator } from '../simulator';
import { parseArgs } from '../simulator/cli';
import { simClient } from '../simulator/testkit';

describe('Proxy Account simulator network model', () => {
	it('a reply takes a round trip; loopback (the default) does not', async () => {
		const model = await ProxyAccountSimulator.start({ seed: 5, ...NETWORK_MODEL });
		const plain = await ProxyAccountSimulator.start({ seed: 5 });
		try {
			const time = async (sim: ProxyAccountSimulator) => {
				const started = Date.now();
				expect((await simClient(sim.url, sim.demoApiKey).call('GET', '/v1/stock')).status).toBe(200);
				return Date.now() - started;
			};
			await time(model);
			expect(await time(model)).toBeGreaterThanOrEqual(NETWORK_MODEL.network.latencyMs - (NETWORK_MODEL.network.jitterMs ?? 0));
			expect(await time(plain)).toBeLessThan(NETWORK_MODEL.network.latencyMs - (NETWORK_MODEL.network.jitterMs ?? 0));
		} finally {
			await model.stop();
			await plain.stop();
		}
	});

	it('an endpoint called more often than its limit answers 429 with retry-after, until the window passes', async () => {
		const sim = await ProxyAccountSimulator.start({ seed: 5, ...NETWORK_MODEL, network: { latencyMs: 0 } });
		try {
			const api = simClient(sim.url, sim.demoApiKey);
			const limit = NETWORK_MODEL.rateLimit['POST /v1/price']!.limit;
			const line = { isp: 'AT&T', location: sim.stock[0].city, interval: 1, period: 'weekly' };
			const statuses: number[] = [];
			for (let i = 0; i <= limit; i++) statuses.push((await api.call('POST', '/v1/price', { body: { proxies: [line] } })).status);
			expect(statuses.slice(0, limit).every((s) => s === 200)).toBe(true);
			const limited = await api.call('POST', '/v1/price', { body: { proxies: [line] } });
			expect(limited.status).toBe(429);
			expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
			// Another endpoint has its own window.
			expect((await api.call('GET', '/v1/stock')).status).toBe(200);
		} finally {
			await sim.stop();
		}
	});

	it('--network-model sets the model on the command line', () => {
		expect(parseArgs(['--network-model'], {})).toMatchObject({ network: NETWORK_MODEL.network, rateLimit: NETWORK_MODEL.rateLimit });
	});
});
