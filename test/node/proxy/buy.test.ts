/**
 * Proxy > Buy through n8n-core's real WorkflowExecute against the simulator: what the ledger and the request log show about money.
 */

import { apiRequests, expectAgentRefusal } from '../../harness';
import { cityWith, sim, buy, deploys } from '../../harness/suites/orders';
import { DOUBT_WINDOW_MS } from '../../../nodes/ProxyAccount/helpers/money/ordersInDoubt';

describe('Proxy > Buy', () => {
	it('buys all items in one order, charged exactly the quote, each item with its cost', async () => {
		const att = cityWith('att', 2);
		const tmo = cityWith('tmobile', 1);
		const balance = sim.account().balance;
		const stockBefore = att.counts.att;
		const result = await buy([
			{ carrier: 'AT&T', city: att.city, quantity: 2 },
			{ carrier: 'T-Mobile', city: tmo.city, quantity: 1, period: 'monthly' },
		]);
		expect(result.status).toBe('success');
		expect(deploys()).toHaveLength(1);
		expect((deploys()[0].body as { proxies: unknown[] }).proxies).toHaveLength(3);
		const charged = Math.round((balance - sim.account().balance) * 100) / 100;
		expect(sim.ledger.filter((e) => e.kind === 'deploy')).toHaveLength(3);
		expect(result.items.map((i) => i.json.status)).toEqual(['bought', 'bought']);
		expect(result.items[0].json.total_charged).toBe(charged);
		expect((result.items[0].json.cost as number) + (result.items[1].json.cost as number)).toBeCloseTo(charged, 2);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(att.counts.att).toBe(stockBefore - 2);
	});

	it('Dry Run quotes exactly what would be bought and buys nothing; the real run then charges that estimate', async () => {
		const city = cityWith('verizon', 1);
		const dry = await buy([{ carrier: 'Verizon', city: city.city, quantity: 1 }], { dryRun: true });
		expect(dry.items[0].json).toMatchObject({ status: 'dry_run', charged: 0 });
		expect(deploys()).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
		const estimate = dry.items[0].json.estimated_total as number;
		const real = await buy([{ carrier: 'Verizon', city: city.city, quantity: 1 }]);
		expect(real.items[0].json.total_charged).toBe(estimate);
	});

	it('refuses over Maximum Total Cost before any order: nothing charged', async () => {
		const city = cityWith('att', 3);
		const result = await buy([{ carrier: 'AT&T', city: city.city, quantity: 3, interval: 4 }], { maxTotalCost: 1 }, { continueOnFail: true });
		expect(result.items[0].json.error).toMatch(/^The purchase would cost [\d.]+, more than the Maximum Total Cost of 1$/);
		expect(result.items[0].json.message).toMatch(/Nothing was bought or charged/);
		expect(deploys()).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('never sends the order twice: a reply lost after the service charged says the purchase may have been made', async () => {
		const city = cityWith('att', 1);
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'reset', when: 'after' });
		const result = await buy([{ carrier: 'AT&T', city: city.city }], {}, { continueOnFail: true });
		expect(deploys()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(1);
		expect(result.items[0].json.message).toMatch(/The purchase may have been made: the request may have reached the service, so it was not sent again/);
	});

	it('a 503 is not retried either, and a refusal (out of stock) says nothing was charged', async () => {
		const city = cityWith('att', 1);
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'status', status: 503 });
		const failed = await buy([{ carrier: 'AT&T', city: city.city }], {}, { continueOnFail: true });
		expect(deploys()).toHaveLength(1);
		expect(failed.items[0].json.message).toMatch(/may have been made/);
		sim.resetLogs();
		const empty = sim.stock.find((c) => c.open && c.counts.verizon === 0) ?? sim.stock[0];
		sim.setStockCount(empty.city, 'verizon', 0);
		// The quote prices it; the order is refused by the service before it charges.
		const refused = await buy([{ carrier: 'Verizon', city: empty.city }], {}, { continueOnFail: true });
		expect(refused.items[0].json.message).toMatch(/nothing was charged/);
		expect(sim.ledger).toHaveLength(0);
	});

	it('an empty wallet: the refusal speaks of the purchase, says nothing was charged, and nothing was bought', async () => {
		const city = cityWith('att', 1);
		sim.account().balance = 0;
		const result = await buy([{ carrier: 'AT&T', city: city.city }], {}, { continueOnFail: true });
		expect(deploys()).toHaveLength(1);
		expect(result.items[0].json.error).toMatch(/^The wallet is [\d.]+ short for this purchase/);
		expect(result.items[0].json.message).toMatch(/^The wallet holds 0\. Top up the wallet in the Proxy Account dashboard, or buy fewer proxies or for a shorter time\. .*nothing was charged/);
		expect(JSON.stringify(result.items)).not.toMatch(/extension/);
		expect(sim.ledger).toHaveLength(0);
	});

	it('refuses Retry On Fail unless Dry Run, and as an AI tool without Maximum Total Cost; nothing sent', async () => {
		const city = cityWith('att', 1);
		const retry = await buy([{ carrier: 'AT&T', city: city.city }], {}, { retryOnFail: true });
		expect(retry.status).toBe('error');
		expect(retry.error?.message).toBe('Retry On Fail is on, which could buy the same proxies twice');
		const tool = await buy([{ carrier: 'AT&T', city: city.city }], {}, { type: 'proxyAccountTool' });
		expectAgentRefusal(tool, 'As an AI agent tool, Buy needs a Maximum Total Cost and a Keep Wallet At Least set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		const dry = await buy([{ carrier: 'AT&T', city: city.city }], { dryRun: true }, { retryOnFail: true, type: 'proxyAccountTool' });
		expect(dry.status).toBe('success');
		const capped = await buy([{ carrier: 'AT&T', city: city.city }], { maxTotalCost: 10_000, keepWalletAtLeast: 1 }, { type: 'proxyAccountTool' });
		expect(capped.items[0].json.status).toBe('bought');
		expect(sim.ledger).toHaveLength(1);
	});

	it('Wait for New Proxies reads the list until new proxies of the carrier and city appear and returns them as candidates, none named', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('tmobile', 2);
		const before = new Set(sim.account().proxies.keys());
		const result = await buy([{ carrier: 'T-Mobile', city: city.city, quantity: 2 }], { waitForNewProxies: true, waitTimeoutSeconds: 10 });
		const names = result.items[0].json.candidates as string[];
		expect(result.items[0].json.status).toBe('bought');
		expect(result.items[0].json).not.toHaveProperty('new_proxies');
		expect(names).toHaveLength(2);
		for (const name of names) {
			expect(before.has(name)).toBe(false);
			expect(sim.account().proxies.get(name)).toMatchObject({ isp: 'T-Mobile', city: city.city });
		}
		expect(sim.ledger.map((e) => e.proxy_name).sort()).toEqual([...names].sort());
	});

	it('Wait for New Proxies names none when someone else bought the same carrier and city during the wait: candidates only', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('tmobile', 2);
		sim.addProxyOnNextOrder('deploy', null, { proxy_name: 'PRX-BOUGHT-ELSEWHERE', isp: 'T-Mobile', city: city.city });
		const result = await buy([{ carrier: 'T-Mobile', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 10 });
		const json = result.items[0].json;
		const bought = sim.ledger.map((e) => e.proxy_name);
		expect(bought).toHaveLength(1);
		expect(deploys()).toHaveLength(1);
		expect(json).toMatchObject({ status: 'bought_unidentified', total_charged: sim.ledger[0].amount });
		expect(json).not.toHaveProperty('new_proxies');
		expect([...(json.candidates as string[])].sort()).toEqual([bought[0], 'PRX-BOUGHT-ELSEWHERE'].sort());
		expect(String(json.note)).toMatch(/^The proxy list shows 2 new proxies of T-Mobile in .*, while this run bought 1: someone else .* none is named as bought by this item/);
	});

	it('Wait for New Proxies: a foreign purchase of the same carrier and city listed before the run\'s own is never named as the item\'s', async () => {
		sim.orders.deployDelayMs = 3_600_000; // this run's proxy is not deployed within the wait
		const city = cityWith('tmobile', 2);
		// Someone else's proxy of the same carrier and city joins the list as soon as this order is accepted.
		sim.addProxyOnNextOrder('deploy', null, { proxy_name: 'PRX-BOUGHT-ELSEWHERE', isp: 'T-Mobile', city: city.city }, -3_600_000);
		const result = await buy([{ carrier: 'T-Mobile', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 2 });
		const json = result.items[0].json;
		expect(sim.ledger).toHaveLength(1);
		expect(json).toMatchObject({ status: 'bought', candidates: ['PRX-BOUGHT-ELSEWHERE'], total_charged: sim.ledger[0].amount });
		expect(json).not.toHaveProperty('new_proxies');
		expect(String(json.note)).toMatch(/none is named as bought by this item: the candidates are the new proxies of T-Mobile in .*, and a purchase of the same carrier and city by someone else at the same time would be among them\.$/);
	});

	it('two Buy runs at once in one n8n, same carrier and city, the first order held at the gateway: one at a time, each lists only its own proxy', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('tmobile', 2);
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'latency', delayMs: 1_000, when: 'before' });
		const options = { waitForNewProxies: true, waitTimeoutSeconds: 20, maxTotalCost: 1_000 };
		const [a, b] = await Promise.all([buy([{ carrier: 'T-Mobile', city: city.city }], options), buy([{ carrier: 'T-Mobile', city: city.city }], options)]);
		const runs = [a, b].map((result) => result.items[0].json);
		expect(runs.map((json) => json.status)).toEqual(['bought', 'bought']);
		// One run at a time per credential: each run's list shows only its own new proxy.
		const named = runs.flatMap((json) => json.candidates as string[]);
		expect(named.sort()).toEqual(sim.ledger.map((entry) => entry.proxy_name).sort());
		expect(new Set(named).size).toBe(2);
		expect(deploys()).toHaveLength(2);
	});

	it('Wait for New Proxies assigns none per item when two items ordered the same carrier and city: the union as candidates', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('att', 2);
		const result = await buy([{ carrier: 'AT&T', city: city.city }, { carrier: 'AT&T', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 10 });
		const bought = sim.ledger.map((e) => e.proxy_name).sort();
		expect(bought).toHaveLength(2);
		expect(deploys()).toHaveLength(1);
		for (const item of result.items) {
			expect(item.json).toMatchObject({ status: 'bought_unidentified' });
			expect([...(item.json.candidates as string[])].sort()).toEqual(bought);
			expect(String(item.json.note)).toMatch(/^Items 0, 1 of this run ordered AT&T in .* \(2 in all\), and the proxy list shows 2 new proxies of AT&T in .* after \d+ s: which are this item's cannot be told/);
		}
	});

	it('new proxies not there by the wait timeout are reported as not yet visible, the charge kept', async () => {
		sim.orders.deployDelayMs = 3_600_000;
		const city = cityWith('att', 1);
		const result = await buy([{ carrier: 'AT&T', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 1 });
		expect(result.items[0].json).toMatchObject({ status: 'bought_not_yet_visible', candidates: [] });
		expect(String(result.items[0].json.note)).toMatch(/^The proxy list shows 0 new proxies of AT&T in .* after \d+ s, and this run bought 1\. The others should appear shortly/);
		expect(deploys()).toHaveLength(1);
	});

	it('bad input fails its item before anything is sent, naming the field; the others are bought', async () => {
		const city = cityWith('att', 1);
		const result = await buy([{ carrier: 'AT&T', city: city.city, quantity: 0 }, { carrier: 'AT&T', city: city.city }], {}, { continueOnFail: true });
		expect(result.items[0].json.error).toBe('Quantity must be a whole number from 1 to 100, but it is 0 [item 0]');
		expect(result.items[1].json.status).toBe('bought');
		expect((deploys()[0].body as { proxies: unknown[] }).proxies).toHaveLength(1);
	});
});

