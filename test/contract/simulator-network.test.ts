/**
 * The simulator's network model (benchmarks and `--network-model`): each reply waits a round trip,
 * and each endpoint has a rate limit per API key answered with 429 and retry-after.
 */
import { NETWORK_MODEL, ProxyAccountSimulator } from '../simulator';
import { parseArgs } from '../simulator/cli';
import { simClient } from '../simulator/testkit';

/** Every proxy's last IP change and reboot an hour ago: no per-proxy throttle in the way. */
function longAgo(sim: ProxyAccountSimulator): void {
	const past = new Date(sim.clock.now() - 3_600_000).toISOString();
	for (const proxy of sim.account().proxies.values()) Object.assign(proxy, { last_ip_change: past, last_reboot: past, auto_change: false });
}

/** The paths of a device command (`reboot`, `changeip`) for each proxy of the account, in order. */
const commandPaths = (sim: ProxyAccountSimulator, command: string) => [...sim.account().proxies.keys()].map((name) => `/v1/proxies/${command}/${encodeURIComponent(name)}`);

/** A simulator on a frozen clock with no proxy throttled, its API client and its control client. */
async function onFrozenClock(work: (sim: ProxyAccountSimulator, api: ReturnType<typeof simClient>, control: ReturnType<typeof simClient>) => Promise<void>): Promise<void> {
	const sim = await ProxyAccountSimulator.start({ seed: 5, frozenClock: true });
	try {
		longAgo(sim);
		await work(sim, simClient(sim.url, sim.demoApiKey), simClient(sim.url, null));
	} finally {
		await sim.stop();
	}
}

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
			// The fastest of a few loopback replies: a busy machine can hold up any single one.
			const fastest = Math.min(await time(plain), await time(plain), await time(plain));
			expect(fastest).toBeLessThan(NETWORK_MODEL.network.latencyMs - (NETWORK_MODEL.network.jitterMs ?? 0));
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

	it('every reply of a rate-limited endpoint carries RateLimit-Limit, -Remaining and -Reset (the network model sends them)', async () => {
		const sim = await ProxyAccountSimulator.start({ seed: 5, ...NETWORK_MODEL, network: { latencyMs: 0 } });
		try {
			const api = simClient(sim.url, sim.demoApiKey);
			longAgo(sim);
			const route = 'POST /v1/proxies/changeip/:name';
			const limit = NETWORK_MODEL.rateLimit[route]!.limit;
			const names = [...sim.account().proxies.keys()];
			const replies = [];
			for (let i = 0; i <= limit; i++) replies.push(await api.call('POST', `/v1/proxies/changeip/${encodeURIComponent(names[i])}`));
			expect(replies.map((r) => r.status)).toEqual([...Array(limit).fill(202), 429]);
			expect(replies.map((r) => Number(r.headers['ratelimit-remaining']))).toEqual([...Array.from({ length: limit }, (_, i) => limit - 1 - i), 0]);
			for (const reply of replies) {
				expect(Number(reply.headers['ratelimit-limit'])).toBe(limit);
				// Seconds until the whole quota is back: the window of one second, rounded up.
				expect(Number(reply.headers['ratelimit-reset'])).toBe(1);
			}
			// A per-proxy throttle's 429 and a business error carry them too; an endpoint without a rule does not.
			sim.resetRateLimits();
			const throttled = await api.call('POST', `/v1/proxies/changeip/${encodeURIComponent(names[0])}`);
			expect(throttled.status).toBe(429);
			expect(throttled.headers['ratelimit-remaining']).toBe(String(limit - 1));
			expect((await api.call('POST', '/v1/proxies/changeip/NO-SUCH-PROXY')).headers['ratelimit-remaining']).toBe(String(limit - 2));
			const unlimited = await api.call('POST', `/v1/proxies/autochangeip/${encodeURIComponent(names[1])}`, { body: { enable: false } });
			expect(unlimited.status).toBe(200);
			expect(unlimited.headers['ratelimit-limit']).toBeUndefined();
		} finally {
			await sim.stop();
		}
	});

	it('a rate limit set at run time (control API): a long window answers 429 asking for about an hour; X-RateLimit-* style; lifted again', async () => {
		await onFrozenClock(async (sim, api, control) => {
			const [a, b, c, d] = commandPaths(sim, 'reboot');
			const set = await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/reboot/:name', limit: 2, windowMs: 3_600_000, headers: 'x' } });
			expect(set.json).toEqual({ ok: true, data: { route: 'POST /v1/proxies/reboot/:name', rule: { limit: 2, windowMs: 3_600_000, headers: 'x' } } });
			const first = await api.call('POST', a);
			expect(first.status).toBe(202);
			expect(first.headers['x-ratelimit-remaining']).toBe('1');
			// The epoch second the quota is back.
			expect(Number(first.headers['x-ratelimit-reset'])).toBe(Math.ceil((sim.clock.now() + 3_600_000) / 1000));
			expect((await api.call('POST', b)).status).toBe(202);
			sim.clock.advance(60_000);
			const limited = await api.call('POST', c);
			expect(limited.status).toBe(429);
			expect(Number(limited.headers['retry-after'])).toBe(3_540);
			expect(limited.headers['x-ratelimit-remaining']).toBe('0');
			expect((await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/reboot/:name', limit: 2, windowMs: 'long' } })).status).toBe(400);
			expect((await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/nowhere', limit: 2, windowMs: 1 } })).status).toBe(400);
			expect((await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/reboot/:name', limit: null } })).json.data).toEqual({ route: 'POST /v1/proxies/reboot/:name', rule: null });
			const free = await api.call('POST', c);
			expect(free.status).toBe(202);
			expect(free.headers['x-ratelimit-limit']).toBeUndefined();
			// The same from a test, without HTTP.
			sim.setRateLimit('POST /v1/proxies/reboot/:name', { limit: 1, windowMs: 3_600_000 });
			expect((await api.call('POST', d)).status).toBe(202);
			const again = await api.call('POST', a.replace(/[^/]+$/, encodeURIComponent('NO-SUCH-PROXY')));
			expect([again.status, again.headers['retry-after']]).toEqual([429, '3600']);
		});
	});

	it('a rule may round Retry-After down (0 within the last second) and send headers that lie (claim); the limit itself still holds', async () => {
		await onFrozenClock(async (sim, api, control) => {
			const [a, b, c] = commandPaths(sim, 'changeip');
			sim.setRateLimit('POST /v1/proxies/changeip/:name', { limit: 1, windowMs: 800, retryAfter: 'floor' });
			expect((await api.call('POST', a)).status).toBe(202);
			const zero = await api.call('POST', b);
			expect([zero.status, zero.headers['retry-after']]).toEqual([429, '0']);
			const set = await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/changeip/:name', limit: 2, windowMs: 1_000, headers: 'x', claim: { limit: '0', remaining: '-1' } } });
			expect(set.json.data.rule).toEqual({ limit: 2, windowMs: 1_000, headers: 'x', claim: { limit: '0', remaining: '-1' } });
			const lying = await api.call('POST', b);
			expect(lying.status).toBe(202);
			expect([lying.headers['x-ratelimit-limit'], lying.headers['x-ratelimit-remaining']]).toEqual(['0', '-1']);
			expect(Number(lying.headers['x-ratelimit-reset'])).toBe(Math.ceil((sim.clock.now() + 1_000) / 1000));
			expect((await api.call('POST', c)).status).toBe(202);
			expect((await api.call('POST', a)).status).toBe(429);
			expect((await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/changeip/:name', limit: 2, windowMs: 1, retryAfter: 'round' } })).status).toBe(400);
			expect((await control.call('POST', '/__sim/rate-limit', { body: { route: 'POST /v1/proxies/changeip/:name', limit: 2, windowMs: 1, claim: { limit: 0 } } })).status).toBe(400);
		});
	});

	it('--network-model sets the model on the command line', () => {
		expect(parseArgs(['--network-model'], {})).toMatchObject({ network: NETWORK_MODEL.network, rateLimit: NETWORK_MODEL.rateLimit });
	});
});
