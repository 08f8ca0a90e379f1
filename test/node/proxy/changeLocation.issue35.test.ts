/**
 * Issue 35, Proxy > Change Location through n8n-core's real WorkflowExecute against the simulator:
 * Keep Wallet At Least counts a move at its real price (never at 0), and a new name the swap reply
 * gives is taken only once the proxy list confirms it.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, credentialsFor } from '../../harness';
import type { NodeResult } from '../../harness';
import { harness, cityWith, sim } from '../../harness/suites/orders';

const swaps = () => apiRequests(sim, 'POST /v1/proxies/swap/:name');

/** Moves each named proxy to AT&T in `city`, in one run (On Error: Continue). */
function moveAll(names: string[], city: string, options: IDataObject): Promise<NodeResult> {
	return harness.runNode(
		{
			type: 'proxyAccount',
			onError: 'continueRegularOutput',
			parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, carrier: 'AT&T', city, copySettings: true, options },
		},
		{ credentials: credentialsFor(sim), items: names.map((name) => ({ name })) },
	);
}

describe('Keep Wallet At Least never counts a move at 0', () => {
	beforeEach(() => {
		sim.orders.swapPrice = 30;
		sim.orders.swapDelayMs = 0;
		sim.account().balance = 200;
	});

	it('the issue\u2019s case: wallet 200, floor 150, moves priced 30, five items, no Maximum Cost per Move: refused before any request, the wallet stays 200', async () => {
		const names = [...sim.account().proxies.keys()].slice(0, 5);
		const result = await moveAll(names, cityWith('att', 5).city, { keepWalletAtLeast: 150, waitTimeoutSeconds: 0 });
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.account().balance).toBe(200);
		expect(result.items).toHaveLength(5);
		for (const item of result.items) {
			expect(item.json.error).toBe('Keep Wallet At Least needs a Maximum Cost per Move beside it: the service publishes no price for a move, so the floor cannot be checked before one');
			expect(item.json.message).toMatch(/^Set Options > Maximum Cost per Move to the most one move may cost .*Nothing was sent\.$/);
		}
	});

	it('a Maximum Cost per Move set too low (20, moves cost 30): the next run counts the 30 the last move took, and the wallet never ends below the floor', async () => {
		const [a, b, c] = [...sim.account().proxies.keys()];
		const city = cityWith('att', 3).city;
		const options = { keepWalletAtLeast: 150, maxMoveCost: 20, waitTimeoutSeconds: 0 };
		const first = await moveAll([a, b], city, options);
		// The first move took 30, more than 20: it fails its item, and the run sends no other.
		expect(swaps()).toHaveLength(1);
		expect(first.items[0].json.error).toMatch(/but the wallet dropped by 30, more than the Maximum Cost per Move of 20$/);
		expect(sim.account().balance).toBe(170);
		// A later run of the credential counts the 30 seen, not the 20 set: 170 - 30 < 150.
		const second = await moveAll([c], city, options);
		expect(second.items[0].json.error).toBe('A move would take the wallet below Keep Wallet At Least: 170 in the wallet, 30 to pay, 150 to keep');
		expect(swaps()).toHaveLength(1);
		expect(sim.account().balance).toBe(170);
	});

	it('two executions at once, each one move within its Maximum Cost per Move as set (20, moves cost 30): the second reads the wallet after the first and counts its price', async () => {
		const [a, b] = [...sim.account().proxies.keys()];
		const city = cityWith('att', 2).city;
		const options = { keepWalletAtLeast: 150, maxMoveCost: 20, waitTimeoutSeconds: 0 };
		sim.injectFault({ route: 'GET /v1/funds', kind: 'latency', delayMs: 200, times: 2 });
		const both = await Promise.all([moveAll([a], city, options), moveAll([b], city, options)]);
		expect(swaps()).toHaveLength(1);
		expect(sim.account().balance).toBe(170);
		const errors = both.map((result) => String(result.items[0].json.error));
		expect(errors.filter((error) => error.startsWith('A move would take the wallet below Keep Wallet At Least: 170 in the wallet, 30 to pay, 150 to keep'))).toHaveLength(1);
	});
});

describe('A new name the swap reply gives is taken only once the list confirms it', () => {
	/** Two proxies; `b`'s nickname tells its moved record apart here (the node does not use it). */
	function setUp() {
		const [a, third] = [...sim.account().proxies.keys()];
		sim.account().proxies.get(a)!.nickname = 'moved-one';
		sim.orders.swapReplyName = 'new';
		sim.orders.swapDelayMs = 0;
		return { a, third, city: cityWith('att', 1).city };
	}
	const movedName = () => [...sim.account().proxies.values()].find((p) => p.nickname === 'moved-one')!.proxy_name;

	it('a reply naming a proxy the account already had: moved_unidentified, the real new proxy among the candidates, the third proxy never named', async () => {
		const { a, third, city } = setUp();
		sim.injectFault({ route: 'POST /v1/proxies/swap/:name', kind: 'drift', set: { 'data.proxy_name': third } });
		const result = await moveAll([a], city, { waitTimeoutSeconds: 10 });
		expect(swaps()).toHaveLength(1);
		const json = result.items[0].json;
		expect(json).toMatchObject({ status: 'moved_unidentified', old_proxy_name: a, new_proxy_name: null, candidates: [movedName()] });
		expect(JSON.stringify(json)).not.toContain(third);
		expect(String(json.note)).toMatch(/^The service\u2019s reply named a proxy that the list does not show as new in that carrier and city, so that name is not taken\. The proxy left the list, and 1 new proxy of AT&T in /);
	});

	it('a reply naming a proxy the list never shows: moved_unidentified with the candidates once the wait is over', async () => {
		const { a, city } = setUp();
		sim.injectFault({ route: 'POST /v1/proxies/swap/:name', kind: 'drift', set: { 'data.proxy_name': 'PRX-NOWHERE-0001' } });
		const result = await moveAll([a], city, { waitTimeoutSeconds: 1 });
		expect(result.items[0].json).toMatchObject({ status: 'moved_unidentified', new_proxy_name: null, candidates: [movedName()] });
	});

	it('a reply whose name the list confirms is taken, even with Wait Timeout 0 (one read of the list)', async () => {
		const { a, city } = setUp();
		const result = await moveAll([a], city, { waitTimeoutSeconds: 0 });
		expect(result.items[0].json).toMatchObject({ status: 'moved', old_proxy_name: a, new_proxy_name: movedName() });
		expect(apiRequests(sim, 'GET /v1/proxies').length).toBeGreaterThanOrEqual(2);
	});

	it('a reply naming the new proxy before the list shows the move (Wait Timeout 0): move_sent, no name yet', async () => {
		const { a, city } = setUp();
		sim.orders.swapDelayMs = 20_000;
		const result = await moveAll([a], city, { waitTimeoutSeconds: 0 });
		expect(result.items[0].json).toMatchObject({ status: 'move_sent', old_proxy_name: a, new_proxy_name: null });
	});
});
