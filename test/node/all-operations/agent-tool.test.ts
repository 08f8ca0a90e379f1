/**
 * The action node as an AI agent's tool: n8n offers it to agents as a copy whose type name ends in
 * "Tool". There, the operations that spend refuse to run without a cap the builder set.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, asAgentTool, createHarness, credentialsFor } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([asAgentTool()]);
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 5, proxies: 6, balance: 10_000, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.resetLogs());

const extendParameters = (options: IDataObject) => ({
	resource: 'proxy',
	operation: 'extend',
	proxyName: { __rl: true, mode: 'name', value: [...sim.account().proxies.keys()][0] },
	interval: 1,
	period: 'weekly',
	options,
});

const run = (type: string, options: IDataObject) => harness.runNode({ type, parameters: extendParameters(options) }, { credentials: credentialsFor(sim) });

describe('Extend as an AI agent tool', () => {
	it('refuses to charge without Maximum Total Cost, before any request', async () => {
		const result = await run('proxyAccountTool', {});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('As an AI agent tool, Extend needs a Maximum Total Cost and a Keep Wallet At Least set by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('runs within a Maximum Total Cost and a Keep Wallet At Least, and a Dry Run needs neither', async () => {
		const uncapped = await run('proxyAccountTool', { maxTotalCost: 1_000 });
		expect(uncapped.error?.message).toBe('As an AI agent tool, Extend needs a Keep Wallet At Least set by the workflow\u2019s builder');
		const capped = await run('proxyAccountTool', { maxTotalCost: 1_000, keepWalletAtLeast: 0 });
		expect(capped.status).toBe('success');
		expect(sim.ledger).toHaveLength(1);
		sim.resetLogs();
		const dry = await run('proxyAccountTool', { dryRun: true });
		expect(dry.status).toBe('success');
		expect(dry.items[0].json.status).toBe('dry_run');
		expect(sim.ledger).toHaveLength(0);
	});

	it('as a regular node, Extend runs without a cap as before', async () => {
		const result = await run('proxyAccount', {});
		expect(result.status).toBe('success');
		expect(sim.ledger).toHaveLength(1);
	});
});

describe('Set Auto-Renew as an AI agent tool', () => {
	const renew = (type: string, autoRenew: boolean) =>
		harness.runNode(
			{ type, parameters: { resource: 'proxy', operation: 'setAutoRenew', proxyName: { __rl: true, mode: 'name', value: [...sim.account().proxies.keys()][1] }, autoRenew, interval: 1, options: { maxRenewalCommitment: 10_000 } } },
			{ credentials: credentialsFor(sim) },
		);

	it('may turn auto-renew on, never off (off removes the proxy at expiry); nothing is sent for off', async () => {
		const off = await renew('proxyAccountTool', false);
		expect(off.error?.message).toBe('As an AI agent tool, Set Auto-Renew may only turn auto-renew on [item 0]');
		expect(apiRequests(sim, 'PATCH /v1/proxies/allocate/renew')).toHaveLength(0);
		const on = await renew('proxyAccountTool', true);
		expect(on.status).toBe('success');
		expect(apiRequests(sim, 'PATCH /v1/proxies/allocate/renew')).toHaveLength(1);
		const regular = await renew('proxyAccount', false);
		expect(regular.status).toBe('success');
	});
});
