/**
 * Proxy > Change Location through n8n-core's real WorkflowExecute against the simulator: new names, never sent twice.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, credentialsFor, expectAgentRefusal } from '../../harness';
import type { NodeResult } from '../../harness';
import { harness, cityWith, sim } from '../../harness/suites/orders';

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

	describe('Keep Wallet At Least is checked before every move, with the Maximum Cost per Move', () => {
		const funds = () => apiRequests(sim, 'GET /v1/funds');
		it('wallet 101, floor 100, a move priced 60 and a Maximum Cost per Move of 60: nothing is moved', async () => {
			sim.orders.swapPrice = 60;
			sim.account().balance = 101;
			const [name] = [...sim.account().proxies.keys()];
			const result = await move(name, 'AT&T', cityWith('att', 1).city, { keepWalletAtLeast: 100, maxMoveCost: 60, waitTimeoutSeconds: 0 });
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe('A move would take the wallet below Keep Wallet At Least: 101 in the wallet, 60 to pay, 100 to keep');
			expect(swaps()).toHaveLength(0);
			expect(sim.account().balance).toBe(101);
		});

		it.each(['continueRegularOutput', 'continueErrorOutput', 'stopWorkflow'] as const)('five items, wallet 200, floor 150, moves priced 30 (On Error: %s): the wallet is read before each move and never ends below the floor', async (onError) => {
			sim.orders.swapPrice = 30;
			sim.orders.swapDelayMs = 0;
			sim.account().balance = 200;
			const names = [...sim.account().proxies.keys()].slice(0, 5);
			const city = cityWith('att', 5).city;
			const result = await harness.runNode(
				{
					type: 'proxyAccount',
					onError,
					parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, carrier: 'AT&T', city, copySettings: true, options: { keepWalletAtLeast: 150, maxMoveCost: 30, waitTimeoutSeconds: 0 } },
				},
				{ credentials: credentialsFor(sim), items: names.map((name) => ({ name })) },
			);
			expect(swaps()).toHaveLength(1);
			expect(sim.account().balance).toBe(170);
			expect(funds().length).toBeGreaterThanOrEqual(2);
			if (onError === 'stopWorkflow') {
				expect(result.error?.message).toBe('A move would take the wallet below Keep Wallet At Least: 170 in the wallet, 30 to pay, 150 to keep');
				return;
			}
			const out = onError === 'continueErrorOutput' ? [...result.output('Node Under Test', 0), ...result.output('Node Under Test', 1)] : result.items;
			expect(out).toHaveLength(5);
			expect(out.filter((item) => typeof item.json.error === 'string')).toHaveLength(4);
			if (onError === 'continueErrorOutput') expect(result.output('Node Under Test', 1)).toHaveLength(4);
			expect(out.map((item) => item.pairedItem)).toEqual(expect.arrayContaining([0, 1, 2, 3, 4].map((item) => ({ item }))));
		});

		it('each move reports what the wallet dropped by; a move that cost more than the Maximum Cost per Move fails its item and stops the run', async () => {
			sim.orders.swapPrice = 80;
			sim.orders.swapDelayMs = 0;
			sim.account().balance = 1_000;
			const names = [...sim.account().proxies.keys()].slice(0, 3);
			const city = cityWith('att', 3).city;
			const result = await harness.runNode(
				{
					type: 'proxyAccount',
					onError: 'continueErrorOutput',
					parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, carrier: 'AT&T', city, copySettings: true, options: { keepWalletAtLeast: 100, maxMoveCost: 60, waitTimeoutSeconds: 0 } },
				},
				{ credentials: credentialsFor(sim), items: names.map((name) => ({ name })) },
			);
			expect(swaps()).toHaveLength(1);
			const failed = result.output('Node Under Test', 1).map((item) => item.json);
			expect(failed).toHaveLength(3);
			expect(failed[0].error).toBe(`The proxy was moved (${names[0]}), but the wallet dropped by 80, more than the Maximum Cost per Move of 60`);
			expect(failed[0].message).toMatch(/^The wallet held 1000 before the move and 920 after it\. .*The move was made: do not send it again\.$/);
			expect(failed[1].error).toBe('Not sent: an earlier move of this run cost more than the Maximum Cost per Move');
			sim.resetLogs();
			sim.orders.swapPrice = 50;
			const within = await move(names[1], 'AT&T', city, { keepWalletAtLeast: 100, maxMoveCost: 60, waitTimeoutSeconds: 0 });
			expect(within.items[0].json).toMatchObject({ status: 'moved', wallet_before: 920, wallet_after: 870, wallet_change: -50 });
		});

		it('as a tool, one call after another stops at the floor; a Maximum Cost per Move the agent fills in counts as none', async () => {
			sim.orders.swapPrice = 60;
			sim.orders.swapDelayMs = 0;
			sim.account().balance = 300;
			const names = [...sim.account().proxies.keys()].slice(0, 5);
			const city = cityWith('att', 5).city;
			const tool = (name: string, maxMoveCost: unknown) =>
				harness.runNode(
					{
						type: 'proxyAccountTool',
						parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: "={{ $fromAI('proxy', '', 'string') }}" }, carrier: 'AT&T', city, copySettings: true, options: { allowAsTool: true, keepWalletAtLeast: 100, maxMoveCost, waitTimeoutSeconds: 0 } },
					},
					{ credentials: credentialsFor(sim), items: [{ proxy: name, cost: 0 }] },
				);
			expectAgentRefusal(await tool(names[0], "={{ $fromAI('cost', '', 'number') }}"), 'As an AI agent tool, Change Location needs a Keep Wallet At Least and a Maximum Cost per Move, set by the workflow\u2019s builder');
			expectAgentRefusal(await tool(names[0], '={{ $json.cost }}'), 'As an AI agent tool, Options > Maximum Cost per Move may not be read from the tool call\u2019s input item');
			expect(swaps()).toHaveLength(0);
			const outcomes: string[] = [];
			for (const name of names) {
				const result = await tool(name, 60);
				outcomes.push(result.status === 'success' ? String(result.items[0].json.status) : String(result.error?.message));
				expect(sim.account().balance).toBeGreaterThanOrEqual(100);
			}
			expect(swaps()).toHaveLength(3);
			expect(sim.account().balance).toBe(120);
			expect(outcomes.slice(0, 3)).toEqual(['moved', 'moved', 'moved']);
			expect(outcomes[3]).toMatch(/^A move would take the wallet below Keep Wallet At Least: 120 in the wallet, 60 to pay, 100 to keep\. Nothing was sent or charged\./);
		});
	});

	it('a proxy named by two items with the same move is moved once (the repeat skipped); with different moves, by none', async () => {
		sim.orders.swapDelayMs = 0;
		const [name, other] = [...sim.account().proxies.keys()];
		const city = cityWith('att', 2).city;
		const same = await moveAll([name, name], 'AT&T', city, { waitTimeoutSeconds: 0 });
		expect(swaps()).toHaveLength(1);
		expect(same.items.map((item) => item.json.status)).toEqual(['moved', 'skipped']);
		expect(same.items[1].json.reason).toBe('same proxy as item 0 of this run, which stands for both');
		sim.resetLogs();
		const differing = await harness.runNode(
			{
				type: 'proxyAccount',
				continueOnFail: true,
				parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: other }, carrier: 'AT&T', city: '={{ $json.city }}', copySettings: true, options: { waitTimeoutSeconds: 0 } },
			},
			{ credentials: credentialsFor(sim), items: [{ city }, { city: sim.stock.find((c) => c.city !== city)!.city }] },
		);
		expect(swaps()).toHaveLength(0);
		expect(differing.items.map((item) => item.json.error)).toEqual([
			`Proxy \u201c${other}\u201d is named by items 0 and 1 with different requests (to AT&T in Austin and to AT&T in Cleveland) [item 0]`,
			`Proxy \u201c${other}\u201d is named by items 0 and 1 with different requests (to AT&T in Austin and to AT&T in Cleveland) [item 1]`,
		]);
	});

	it('a run that stops on a later item names the moves it made before', async () => {
		sim.orders.swapDelayMs = 0;
		sim.orders.swapPrice = 5;
		const [first] = [...sim.account().proxies.keys()];
		const result = await moveAll([first, 'PRX-NOT-THERE-0000'], 'AT&T', cityWith('att', 1).city, { waitTimeoutSeconds: 0 });
		expect(result.status).toBe('error');
		expect(swaps()).toHaveLength(1);
		expect(result.error?.message).toBe('Proxy \u201cPRX-NOT-THERE-0000\u201d was not found in this Proxy Account [item 1]');
		expect(String((result.error as { description?: string }).description)).toContain(`Earlier in this run: ${first} was moved (the service accepted it); a move is charged if moves cost money.`);
	});

	it('is never sent twice, and as an AI tool it needs Allow as AI Tool', async () => {
		const [name] = [...sim.account().proxies.keys()];
		sim.injectFault({ route: 'POST /v1/proxies/swap/:name', kind: 'status', status: 504 });
		const failed = await move(name, 'AT&T', cityWith('att', 1).city, {}, { continueOnFail: true });
		expect(apiRequests(sim, 'POST /v1/proxies/swap/:name')).toHaveLength(1);
		expect(failed.items[0].json.message).toMatch(/The change of location may have been made/);
		sim.resetLogs();
		const tool = await move(name, 'AT&T', cityWith('att', 1).city, {}, { type: 'proxyAccountTool' });
		expectAgentRefusal(tool, 'As an AI agent tool, Change Location needs Allow as AI Tool turned on by the workflow\u2019s builder');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});
