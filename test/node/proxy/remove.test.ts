/**
 * Proxy > Remove through n8n-core's real WorkflowExecute against the simulator: irreversible removals, sent once.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, credentialsFor } from '../../harness';
import type { NodeResult } from '../../harness';
import { harness, sim } from '../../harness/suites/orders';

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
