/**
 * A test event the Proxy Account Trigger made up (Fetch Test Event, or the editor's Execute
 * workflow: mode `manual`) never spends, removes, moves or commits: Extend, Buy, Change Location,
 * Set Auto-Renew and Remove refuse such a run before anything is sent, in every On Error mode; a
 * Dry Run previews it; a real event (the trigger's poll in production, mode `trigger`) acts; and as
 * an AI agent's tool, a test event that reached the agent (its input item) is refused too, and so is one
 * passed to a sub-workflow (mode `integrated`) as its input.
 */
import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, asAgentTool, createHarness, credentialsFor, expectAgentRefusal } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([new ProxyAccountTrigger(), asAgentTool()]);
const TRIGGER = 'When A Proxy Expires Soon';
const EFFECTS: Array<string | null> = ['POST /v1/proxies/allocate', 'POST /v1/proxies/deploy', 'POST /v1/proxies/swap/:name', 'DELETE /v1/proxies/remove', 'PATCH /v1/proxies/allocate/renew'];
const MADE_UP = /^(Extend|Buy|Change Location|Set Auto-Renew|Remove) does not act on a test event: this run started from an example that “When A Proxy Expires Soon” made up \(sample: true\), not from a real change$/;

let sim: ProxyAccountSimulator;
beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 8, proxies: 6, cities: 6, balance: 5_000, frozenClock: true });
	sim.orders.deployDelayMs = 0;
});
afterEach(async () => await sim.stop());

const CREDENTIAL = { proxyAccountApi: { id: '1', name: 'Proxy Account' } };
const byName = (value: string) => ({ __rl: true, mode: 'name', value });
const OPERATIONS: Record<string, IDataObject> = {
	Extend: { operation: 'extend', proxyName: byName('={{ $json.proxy_name }}'), interval: 1, period: 'weekly', options: { maxTotalCost: 1_000 } },
	Buy: { operation: 'buy', carrier: '={{ $json.record.isp }}', city: '={{ $json.record.city }}', quantity: 1, interval: 1, period: 'weekly', options: { maxTotalCost: 1_000 } },
	'Change Location': { operation: 'changeLocation', proxyName: byName('={{ $json.proxy_name }}'), carrier: 'AT&T', city: '={{ $json.record.city }}', copySettings: true },
	'Set Auto-Renew': { operation: 'setAutoRenew', proxyName: byName('={{ $json.proxy_name }}'), autoRenew: true, interval: 1 },
	Remove: { operation: 'remove', proxyName: byName('={{ $json.proxy_name }}'), options: { confirmCount: 1 } },
};

function workflow(operation: IDataObject, node: Partial<INode> = {}) {
	const nodes = [
		{ id: 't', name: TRIGGER, type: 'n8n-nodes-proxy-account.proxyAccountTrigger', typeVersion: 1, position: [0, 0], credentials: CREDENTIAL, parameters: { pollTimes: { item: [{ mode: 'everyHour' }] }, event: 'proxyExpiring', expiringWithinHours: 100_000 } },
		{ id: 'a', name: 'Act', type: 'n8n-nodes-proxy-account.proxyAccount', typeVersion: 1, position: [200, 0], credentials: CREDENTIAL, parameters: { resource: 'proxy', ...operation }, ...node },
	] as INode[];
	const connections: IConnections = { [TRIGGER]: { main: [[{ node: 'Act', type: 'main', index: 0 }]] } };
	return { name: 'test event', nodes, connections };
}

