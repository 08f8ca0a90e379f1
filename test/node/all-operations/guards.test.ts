/**
 * The account operations' guards against agents, retries and a service that charges more than
 * asked, through n8n-core's real WorkflowExecute against the simulator; every property is proven
 * from the simulator's ledger and request log.
 *
 * - Limits only the builder can set: as an AI agent's tool, a cap or confirmation filled by the
 *   agent (`$fromAI` in any spelling, or an expression reading the tool's input) counts as none.
 * - Run-wide options: an expression that gives items different values is refused before anything
 *   is sent, naming the option.
 * - Charged versus capped: a charge above the quote or the cap never comes out as a success.
 * - Dry Run always previews; n8n's Retry of a failed execution (mode `retry`) never acts again.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, asAgentTool, expectAgentRefusal, HostileFront, cityWith as stockCity, createHarness, credentialsFor } from '../../harness';
import type { NodeResult, NodeUnderTest } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([asAgentTool()]);
const cityWith = (carrierKey: string, count: number) => stockCity(sim, carrierKey, count);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 11, proxies: 8, cities: 8, balance: 50_000, frozenClock: true });
});
afterEach(async () => await sim.stop());

const names = () => [...sim.account().proxies.keys()];
const locator = (value: string) => ({ __rl: true, mode: 'name', value });
const byName = '={{ $json.name }}';
/** As a tool, the proxy is the agent's declared choice ($fromAI), read from the tool call's input. */
const chosenByAgent = "={{ $fromAI('name', 'the proxy', 'string') }}";
const target = (type: string) => locator(type.endsWith('Tool') ? chosenByAgent : byName);
const deploys = () => apiRequests(sim, 'POST /v1/proxies/deploy');
const allocates = () => apiRequests(sim, 'POST /v1/proxies/allocate');
const removals = () => apiRequests(sim, 'DELETE /v1/proxies/remove');
const renewals = () => apiRequests(sim, 'PATCH /v1/proxies/allocate/renew');
const swaps = () => apiRequests(sim, 'POST /v1/proxies/swap/:name');

type Run = Partial<NodeUnderTest> & { parameters: Record<string, unknown> };
const run = (node: Run, items: IDataObject[] = [{}], mode?: 'retry' | 'manual'): Promise<NodeResult> =>
	harness.runNode({ type: 'proxyAccount', ...node }, { credentials: credentialsFor(sim), items, mode });

const extend = (options: IDataObject, type = 'proxyAccount', extra: Partial<NodeUnderTest> = {}) => ({
	type,
	...extra,
	parameters: { resource: 'proxy', operation: 'extend', proxyName: target(type), interval: 1, period: 'weekly', options },
});

const buy = (options: IDataObject, type = 'proxyAccount', extra: Partial<NodeUnderTest> = {}) => ({
	type,
	...extra,
	parameters: {
		resource: 'proxy',
		operation: 'buy',
		...(type.endsWith('Tool')
			? { carrier: "={{ $fromAI('carrier') }}", city: "={{ $fromAI('city') }}", quantity: "={{ $fromAI('quantity', '', 'number') }}" }
			: { carrier: '={{ $json.carrier }}', city: '={{ $json.city }}', quantity: '={{ $json.quantity }}' }),
		interval: 1,
		period: 'weekly',
		options,
	},
});

const remove = (confirmCount: unknown, options: IDataObject = {}, type = 'proxyAccount', extra: Partial<NodeUnderTest> = {}) => ({
	type,
	...extra,
	parameters: { resource: 'proxy', operation: 'remove', proxyName: target(type), confirmCount, options },
});

const errorMessages = (result: NodeResult) => [result.error?.message, ...result.items.map((i) => i.json.error)].filter(Boolean);

