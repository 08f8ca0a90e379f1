/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console); never shipped */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, asAgentTool, cityWith, createHarness, credentialsFor, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
	settings?: { executionOrder?: 'v0' | 'v1' };
}

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const load = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as ExampleWorkflow;

const harness = createHarness([new ProxyAccountTrigger(), asAgentTool()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 31, proxies: 12, cities: 8, balance: 2_000, frozenClock: true });
});
afterEach(async () => await sim.stop());

const HOUR = 3_600_000;

describe('examples/scheduled-auto-extend.json', () => {
	const workflow = load('scheduled-auto-extend.json');

	it('extends exactly the proxies expiring within 24 hours, within the cost cap, and pays once when run twice', async () => {
		const now = sim.clock.now();
		const expiring = [...sim.account().proxies.values()]
			.filter((p) => Date.parse(p.expires_at) - now <= 24 * HOUR)
			.map((p) => p.proxy_name)
			.sort();
		expect(expiring.length).toBeGreaterThan(1);
		const balance = sim.account().balance;

		const first = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{ timestamp: new Date(now).toISOString() }] });

		expect(first.status).toBe('success');
		const [summary] = first.output('Summary');
		expect(summary.json.extended).toBe(expiring.length);
		expect(sim.ledger.map((entry) => entry.proxy_name).sort()).toEqual(expiring);
		expect(summary.json.total_charged).toBe(Math.round((balance - sim.account().balance) * 100) / 100);
		expect(summary.json.total_charged as number).toBeLessThanOrEqual(500);
		expect(String(summary.json.proxies)).toContain(expiring[0]);

		expect(summary.json.failed).toBe(0);
		expect(summary.json.summary).toBe(`${expiring.length} extended, 0 skipped, 0 failed: ${summary.json.total_charged} charged`);
		expect(first.output('Compose Alert')).toHaveLength(0);

		// The schedule fires again: nothing is due, and the summary still comes, saying so.
		const second = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{}] });
		expect(second.status).toBe('success');
		expect(second.output('Proxies Expiring Within 24 Hours')).toHaveLength(0);
		expect(second.output('Summary').map((item) => item.json)).toEqual([
			{ extended: 0, skipped: 0, failed: 0, total_charged: 0, proxies: '', summary: '0 extended, 0 skipped, 0 failed: 0 charged' },
		]);
		expect(second.output('Compose Alert')).toHaveLength(0);
		expect(sim.ledger).toHaveLength(expiring.length);
	});

	it('Extend\u2019s error output is wired to the alert: a wallet too short fails every proxy, the alert names each, nothing is charged', async () => {
		const now = sim.clock.now();
		const expiring = [...sim.account().proxies.values()].filter((p) => Date.parse(p.expires_at) - now <= 24 * HOUR).map((p) => p.proxy_name).sort();
		sim.account().balance = 1;
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{}] });
		expect(result.status).toBe('success');
		expect(workflow.nodes.find((node) => node.name === 'Extend One Week')?.onError).toBe('continueErrorOutput');
		const alerts = result.output('Compose Alert').map((item) => item.json);
		expect(alerts.map((a) => a.proxy_name).sort()).toEqual(expiring);
		for (const alert of alerts) {
			expect(String(alert.alert)).toMatch(new RegExp(`^Proxy Account auto-extend failed for ${String(alert.proxy_name)}: `));
			expect(String(alert.message)).toMatch(/nothing was charged/i);
		}
		expect(apiRequests(sim, 'POST /v1/proxies/allocate').length).toBeGreaterThan(0);
		expect(sim.ledger).toHaveLength(0);
		const [summary] = result.output('Summary');
		expect(summary.json).toMatchObject({ extended: 0, failed: expiring.length, total_charged: 0, summary: `0 extended, 0 skipped, ${expiring.length} failed: 0 charged` });
	});

	it('the cost cap stops a run that would cost more than 500 before anything is charged, and the alert says so', async () => {
		const now = sim.clock.now();
		for (let i = 0; i < 8; i++) sim.addProxy(null, { expires_at: new Date(now + (i + 1) * HOUR).toISOString() });
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{}] });
		expect(result.status).toBe('success');
		const alerts = result.output('Compose Alert').map((item) => item.json);
		expect(alerts.length).toBeGreaterThan(8);
		for (const alert of alerts) expect(String(alert.error)).toMatch(/more than the Maximum Total Cost of 500$/);
		expect(apiRequests(sim, 'POST /v1/proxies/allocate')).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
		expect(result.output('Summary')[0].json).toMatchObject({ extended: 0, total_charged: 0 });
	});
});

