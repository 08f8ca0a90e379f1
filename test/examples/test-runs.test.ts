/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (node: modules); never shipped */
/**
 * Every shipped example run as the editor's *Execute workflow* runs it (mode `manual`: a Proxy
 * Account Trigger returns its made-up test events, a Schedule Trigger fires once): nothing is
 * charged, removed, moved or committed, in an account where T-Mobile is in stock in three cities
 * (*Buy when stock is back* gets three made-up "became available" events, picks one, quotes it
 * within the budget and stops at its Buy, which does not act on a test event).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IConnections, INode } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, asAgentTool, createHarness, credentialsFor } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const harness = createHarness([new ProxyAccountTrigger(), asAgentTool()]);
/** The requests that spend, remove, move or commit. */
const EFFECTS: Array<string | null> = ['POST /v1/proxies/allocate', 'POST /v1/proxies/deploy', 'POST /v1/proxies/swap/:name', 'DELETE /v1/proxies/remove', 'PATCH /v1/proxies/allocate/renew'];
/** Started by the editor's Execute workflow; the MCP server example is started by its MCP client only. */
const STARTS = /(manualTrigger|scheduleTrigger|proxyAccountTrigger)$/;

const examples = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.map((file) => ({ file, workflow: JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as ExampleWorkflow }));

let sim: ProxyAccountSimulator;
beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 31, proxies: 12, cities: 8, balance: 2_000, frozenClock: true });
	sim.orders.deployDelayMs = 0;
});
afterEach(async () => await sim.stop());

it('every example but the MCP server starts from a trigger the editor can run', () => {
	const runnable = examples.filter(({ workflow }) => workflow.nodes.some((node) => STARTS.test(node.type)));
	expect(examples.length - runnable.length).toBe(1);
	expect(examples.find(({ workflow }) => !runnable.some((r) => r.workflow === workflow))?.file).toBe('proxy-account-mcp-server.json');
});

describe.each(examples.filter(({ workflow }) => workflow.nodes.some((node) => STARTS.test(node.type))))('$file, run with Execute workflow', ({ workflow }) => {
	it('spends, removes, moves and commits nothing', async () => {
		// Three T-Mobile cities in stock: three made-up "became available" events.
		const open = sim.stock.filter((city) => city.open);
		open.forEach((city, k) => sim.setStockCount(city.city, 'tmobile', k < 3 ? 3 : 0));
		const balance = sim.account().balance;
		const result = await harness.runWorkflow(workflow, { credentials: credentialsFor(sim), mode: 'manual' });
		expect(sim.ledger).toEqual([]);
		expect(sim.account().balance).toBe(balance);
		expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
		// The run itself goes through: a refusal leaves on the error path or as an error item, never as a crash.
		expect(result.error?.message ?? '').not.toMatch(/Cannot read|undefined is not/);
	});
});
