/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console); never shipped */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { IConnections, INode } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, createHarness, credentialsFor, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
	settings?: { executionOrder?: 'v0' | 'v1' };
}

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const load = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as ExampleWorkflow;

const harness = createHarness([new ProxyAccountTrigger()]);
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
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, parameters: triggerNode.parameters }, credentialsFor(sim));
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
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, parameters: triggerNode.parameters }, credentialsFor(sim));
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

	it('buys one T-Mobile proxy in the city that came back, after a dry run within the budget, and names it', async () => {
		sim.orders.deployDelayMs = 0;
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, parameters: triggerNode.parameters }, credentialsFor(sim));
		expect(await poller.poll()).toBeNull(); // baseline
		const soldOut = sim.stock.find((city) => city.open && city.counts.tmobile === 0)!;
		sim.setStockCount(soldOut.city, 'tmobile', 2);
		const emitted = (await poller.poll())!;
		const events = emitted[0].map((item) => item.json);
		expect(events).toHaveLength(1);
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: events });
		expect(result.status).toBe('success');
		expect(result.output('What Would It Cost')[0].json).toMatchObject({ status: 'dry_run', carrier: 'T-Mobile', city: soldOut.city });
		const [bought] = result.output('Buy One');
		expect(bought.json).toMatchObject({ status: 'bought', carrier: 'T-Mobile', city: soldOut.city, quantity: 1 });
		const [name] = bought.json.new_proxies as string[];
		expect(sim.account().proxies.get(name)).toMatchObject({ isp: 'T-Mobile', city: soldOut.city });
		expect(sim.ledger.filter((entry) => entry.kind === 'deploy')).toHaveLength(1);
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(1);
	});

	it('buys nothing when the dry run says it costs more than the budget', async () => {
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, parameters: triggerNode.parameters }, credentialsFor(sim));
		await poller.poll();
		const soldOut = sim.stock.find((city) => city.open && city.counts.tmobile === 0)!;
		sim.setStockCount(soldOut.city, 'tmobile', 2);
		const events = (await poller.poll())![0].map((item) => item.json);
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
