/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a jest test run by Node (timers, node: modules, console); never shipped */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, createHarness, credentialsFor, HostileFront } from '../../harness';
import type { NodeResult } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

const WEEK = 7 * 24 * 3_600_000;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 21, proxies: 1000, cities: 20, balance: 10_000_000, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

const names = () => [...sim.account().proxies.keys()];
const allocates = () => apiRequests(sim, 'POST /v1/proxies/allocate');

function extend(
	proxies: string[],
	options: IDataObject = {},
	extra: { interval?: unknown; period?: unknown | null; continueOnFail?: boolean; retryOnFail?: boolean; baseUrl?: string } = {},
): Promise<NodeResult> {
	return harness.runNode(
		{
			type: 'proxyAccount',
			continueOnFail: extra.continueOnFail,
			retryOnFail: extra.retryOnFail,
			parameters: {
				resource: 'proxy',
				operation: 'extend',
				proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
				interval: extra.interval ?? 1,
				...(extra.period === null ? {} : { period: extra.period ?? 'weekly' }),
				options,
			},
		},
		{ credentials: extra.baseUrl ? { ...credentialsFor(sim), baseUrl: extra.baseUrl } : credentialsFor(sim), items: proxies.map((name) => ({ name })) },
	);
}

const description = (result: NodeResult) => String((result.error as { description?: string } | undefined)?.description ?? '');

