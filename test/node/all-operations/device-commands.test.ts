/**
 * Proxy > Rotate IP and Reboot under what a real run meets, through n8n-core's real WorkflowExecute
 * against the simulator: a proxy named by several items gets one command; Retry On Fail is refused
 * and a run again right after never sends an accepted command again nor says the proxy was not
 * changed; an endpoint's rate limit longer than the run waits stops the endpoint after a handful of
 * 429s at most; and the rate-limit headers, once seen, keep the run within them (no 429 at all).
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, createHarness, credentialsFor } from '../../harness';
import type { NodeResult } from '../../harness';
import type { RateLimitRule, RouteKey } from '../../simulator';
import { NETWORK_MODEL, ProxyAccountSimulator } from '../../simulator';

jest.setTimeout(120_000);

const harness = createHarness();
const ROTATE: RouteKey = 'POST /v1/proxies/changeip/:name';
const REBOOT: RouteKey = 'POST /v1/proxies/reboot/:name';

/** Every proxy's last IP change and reboot an hour ago: nothing is throttled at the start. */
function settle(sim: ProxyAccountSimulator): string[] {
	const past = new Date(sim.clock.now() - 3_600_000).toISOString();
	for (const proxy of sim.account().proxies.values()) Object.assign(proxy, { last_ip_change: past, last_reboot: past, auto_change: false, auto_change_time: 0 });
	return [...sim.account().proxies.keys()];
}

async function withSim(options: Parameters<typeof ProxyAccountSimulator.start>[0], work: (sim: ProxyAccountSimulator, names: string[]) => Promise<void>): Promise<void> {
	const sim = await ProxyAccountSimulator.start({ seed: 12, proxies: 10, ...options });
	try {
		await work(sim, settle(sim));
	} finally {
		await sim.stop();
	}
}

interface RunOptions {
	options?: IDataObject;
	continueOnFail?: boolean;
	retryOnFail?: boolean;
}

function command(sim: ProxyAccountSimulator, operation: 'rotateIp' | 'reboot', proxies: string[], run: RunOptions = {}): Promise<NodeResult> {
	return harness.runNode(
		{
			type: 'proxyAccount',
			continueOnFail: run.continueOnFail ?? false,
			...(run.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 } : {}),
			parameters: { resource: 'proxy', operation, proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, options: run.options ?? {} },
		},
		{ credentials: credentialsFor(sim), items: proxies.map((name) => ({ name })) },
	);
}

const statuses = (sim: ProxyAccountSimulator, route: RouteKey) => apiRequests(sim, route).map((r) => r.status);
const count = (sim: ProxyAccountSimulator, route: RouteKey, status: number) => statuses(sim, route).filter((s) => s === status).length;
const proxyOf = (path: string) => decodeURIComponent(path.split('/').pop()!);