describe('Proxy > Buy: an order in doubt is not bought again by a retry (issue 35)', () => {
	// Two executions of one credential in one process, as an AI agent retrying "the purchase may
	// have been made" after a dropped connection: the memory of the first is the second's.
	const wallet = () => sim.account().balance;

	it.each([
		['deployed at once: the new proxy is named', 0],
		['not yet deployed: the wallet tells', 30_000],
	])('the connection dropped after the service charged (%s): the same order again is refused with the facts, nothing charged twice', async (_label, delayMs) => {
		sim.orders.deployDelayMs = delayMs;
		const city = cityWith('att', 2).city;
		const before = wallet();
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'reset', when: 'after' });
		const first = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		expect(first.items[0].json.message).toMatch(/The purchase may have been made/);
		expect(sim.ledger).toHaveLength(1);
		const charged = Math.round((before - wallet()) * 100) / 100;
		const [bought] = sim.ledger.map((entry) => entry.proxy_name);

		const again = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		const message = String(again.items[0].json.error);
		expect(message).toMatch(new RegExp(`^The same order \\(1 AT&T in ${city} for 1 weekly\\) was sent less than a minute ago and its answer was lost; it went through: the wallet holds ${wallet()}, ${charged} less than the ${before} before it \\(the order was quoted at ${charged}\\)`));
		if (delayMs === 0) expect(message).toContain(`; the proxy list shows 1 new proxy of its carrier and city since: ${bought}. It was not sent again`);
		else expect(message).toMatch(/\)\. It was not sent again$/);
		expect(String(again.items[0].json.message)).toMatch(/^Nothing was sent or charged by this run\./);
		expect(deploys()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(1);
		// A third try is refused alike: the memory holds for the window, whatever the agent does.
		const third = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		expect(String(third.items[0].json.error)).toMatch(/it went through/);
		expect(deploys()).toHaveLength(1);
	});

	it('as an AI agent tool the refusal\u2019s message carries the money fact', async () => {
		const city = cityWith('att', 1).city;
		const options = { maxTotalCost: 1_000, keepWalletAtLeast: 100 };
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'reset', when: 'after' });
		const order = [{ carrier: 'AT&T', city, quantity: 1, interval: 1, period: 'weekly' }];
		const first = await buy(order, options, { type: 'proxyAccountTool' });
		expect(first.error?.message).toMatch(/may have been made/);
		const again = await buy(order, options, { type: 'proxyAccountTool' });
		expect(again.error?.message).toMatch(/it went through: the wallet holds [\d.]+, [\d.]+ less than the [\d.]+ before it \(the order was quoted at [\d.]+\)/);
		expect(sim.ledger).toHaveLength(1);
	});

	it('the connection dropped before the service acted: the same order again reads the account, finds nothing, and buys once', async () => {
		const city = cityWith('att', 1).city;
		const before = wallet();
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'reset', when: 'before' });
		const first = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		expect(first.items[0].json.message).toMatch(/may have been made/);
		expect(sim.ledger).toHaveLength(0);
		sim.resetLogs();
		const again = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		expect(again.items[0].json.status).toBe('bought');
		expect(sim.ledger).toHaveLength(1);
		expect(wallet()).toBeLessThan(before);
		// It read the wallet and the list before deciding, then ordered.
		expect(apiRequests(sim).map((r) => r.route).slice(0, 2)).toEqual(['GET /v1/funds', 'GET /v1/proxies']);
	});

	it('another order (another quantity), or one after the window, is not held back', async () => {
		const city = cityWith('att', 3).city;
		sim.injectFault({ route: 'POST /v1/proxies/deploy', kind: 'reset', when: 'after' });
		await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
		const other = await buy([{ carrier: 'AT&T', city, quantity: 2 }], {}, { continueOnFail: true });
		expect(other.items[0].json.status).toBe('bought');
		expect(sim.ledger).toHaveLength(3);
		const now = Date.now();
		const later = jest.spyOn(Date, 'now').mockReturnValue(now + DOUBT_WINDOW_MS + 1_000);
		try {
			const after = await buy([{ carrier: 'AT&T', city }], {}, { continueOnFail: true });
			expect(after.items[0].json.status).toBe('bought');
			expect(sim.ledger).toHaveLength(4);
		} finally {
			later.mockRestore();
		}
	});
});