describe('examples/quote-calculator.json', () => {
	it('quotes three lines and summarises the total and the savings', async () => {
		const result = await harness.runWorkflow(load('quote-calculator.json'), { credentials: credentialsFor(sim) });
		expect(result.status).toBe('success');
		const lines = result.output('Quote Three Proxies');
		expect(lines).toHaveLength(3);
		const due = lines.reduce((sum, line) => sum + (line.json.line_total as number), 0);
		const [summary] = result.output('Quote Summary');
		expect(summary.json).toEqual({
			lines: 3,
			total_due: Math.round(due * 100) / 100,
			total_standard: lines[0].json.quote_total_standard,
			you_save: lines[0].json.savings_total,
			member_prices: true,
		});
		expect(summary.json.you_save).toBe((summary.json.total_standard as number) - (summary.json.total_due as number));
	});
});

describe('examples/stock-alert.json', () => {
	const workflow = load('stock-alert.json');
	const triggerNode = workflow.nodes.find((node) => node.type === 'n8n-nodes-proxy-account.proxyAccountTrigger')!;

	it('turns a city coming back in stock into an alert, once', async () => {
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, typeVersion: triggerNode.typeVersion, parameters: triggerNode.parameters }, credentialsFor(sim));
		expect(await poller.poll()).toBeNull(); // baseline

		const soldOut = sim.stock.find((city) => city.open && Object.values(city.counts).every((count) => count === 0))!;
		sim.setStockCount(soldOut.city, 'tmobile', 3);
		const emitted = await poller.poll();
		expect(emitted).not.toBeNull();
		const events = emitted![0].map((item) => item.json);

		// n8n starts the active workflow with what the poll emitted.
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: events });
		expect(result.status).toBe('success');
		expect(result.output('Compose Alert').map((item) => item.json)).toEqual([
			{ alert: `T-Mobile is back in stock in ${soldOut.city}, ${soldOut.state}: 3 available`, city: soldOut.city, carrier: 'tmobile', available: 3 },
		]);
		expect(await poller.poll()).toBeNull();
	});
});

describe('examples/low-funds-alert.json', () => {
	const workflow = load('low-funds-alert.json');
	const triggerNode = workflow.nodes.find((node) => node.type === 'n8n-nodes-proxy-account.proxyAccountTrigger')!;

	it('alerts once when the wallet drops below what the upcoming renewals need, and re-arms after a top-up', async () => {
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, typeVersion: triggerNode.typeVersion, parameters: triggerNode.parameters }, credentialsFor(sim));
		sim.account().balance = 5_000;
		expect(await poller.poll()).toBeNull(); // enough funds
		sim.account().balance = 10;
		const emitted = (await poller.poll())!;
		expect(emitted[0]).toHaveLength(1);
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: emitted[0].map((item) => item.json) });
		expect(result.status).toBe('success');
		const [alert] = result.output('Compose Alert');
		expect(alert.json.funds).toBe(10);
		expect(String(alert.json.alert)).toMatch(/^Proxy Account wallet is low: 10 left, the renewals coming up need [\d.]+ \(short by [\d.]+\)/);
		expect(await poller.poll()).toBeNull(); // still low: once per drop
		sim.account().balance = 5_000;
		expect(await poller.poll()).toBeNull();
		sim.account().balance = 10;
		expect(await poller.poll()).not.toBeNull();
	});
});