describe('Proxy > Extend', () => {
	it('by default (Period: Same as Proxy) extends each proxy by its own billing period', async () => {
		const byPeriod = new Map<string, string>();
		for (const p of sim.account().proxies.values()) if (!byPeriod.has(p.period)) byPeriod.set(p.period, p.proxy_name);
		expect(byPeriod.size).toBeGreaterThan(1);
		const picked = [...byPeriod.values()];
		const result = await extend(picked, {}, { period: null });
		expect(result.status).toBe('success');
		const sent = allocates().flatMap((r) => (r.body as { proxies: { time: Array<{ proxy_name: string; period: string }> } }).proxies.time);
		expect(sent.map((line) => [line.proxy_name, line.period])).toEqual(picked.map((name) => [name, sim.account().proxies.get(name)!.period]));
		expect(result.items.map((item) => item.json.period)).toEqual(picked.map((name) => sim.account().proxies.get(name)!.period));
		expect(sim.ledger).toHaveLength(picked.length);
	});

	it('Same as Proxy fails only the item of a proxy whose period the service does not extend by, before any charge for it', async () => {
		const [odd, fine] = names().slice(40, 42);
		const record = sim.account().proxies.get(odd)!;
		const before = record.period;
		record.period = 'biweekly' as typeof record.period;
		try {
			const result = await extend([odd, fine], {}, { period: 'same', continueOnFail: true });
			expect(result.items[0].json.error).toBe(`Proxy \u201c${odd}\u201d has no billing period the service extends by (its period is "biweekly") [item 0]`);
			expect(result.items[1].json.status).toBe('extended');
			expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([fine]);
		} finally {
			record.period = before;
		}
	});

	it('says in the panel that it charges the wallet, and shows the Interval\'s maximum', async () => {
		const { ProxyAccount } = await import('../../../nodes/ProxyAccount/ProxyAccount.node');
		const properties = new ProxyAccount().description.properties.filter((p) => p.displayOptions?.show?.operation?.includes('extend'));
		expect(properties[0]).toMatchObject({ type: 'notice', name: 'extendNotice' });
		expect(String(properties[0].displayName)).toMatch(/charges your Proxy Account wallet.*Retry On Fail/);
		expect(properties.find((p) => p.name === 'interval')?.typeOptions).toMatchObject({ minValue: 1, maxValue: 1000 });
		expect(properties.find((p) => p.name === 'period')).toMatchObject({ default: 'same' });
	});

	it('extends 1,000 proxies in exactly 10 requests with batch size 100, each result paired to its item', async () => {
		const list = names();
		const before = new Map(list.map((name) => [name, sim.account().proxies.get(name)!.expires_at]));
		const balance = sim.account().balance;

		const result = await extend(list, { batchSize: 100 });

		expect(result.status).toBe('success');
		expect(allocates()).toHaveLength(10);
		expect(allocates().every((r) => ((r.body as { proxies: { time: unknown[] } }).proxies.time.length === 100))).toBe(true);
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(2); // one look-up before, one read-back after
		expect(result.items).toHaveLength(1000);
		expect(sim.ledger).toHaveLength(1000);

		const charged = result.items.reduce((sum, item) => sum + (item.json.charged as number), 0);
		expect(Math.round(charged * 100) / 100).toBe(Math.round((balance - sim.account().balance) * 100) / 100);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.proxy_name).toBe(list[i]);
			expect(item.json.status).toBe('extended');
			expect(item.json.previous_expires_at).toBe(before.get(list[i]));
			expect(item.json.new_expires_at).toBe(sim.account().proxies.get(list[i])!.expires_at);
			expect(item.json.batch).toBe(Math.floor(i / 100) + 1);
		});
		const now = sim.clock.now();
		const stillRunning = result.items.find((item) => Date.parse(item.json.previous_expires_at as string) > now)!;
		expect(Date.parse(stillRunning.json.new_expires_at as string) - Date.parse(stillRunning.json.previous_expires_at as string)).toBe(WEEK);
	});

	it('Dry Run returns what the extension would cost, charges nothing, and the estimate is what a real run charges', async () => {
		const list = names().slice(0, 25);
		const dry = await extend(list, { dryRun: true, batchSize: 10 });
		expect(dry.status).toBe('success');
		expect(allocates()).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
		expect(apiRequests(sim, 'POST /v1/price')).toHaveLength(3); // one quote per batch that would be sent
		expect(dry.items.map((item) => item.json.status)).toEqual(list.map(() => 'dry_run'));
		const estimated = dry.items.map((item) => item.json.estimated_cost as number);
		expect(estimated.every((cost) => cost > 0)).toBe(true);

		const real = await extend(list, { batchSize: 10 });
		expect(real.items.map((item) => item.json.charged)).toEqual(estimated);
		expect(dry.items[0].json.estimated_total).toBe(Math.round(estimated.reduce((a, b) => a + b, 0) * 100) / 100);
	});

	it('Maximum Total Cost: quotes first and sends no extension at all when the total is above it', async () => {
		const list = names().slice(0, 5);
		const result = await extend(list, { maxTotalCost: 100 });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^The extension would cost \d+(\.\d+)?, more than the Maximum Total Cost of 100$/);
		expect(description(result)).toMatch(/Nothing was sent or charged/);
		expect(allocates()).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);

		const withinCap = await extend(list.slice(0, 1), { maxTotalCost: 100 });
		expect(withinCap.status).toBe('success');
		expect(sim.ledger).toHaveLength(1);
	});

	it('Maximum Total Cost with continue on fail: every item gets the refusal, paired, nothing charged', async () => {
		const result = await extend(names().slice(0, 3), { maxTotalCost: 1 }, { continueOnFail: true });
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items.every((item) => /more than the Maximum Total Cost of 1/.test(String(item.json.error)))).toBe(true);
		expect(allocates()).toHaveLength(0);
	});

	it('Only If Expiring Within: a workflow that runs twice pays once', async () => {
		const now = sim.clock.now();
		const at = (hours: number) => new Date(now + hours * 3_600_000).toISOString();
		const soon = [2, 10, 23].map((h) => sim.addProxy(null, { expires_at: at(h) }).proxy_name);
		const expired = sim.addProxy(null, { expires_at: at(-5) }).proxy_name;
		const later = [30, 200].map((h) => sim.addProxy(null, { expires_at: at(h) }).proxy_name);
		// The same proxy twice in one run (e.g. from a join) is extended once.
		const list = [...soon, expired, ...later, soon[0]];

		const first = await extend(list, { onlyIfExpiringWithinHours: 24 });
		const second = await extend(list, { onlyIfExpiringWithinHours: 24 });

		expect(first.status).toBe('success');
		expect(first.items.map((item) => item.json.status)).toEqual([
			'extended', 'extended', 'extended', 'extended', 'skipped', 'skipped', 'skipped',
		]);
		expect(first.items[4].json.reason).toMatch(/^expires in 30 h, later than the 24 h window$/);
		expect(first.items[6].json.reason).toBe('same proxy as item 0 of this run, which stands for both');
		expect(second.status).toBe('success');
		expect(second.items.every((item) => item.json.status === 'skipped' && item.json.charged === 0)).toBe(true);
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([...soon, expired]);
		expect(allocates()).toHaveLength(1);
	});

	describe('Proxy From: Field of Each Input Item', () => {
		const fromField = (items: IDataObject[], proxyNameField: string, options: IDataObject = {}, continueOnFail = false) =>
			harness.runNode(
				{
					type: 'proxyAccount',
					continueOnFail,
					parameters: { resource: 'proxy', operation: 'extend', proxySource: 'field', proxyNameField, interval: 1, period: 'weekly', options },
				},
				{ credentials: credentialsFor(sim), items },
			);
		const comparable = (result: NodeResult) =>
			result.items.map((item) => ({ ...item.json, previous_expires_at: undefined, new_expires_at: undefined, pairedItem: item.pairedItem }));

		it('extends exactly as the Proxy parameter with {{ $json.name }} does: same requests, charges and items', async () => {
			const list = names().slice(100, 130);
			const byExpression = await extend(list, { batchSize: 10, onlyIfExpiringWithinHours: 8760 });
			expect(byExpression.status).toBe('success');
			const sentByExpression = allocates().map((request) => request.body);
			const chargedByExpression = sim.ledger.map((entry) => [entry.proxy_name, entry.amount]);
			sim.resetLogs();
			const byField = await fromField(list.map((proxy_name) => ({ proxy_name })), 'proxy_name', { batchSize: 10, onlyIfExpiringWithinHours: 8760 });
			expect(byField.status).toBe('success');
			expect(allocates().map((request) => request.body)).toEqual(sentByExpression);
			expect(sim.ledger.map((entry) => [entry.proxy_name, entry.amount])).toEqual(chargedByExpression);
			expect(comparable(byField)).toEqual(comparable(byExpression));
		});

		it('reads a nested field with dots, and a key that itself has a dot', async () => {
			const [a, b] = names().slice(130, 132);
			const nested = await fromField([{ proxy: { name: a } }, { proxy: { name: b } }], 'proxy.name');
			expect(nested.items.map((item) => [item.json.proxy_name, item.json.status])).toEqual([[a, 'extended'], [b, 'extended']]);
			const dotted = await fromField([{ 'proxy.name': a }], 'proxy.name');
			expect(dotted.items[0].json).toMatchObject({ proxy_name: a, status: 'extended' });
		});

		it('an item without the field fails before anything is sent, naming the item, the field and the fields it has', async () => {
			const result = await fromField([{ proxy_name: names()[132] }, { name: names()[133] }], 'proxy_name');
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe('Proxy Name Field \u201cproxy_name\u201d is not a field of this item [item 1]');
			expect(description(result)).toMatch(/Set Proxy From to Proxy Parameter\. Fields of this item: name\.$/i);
			expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(0);
			expect(sim.ledger).toHaveLength(0);
		});

		it('an empty value or a non-text value fails its own item with Continue On Fail; the others are extended', async () => {
			const [a, b] = names().slice(134, 136);
			const result = await fromField([{ proxy_name: a }, { proxy_name: '  ' }, { proxy_name: [1] }, { proxy_name: b }], 'proxy_name', {}, true);
			expect(result.items.map((item) => item.json.status ?? item.json.error)).toEqual([
				'extended',
				'Proxy Name Field \u201cproxy_name\u201d is empty [item 1]',
				'Proxy Name Field \u201cproxy_name\u201d holds object, not a proxy name [item 2]',
				'extended',
			]);
			expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([a, b]);
		});

		it('an empty Proxy Name Field refuses the whole run, without an item number, before anything is sent', async () => {
			const result = await fromField([{ proxy_name: names()[136] }], ' ');
			expect(result.error?.message).toBe('Proxy Name Field is empty');
			expect(sim.requests).toHaveLength(0);
		});
	});

	describe('Only If Expiring Within: each batch is checked against a fresh list right before it is charged', () => {
		const lists = () => apiRequests(sim, 'GET /v1/proxies');
		const soonProxies = (count: number) => {
			const now = sim.clock.now();
			return Array.from({ length: count }, (_, i) => sim.addProxy(null, { expires_at: new Date(now + (2 + i) * 3_600_000).toISOString() }).proxy_name);
		};
		const waitFor = async (condition: () => boolean) => {
			for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
			expect(condition()).toBe(true);
		};

		it('a proxy extended by someone else between the quote and the charge is skipped, not paid again', async () => {
			const [taken, free] = soonProxies(2);
			// The quote waits 400 ms; meanwhile the proxy is extended elsewhere (another run, the dashboard).
			sim.injectFault({ route: 'POST /v1/price', kind: 'latency', delayMs: 400, when: 'before' });
			const running = extend([taken, free], { onlyIfExpiringWithinHours: 24, maxTotalCost: 100_000 });
			await waitFor(() => apiRequests(sim, 'POST /v1/price').length > 0);
			const record = sim.account().proxies.get(taken)!;
			const extendedTo = new Date(sim.clock.now() + 170 * 3_600_000).toISOString();
			record.expires_at = extendedTo;
			const result = await running;

			expect(result.status).toBe('success');
			expect(result.items[0].json).toMatchObject({
				proxy_name: taken,
				status: 'skipped',
				charged: 0,
				new_expires_at: extendedTo,
				reason: 'extended meanwhile (by another run or in the dashboard): expires in 170 h, later than the 24 h window',
			});
			expect(result.items[1].json).toMatchObject({ proxy_name: free, status: 'extended' });
			expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([free]);
			// The first read, the one right before the charge, the read-back.
			expect(lists()).toHaveLength(3);
		});

		it('two overlapping runs (in two n8n processes): the later one pays nothing for what the earlier one charged after the later one\'s first read', async () => {
			const list = soonProxies(4);
			// One n8n runs one credential's Extends one at a time; another process (here: another Base URL to the same account) does not wait.
			const front = await HostileFront.start(sim.url);
			try {
				sim.injectFault({ route: 'POST /v1/price', kind: 'latency', delayMs: 400, when: 'before', times: 2 });
				const first = extend(list, { onlyIfExpiringWithinHours: 24, maxTotalCost: 100_000 });
				await waitFor(() => apiRequests(sim, 'POST /v1/price').length === 1);
				await new Promise((resolve) => setTimeout(resolve, 100));
				// The second run reads the list while the first one waits for its quote: all four still expire soon.
				const second = extend(list, { onlyIfExpiringWithinHours: 24, maxTotalCost: 100_000 }, { baseUrl: front.url });
				const [a, b] = await Promise.all([first, second]);

				expect(a.items.map((item) => item.json.status)).toEqual(['extended', 'extended', 'extended', 'extended']);
				expect(b.items.map((item) => item.json.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
				expect(b.items.every((item) => /^extended meanwhile/.test(String(item.json.reason)))).toBe(true);
				expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual(list);
				expect(allocates()).toHaveLength(1);
			} finally {
				await front.stop();
			}
		});

		it('every batch after the first is checked again; without the option nothing is read again', async () => {
			const list = soonProxies(6);
			const checked = await extend(list, { onlyIfExpiringWithinHours: 24, batchSize: 2 });
			expect(checked.items.every((item) => item.json.status === 'extended')).toBe(true);
			// The first read, one before batches 2 and 3, the read-back.
			expect(lists()).toHaveLength(4);
			expect(sim.ledger).toHaveLength(6);

			sim.resetLogs();
			const plain = await extend(soonProxies(6), { batchSize: 2 });
			expect(plain.items.every((item) => item.json.status === 'extended')).toBe(true);
			expect(lists()).toHaveLength(2);
		});

		it('when the read before a batch fails, the batch goes ahead as planned from the first read', async () => {
			const list = soonProxies(4);
			sim.injectFault({ route: 'GET /v1/proxies', kind: 'latency', delayMs: 0, when: 'before' });
			sim.injectFault({ route: 'GET /v1/proxies', kind: 'malformed' });
			const result = await extend(list, { onlyIfExpiringWithinHours: 24, batchSize: 2 });
			expect(result.status).toBe('success');
			expect(result.items.map((item) => item.json.status)).toEqual(['extended', 'extended', 'extended', 'extended']);
			expect(sim.ledger).toHaveLength(4);
		});
	});

	it('a failed batch fails only its own items; the others stay extended; nothing is sent again', async () => {
		const list = names().slice(0, 30);
		// Faults are taken in order: batch 1 passes (a zero delay), batch 2 gets a 503, batch 3 passes.
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 0, when: 'before' });
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'status', status: 503, body: { ok: false, message: 'Busy' } });

		const result = await extend(list, { batchSize: 10 }, { continueOnFail: true });

		expect(result.status).toBe('success');
		expect(allocates()).toHaveLength(3);
		expect(result.items).toHaveLength(30);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			if (i >= 10 && i < 20) {
				expect(item.json.error).toMatch(/could not handle the request \(HTTP 503/);
				expect(String(item.json.message)).toMatch(/This was batch 2 of 3 \(10 proxies\)/);
			} else {
				expect(item.json.status).toBe('extended');
			}
		});
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([...list.slice(0, 10), ...list.slice(20, 30)]);
	});

	it('without continue on fail, the node stops at the failed batch and says what was already extended', async () => {
		const list = names().slice(0, 30);
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 0, when: 'before' });
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'reset', when: 'after' });

		const result = await extend(list, { batchSize: 10 });

		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/closed before its answer arrived \(POST \/v1\/proxies\/allocate\)/);
		expect(description(result)).toMatch(/not sent again/);
		expect(description(result)).toMatch(/batch 2 of 3 \(10 proxies\), which may have been applied\. Before it in this run, the service extended 10 proxies: (PRX-[^,]+, ){9}PRX-[^,]+, charged \d+ in all\./);
		expect(allocates()).toHaveLength(2);
		expect(sim.ledger).toHaveLength(20); // batch 2 was processed before the connection dropped; it was not repeated
	});

	it('an extension that timed out is not sent again', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 2_500, when: 'after' });
		const result = await extend(names().slice(0, 2), { timeoutSeconds: 1 });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service did not answer within 1 s (POST /v1/proxies/allocate)');
		await new Promise((resolve) => setTimeout(resolve, 1_700));
		expect(allocates()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(2);
	});

	it('an unknown proxy is a clear error naming it, found before anything is charged', async () => {
		const result = await extend([names()[0], 'PRX-NOPE-0000', names()[1]]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Proxy \u201cPRX-NOPE-0000\u201d was not found in this Proxy Account [item 1]');
		expect(description(result)).toMatch(/Nothing was sent or charged for this proxy/);
		expect(allocates()).toHaveLength(0);

		sim.resetLogs();
		const tolerant = await extend([names()[0], 'PRX-NOPE-0000', names()[1]], {}, { continueOnFail: true });
		expect(tolerant.items.map((item) => item.json.status ?? 'error')).toEqual(['extended', 'error', 'extended']);
		expect(tolerant.items[1].pairedItem).toEqual({ item: 1 });
		expect(sim.ledger).toHaveLength(2);
	});

	it.each([
		['interval 0', { interval: 0 }, /^Interval must be a whole number from 1 to 1000, but it is 0 \[item 0\]$/],
		['interval -1', { interval: -1 }, /^Interval must be a whole number .* but it is -1 \[item 0\]$/],
		['interval 1.5', { interval: 1.5 }, /^Interval must be a whole number .* but it is 1\.5 \[item 0\]$/],
		['interval "abc"', { interval: 'abc' }, /^Interval must be a whole number .* but it is \u201cabc\u201d \[item 0\]$/],
		['interval 1e12', { interval: 1e12 }, /^Interval must be a whole number .* but it is 1000000000000 \[item 0\]$/],
		['interval from an expression resolving to null', { interval: '={{ null }}' }, /^Interval must be a whole number .* but it is empty/],
		['an unknown period', { period: 'fortnightly' }, /^Period must be one of hourly, daily, weekly, monthly, yearly, but it is \u201cfortnightly\u201d \[item 0\]$/],
	])('refuses %s before any request', async (_label, extra, message) => {
		const result = await extend([names()[0]], {}, extra);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		expect(sim.requests).toHaveLength(0);
	});

	it.each([
		['empty', ''],
		['whitespace', '   '],
		['very long', 'P'.repeat(500)],
	])('refuses a proxy name that is %s before any request', async (_label, name) => {
		const result = await extend([name]);
		expect(result.error?.message).toMatch(/^Proxy (is empty|is longer than 200 characters) \[item 0\]$/);
		expect(sim.requests).toHaveLength(0);
	});

	it('with continue on fail, a bad item becomes an error item and the good ones go ahead', async () => {
		const result = await harness.runNode(
			{
				type: 'proxyAccount',
				continueOnFail: true,
				parameters: {
					resource: 'proxy',
					operation: 'extend',
					proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
					interval: '={{ $json.interval }}',
					period: 'weekly',
				},
			},
			{ credentials: credentialsFor(sim), items: [{ name: names()[0], interval: 1 }, { name: names()[1], interval: 0 }] },
		);
		expect(result.items[0].json.status).toBe('extended');
		expect(result.items[1].json.error).toMatch(/^Interval must be .* \[item 1\]$/);
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([names()[0]]);
	});

	it('refuses to run with Retry On Fail, the expiring guard set or not; Dry Run may run with it', async () => {
		for (const options of [{}, { onlyIfExpiringWithinHours: 24 }, { onlyIfExpiringWithinHours: 50_000 }]) {
			const unsafe = await extend([names()[0]], options, { retryOnFail: true });
			expect(unsafe.status).toBe('error');
			expect(unsafe.error?.message).toBe('Retry On Fail is on, which could pay twice for the same extension');
		}
		expect(sim.requests).toHaveLength(0);

		const dry = await extend([names()[0]], { dryRun: true }, { retryOnFail: true });
		expect(dry.status).toBe('success');
		expect(dry.items[0].json.status).toBe('dry_run');
		expect(sim.ledger).toHaveLength(0);
	});

	it.each([0, Infinity])('refuses a Timeout (Seconds) of %s before any request', async (timeoutSeconds) => {
		const result = await extend([names()[0]], { timeoutSeconds });
		expect(result.error?.message).toBe(`Timeout (Seconds) must be a whole number from 1 to 600, but it is ${timeoutSeconds}`);
		expect(sim.requests).toHaveLength(0);
	});

	it('refuses a Batch Size above the limit before any request', async () => {
		const result = await extend([names()[0]], { batchSize: 5000 });
		expect(result.error?.message).toBe('Batch Size must be a whole number from 1 to 1000, but it is 5000');
		expect(sim.requests).toHaveLength(0);
	});
});
