/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console); never shipped */
import { readFileSync } from 'node:fs';
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

		const second = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{}] });
		expect(second.status).toBe('success');
		expect(second.output('Proxies Expiring Within 24 Hours')).toHaveLength(0);
		expect(sim.ledger).toHaveLength(expiring.length);
	});

	it('the cost cap stops a run that would cost more than 500 before anything is charged', async () => {
		const now = sim.clock.now();
		for (let i = 0; i < 8; i++) sim.addProxy(null, { expires_at: new Date(now + (i + 1) * HOUR).toISOString() });
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'trigger', items: [{}] });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/more than the Maximum Total Cost of 500$/);
		expect(apiRequests(sim, 'POST /v1/proxies/allocate')).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
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