describe('As an AI agent tool, a limit counts only when the builder set it', () => {
	const agentFilled = [
		["$fromAI('cap', 'the cap', 'number')", '$fromAI'],
		["$fromai('cap')", 'lower-case $fromai'],
		["$fromAi( 'cap' )", '$fromAi with spaces'],
		["/*n8n-auto-generated-fromAI-override*/ $fromAI('cap', ``, 'number')", "n8n's generated override"],
		['$json.cap', 'the tool input ($json)'],
		['$input.first().json.cap', 'the tool input ($input)'],
		['Number(`${$json.cap}`)', 'the tool input inside a template literal'],
		["Math.min(100000, $fromAI('cap'))", 'a $fromAI that could only lower it'],
	];

	it.each(agentFilled)('Extend: a Maximum Total Cost of {{ %s }} (%s) counts as none; nothing is sent', async (expression) => {
		const result = await run(extend({ maxTotalCost: `={{ ${expression} }}`, keepWalletAtLeast: 1 }, 'proxyAccountTool'), [{ name: names()[0], cap: 100_000 }]);
		// Read from the tool call's input item: refused as such; filled with $fromAI: counts as no cap.
		const fromInput = !/fromai/i.test(expression);
		expectAgentRefusal(result, fromInput ? 'As an AI agent tool, Options > Maximum Total Cost may not be read from the tool call\u2019s input item' : 'As an AI agent tool, Extend needs a Maximum Total Cost set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it.each([
		['a literal', 1_000],
		['an expression of constants', '={{ 500 * 2 }}'],
		["an expression reading another node's output by name", "={{ $('Manual Trigger').first().json.budget }}"],
	])('Extend: a builder-set cap (%s) counts, and the tool charges within it', async (_label, cap) => {
		const result = await run(extend({ maxTotalCost: cap, keepWalletAtLeast: 1 }, 'proxyAccountTool'), [{ name: names()[0], budget: 1_000 }]);
		expect(result.status).toBe('success');
		expect(result.items[0].json.status).toBe('extended');
		expect(sim.ledger).toHaveLength(1);
	});

	it('Buy: an agent-filled Maximum Total Cost counts as none, a builder-set one counts', async () => {
		const city = cityWith('att', 1).city;
		const item = { carrier: 'AT&T', city, quantity: 1, cap: 100_000 };
		const filled = await run(buy({ maxTotalCost: "={{ $fromAI('cap', '', 'number') }}", keepWalletAtLeast: 1 }, 'proxyAccountTool'), [item]);
		expectAgentRefusal(filled, 'As an AI agent tool, Buy needs a Maximum Total Cost set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		const capped = await run(buy({ maxTotalCost: 1_000, keepWalletAtLeast: 1 }, 'proxyAccountTool'), [item]);
		expect(capped.status).toBe('success');
		expect(deploys()).toHaveLength(1);
	});

	it('Remove only previews: a confirmation, typed or filled, removes nothing; a Dry Run previews', async () => {
		const [target] = names();
		for (const confirmation of ["={{ $fromAI('count', '', 'number') }}", 1]) {
			const refused = await run(remove(confirmation, {}, 'proxyAccountTool'), [{ name: target, count: 1 }]);
			expectAgentRefusal(refused, 'As an AI agent tool, Remove needs Dry Run: as a tool it only previews what a removal would take');
		}
		const fromInput = await run(remove('={{ $json.count }}', {}, 'proxyAccountTool'), [{ name: target, count: 1 }]);
		expectAgentRefusal(fromInput, 'As an AI agent tool, Confirm Number of Proxies may not be read from the tool call\u2019s input item');
		expect(apiRequests(sim)).toHaveLength(0);
		const preview = await run(remove(0, { dryRun: true }, 'proxyAccountTool'), [{ name: target }]);
		expect(preview.status).toBe('success');
		expect(preview.items[0].json).toMatchObject({ proxy_name: target, status: 'dry_run', would_remove: true });
		expect(removals()).toHaveLength(0);
		expect(sim.account().proxies.has(target)).toBe(true);
	});

	it('Change Location: Allow as AI Tool filled by the agent counts as not allowed', async () => {
		const [target] = names();
		const city = cityWith('tmobile', 1).city;
		const parameters = (allowAsTool: unknown) => ({
			resource: 'proxy',
			operation: 'changeLocation',
			proxyName: locator(target),
			carrier: 'T-Mobile',
			city,
			options: { allowAsTool, keepWalletAtLeast: 1, maxMoveCost: 0, waitTimeoutSeconds: 0 },
		});
		const filled = await run({ type: 'proxyAccountTool', parameters: parameters("={{ $fromAI('allow', '', 'boolean') }}") }, [{ allow: true }]);
		expectAgentRefusal(filled, 'As an AI agent tool, Change Location needs Allow as AI Tool turned on by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		const allowed = await run({ type: 'proxyAccountTool', parameters: parameters(true) });
		expect(allowed.status).toBe('success');
		expect(swaps()).toHaveLength(1);
	});

	it('the same agent-filled cap still counts in a regular workflow (not a tool)', async () => {
		const result = await run(extend({ maxTotalCost: '={{ $json.cap }}' }), [{ name: names()[0], cap: 1 }]);
		expect(result.error?.message).toMatch(/more than the Maximum Total Cost of 1$/);
		expect(allocates()).toHaveLength(0);
	});
});

describe('Set Auto-Renew: turning auto-renew on as a tool needs a builder-set Maximum Renewal Commitment', () => {
	const renew = (options: IDataObject, type = 'proxyAccountTool', interval: unknown = 1) => ({
		type,
		parameters: { resource: 'proxy', operation: 'setAutoRenew', proxyName: target(type), autoRenew: true, interval, options },
	});
	const two = () => names().slice(0, 2).map((name) => ({ name, commitment: 1_000_000 }));
	// The commitment is the account's: these tests start from an account where nothing auto-renews.
	beforeEach(() => {
		for (const proxy of sim.account().proxies.values()) proxy.auto_renew = false;
	});
	const committed = () => [...sim.account().proxies.values()].filter((p) => p.auto_renew).map((p) => p.proxy_name);

	it('without one, or with one the agent fills in, it refuses; nothing is sent', async () => {
		for (const options of [{}, { maxRenewalCommitment: "={{ $fromAI('commitment', '', 'number') }}" }]) {
			const result = await run(renew(options), two());
			expectAgentRefusal(result, 'As an AI agent tool, turning auto-renew on needs a Maximum Renewal Commitment set by the workflow\u2019s builder');
		}
		expectAgentRefusal(await run(renew({ maxRenewalCommitment: '={{ $json.commitment }}' }), two()), 'As an AI agent tool, Options > Maximum Renewal Commitment may not be read from the tool call\u2019s input item');
		expect(renewals()).toHaveLength(0);
	});

	it('one renewal of the proxies (interval x price, quoted) above the commitment is refused; within it, sent once', async () => {
		const over = await run(renew({ maxRenewalCommitment: 1 }), two());
		expect(over.error?.message).toMatch(/^Turning auto-renew on would commit the account to [\d.]+ of renewals, more than the Maximum Renewal Commitment of 1\. The account's auto-renewing proxies commit 0 at their next renewals; this change adds [\d.]+ \(one renewal of this proxy, each at its own price, quoted\), [\d.]+ in all\. Nothing was changed\./);
		expect(renewals()).toHaveLength(0);
		expect(apiRequests(sim, 'POST /v1/price')).toHaveLength(1);
		const within = await run(renew({ maxRenewalCommitment: 100_000 }), two());
		expect(within.status).toBe('success');
		expect(renewals()).toHaveLength(1);
	});

	it('a builder may use the commitment outside agents too: 52 weeks of a weekly proxy cost more than 1 week', async () => {
		const weekly = [...sim.account().proxies.values()].find((p) => p.period === 'weekly')!;
		const oneWeek = await run(renew({ maxRenewalCommitment: 200 }, 'proxyAccount', 1), [{ name: weekly.proxy_name }]);
		expect(oneWeek.error?.message).toBeUndefined();
		const quoted = (apiRequests(sim, 'POST /v1/price')[0].body as { proxies: IDataObject[] }).proxies[0];
		expect(quoted.interval).toBe(1);
		expect(oneWeek.status).toBe('success');
		sim.resetLogs();
		weekly.auto_renew = false;
		const year = await run(renew({ maxRenewalCommitment: 200 }, 'proxyAccount', 52), [{ name: weekly.proxy_name }]);
		expect(year.error?.message).toMatch(/more than the Maximum Renewal Commitment of 200$/);
		expect(renewals()).toHaveLength(0);
	});

	it('calls one after another: the account\u2019s commitment stays within the cap; each later call is refused with the figures', async () => {
		const cap = 400;
		const outcomes: string[] = [];
		for (const name of names().slice(0, 6)) {
			const result = await run(renew({ maxRenewalCommitment: cap }), [{ name }]);
			outcomes.push(result.status === 'success' ? 'on' : String(result.error?.message));
			const funds = (await (await fetch(`${sim.url}/v1/funds`, { headers: { authorization: `Bearer ${sim.demoApiKey}` } })).json()) as { data: { upcoming: { total: { total_commitment: number } } } };
			const commitment = funds.data.upcoming.total.total_commitment;
			expect(commitment).toBeLessThanOrEqual(cap);
		}
		expect(committed().length).toBeGreaterThan(0);
		expect(committed().length).toBeLessThan(6);
		const refused = outcomes.filter((o) => o !== 'on');
		expect(refused[0]).toMatch(/^Turning auto-renew on would commit the account to [\d.]+ of renewals, more than the Maximum Renewal Commitment of 400\. The account's auto-renewing proxies commit [1-9][\d.]* at their next renewals/);
		expect(refused[0]).toMatch(/Nothing was changed\./);
	});

	it('a commitment within the cap but above what the wallet holds is refused: the wallet pays the renewals', async () => {
		sim.account().balance = 5;
		const result = await run(renew({ maxRenewalCommitment: 100_000 }), [{ name: names()[0] }]);
		expect(result.error?.message).toMatch(/^Turning auto-renew on would commit the account to [\d.]+ of renewals, more than the wallet holds \(5\)\. .*Add funds to the wallet/);
		expect(renewals()).toHaveLength(0);
		expect(committed()).toHaveLength(0);
	});
});

describe('Run-wide options: an item-dependent expression is refused, naming the option, before anything is sent', () => {
	it('Buy: Dry Run true for one item and false for another buys nothing', async () => {
		const city = cityWith('att', 2).city;
		const result = await run(buy({ dryRun: '={{ $json.dry }}', maxTotalCost: 10_000 }), [
			{ carrier: 'AT&T', city, quantity: 1, dry: true },
			{ carrier: 'AT&T', city, quantity: 1, dry: false },
		]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Dry Run must be the same for every item of the run, but it is true for item 0 and false for item 1');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('Buy: an item-dependent Maximum Total Cost is refused in every On Error mode, each item on the error output', async () => {
		const city = cityWith('att', 2).city;
		const items = [
			{ carrier: 'AT&T', city, quantity: 1, cap: 1_000 },
			{ carrier: 'AT&T', city, quantity: 1, cap: 5 },
		];
		const stop = await run(buy({ maxTotalCost: '={{ $json.cap }}' }), items);
		expect(stop.error?.message).toMatch(/^Maximum Total Cost must be the same for every item of the run/);
		const regular = await run(buy({ maxTotalCost: '={{ $json.cap }}' }, 'proxyAccount', { onError: 'continueRegularOutput' }), items);
		expect(regular.items.map((i) => i.json.error)).toEqual([stop.error?.message, stop.error?.message]);
		const errorOutput = await run(buy({ maxTotalCost: '={{ $json.cap }}' }, 'proxyAccount', { onError: 'continueErrorOutput' }), items);
		expect(errorOutput.output('Node Under Test', 1)).toHaveLength(2);
		expect(errorOutput.items).toHaveLength(0);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('Remove: an item-dependent confirmation removes nothing; Extend: an item-dependent Dry Run charges nothing', async () => {
		const [a, b] = names();
		const removal = await run(remove('={{ $json.n }}'), [{ name: a, n: 2 }, { name: b, n: 1 }]);
		expect(removal.error?.message).toBe('Confirm Number of Proxies must be the same for every item of the run, but it is 2 for item 0 and 1 for item 1');
		const extension = await run(extend({ dryRun: '={{ $json.dry }}' }), [{ name: a, dry: false }, { name: b, dry: true }]);
		expect(extension.error?.message).toMatch(/^Dry Run must be the same for every item/);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('Quote: Simplify and Combine All Items hold for the run too', async () => {
		const city = cityWith('att', 1).city;
		const result = await run(
			{ parameters: { resource: 'price', operation: 'quote', lines: { line: [{ carrier: 'AT&T', city, interval: 1, period: 'weekly' }] }, simplify: '={{ $json.simple }}' } },
			[{ simple: true }, { simple: false }],
		);
		expect(result.error?.message).toBe('Simplify must be the same for every item of the run, but it is true for item 0 and false for item 1');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('an expression that gives every item the same value runs as usual', async () => {
		const [a, b] = names();
		const result = await run(extend({ dryRun: '={{ $json.dry }}' }), [{ name: a, dry: true }, { name: b, dry: true }]);
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.json.status)).toEqual(['dry_run', 'dry_run']);
		expect(sim.ledger).toHaveLength(0);
	});
});

describe('What was charged versus what was capped', () => {
	it('Buy: the price moves between the quote and the order; the item fails (error output), the charge is reported', async () => {
		const city = cityWith('att', 1).city;
		sim.changePricesAfterNextQuote(2);
		const before = sim.account().balance;
		const result = await run(buy({ maxTotalCost: 1_000 }, 'proxyAccount', { onError: 'continueErrorOutput' }), [{ carrier: 'AT&T', city, quantity: 1 }]);
		expect(deploys()).toHaveLength(1);
		const charged = Math.round((before - sim.account().balance) * 100) / 100;
		expect(result.items).toHaveLength(0);
		const [failed] = result.output('Node Under Test', 1);
		const quoted = (apiRequests(sim, 'POST /v1/price')).length;
		expect(quoted).toBe(1);
		expect(failed.json.error).toMatch(new RegExp(`^The proxies were bought, but the service charged ${charged}, more than the quote of [\\d.]+$`));
		expect(failed.json.message).toMatch(/do not run the purchase again/);
	});

	it('Buy: a charge above Maximum Total Cost stops the workflow with both amounts', async () => {
		const city = cityWith('att', 1).city;
		const quote = await run(buy({ dryRun: true }), [{ carrier: 'AT&T', city, quantity: 1 }]);
		const estimate = quote.items[0].json.estimated_total as number;
		sim.resetLogs();
		sim.changePricesAfterNextQuote(3);
		const result = await run(buy({ maxTotalCost: estimate * 2 }), [{ carrier: 'AT&T', city, quantity: 1 }]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(new RegExp(`more than the quote of ${estimate} and the Maximum Total Cost of ${estimate * 2}$`));
		expect(deploys()).toHaveLength(1);
	});

	it('Extend: a batch charged above its quote fails its items instead of reporting them extended; no further batch is sent', async () => {
		const [a, b, c] = names();
		sim.changePricesAfterNextQuote(2);
		const result = await run(
			extend({ maxTotalCost: 10_000, batchSize: 2 }, 'proxyAccount', { onError: 'continueRegularOutput' }),
			[{ name: a }, { name: b }, { name: c }],
		);
		expect(allocates()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(2);
		const json = result.items.map((i) => i.json);
		expect(json[0].error).toMatch(/was extended \(charged [\d.]+\), but the service charged more than allowed \[item 0\]$/);
		expect(json[0].message).toMatch(/^Batch 1 was charged [\d.]+, more than the quote of [\d.]+\. The extension was applied and paid/);
		expect(json[2].error).toMatch(/^Batch 1 was charged [\d.]+, more than the quote of [\d.]+, so no further batch was sent/);
		expect(json.some((j) => j.status === 'extended')).toBe(false);
	});
});

describe('A Dry Run always previews', () => {
	it('Buy: an estimate above Maximum Total Cost shows both amounts; lines out of stock are flagged', async () => {
		const full = cityWith('att', 2);
		const empty = sim.stock.find((c) => c.open && c.counts.verizon === 0) ?? sim.stock[0];
		sim.setStockCount(empty.city, 'verizon', 0);
		const result = await run(buy({ dryRun: true, maxTotalCost: 1 }), [
			{ carrier: 'AT&T', city: full.city, quantity: 2 },
			{ carrier: 'Verizon', city: empty.city, quantity: 1 },
		]);
		expect(result.status).toBe('success');
		const [att, verizon] = result.items.map((i) => i.json);
		expect(att).toMatchObject({ status: 'dry_run', over_max_total_cost: true, max_total_cost: 1, in_stock: true, available: full.counts.att });
		expect(att.estimated_total).toBeGreaterThan(1);
		expect(verizon).toMatchObject({ status: 'dry_run', in_stock: false, available: 0 });
		expect(verizon.note).toMatch(/Out of stock: 0 Verizon proxies are available in/);
		expect(deploys()).toHaveLength(0);
	});

	it('Extend: an estimate above Maximum Total Cost shows both amounts instead of failing', async () => {
		const result = await run(extend({ dryRun: true, maxTotalCost: 1 }), [{ name: names()[0] }]);
		expect(result.status).toBe('success');
		expect(result.items[0].json).toMatchObject({ status: 'dry_run', max_total_cost: 1, over_max_total_cost: true });
		expect(allocates()).toHaveLength(0);
	});

	it('Remove: a Dry Run needs no confirmation and says what it would have to be', async () => {
		const [a, b] = names();
		const result = await run(remove(0, { dryRun: true }), [{ name: a }, { name: b }, { name: a }]);
		expect(result.status).toBe('success');
		expect(result.items.slice(0, 2).map((i) => i.json.confirm_count_needed)).toEqual([2, 2]);
		expect(result.items[0].json.note).toBe('To remove these 2 proxies, set Confirm Number of Proxies to 2 and turn off Dry Run.');
		expect(removals()).toHaveLength(0);
	});
});

describe("n8n's Retry of a failed execution (mode retry) never acts again", () => {
	it.each([
		['Buy', () => buy({ maxTotalCost: 1_000 }), /buy the same proxies twice$/],
		['Extend', () => extend({}), /pay twice for the same extension$/],
		['Remove', () => remove(1), /send a removal twice$/],
		['Change Location', () => ({ parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: locator(byName), carrier: 'T-Mobile', city: cityWith('tmobile', 1).city } }), /move a proxy twice$/],
	])('%s refuses, says how to check and how to run again on purpose; nothing is sent', async (_op, node, twice) => {
		const item = { name: names()[0], carrier: 'AT&T', city: cityWith('att', 1).city, quantity: 1 };
		const result = await run(node() as Run, [item], 'retry');
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^This is a retry of a failed execution, which could /);
		expect(result.error?.message).toMatch(twice);
		expect(result.error?.description).toMatch(/run the workflow anew .* instead of retrying the failed execution\. Nothing was sent\.$/);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it.each([
		['Buy', () => buy({ maxTotalCost: 1_000 }), /buy the same proxies twice$/],
		['Extend', () => extend({}), /pay twice for the same extension$/],
		['Remove', () => remove(1), /send a removal twice$/],
		['Rotate IP', () => ({ parameters: { resource: 'proxy', operation: 'rotateIp', proxyName: locator(byName), options: {} } }), /send the IP change twice$/],
	])('%s in a sub-workflow of a retried execution (mode integrated, root mode retry) refuses; nothing is sent', async (_op, node, twice) => {
		const item = { name: names()[0], carrier: 'AT&T', city: cityWith('att', 1).city, quantity: 1 };
		const result = await harness.runNode({ type: 'proxyAccount', ...(node() as Run) }, { credentials: credentialsFor(sim), items: [item], mode: 'integrated', rootMode: 'retry' });
		expect(result.error?.message).toMatch(/^This is a retry of a failed execution \(this node runs in a sub-workflow of it\), which could /);
		expect(result.error?.message).toMatch(twice);
		expect(apiRequests(sim)).toHaveLength(0);
		// The same sub-workflow under a first run (root mode trigger) acts.
		const first = await harness.runNode({ type: 'proxyAccount', ...(node() as Run) }, { credentials: credentialsFor(sim), items: [item], mode: 'integrated', rootMode: 'trigger' });
		expect(first.error?.message ?? '').not.toMatch(/retry/);
	});

	it('a Dry Run still previews in a retry', async () => {
		const result = await run(extend({ dryRun: true }), [{ name: names()[0] }], 'retry');
		expect(result.status).toBe('success');
		expect(result.items[0].json.status).toBe('dry_run');
	});
});

describe('Remove: a failed later batch says which earlier batches the service accepted', () => {
	it('150 proxies, the second request fails: its error and every later item name what was removed before', async () => {
		for (let i = 0; i < 142; i++) sim.addProxy(null, { proxy_name: `PRX-EXTRA-${String(i).padStart(4, '0')}` });
		const all = names();
		expect(all.length).toBe(150);
		sim.injectFault({ route: 'DELETE /v1/proxies/remove', kind: 'latency', delayMs: 1 });
		sim.injectFault({ route: 'DELETE /v1/proxies/remove', kind: 'status', status: 503 });
		const result = await run(remove(150, {}, 'proxyAccount', { onError: 'continueRegularOutput' }), all.map((name) => ({ name })));
		expect(removals()).toHaveLength(2);
		const json = result.items.map((i) => i.json);
		expect(json.slice(0, 100).every((j) => j.status === 'removal_sent')).toBe(true);
		expect(json[100].message).toMatch(/Before it in this run, the service accepted the removal of 100 proxies: /);
		expect(json[149].message).toMatch(/Before it in this run, the service accepted the removal of 100 proxies/);
		const stop = await run(remove(1), [{ name: 'PRX-NOT-THERE' }]);
		expect(errorMessages(stop)[0]).toMatch(/was not found/);
	});
});

describe('Keep Wallet At Least: a floor that bounds any number of calls', () => {
	it('as a tool, a spending operation needs the floor too; one the agent fills in counts as none', async () => {
		const filled = await run(extend({ maxTotalCost: 1_000, keepWalletAtLeast: "={{ $fromAI('floor', '', 'number') }}" }, 'proxyAccountTool'), [{ name: names()[0], floor: 0 }]);
		expectAgentRefusal(filled, 'As an AI agent tool, Extend needs a Keep Wallet At Least set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('repeated capped Extend calls as a tool stop at the floor; the wallet never goes below it', async () => {
		sim.account().balance = 1_000;
		const floor = 700;
		const weekly = [...sim.account().proxies.values()].filter((p) => p.period === 'weekly').map((p) => p.proxy_name);
		const outcomes: string[] = [];
		for (let call = 0; call < 12; call++) {
			const result = await run(extend({ maxTotalCost: 200, keepWalletAtLeast: floor }, 'proxyAccountTool'), [{ name: weekly[call % weekly.length] }]);
			outcomes.push(result.status === 'success' ? 'charged' : String(result.error?.message));
			expect(sim.account().balance).toBeGreaterThanOrEqual(floor);
		}
		const refused = outcomes.filter((o) => o !== 'charged');
		expect(refused.length).toBeGreaterThan(0);
		// As a tool, the message carries the facts: the amounts, and that this proxy was not charged.
		expect(refused[0]).toMatch(/^This extension would take the wallet below Keep Wallet At Least: [\d.]+ in the wallet, [\d.]+ to pay, 700 to keep\. .*nothing was charged for it/);
		// Its fix, as Buy gives it: add funds or lower the floor.
		expect(refused[0]).toMatch(/Add funds to the wallet, lower Keep Wallet At Least in the node\u2019s options, or spend less\.$/);
		expect(outcomes.indexOf(refused[0])).toBeGreaterThan(0);
		// Every refused call read the wallet and sent no extension.
		expect(allocates()).toHaveLength(outcomes.filter((o) => o === 'charged').length);
	});

	it('calls at the same moment in one n8n process go one at a time: the floor holds exactly', async () => {
		// Every call extends one proxy by one week (Period: Weekly), whatever the proxy's own period.
		const weekly = names();
		const call = (name: string) => run(extend({ maxTotalCost: 200, keepWalletAtLeast: 900 }, 'proxyAccountTool'), [{ name }]);
		sim.account().balance = 1_000;
		// Five parallel calls (as an agent's turn makes them), each wallet read slowed: one charge, four refusals.
		sim.injectFault({ route: 'GET /v1/funds', kind: 'latency', delayMs: 200, times: 5 });
		const all = await Promise.all(weekly.slice(0, 5).map(call));
		expect(all.filter((r) => r.status === 'success')).toHaveLength(1);
		for (const refused of all.filter((r) => r.status === 'error')) expect(refused.error?.message).toMatch(/^This extension would take the wallet below Keep Wallet At Least: 9\d\d in the wallet/);
		expect(sim.ledger).toHaveLength(1);
		expect(sim.account().balance).toBeGreaterThanOrEqual(900);
		// Each later call read the wallet after the one before had charged.
		const reads = apiRequests(sim, 'GET /v1/funds');
		const charge = apiRequests(sim, 'POST /v1/proxies/allocate')[0];
		expect(reads.filter((r) => r.seq > charge.seq)).toHaveLength(4);
	});

	it('calls at the same moment in two processes (two Base URLs to one account) can both pass: below the floor by at most one call\u2019s charge', async () => {
		const weekly = names();
		const front = await HostileFront.start(sim.url);
		try {
			const call = (name: string, baseUrl: string) =>
				harness.runNode(extend({ maxTotalCost: 200, keepWalletAtLeast: 900 }, 'proxyAccountTool'), { credentials: { baseUrl, apiKey: sim.demoApiKey }, items: [{ name }] });
			sim.account().balance = 1_000;
			sim.injectFault({ route: 'GET /v1/funds', kind: 'latency', delayMs: 400, times: 2 });
			const both = await Promise.all([call(weekly[2], sim.url), call(weekly[3], front.url)]);
			const charged = sim.ledger.reduce((sum, entry) => sum + entry.amount, 0);
			expect(both.map((r) => r.error?.message ?? r.status)).toEqual(['success', 'success']);
			expect(sim.account().balance).toBeLessThan(900);
			expect(sim.account().balance).toBeGreaterThanOrEqual(900 - 200);
			expect(charged).toBeLessThanOrEqual(2 * 200);
		} finally {
			await front.stop();
		}
	});

	it('Extend: a wallet that cannot be read refuses with the cause and the fix; nothing is charged', async () => {
		sim.injectFault({ route: 'GET /v1/funds', kind: 'status', status: 503, times: 10 });
		const result = await run(extend({ maxTotalCost: 1_000, keepWalletAtLeast: 100 }), [{ name: names()[0] }]);
		expect(result.error?.message).toBe('The wallet could not be read, so Keep Wallet At Least could not be checked');
		const description = String((result.error as { description?: string }).description);
		expect(description).toMatch(/503|not available|did not answer|service/i);
		expect(description).toMatch(/Run it again once the service answers\.$/);
		expect(allocates()).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('Buy reads the wallet before it orders and buys nothing that would pass the floor', async () => {
		const city = cityWith('att', 1).city;
		sim.account().balance = 150;
		const result = await run(buy({ keepWalletAtLeast: 100 }), [{ carrier: 'AT&T', city, quantity: 1 }]);
		expect(result.error?.message).toMatch(/^This purchase would take the wallet below Keep Wallet At Least: 150 in the wallet, [\d.]+ to pay, 100 to keep$/);
		expect(apiRequests(sim, 'GET /v1/funds')).toHaveLength(1);
		expect(deploys()).toHaveLength(0);
		expect(sim.account().balance).toBe(150);
	});
});