describe.each(Object.entries(OPERATIONS))('%s after a made-up test event', (label, operation) => {
	it('stops the run (On Error: Stop Workflow), naming the trigger and how to test for real; nothing sent', async () => {
		const result = await harness.runWorkflow(workflow(operation), { credentials: credentialsFor(sim), mode: 'manual' });
		expect(result.output(TRIGGER).every((item) => item.json.sample === true)).toBe(true);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(MADE_UP);
		expect(result.error?.message.startsWith(label)).toBe(true);
		expect((result.error as { description?: string }).description).toMatch(/turn on Options > Dry Run .*, or activate the workflow and let a real event run it\. Nothing was sent\.$/);
		expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
		expect(sim.ledger).toEqual([]);
	});

	it.each(['continueRegularOutput', 'continueErrorOutput'] as const)('On Error %s: every item an error item paired with its input; nothing sent', async (onError) => {
		const result = await harness.runWorkflow(workflow(operation, { onError }), { credentials: credentialsFor(sim), mode: 'manual' });
		expect(result.status).toBe('success');
		const samples = result.output(TRIGGER).length;
		const failed = result.output('Act', onError === 'continueErrorOutput' ? 1 : 0);
		expect(failed).toHaveLength(samples);
		failed.forEach((item, k) => {
			expect(String(item.json.error)).toMatch(MADE_UP);
			expect(item.pairedItem).toEqual({ item: k });
		});
		if (onError === 'continueErrorOutput') expect(result.output('Act', 0)).toHaveLength(0);
		expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
		expect(sim.ledger).toEqual([]);
	});
});

it('a Dry Run previews a made-up test event (Extend, Buy, Remove)', async () => {
	for (const label of ['Extend', 'Buy', 'Remove']) {
		const operation = OPERATIONS[label];
		const options = { ...(operation.options as IDataObject), dryRun: true };
		const result = await harness.runWorkflow(workflow({ ...operation, options }), { credentials: credentialsFor(sim), mode: 'manual' });
		expect(result.error?.message).toBeUndefined();
		expect(result.output('Act').every((item) => item.json.status === 'dry_run' || item.json.status === 'skipped')).toBe(true);
	}
	expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
	expect(sim.ledger).toEqual([]);
});

it('a real event (the trigger in production, mode trigger) acts: Extend charges once', async () => {
	const [name] = [...sim.account().proxies.keys()];
	const real = { event: 'proxy_expiring', proxy_name: name };
	const result = await harness.runWorkflow(workflow(OPERATIONS.Extend), { credentials: credentialsFor(sim), mode: 'trigger', items: [real] });
	expect(result.status).toBe('success');
	expect(result.output('Act')[0].json.status).toBe('extended');
	expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([name]);
});

it('as an AI agent tool, a test event in the tool call\'s input item is refused, nothing sent', async () => {
	const [name] = [...sim.account().proxies.keys()];
	const result = await harness.runNode(
		{ type: 'proxyAccountTool', parameters: { resource: 'proxy', operation: 'extend', proxyName: byName(name), interval: 1, period: 'weekly', options: { maxTotalCost: 1_000, keepWalletAtLeast: 1 } } },
		{ credentials: credentialsFor(sim), items: [{ event: 'proxy_expiring', proxy_name: name, sample: true }] },
	);
	expectAgentRefusal(result, 'Extend does not act on a test event: this run started from an example that the Proxy Account Trigger made up (sample: true), not from a real change');
	expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
});

describe('in a sub-workflow (mode integrated), the parent\'s test event arrives as the input', () => {
	const [subItem] = [{ event: 'proxy_expiring', sample: true }];
	it.each(['manual', 'trigger'] as const)('a test event in the input is refused (parent started in mode %s), nothing sent', async (rootMode) => {
		const [name] = [...sim.account().proxies.keys()];
		const result = await harness.runNode(
			{ type: 'proxyAccount', parameters: { resource: 'proxy', ...OPERATIONS.Extend } },
			{ credentials: credentialsFor(sim), mode: 'integrated', rootMode, items: [{ ...subItem, proxy_name: name }] },
		);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Extend does not act on a test event: item 0 is an example the Proxy Account Trigger made up (sample: true), not a real change [item 0]');
		expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
		expect(sim.ledger).toEqual([]);
	});

	it('a real event in the input acts: Extend charges once', async () => {
		const [name] = [...sim.account().proxies.keys()];
		const result = await harness.runNode(
			{ type: 'proxyAccount', parameters: { resource: 'proxy', ...OPERATIONS.Extend } },
			{ credentials: credentialsFor(sim), mode: 'integrated', rootMode: 'trigger', items: [{ event: 'proxy_expiring', proxy_name: name }] },
		);
		expect(result.status).toBe('success');
		expect(result.items[0].json.status).toBe('extended');
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([name]);
	});
});

