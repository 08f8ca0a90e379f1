/**
 * Proxy > Buy and Proxy > Remove through n8n-core's real WorkflowExecute against the simulator:
 * what the ledger and the request log show about money and irreversible removals.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, asAgentTool, cityWith as stockCity, createHarness, credentialsFor } from '../harness';
import type { NodeResult } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

const harness = createHarness([asAgentTool()]);
const cityWith = (carrierKey: string, count: number) => stockCity(sim, carrierKey, count);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 9, proxies: 8, cities: 8, balance: 5_000, frozenClock: true });
});
afterEach(async () => await sim.stop());

type Order = { carrier: string; city: string; quantity?: number; interval?: number; period?: string };

function buy(orders: Order[], options: IDataObject = {}, node: { type?: string; continueOnFail?: boolean; onError?: string; retryOnFail?: boolean } = {}): Promise<NodeResult> {
	return harness.runNode(
		{
			type: node.type ?? 'proxyAccount',
			continueOnFail: node.continueOnFail,
			retryOnFail: node.retryOnFail,
			parameters: {
				resource: 'proxy',
				operation: 'buy',
				carrier: '={{ $json.carrier }}',
				city: '={{ $json.city }}',
				quantity: '={{ $json.quantity }}',
				interval: '={{ $json.interval }}',
				period: '={{ $json.period }}',
				options,
			},
		},
		{ credentials: credentialsFor(sim), items: orders.map((o) => ({ quantity: 1, interval: 1, period: 'weekly', ...o })) },
	);
}

const deploys = () => apiRequests(sim, 'POST /v1/proxies/deploy');

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
		expect(tool.error?.message).toBe('As an AI agent tool, Buy needs a Maximum Total Cost and a Keep Wallet At Least set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		const dry = await buy([{ carrier: 'AT&T', city: city.city }], { dryRun: true }, { retryOnFail: true, type: 'proxyAccountTool' });
		expect(dry.status).toBe('success');
		const capped = await buy([{ carrier: 'AT&T', city: city.city }], { maxTotalCost: 10_000, keepWalletAtLeast: 0 }, { type: 'proxyAccountTool' });
		expect(capped.items[0].json.status).toBe('bought');
		expect(sim.ledger).toHaveLength(1);
	});

	it('Wait for New Proxies reads the list until the new proxies appear and returns their names', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('tmobile', 2);
		const before = new Set(sim.account().proxies.keys());
		const result = await buy([{ carrier: 'T-Mobile', city: city.city, quantity: 2 }], { waitForNewProxies: true, waitTimeoutSeconds: 10 });
		const names = result.items[0].json.new_proxies as string[];
		expect(result.items[0].json.status).toBe('bought');
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
		expect(json).toMatchObject({ status: 'bought_unidentified', new_proxies: [], total_charged: sim.ledger[0].amount });
		expect([...(json.candidates as string[])].sort()).toEqual([bought[0], 'PRX-BOUGHT-ELSEWHERE'].sort());
		expect(String(json.note)).toMatch(/^The proxy list shows 2 new proxies of T-Mobile in .*, while this run bought 1: someone else .* None is named as bought by this item/);
	});

	it('Wait for New Proxies assigns none per item when two items ordered the same carrier and city: the union as candidates', async () => {
		sim.orders.deployDelayMs = 0;
		const city = cityWith('att', 2);
		const result = await buy([{ carrier: 'AT&T', city: city.city }, { carrier: 'AT&T', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 10 });
		const bought = sim.ledger.map((e) => e.proxy_name).sort();
		expect(bought).toHaveLength(2);
		expect(deploys()).toHaveLength(1);
		for (const item of result.items) {
			expect(item.json).toMatchObject({ status: 'bought_unidentified', new_proxies: [] });
			expect([...(item.json.candidates as string[])].sort()).toEqual(bought);
			expect(String(item.json.note)).toMatch(/^Items 0, 1 of this run ordered AT&T in .*, so which new proxies are this item's cannot be told \(2 of 2 listed\)/);
		}
	});

	it('new proxies not there by the wait timeout are reported as not yet visible, the charge kept', async () => {
		sim.orders.deployDelayMs = 3_600_000;
		const city = cityWith('att', 1);
		const result = await buy([{ carrier: 'AT&T', city: city.city }], { waitForNewProxies: true, waitTimeoutSeconds: 1 });
		expect(result.items[0].json).toMatchObject({ status: 'bought_not_yet_visible', new_proxies: [] });
		expect(String(result.items[0].json.note)).toMatch(/^0 of 1 new proxy was in the proxy list after \d+ s/);
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

function remove(names: string[], confirmCount: unknown, options: IDataObject = {}, node: { continueOnFail?: boolean; retryOnFail?: boolean } = {}): Promise<NodeResult> {
	return harness.runNode(
		{
			type: 'proxyAccount',
			continueOnFail: node.continueOnFail,
			retryOnFail: node.retryOnFail,
			parameters: {
				resource: 'proxy',
				operation: 'remove',
				proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
				confirmCount,
				options,
			},
		},
		{ credentials: credentialsFor(sim), items: names.map((name) => ({ name })) },
	);
}

const removals = () => apiRequests(sim, 'DELETE /v1/proxies/remove');

describe('Proxy > Remove', () => {
	it('removes the named proxies in one request when the confirmation matches; they leave the list shortly', async () => {
		const [a, b] = [...sim.account().proxies.keys()];
		const result = await remove([a, b, a], 2);
		expect(result.status).toBe('success');
		expect(removals()).toHaveLength(1);
		expect((removals()[0].body as { proxies: string[] }).proxies).toEqual([a, b]);
		expect(result.items.map((i) => i.json.status)).toEqual(['removal_sent', 'removal_sent', 'skipped']);
		expect(sim.account().proxies.has(a)).toBe(true); // a 202: not yet
		sim.clock.advance(60_000);
		const list = await harness.runNode({ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'getAll', returnAll: true } }, { credentials: credentialsFor(sim) });
		const names = list.items.map((i) => i.json.proxy_name);
		expect(names).not.toContain(a);
		expect(names).not.toContain(b);
	});

	it('is refused, and nothing is sent, when the confirmation is not the number of proxies', async () => {
		const names = [...sim.account().proxies.keys()].slice(0, 3);
		for (const confirm of [0, 2, 4, '={{ "three" }}']) {
			sim.resetLogs();
			const result = await remove(names, confirm, {}, { continueOnFail: true });
			expect(result.items).toHaveLength(3);
			for (const item of result.items) expect(item.json.error).toMatch(/^Confirm Number of Proxies (is \d+, but this run would remove 3 proxies|must be a whole number)/);
			expect(apiRequests(sim)).toHaveLength(0);
		}
		expect(sim.account().proxies.size).toBe(8);
	});

	it('Dry Run removes nothing; Retry On Fail is refused; an unknown name fails its own item only', async () => {
		const [a, b] = [...sim.account().proxies.keys()];
		const dry = await remove([a, b], 2, { dryRun: true });
		expect(dry.items.map((i) => i.json.status)).toEqual(['dry_run', 'dry_run']);
		expect(removals()).toHaveLength(0);
		const retry = await remove([a], 1, {}, { retryOnFail: true });
		expect(retry.error?.message).toBe('Retry On Fail is on, which could send a removal twice');
		const mixed = await remove([a, 'PRX-NOT-THERE'], 2, {}, { continueOnFail: true });
		expect(mixed.items[1].json.error).toBe('Proxy \u201cPRX-NOT-THERE\u201d was not found in this Proxy Account [item 1]');
		expect((removals()[0].body as { proxies: string[] }).proxies).toEqual([a]);
	});

	it('a removal whose reply is lost is never sent again and says what to check', async () => {
		const [a] = [...sim.account().proxies.keys()];
		sim.injectFault({ route: 'DELETE /v1/proxies/remove', kind: 'status', status: 502 });
		const result = await remove([a], 1, {}, { continueOnFail: true });
		expect(removals()).toHaveLength(1);
		expect(result.items[0].json.message).toMatch(/The removal may have been made: .*Read the proxy list/);
	});
});

function move(name: string, carrier: string, city: string, options: IDataObject = {}, node: { type?: string; continueOnFail?: boolean } = {}): Promise<NodeResult> {
	return harness.runNode(
		{
			type: node.type ?? 'proxyAccount',
			continueOnFail: node.continueOnFail,
			parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: name }, carrier, city, copySettings: true, options },
		},
		{ credentials: credentialsFor(sim) },
	);
}

describe('Proxy > Change Location', () => {
	it.each(['new', 'old', 'absent'] as const)('gives the old and the new name when the reply carries the %s name', async (reply) => {
		sim.orders.swapReplyName = reply;
		sim.orders.swapDelayMs = 0;
		const [name] = [...sim.account().proxies.keys()];
		const city = cityWith('tmobile', 1);
		const result = await move(name, 'T-Mobile', city.city);
		expect(result.status).toBe('success');
		const json = result.items[0].json;
		expect(json).toMatchObject({ status: 'moved', old_proxy_name: name, carrier: 'T-Mobile', city: city.city });
		// The service's list (read after the move) holds the new name, not the old one.
		const list = await harness.runNode({ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'getAll', returnAll: true } }, { credentials: credentialsFor(sim) });
		expect(list.items.find((item) => item.json.proxy_name === json.new_proxy_name)?.json).toMatchObject({ isp: 'T-Mobile', city: city.city });
		expect(list.items.some((item) => item.json.proxy_name === name)).toBe(false);
		expect(apiRequests(sim, 'POST /v1/proxies/swap/:name')).toHaveLength(1);
	});

	/** Moves each named proxy to the carrier and city in one run; Copy Settings off (new username and password). */
	function moveAll(names: string[], carrier: string, city: string, options: IDataObject = { waitTimeoutSeconds: 10 }): Promise<NodeResult> {
		return harness.runNode(
			{
				type: 'proxyAccount',
				parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, carrier, city, copySettings: false, options },
			},
			{ credentials: credentialsFor(sim), items: names.map((name) => ({ name })) },
		);
	}

	/** Two proxies with the same paid time, told apart here (not by the node) by their nicknames, which a move keeps. */
	function twoAlike(): [string, string] {
		const [a, b] = [...sim.account().proxies.keys()];
		const expires = sim.account().proxies.get(a)!.expires_at;
		Object.assign(sim.account().proxies.get(a)!, { nickname: 'first', expires_at: expires });
		Object.assign(sim.account().proxies.get(b)!, { nickname: 'second', expires_at: expires });
		return [a, b];
	}
	const nicknameOf = (name: unknown) => [...sim.account().proxies.values()].find((p) => p.proxy_name === name)?.nickname;
	const swaps = () => apiRequests(sim, 'POST /v1/proxies/swap/:name');

	it.each(['absent', 'old'] as const)('two items moved to the same carrier and city are each given their own new name (reply: %s name)', async (reply) => {
		sim.orders.swapReplyName = reply;
		sim.orders.swapDelayMs = 0;
		const [a, b] = twoAlike();
		const city = cityWith('verizon', 2);
		const result = await moveAll([a, b], 'Verizon', city.city);
		expect(swaps()).toHaveLength(2);
		const [first, second] = result.items.map((item) => item.json);
		expect(first).toMatchObject({ status: 'moved', old_proxy_name: a });
		expect(second).toMatchObject({ status: 'moved', old_proxy_name: b });
		expect(nicknameOf(first.new_proxy_name)).toBe('first');
		expect(nicknameOf(second.new_proxy_name)).toBe('second');
	});

	it('when the first item could not see its move, the second cannot tell the two apart: no name, both as candidates', async () => {
		sim.orders.swapReplyName = 'absent';
		sim.orders.swapDelayMs = 0;
		const [a, b] = twoAlike();
		const city = cityWith('verizon', 2);
		// The read before the moves answers; the first item's one read shows an empty list.
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'latency', delayMs: 0, when: 'before' });
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'emptyList' });
		const result = await moveAll([a, b], 'Verizon', city.city, { waitTimeoutSeconds: 1 });
		expect(swaps()).toHaveLength(2);
		const moved = [...sim.account().proxies.values()].filter((p) => p.nickname === 'first' || p.nickname === 'second');
		const [first, second] = result.items.map((item) => item.json);
		expect(first).toMatchObject({ status: 'move_sent', old_proxy_name: a, new_proxy_name: null });
		expect(second).toMatchObject({ status: 'moved_unidentified', old_proxy_name: b, new_proxy_name: null });
		expect(moved).toHaveLength(2);
		expect([...(second.candidates as string[])].sort()).toEqual(moved.map((p) => p.proxy_name).sort());
		expect(String(second.note)).toMatch(/^The proxy left the list, and 2 new proxies of Verizon in .* could be it .* so none is named\. The candidates may include proxies this run did not move/);
	});

	it.each(['absent', 'old'] as const)('a proxy someone else adds in that carrier and city meanwhile is never named (reply: %s name)', async (reply) => {
		sim.orders.swapReplyName = reply;
		sim.orders.swapDelayMs = 0;
		const [a, b] = twoAlike();
		const paid = sim.account().proxies.get(a)!.expires_at;
		const city = cityWith('verizon', 1);
		// A foreign proxy with another paid time: the moved one is told by its paid time.
		sim.addProxyOnNextOrder('swap', null, { proxy_name: 'PRX-FOREIGN-1', isp: 'Verizon', city: city.city, nickname: null });
		const told = await moveAll([a], 'Verizon', city.city);
		expect(told.items[0].json).toMatchObject({ status: 'moved', old_proxy_name: a });
		expect(nicknameOf(told.items[0].json.new_proxy_name)).toBe('first');
		// A foreign proxy with the same paid time: it cannot be told from the moved one.
		sim.addProxyOnNextOrder('swap', null, { proxy_name: 'PRX-FOREIGN-2', isp: 'Verizon', city: city.city, expires_at: paid });
		const untold = await moveAll([b], 'Verizon', city.city);
		expect(untold.items[0].json).toMatchObject({ status: 'moved_unidentified', old_proxy_name: b, new_proxy_name: null });
		const moved = [...sim.account().proxies.values()].find((p) => p.nickname === 'second')!;
		expect([...(untold.items[0].json.candidates as string[])].sort()).toEqual([moved.proxy_name, 'PRX-FOREIGN-2'].sort());
		expect(swaps()).toHaveLength(2);
	});

	it('a move not visible by the wait timeout is reported as sent, with no new name', async () => {
		sim.orders.swapReplyName = 'absent';
		const [name] = [...sim.account().proxies.keys()];
		const result = await move(name, 'AT&T', cityWith('att', 1).city, { waitTimeoutSeconds: 0 });
		expect(result.items[0].json).toMatchObject({ status: 'move_sent', old_proxy_name: name, new_proxy_name: null });
	});

	it('an empty wallet, when a move costs money: the refusal speaks of the change of location, nothing moved', async () => {
		sim.orders.swapPrice = 5;
		sim.account().balance = 0;
		const [name] = [...sim.account().proxies.keys()];
		const result = await move(name, 'AT&T', cityWith('att', 1).city, {}, { continueOnFail: true });
		expect(apiRequests(sim, 'POST /v1/proxies/swap/:name')).toHaveLength(1);
		expect(result.items[0].json.error).toBe('The wallet is 5 short for this change of location');
		expect(result.items[0].json.message).toMatch(/^The wallet holds 0\. Top up the wallet in the Proxy Account dashboard\. .*nothing was changed/);
		expect(JSON.stringify(result.items)).not.toMatch(/extension|extend/);
		expect(sim.ledger).toHaveLength(0);
		expect(sim.account().proxies.has(name)).toBe(true);
	});

	it('is never sent twice, and as an AI tool it needs Allow as AI Tool', async () => {
		const [name] = [...sim.account().proxies.keys()];
		sim.injectFault({ route: 'POST /v1/proxies/swap/:name', kind: 'status', status: 504 });
		const failed = await move(name, 'AT&T', cityWith('att', 1).city, {}, { continueOnFail: true });
		expect(apiRequests(sim, 'POST /v1/proxies/swap/:name')).toHaveLength(1);
		expect(failed.items[0].json.message).toMatch(/The change of location may have been made/);
		sim.resetLogs();
		const tool = await move(name, 'AT&T', cityWith('att', 1).city, {}, { type: 'proxyAccountTool' });
		expect(tool.error?.message).toBe('As an AI agent tool, Change Location needs Allow as AI Tool and a Keep Wallet At Least, set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});