describe('examples/buy-when-stock-is-back.json', () => {
	const workflow = load('buy-when-stock-is-back.json');
	const triggerNode = workflow.nodes.find((node) => node.type === 'n8n-nodes-proxy-account.proxyAccountTrigger')!;
	const trigger = () =>
		new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, typeVersion: triggerNode.typeVersion, parameters: triggerNode.parameters }, credentialsFor(sim));
	/** `count` open cities where T-Mobile was sold out come back in one poll: the events of that poll. */
	const comeBack = async (count: number) => {
		const poller = trigger();
		expect(await poller.poll()).toBeNull(); // baseline
		const soldOut = sim.stock.filter((city) => city.open && city.counts.tmobile === 0).slice(0, count);
		expect(soldOut).toHaveLength(count);
		for (const city of soldOut) sim.setStockCount(city.city, 'tmobile', 2);
		const events = (await poller.poll())![0].map((item) => item.json);
		expect(events.map((event) => event.city).sort()).toEqual(soldOut.map((city) => city.city).sort());
		return { events, cities: soldOut.map((city) => city.city) };
	};

	it.each([
		{ count: 1, cities: 'one city comes' },
		{ count: 2, cities: 'two cities come' },
		{ count: 3, cities: 'three cities come' },
	])('buys exactly one T-Mobile proxy when $cities back in one poll, after a dry run of that one within the budget', async ({ count }) => {
		sim.orders.deployDelayMs = 0;
		const { events, cities } = await comeBack(count);
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: events });
		expect(result.status).toBe('success');
		const [picked] = result.output('Pick One City');
		expect(result.output('Pick One City')).toHaveLength(1);
		expect(cities).toContain(picked.json.city);
		expect(result.output('What Would It Cost').map((item) => item.json)).toEqual([
			expect.objectContaining({ status: 'dry_run', carrier: 'T-Mobile', city: picked.json.city, quantity: 1 }),
		]);
		expect(result.output('What Would It Cost')[0].json.estimated_total as number).toBeLessThanOrEqual(100);
		const bought = result.output('Buy One');
		expect(bought).toHaveLength(1);
		expect(bought[0].json).toMatchObject({ status: 'bought', carrier: 'T-Mobile', city: picked.json.city, quantity: 1 });
		const [name] = bought[0].json.candidates as string[];
		expect(sim.account().proxies.get(name)).toMatchObject({ isp: 'T-Mobile', city: picked.json.city });
		expect(sim.ledger.filter((entry) => entry.kind === 'deploy')).toHaveLength(1);
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(1);
	});

	it.each([1, 2, 3])('a test run with T-Mobile in stock in %i of the cities stops at Buy One, saying it does not act on a test event, and spends nothing', async (count) => {
		const open = sim.stock.filter((city) => city.open);
		open.forEach((city, k) => sim.setStockCount(city.city, 'tmobile', k < count ? 2 : 0));
		const balance = sim.account().balance;
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'manual' });
		const samples = result.output(triggerNode.name).map((item) => item.json);
		expect(samples).toHaveLength(count);
		expect(samples.every((sample) => sample.sample === true)).toBe(true);
		expect(result.output('Pick One City')).toHaveLength(1);
		expect(result.output('What Would It Cost')[0].json).toMatchObject({ status: 'dry_run', quantity: 1 });
		expect(result.output('Within Budget')).toHaveLength(1);
		expect(result.status).toBe('error');
		expect(result.nodeError('Buy One')?.message).toMatch(/^Buy does not act on a test event: this run started from an example that \u201cWhen T-Mobile Is Back\u201d made up \(sample: true\)/);
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(0);
		expect(sim.ledger).toEqual([]);
		expect(sim.account().balance).toBe(balance);
	});

	it('buys nothing when the dry run says it costs more than the budget', async () => {
		const { events } = await comeBack(1);
		const pricey = JSON.parse(JSON.stringify(workflow)) as ExampleWorkflow;
		const buy = pricey.nodes.find((node) => node.name === 'What Would It Cost')!;
		buy.parameters.interval = 52; // a year of weeks: far above the budget of 100
		const result = await harness.runWorkflow(pricey, { credentials: credentialsFor(sim), mode: 'trigger', items: events });
		expect(result.status).toBe('success');
		expect(result.output('Within Budget')).toHaveLength(0);
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});
});