describe('a proxy named by several items gets one command', () => {
	it('Rotate IP: one request per proxy; the later items say they are the same proxy as the first', async () => {
		await withSim({ frozenClock: true }, async (sim, [a, b]) => {
			const result = await command(sim, 'rotateIp', [a, b, a, a, b], { options: { concurrency: 5 } });
			expect(result.status).toBe('success');
			expect(apiRequests(sim, ROTATE).map((r) => proxyOf(r.path)).sort()).toEqual([a, b].sort());
			expect(result.items.map((i) => i.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
			expect(result.items.map((i) => i.json.status)).toEqual(['sent', 'sent', 'skipped', 'skipped', 'skipped']);
			expect(result.items[2].json).toEqual({ proxy_name: a, status: 'skipped', reason: 'same proxy as item 0 of this run, which stands for both' });
			expect(result.items[4].json.reason).toBe('same proxy as item 1 of this run, which stands for both');
		});
	});

	it("Reboot: the later items carry the first item's failure (Continue On Fail); still one request", async () => {
		await withSim({ frozenClock: true }, async (sim, [a, b]) => {
			sim.injectFault({ route: REBOOT, kind: 'status', status: 503 });
			const result = await command(sim, 'reboot', [a, a, b], { options: { concurrency: 1 }, continueOnFail: true });
			expect(result.items[0].json.message).toMatch(/The reboot may have been made/);
			expect(result.items[1].json).toEqual(result.items[0].json);
			expect(result.items[1].pairedItem).toEqual({ item: 1 });
			expect(result.items[2].json.status).toBe('sent');
			expect(apiRequests(sim, REBOOT).map((r) => proxyOf(r.path))).toEqual([a, b]);
		});
	});
});

describe('an accepted command is never sent again', () => {
	it.each(['rotateIp', 'reboot'] as const)('%s refuses Retry On Fail before anything is sent, and says what to do instead', async (operation) => {
		await withSim({ frozenClock: true }, async (sim, [a, b]) => {
			// Without the refusal: a is accepted, b's reply is lost, and n8n runs the node again.
			sim.injectFault({ route: operation === 'rotateIp' ? ROTATE : REBOOT, kind: 'status', status: 503, times: 1 });
			const result = await command(sim, operation, [b, a], { options: { concurrency: 1 }, retryOnFail: true });
			expect(result.status).toBe('error');
			const what = operation === 'rotateIp' ? 'IP change' : 'reboot';
			expect(result.error?.message).toBe(`Retry On Fail is on, which could send the ${what} twice`);
			expect(result.error?.description).toMatch(/^Turn off Retry On Fail in this node\u2019s settings\..*Running the node again is safe/);
			expect(apiRequests(sim)).toHaveLength(0);
		});
	});

	it('a run again right after: no command accepted twice, and every item says when the IP was changed, never that it was not', async () => {
		await withSim({ frozenClock: true }, async (sim, names) => {
			const list = names.slice(0, 4);
			const first = await command(sim, 'rotateIp', list, { options: { concurrency: 4 } });
			expect(first.items.map((i) => i.json.status)).toEqual(list.map(() => 'sent'));
			const changedAt = first.items.map((i) => String(i.json.last_ip_change));
			// The list does not show the changes yet (the devices apply them later): the service's 429 tells.
			const again = await command(sim, 'rotateIp', list, { options: { concurrency: 4 } });
			expect(count(sim, ROTATE, 202)).toBe(4);
			expect(count(sim, ROTATE, 429)).toBe(4);
			for (const item of again.items) {
				expect(item.json.status).toBe('skipped');
				expect(String(item.json.reason)).toMatch(/^the service refused another IP change \(429\): the last IP change was made at about \S+, about [1-3] s ago \(perhaps by an earlier run or attempt\), and the service allows one a minute: allowed again in (5[7-9]|60) s; no new one was made/);
				expect(String(item.json.reason)).not.toMatch(/not changed|refused it for now/);
			}
			// Once the list shows them: nothing is sent at all, and the items give the time of the change.
			sim.clock.advance(10_000);
			sim.resetLogs();
			const third = await command(sim, 'rotateIp', list);
			expect(apiRequests(sim, ROTATE)).toHaveLength(0);
			third.items.forEach((item, i) => {
				expect(Date.parse(String(item.json.last_ip_change))).toBe(Date.parse(changedAt[i]));
				expect(String(item.json.reason)).toMatch(/^the last IP change was made at \S+, 1[0-3] s ago \(perhaps by an earlier run or attempt\), and the service allows one a minute: allowed again in (4[7-9]|5[01]) s; no new one was made\. Turn on Wait Until Allowed/);
			});
		});
	});
});

describe("the endpoint's rate limit", () => {
	const hourly = (headers?: RateLimitRule['headers']): RateLimitRule => ({ limit: 5, windowMs: 3_600_000, ...(headers ? { headers } : {}) });

	it.each([
		['without rate-limit headers', undefined, 5],
		['with RateLimit-* headers', 'draft', 0],
	] as const)('a window of an hour (%s), Concurrency 5: at most one 429 per request in flight, then nothing more is sent; the rest are skipped', async (_label, headers, most429) => {
		await withSim({ proxies: 20 }, async (sim, names) => {
			sim.setRateLimit(ROTATE, hourly(headers));
			const result = await command(sim, 'rotateIp', names, { options: { concurrency: 5 } });
			expect(result.status).toBe('success');
			expect(count(sim, ROTATE, 202)).toBe(5);
			expect(count(sim, ROTATE, 429)).toBeLessThanOrEqual(most429);
			expect(apiRequests(sim, ROTATE).length).toBeLessThanOrEqual(5 + most429);
			const skipped = result.items.filter((i) => i.json.status === 'skipped');
			expect(skipped).toHaveLength(15);
			for (const item of skipped) expect(item.json.reason).toMatch(/^the service\u2019s rate limit asks to wait 3\d{3} s, longer than this run waits; not sent$/);
		});
	});

	it("Reboot: the proxy's own throttle (a 429 shorter than 5 minutes) skips only that proxy; the endpoint's hour-long limit stops the run", async () => {
		await withSim({ frozenClock: true }, async (sim, [a, b, c, d]) => {
			await command(sim, 'reboot', [a]);
			sim.resetLogs();
			sim.setRateLimit(REBOOT, { limit: 3, windowMs: 3_600_000 });
			const result = await command(sim, 'reboot', [a, b, c, d], { options: { concurrency: 1 } });
			expect(result.items.map((i) => i.json.status)).toEqual(['skipped', 'sent', 'sent', 'skipped']);
			expect(result.items[0].json.reason).toMatch(/^the service refused another reboot \(429\): the last reboot was made at about \S+, about 1 s ago/);
			expect(result.items[3].json.reason).toBe('the service\u2019s rate limit asks to wait 3600 s, longer than this run waits; not sent');
			expect(statuses(sim, REBOOT)).toEqual([429, 202, 202, 429]);
		});
	});

	it('the network model with its RateLimit-* headers: 100 proxies rotated, every one accepted, not a single 429', async () => {
		await withSim({ proxies: 100, ...NETWORK_MODEL }, async (sim, names) => {
			const result = await command(sim, 'rotateIp', names, { options: { concurrency: 5 } });
			expect(result.items.map((i) => i.json.status)).toEqual(names.map(() => 'sent'));
			expect(count(sim, ROTATE, 202)).toBe(100);
			expect(count(sim, ROTATE, 429)).toBe(0);
		});
	});

	it('X-RateLimit-* headers (reset as an epoch second) keep the run within the limit too', async () => {
		await withSim({ proxies: 12, rateLimit: { [ROTATE]: { limit: 4, windowMs: 1_000, headers: 'x' } } }, async (sim, names) => {
			const result = await command(sim, 'rotateIp', names, { options: { concurrency: 4 } });
			expect(result.items.map((i) => i.json.status)).toEqual(names.map(() => 'sent'));
			expect(statuses(sim, ROTATE)).toEqual(names.map(() => 202));
		});
	});
});