describe('an item marked sample: true, passed on by any node, is refused alone in every mode (issue 35)', () => {
	// The items come from the harness's own input node (not the Proxy Account Trigger): as from an
	// Edit Fields or Code node that copied a test event, or a sub-workflow's input.
	const real = () => {
		const [first, second] = [...sim.account().proxies.values()];
		return { first, second };
	};
	const PARAMETERS: Record<string, (city: string) => IDataObject> = {
		Extend: () => OPERATIONS.Extend,
		Buy: (city) => ({ ...OPERATIONS.Buy, carrier: 'AT&T', city }),
		'Change Location': (city) => ({ ...OPERATIONS['Change Location'], city }),
		'Set Auto-Renew': () => OPERATIONS['Set Auto-Renew'],
		Remove: () => ({ ...OPERATIONS.Remove, confirmCount: 1 }),
	};
	const MODES = ['manual', 'trigger', 'webhook', 'integrated'] as const;
	const cases = Object.keys(PARAMETERS).flatMap((label) => MODES.map((mode) => [label, mode] as const));

	it.each(cases)('%s in mode %s: the sample item fails naming itself; the real one acts', async (label, mode) => {
		const { first, second } = real();
		const city = sim.stock.find((c) => c.open && c.counts.att >= 2)!.city;
		const items = [
			{ event: 'proxy_expiring', proxy_name: first.proxy_name },
			{ event: 'proxy_expiring', proxy_name: second.proxy_name, sample: true },
		];
		const parameters = { resource: 'proxy', ...PARAMETERS[label](city) };
		const result = await harness.runNode({ type: 'proxyAccount', parameters, onError: 'continueErrorOutput' }, { credentials: credentialsFor(sim), mode, items });
		expect(result.status).toBe('success');
		const failed = result.output('Node Under Test', 1);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(failed[0].json.error).toBe(`${label} does not act on a test event: item 1 is an example the Proxy Account Trigger made up (sample: true), not a real change [item 1]`);
		expect(String(failed[0].json.message)).toMatch(/Nothing was sent for it; the run's other items were not held back\. To see what this node would do, turn on Options > Dry Run/);
		// The real item went ahead: its effect was sent, for it alone.
		const done = result.output('Node Under Test', 0);
		expect(done.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(done[0].json.error).toBeUndefined();
		const effects = apiRequests(sim).filter((request) => EFFECTS.includes(request.route));
		expect(effects).toHaveLength(1);
		expect(JSON.stringify(effects[0])).not.toContain(second.proxy_name);
	});

	it('On Error Stop Workflow: the sample item stops the node before anything is sent', async () => {
		const { first, second } = real();
		const items = [{ proxy_name: first.proxy_name }, { proxy_name: second.proxy_name, sample: true }];
		const result = await harness.runNode({ type: 'proxyAccount', parameters: { resource: 'proxy', ...OPERATIONS.Extend } }, { credentials: credentialsFor(sim), mode: 'webhook', items });
		expect(result.error?.message).toBe('Extend does not act on a test event: item 1 is an example the Proxy Account Trigger made up (sample: true), not a real change [item 1]');
		expect(apiRequests(sim).filter((request) => EFFECTS.includes(request.route))).toEqual([]);
		expect(sim.ledger).toEqual([]);
	});

	it('a Dry Run previews the sample item like the others', async () => {
		const { first, second } = real();
		const items = [{ proxy_name: first.proxy_name }, { proxy_name: second.proxy_name, sample: true }];
		const options = { ...(OPERATIONS.Extend.options as IDataObject), dryRun: true };
		const result = await harness.runNode({ type: 'proxyAccount', parameters: { resource: 'proxy', ...OPERATIONS.Extend, options } }, { credentials: credentialsFor(sim), mode: 'trigger', items });
		expect(result.items.map((item) => item.json.status)).toEqual(['dry_run', 'dry_run']);
		expect(sim.ledger).toEqual([]);
	});
});