describe('examples/rotate-ip-on-failure.json', () => {
	it('a failed request leads to a new IP for the proxy, then the request is tried again', async () => {
		let calls = 0;
		const target = createServer((_req, res) => {
			calls += 1;
			res.writeHead(calls === 1 ? 502 : 200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(calls === 1 ? { error: 'blocked' } : { ok: true, attempt: calls }));
		});
		await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
		try {
			for (const proxy of sim.account().proxies.values()) {
				proxy.auto_change = false;
				proxy.last_ip_change = new Date(sim.clock.now() - 3_600_000).toISOString();
			}
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, 'rotate-ip-on-failure.json'), 'utf8')) as ExampleWorkflow;
			const targetNode = workflow.nodes.find((node) => node.name === 'Target')!;
			const assignments = (targetNode.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
			assignments.find((a) => a.name === 'url')!.value = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
			const rotate = workflow.nodes.find((node) => node.name === 'Rotate IP')!;
			(rotate.parameters.options as Record<string, unknown>).waitForNewIp = false;
			const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim) });
			expect(result.status).toBe('success');
			const [picked] = result.output('Pick Proxy');
			const [rotated] = result.output('Rotate IP');
			expect(rotated.json).toMatchObject({ proxy_name: picked.json.proxy_name, status: 'sent' });
			expect(apiRequests(sim, 'POST /v1/proxies/changeip/:name')).toHaveLength(1);
			expect(result.output('Retry Fetch')[0].json).toEqual({ ok: true, attempt: 2 });
			expect(calls).toBe(2);
		} finally {
			await new Promise((done) => target.close(done));
		}
	});
});

