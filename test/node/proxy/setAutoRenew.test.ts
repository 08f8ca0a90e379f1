/**
 * Proxy > Set Auto-Renew in real WorkflowExecute runs against the simulator: batching, duplicates, unknown proxies, uncertain batches, all three On Error modes.
 */
import { apiRequests } from '../../harness';
import { prng } from '../../harness/prng';
import { sim, MODES, names, pairedOf, run, renewParams } from '../../harness/suites/account';

describe('Proxy > Set Auto-Renew', () => {
	const record = (name: string) => sim.account().proxies.get(name)!;

	it('sends all items in one request and changes the proxies; off adds the removal note', async () => {
		const [a, b, c] = names();
		const result = await run(renewParams(), [
			{ name: a, on: true, interval: 3 },
			{ name: b, on: false, interval: 1 },
			{ name: c, on: true, interval: 2 },
		]);
		expect(result.status).toBe('success');
		const patches = apiRequests(sim).filter((r) => r.method === 'PATCH');
		expect(patches).toHaveLength(1);
		expect(patches[0].body).toEqual({
			proxies: {
				time: [
					{ proxy_name: a, auto_renew: true, interval: 3 },
					{ proxy_name: b, auto_renew: false, interval: 1 },
					{ proxy_name: c, auto_renew: true, interval: 2 },
				],
			},
		});
		expect(record(a)).toMatchObject({ auto_renew: true, auto_renew_interval: 3 });
		expect(record(b)).toMatchObject({ auto_renew: false, auto_renew_interval: 1 });
		expect(result.items.map((i) => i.json)).toEqual([
			{ proxy_name: a, auto_renew: true, interval: 3, status: 'updated' },
			expect.objectContaining({ proxy_name: b, auto_renew: false, status: 'updated', note: expect.stringMatching(/removed at its expiry/) }),
			{ proxy_name: c, auto_renew: true, interval: 2, status: 'updated' },
		]);
		expect(pairedOf(result.items)).toEqual([0, 1, 2]);
		expect(sim.ledger).toHaveLength(0);
		expect(JSON.stringify(result.items)).not.toContain(record(a).password);
	});

	it('reports the settings the service echoed when they differ from the request, the requested ones beside them', async () => {
		const [a, b, c] = names().slice(24, 27);
		sim.renewals.maxAutoRenewInterval = 2;
		sim.renewals.autoRenewRefused.add(b);
		try {
			const result = await run(renewParams(), [
				{ name: a, on: true, interval: 5 },
				{ name: b, on: true, interval: 1 },
				{ name: c, on: true, interval: 2 },
			]);
			expect(result.status).toBe('success');
			// One request, never re-sent; the records hold what the items say.
			expect(apiRequests(sim).filter((r) => r.method === 'PATCH')).toHaveLength(1);
			expect(record(a)).toMatchObject({ auto_renew: true, auto_renew_interval: 2 });
			expect(record(b)).toMatchObject({ auto_renew: false, auto_renew_interval: 1 });
			const [ja, jb, jc] = result.items.map((i) => i.json);
			expect(ja).toEqual({
				proxy_name: a,
				auto_renew: true,
				interval: 2,
				requested_interval: 5,
				status: 'applied_differently',
				note: 'The service applied auto-renew on with interval 2, not the requested on with interval 5.',
			});
			expect(jb).toMatchObject({ proxy_name: b, auto_renew: false, interval: 1, requested_auto_renew: true, status: 'applied_differently' });
			expect(jb).not.toHaveProperty('requested_interval');
			expect(String(jb.note)).toMatch(/^The service applied auto-renew off with interval 1, not the requested on with interval 1\. Auto-renew is off: this proxy will expire and be removed/);
			expect(jc).toEqual({ proxy_name: c, auto_renew: true, interval: 2, status: 'updated' });
			expect(pairedOf(result.items)).toEqual([0, 1, 2]);
		} finally {
			sim.renewals.maxAutoRenewInterval = undefined;
			sim.renewals.autoRenewRefused.clear();
		}
	});

	it('batches by Batch Size', async () => {
		const list = names().slice(0, 7);
		const result = await run(renewParams({ batchSize: 3 }), list.map((name) => ({ name, interval: 2 })));
		expect(result.items).toHaveLength(7);
		expect(apiRequests(sim).filter((r) => r.method === 'PATCH').map((r) => (r.body as { proxies: { time: unknown[] } }).proxies.time.length)).toEqual([3, 3, 1]);
		for (const name of list) expect(record(name).auto_renew_interval).toBe(2);
	});

	it('sends a proxy named twice with the same settings once; conflicting duplicates fail alone', async () => {
		const [a, b, c] = names().slice(10, 13);
		const result = await run(
			renewParams(),
			[{ name: a, interval: 4 }, { name: b }, { name: a, interval: 4 }, { name: c, interval: 1 }, { name: c, interval: 2 }],
			{ onError: 'continueRegularOutput' },
		);
		const patch = apiRequests(sim).filter((r) => r.method === 'PATCH');
		expect(patch).toHaveLength(1);
		expect((patch[0].body as { proxies: { time: Array<{ proxy_name: string }> } }).proxies.time.map((l) => l.proxy_name)).toEqual([a, b]);
		const items = result.output('Node Under Test', 0);
		expect(pairedOf(items)).toEqual([0, 1, 2, 3, 4]);
		expect(items[0].json.status).toBe('updated');
		// The repeat is reported as skipped, as Extend and Remove report theirs (helpers/money/batches.ts).
		expect(items[2].json).toEqual({ proxy_name: a, status: 'skipped', reason: 'same proxy as item 0 of this run, which stands for both' });
		expect(String(items[3].json.error)).toBe(`Proxy \u201c${c}\u201d is named by items 3 and 4 with different requests (auto-renew on with interval 1 and auto-renew on with interval 2) [item 3]`);
	});

	it('refuses bad input before any request, naming the item and the field', async () => {
		const result = await run(renewParams(), [{ name: names()[0], interval: 0 }]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Interval/);
		expect(result.error?.message).toMatch(/item 0|\[item 0\]/);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('an uncertain batch says it may have been applied and how to check; an earlier batch was applied', async () => {
		const list = names().slice(14, 18);
		sim.injectFault({ route: 'PATCH /v1/proxies/allocate/renew', kind: 'latency', delayMs: 0, when: 'before' });
		sim.injectFault({ route: 'PATCH /v1/proxies/allocate/renew', kind: 'reset', when: 'mid-body' });
		const result = await run(renewParams({ batchSize: 2 }), list.map((name) => ({ name, on: false })), { onError: 'continueErrorOutput' });
		const good = result.output('Node Under Test', 0);
		const bad = result.output('Node Under Test', 1);
		expect(pairedOf(good)).toEqual([0, 1]);
		expect(pairedOf(bad)).toEqual([2, 3]);
		expect(String(bad[0].json.message)).toMatch(/The auto-renew change may have been made.*not sent again.*Read the proxies/);
		expect(String(bad[0].json.message)).toMatch(/This was batch 2 of 2 \(2 proxies\), which may have been applied\. Before it in this run, the service changed the auto-renew of 2 proxies: /);
		expect(String(bad[0].json.message)).not.toMatch(/charged|expiry dates/);
		// Never repeated: one request per batch.
		expect(apiRequests(sim).filter((r) => r.method === 'PATCH')).toHaveLength(2);
	});

	it('a refused batch (nothing acted) says nothing was changed', async () => {
		sim.injectFault({ route: 'PATCH /v1/proxies/allocate/renew', kind: 'rateLimit', retryAfter: 120, times: Infinity });
		const result = await run(renewParams(), [{ name: names()[20] }], { onError: 'continueRegularOutput' });
		expect(String(result.items[0].json.message)).toMatch(/nothing was changed/);
	});

	const ROUTING_ITEMS = () => [
		{ name: names()[21] },
		{ name: 'PRX-NOPE-0000' },
		{ name: names()[22], interval: 'x' },
		{ name: names()[23], on: false },
	];

	it.each(MODES)('failed items under On Error %s', async (mode) => {
		const result = await run(renewParams(), ROUTING_ITEMS(), { onError: mode });
		if (mode === 'stopWorkflow') {
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(/^Interval must be|Interval/);
			expect(apiRequests(sim)).toHaveLength(0);
			return;
		}
		expect(result.status).toBe('success');
		const all =
			mode === 'continueRegularOutput'
				? result.output('Node Under Test', 0)
				: [...result.output('Node Under Test', 0), ...result.output('Node Under Test', 1)];
		const failed = all.filter((item) => item.json.error !== undefined);
		const good = all.filter((item) => item.json.error === undefined);
		expect(pairedOf(failed).sort()).toEqual([1, 2]);
		expect(pairedOf(good).sort()).toEqual([0, 3]);
		// n8n merges an error-output item with its input item; the regular output keeps the bare shape.
		if (mode === 'continueRegularOutput') for (const item of failed) expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
		expect(String(failed.find((i) => pairedOf([i])[0] === 1)!.json.error)).toBe('Proxy \u201cPRX-NOPE-0000\u201d was not found in this Proxy Account [item 1]');
		if (mode === 'continueErrorOutput') expect(result.output('Node Under Test', 0).every((i) => i.json.error === undefined)).toBe(true);
		expect(record(names()[23]).auto_renew).toBe(false);
	});
});

describe('Proxy > Set Auto-Renew: Maximum Renewal Commitment counts each proxy at its own price (issue 35)', () => {
	// Several proxies of one period: one quote of them all gets the bulk price, while each renews
	// alone at its own. The cap is set at the account's real commitment, and a cent below it.
	const PERIODS = ['weekly', 'monthly', 'yearly'] as const;
	const rng = prng(3501);
	const cases = Array.from({ length: 4 }, (_, k) => ({ seed: k, period: rng.pick(PERIODS), count: rng.int(2, 6), interval: rng.int(1, 3) }));

	it.each(cases)('%o: the account never ends committed above the cap', async ({ period, count, interval }) => {
		sim.account().balance = 1_000_000;
		for (const proxy of sim.account().proxies.values()) proxy.auto_renew = false;
		const added = Array.from({ length: count }, () => sim.addProxy(null, { period, auto_renew: false, auto_renew_interval: 1 }));
		// What the account commits once they all renew, as the service counts it (each at its own price).
		for (const proxy of added) Object.assign(proxy, { auto_renew: true, auto_renew_interval: interval });
		const real = sim.commitment();
		for (const proxy of added) proxy.auto_renew = false;
		expect(sim.commitment()).toBe(0);
		const items = added.map((proxy) => ({ name: proxy.proxy_name, interval }));

		const below = await run(renewParams({ maxRenewalCommitment: Math.round(real * 100 - 1) / 100 }), items);
		expect(below.error?.message).toBe(`Turning auto-renew on would commit the account to ${real} of renewals, more than the Maximum Renewal Commitment of ${Math.round(real * 100 - 1) / 100}`);
		expect(below.error?.description).toMatch(/each at its own price, quoted/);
		expect(apiRequests(sim, 'PATCH /v1/proxies/allocate/renew')).toHaveLength(0);
		expect(sim.commitment()).toBe(0);

		const at = await run(renewParams({ maxRenewalCommitment: real }), items);
		expect(at.status).toBe('success');
		expect(sim.commitment()).toBe(real);
		// Every quote held one line: no bulk price was counted.
		for (const quote of apiRequests(sim, 'POST /v1/price')) expect((quote.body as { proxies: unknown[] }).proxies).toHaveLength(1);
		for (const proxy of added) sim.account().proxies.delete(proxy.proxy_name);
	});
});
