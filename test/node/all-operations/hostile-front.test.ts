/**
 * The hardening promises that need a hostile server between the node and the simulator
 * (test/harness/hostile.ts), each in real WorkflowExecute runs: no redirect is followed (301, 302,
 * 307, 308, for reads and for the charge); Timeout is a wall-clock deadline; an extension is
 * confirmed, not assumed; Maximum Total Cost is reconciled with what was charged; a quote refusal
 * that names no line still fails one item only; Retry On Fail stays refused when the list lags.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { createHarness, HostileFront } from '../../harness';
import type { NodeResult, NodeUnderTest } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;
let front: HostileFront;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 33, proxies: 30, cities: 8, balance: 10_000_000, frozenClock: true });
	front = await HostileFront.start(sim.url);
});
afterAll(async () => {
	await front.stop();
	await sim.stop();
});
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
	front.clear();
	front.resetLog();
	front.sink.clear();
});

const names = () => [...sim.account().proxies.keys()];
const byName = (value: string) => ({ __rl: true, mode: 'name', value });
/** How to fix a failed item: its `message`. */
const fix = (item: INodeExecutionData) => String(item.json.message ?? '');
const allocates = () => sim.requests.filter((r) => r.route === 'POST /v1/proxies/allocate');

function run(parameters: IDataObject, items: IDataObject[], node: Partial<NodeUnderTest> = {}): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, ...node }, { credentials: { baseUrl: front.url, apiKey: sim.demoApiKey }, items });
}

const extendParams = (options: IDataObject = {}) => ({
	resource: 'proxy',
	operation: 'extend',
	proxyName: byName('={{ $json.name }}'),
	interval: 1,
	period: 'weekly',
	options,
});

describe('no request follows a redirect', () => {
	it.each([301, 302, 307, 308] as const)('%s on a read: a clear error naming the status and the target origin; nothing reaches it', async (status) => {
		front.add({ route: 'GET /v1/proxies', kind: 'redirect', status });
		const result = await run({ resource: 'proxy', operation: 'getAll', returnAll: true }, [{}]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			`The Proxy Account service answered with a redirect (HTTP ${status}) to ${front.sinkOrigin}, which was not followed (GET /v1/proxies)`,
		);
		expect(String((result.error as { description?: string }).description)).toMatch(/never sent on to another address/);
		expect(front.sink.requests).toHaveLength(0);
	});

	it.each([301, 302, 307, 308] as const)('%s on the charge: nothing reaches the target, nothing is sent again, and it may have been applied', async (status) => {
		front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status });
		const result = await run(extendParams(), [{ name: names()[0] }], { onError: 'continueErrorOutput' });
		const failed = result.output('Node Under Test', 1);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toBe(
			`The Proxy Account service answered with a redirect (HTTP ${status}) to ${front.sinkOrigin}, which was not followed (POST /v1/proxies/allocate)`,
		);
		expect(fix(failed[0])).toMatch(/may have been applied/);
		expect(front.sink.requests).toHaveLength(0);
		expect(front.log.filter((entry) => entry.route === 'POST /v1/proxies/allocate')).toHaveLength(1);
		expect(sim.ledger).toHaveLength(0);
	});

	it('a redirect sent after the service charged is still one request and one charge, reported as uncertain', async () => {
		front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status: 307, forward: true });
		const result = await run(extendParams(), [{ name: names()[1] }], { onError: 'continueErrorOutput' });
		expect(fix(result.output('Node Under Test', 1)[0])).toMatch(/may have been applied/);
		expect(allocates()).toHaveLength(1);
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([names()[1]]);
		expect(front.sink.requests).toHaveLength(0);
	});

	it('a Location the node cannot read is named as such', async () => {
		front.add({ route: 'GET /v1/stock', kind: 'redirect', status: 302, to: 'http://[not-a-host' });
		const result = await run({ resource: 'stock', operation: 'getAll', returnAll: true, filters: {} }, [{}]);
		expect(result.error?.message).toBe(
			'The Proxy Account service answered with a redirect (HTTP 302) to an address that could not be read, which was not followed (GET /v1/stock)',
		);
	});
});