describe('examples/proxy-account-mcp-server.json', () => {
	const workflow = load('proxy-account-mcp-server.json');
	const TOOL_TYPE = 'n8n-nodes-proxy-account.proxyAccountTool';
	const trigger = workflow.nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
	const tools = workflow.nodes.filter((node) => node.type === TOOL_TYPE);
	const tool = (name: string) => tools.find((node) => node.name === name)!;
	/** The `$fromAI` keys of a tool node: what the agent (the MCP client) fills in. */
	const agentKeys = (node: INode) => [...JSON.stringify(node.parameters).matchAll(/\$fromAI\('([^']+)'/g)].map((m) => m[1]).sort();
	/** Runs one tool node as n8n runs it for an agent: the `…Tool` type, the agent's arguments as the input item. */
	const call = (name: string, args: IDataObject) => {
		expect(Object.keys(args).sort()).toEqual(agentKeys(tool(name)));
		const node = tool(name);
		return harness.runNode({ type: 'proxyAccountTool', name, typeVersion: node.typeVersion, parameters: node.parameters }, { credentials: credentialsFor(sim), items: [args] });
	};
	/** The `index`th proxy, set to expire in `hours`. */
	const expiringProxy = (index: number, hours: number) => {
		const proxy = [...sim.account().proxies.values()][index];
		proxy.expires_at = new Date(sim.clock.now() + hours * HOUR).toISOString();
		return proxy.proxy_name;
	};

	it('is an MCP Server Trigger with Bearer Auth serving only Proxy Account tools, with the builder\u2019s limits as literals', () => {
		expect(trigger.typeVersion).toBeGreaterThanOrEqual(2);
		expect(trigger.parameters).toMatchObject({ authentication: 'bearerAuth', path: 'proxy-account' });
		expect(Object.keys(trigger.credentials ?? {})).toEqual(['httpBearerAuth']);
		expect(tools.map((node) => node.name).sort()).toEqual(['Extend Proxy', 'Get Funds', 'Get Proxies', 'Get Stock', 'Price A Purchase', 'Quote Price', 'Rotate IP']);
		for (const node of tools) expect(workflow.connections[node.name]).toEqual({ ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] });
		expect(tools.map((node) => node.parameters.operation)).not.toContain('remove');
		expect(tool('Extend Proxy').parameters.options).toMatchObject({ maxTotalCost: 50, keepWalletAtLeast: 100 });
		expect(tool('Price A Purchase').parameters.options).toEqual({ dryRun: true });
		expect(agentKeys(tool('Extend Proxy'))).toEqual(['days', 'proxy_name']);
	});

	it('each read tool answers from the service as the agent\u2019s tool, with no password or key in what it returns', async () => {
		const funds = await call('Get Funds', {});
		expect(funds.status).toBe('success');
		expect(funds.items[0].json.funds).toBe(sim.account().balance);
		const proxies = await call('Get Proxies', {});
		expect(proxies.items).toHaveLength(sim.account().proxies.size);
		const city = cityWith(sim, 'tmobile', 1).city;
		const quote = await call('Quote Price', { carrier: 'T-Mobile', city, weeks: 2 });
		expect(quote.items[0].json).toMatchObject({ carrier: 'T-Mobile', city, interval: 2, period: 'weekly' });
		const stock = await call('Get Stock', {});
		expect(stock.items.length).toBeGreaterThan(0);
		const priced = await call('Price A Purchase', { carrier: 'T-Mobile', city, weeks: 1 });
		expect(priced.items[0].json).toMatchObject({ status: 'dry_run' });
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(0);
		const output = JSON.stringify([funds, proxies, quote, stock, priced].map((r) => r.items));
		expect(output).not.toContain(credentialsFor(sim).apiKey);
		for (const proxy of sim.account().proxies.values()) expect(output).not.toContain(proxy.password);
		expect(sim.ledger).toHaveLength(0);
	});

	it('Rotate IP sends one change for the proxy the agent names', async () => {
		const name = [...sim.account().proxies.keys()][0];
		const proxy = sim.account().proxies.get(name)!;
		proxy.auto_change = false;
		proxy.last_ip_change = new Date(sim.clock.now() - HOUR).toISOString();
		const rotated = await call('Rotate IP', { proxy_name: name });
		expect(rotated.items[0].json).toMatchObject({ proxy_name: name, status: 'sent' });
		expect(apiRequests(sim, 'POST /v1/proxies/changeip/:name')).toHaveLength(1);
	});

	it('Extend Proxy charges within the cap, refuses more than the cap and stops at the wallet floor, with nothing charged when it refuses', async () => {
		const name = expiringProxy(0, 5);
		const extended = await call('Extend Proxy', { proxy_name: name, days: 1 });
		expect(extended.items[0].json).toMatchObject({ proxy_name: name, status: 'extended' });
		expect(sim.ledger).toHaveLength(1);
		expect(sim.ledger[0].amount).toBeLessThanOrEqual(50);
		const again = await call('Extend Proxy', { proxy_name: name, days: 1 });
		expect(again.items[0].json).toMatchObject({ proxy_name: name, status: 'skipped', charged: 0 });
		expect(sim.ledger).toHaveLength(1);

		const second = expiringProxy(1, 5);
		const tooMuch = await call('Extend Proxy', { proxy_name: second, days: 30 });
		expect(tooMuch.status).toBe('error');
		expect(tooMuch.error?.message).toMatch(/Maximum Total Cost of 50/);
		expect(sim.ledger).toHaveLength(1);

		sim.account().balance = 110;
		const floor = await call('Extend Proxy', { proxy_name: second, days: 1 });
		expect(floor.status).toBe('error');
		expect(floor.error?.message).toMatch(/Keep Wallet At Least/);
		expect(sim.ledger).toHaveLength(1);
		expect(sim.account().balance).toBe(110);
	});
});