describe('Timeout (Seconds) is a deadline', () => {
	it('a charge whose reply trickles ends at its timeout, with one request and the "may have been applied" message', async () => {
		front.add({ route: 'POST /v1/proxies/allocate', kind: 'trickle', intervalMs: 100, bytes: 4 });
		const result = await run(extendParams({ timeoutSeconds: 1 }), [{ name: names()[2] }]);
		expect(result.error?.message).toBe('The Proxy Account service did not answer within 1 s (POST /v1/proxies/allocate)');
		expect(String((result.error as { description?: string }).description)).toMatch(/may have been applied/);
		// The deadline, not the drip, ended the run: the node left before the trickled reply was
		// complete (the front saw no whole reply). Not a wall-clock bound, which a busy machine breaks.
		expect(front.log.filter((entry) => entry.route === 'POST /v1/proxies/allocate').map((entry) => entry.status)).toEqual([null]);
		expect(allocates()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(1);
	});

	it('a read whose every reply trickles ends within its retry budget', async () => {
		front.add({ route: 'GET /v1/stock', kind: 'trickle', intervalMs: 100, bytes: 4, times: Infinity });
		const started = Date.now();
		const result = await harness.runNode(
			{ type: 'transportProbe', parameters: { call: 'stock', timeoutMs: 700, retry: JSON.stringify({ budgetMs: 2_500, baseDelayMs: 50, maxDelayMs: 100, maxAttempts: 20 }) } },
			{ credentials: { baseUrl: front.url, apiKey: sim.demoApiKey } },
		);
		const elapsed = Date.now() - started;
		expect(result.error?.message).toBe('The Proxy Account service did not answer within 0.7 s (GET /v1/stock)');
		// The budget, counted by the node: each trickled attempt lasts its 0.7 s at least (a busy machine
		// only makes it longer), so 2.5 s hold at most 4 attempts; without the budget there would be 20.
		const attempts = front.log.filter((entry) => entry.route === 'GET /v1/stock');
		expect(attempts.length).toBeGreaterThanOrEqual(2);
		expect(attempts.length).toBeLessThanOrEqual(4);
		expect(attempts.every((entry) => entry.status === null)).toBe(true);
		// It ends: three times a quiet run (about 2.5 s).
		expect(elapsed).toBeLessThan(3 * 2_500);
	});
});

describe('"extended" means confirmed', () => {
	it('a read-back that lags once is read again: extended', async () => {
		front.add({ route: 'GET /v1/proxies', kind: 'lag', reads: 1 });
		const result = await run(extendParams(), [{ name: names()[3] }]);
		expect(result.items[0].json.status).toBe('extended');
		expect(result.items[0].json.new_expires_at).toBe(sim.account().proxies.get(names()[3])!.expires_at);
		expect(front.log.filter((entry) => entry.lag === 'served')).toHaveLength(1);
	});

	it('a read-back that keeps showing the old expiry: unconfirmed with a note, the charge still reported', async () => {
		front.add({ route: 'GET /v1/proxies', kind: 'lag', reads: 10 });
		const result = await run(extendParams(), [{ name: names()[4] }]);
		const json = result.items[0].json;
		expect(json.status).toBe('unconfirmed');
		expect(json.charged).toBe(sim.ledger[0].amount);
		expect(String(json.note)).toMatch(/expiry had not moved when it was read back \(3 reads\)/);
		expect(front.log.filter((entry) => entry.lag === 'served')).toHaveLength(3);
	});

	it('an allocate reply that does not list the proxy: unconfirmed, charged unknown', async () => {
		front.add({
			route: 'POST /v1/proxies/allocate',
			kind: 'rewrite',
			reply: 'transform',
			transform: (json: { data: { proxies: { time: unknown[] } } }) => {
				json.data.proxies.time = [];
				return json;
			},
		});
		const result = await run(extendParams(), [{ name: names()[5] }]);
		expect(result.items[0].json.status).toBe('unconfirmed');
		expect(result.items[0].json.charged).toBeNull();
		expect(String(result.items[0].json.note)).toMatch(/did not list this proxy/);
	});
});

describe('Maximum Total Cost is reconciled with what was charged', () => {
	it('a batch charged more than its quote: no further batch is sent; the report gives quoted against charged', async () => {
		// The quotes come back at half the price the service then charges.
		front.add({
			route: 'POST /v1/price',
			kind: 'rewrite',
			reply: 'transform',
			times: Infinity,
			transform: (json: { data: { total: { due: number } } }) => {
				json.data.total.due = json.data.total.due / 2;
				return json;
			},
		});
		const list = names().slice(6, 11);
		const result = await run(extendParams({ batchSize: 2, maxTotalCost: 10_000 }), list.map((name) => ({ name })), { onError: 'continueErrorOutput' });
		const good = result.output('Node Under Test', 0);
		const stopped = result.output('Node Under Test', 1);
		expect(allocates()).toHaveLength(1);
		const charged = sim.ledger.reduce((sum, entry) => sum + entry.amount, 0);
		// The overcharged batch is applied and paid, yet never a plain success: its items go to the error output.
		expect(good).toHaveLength(0);
		expect(stopped).toHaveLength(5);
		expect(stopped[0].json.error).toMatch(new RegExp(`^Proxy \u201c${list[0]}\u201d was extended \\(charged [\\d.]+\\), but the service charged more than allowed \\[item 0\\]$`));
		expect(fix(stopped[0])).toMatch(new RegExp(`^Batch 1 was charged ${charged}, more than the quote of ${charged / 2}\\. The extension was applied and paid`));
		expect(stopped[2].json.error).toBe(`Batch 1 was charged ${charged}, more than the quote of ${charged / 2}, so no further batch was sent`);
		expect(fix(stopped[2])).toMatch(/nothing was charged for them/);
	});

	it('the run never passes the cap by more than the one batch in flight', async () => {
		front.add({
			route: 'POST /v1/price',
			kind: 'rewrite',
			reply: 'transform',
			times: Infinity,
			transform: (json: { data: { total: { due: number } } }) => {
				json.data.total.due = Math.round(json.data.total.due * 40) / 100;
				return json;
			},
		});
		// The first batch is quoted at 40 % and charged in full, so the cap is passed in flight; no second batch follows.
		const list = names().slice(11, 17);
		const result = await run(extendParams({ batchSize: 3, maxTotalCost: 200 }), list.map((name) => ({ name })), { onError: 'continueRegularOutput' });
		expect(result.status).toBe('success');
		expect(allocates()).toHaveLength(1);
		// Quoted within the cap, charged past it: only that one batch, nothing after it.
		const batch = sim.ledger.reduce((sum, entry) => sum + entry.amount, 0);
		expect(batch).toBeGreaterThan(200);
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual(list.slice(0, 3));
	});
});

describe('one bad line fails alone, also when the refusal names no line', () => {
	it('finds the line by quoting halves, fails its item only', async () => {
		const bad = sim.addProxy(null, { city: 'Atlantis', state: 'AT' }).proxy_name;
		front.add({
			route: 'POST /v1/price',
			kind: 'rewrite',
			reply: 'transform',
			times: Infinity,
			transform: (json: { ok: boolean; message: string }) => {
				if (json.ok === false) json.message = 'Unknown location';
				return json;
			},
		});
		const list = [names()[17], names()[18], bad, names()[19]];
		const result = await run(extendParams({ dryRun: true }), list.map((name) => ({ name })), { onError: 'continueErrorOutput' });
		expect(result.output('Node Under Test', 0).map((item) => item.json.proxy_name)).toEqual([names()[17], names()[18], names()[19]]);
		const failed = result.output('Node Under Test', 1);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 2 }]);
		expect(failed[0].json.error).toBe(`Proxy \u201c${bad}\u201d cannot be priced for this extension [item 2]`);
		expect(fix(failed[0])).toMatch(/Unknown location/);
	});
});

describe('Retry On Fail can never pay twice', () => {
	it('is refused when the proxy list lags behind the charge, so n8n has nothing to repeat', async () => {
		front.add({ route: 'GET /v1/proxies', kind: 'lag', reads: 10 });
		const result = await run(extendParams({ onlyIfExpiringWithinHours: 24 }), [{ name: names()[20] }], {
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 10,
		});
		expect(result.error?.message).toBe('Retry On Fail is on, which could pay twice for the same extension');
		expect(front.log).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});
});
