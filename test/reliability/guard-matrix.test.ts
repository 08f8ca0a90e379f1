/**
 * Guards: the account operations against what an agent, n8n and a service that does not do what
 * was asked can do to them. Each cell is a real workflow execution (the `…Tool` node type for an
 * agent, execution mode `retry` for n8n's Retry of a failed execution) against a simulator of its
 * own, some behind the hostile front; each proves its property from the simulator's ledger and
 * request log. A cell the operation has nothing to guard against is left out (— in the grid).
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, asAgentTool, cityWith, createHarness, credentialsFor, HostileFront } from '../harness';
import type { NodeResult, NodeUnderTest, TestCredentials } from '../harness';
import type { ProxyAccountSimulator } from '../simulator';
import type { Observation } from './support';
import { Results, withSim } from './support';

const results = new Results('guard-matrix');
const harness = createHarness([asAgentTool()]);

const ROWS = ['Proxy > Buy', 'Proxy > Extend', 'Proxy > Remove', 'Proxy > Change Location', 'Proxy > Set Auto-Renew', 'Proxy > Rotate IP'] as const;
type Row = (typeof ROWS)[number];
const COLUMNS = ['agent-filled limit', 'target from the tool input', 'execution retry', 'item-dependent option', 'charge above the cap', 'echo mismatch'] as const;
type Column = (typeof COLUMNS)[number];

results.declare('guards', [...ROWS], [...COLUMNS]);
afterAll(() => results.write());

const locator = (value: string) => ({ __rl: true, mode: 'name', value });
const byName = locator('={{ $json.name }}');
/** As a tool, the proxy is the agent's declared choice: `$fromAI('name')`. */
const chosenByAgent = locator("={{ $fromAI('name', 'the proxy', 'string') }}");
const target = (extra: Partial<NodeUnderTest>) => (extra.type === 'proxyAccountTool' ? chosenByAgent : byName);
/** A refusal as a tool: its message starts with `head` and carries its facts, ending "Nothing was sent." */
const refusedAsTool = (head: string) => new RegExp(`^${head.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. .*Nothing was sent\\.$`);

interface Ctx {
	sim: ProxyAccountSimulator;
	obs: Observation;
	credentials: TestCredentials;
	names: string[];
	run: (node: Partial<NodeUnderTest> & { parameters: Record<string, unknown> }, items?: IDataObject[], mode?: 'retry') => Promise<NodeResult>;
}

const requests = (c: Ctx, route?: Parameters<typeof apiRequests>[1]) => apiRequests(c.sim, route).length;

function expectNothingSent(c: Ctx, result: NodeResult, message: RegExp): void {
	expect(result.status).toBe('error');
	expect(result.error?.message).toMatch(message);
	expect(requests(c)).toBe(0);
	expect(c.sim.ledger).toHaveLength(0);
	c.obs.note(`refused: ${result.error?.message}; 0 requests, 0 charges`);
}

const buy = (options: IDataObject, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: {
		resource: 'proxy',
		operation: 'buy',
		...(extra.type === 'proxyAccountTool' ? { carrier: "={{ $fromAI('carrier') }}", city: "={{ $fromAI('city') }}" } : { carrier: '={{ $json.carrier }}', city: '={{ $json.city }}' }),
		quantity: 1,
		interval: 1,
		period: 'weekly',
		options,
	},
});
const extend = (options: IDataObject, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: { resource: 'proxy', operation: 'extend', proxyName: target(extra), interval: 1, period: 'weekly', options },
});
const remove = (confirmCount: unknown, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: { resource: 'proxy', operation: 'remove', proxyName: target(extra), confirmCount, options: {} },
});
const move = (options: IDataObject, city: string, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: target(extra), carrier: 'T-Mobile', city, options },
});
const renew = (options: IDataObject, interval: unknown = 1, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: { resource: 'proxy', operation: 'setAutoRenew', proxyName: target(extra), autoRenew: true, interval, options },
});
const rotate = (options: IDataObject, extra: Partial<NodeUnderTest> = {}) => ({
	...extra,
	parameters: { resource: 'proxy', operation: 'rotateIp', proxyName: target(extra), options },
});

const tool = { type: 'proxyAccountTool' };
const toErrorOutput = { onError: 'continueErrorOutput' as const };

interface CellSpec {
	scenario: string;
	expected: string;
	short: string;
	/** The cell runs behind the hostile front (credentials point at it). */
	hostile?: (front: HostileFront) => void;
	body: (c: Ctx) => Promise<void>;
}

const TARGET_REFUSAL = refusedAsTool('As an AI agent tool, the Proxy may not be read from the tool call\u2019s input item');

/**
 * As a tool, a Proxy read from the tool call's input item: n8n's AI Agent merges the model's
 * arguments into it, declared or not, so an undeclared `name` could pick another proxy. Refused.
 */
function targetFromInput(operation: string, node: (extra: Partial<NodeUnderTest>) => { parameters: Record<string, unknown> }): CellSpec {
	return {
		scenario: `as a tool, Proxy = {{ $json.name }} (the model adds an undeclared name)${operation === 'Extend' ? ', then Proxy From: Field of Each Input Item' : ''}`,
		expected: 'refused before anything is sent: a target is the builder\u2019s or declared with $fromAI',
		short: 'refused · 0 req',
		body: async (c) => {
			const { parameters } = node(tool);
			const result = await c.run({ ...tool, parameters: { ...parameters, proxyName: byName } }, [{ name: c.names[1] }]);
			expectNothingSent(c, result, TARGET_REFUSAL);
			if (operation !== 'Extend') return;
			const field = await c.run({ ...tool, parameters: { ...parameters, proxySource: 'field', proxyNameField: 'name' } }, [{ name: c.names[1] }]);
			expectNothingSent(c, field, TARGET_REFUSAL);
		},
	};
}

const CELLS: Partial<Record<Row, Partial<Record<Column, CellSpec>>>> = {
	'Proxy > Buy': {
		'agent-filled limit': {
			scenario: "as a tool, Maximum Total Cost = {{ $fromAI('cap') }} (the agent passes 100000)",
			expected: 'counts as no cap: refused, nothing sent',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'att', 1).city;
				const result = await c.run(buy({ maxTotalCost: "={{ $fromAI('cap', '', 'number') }}", keepWalletAtLeast: 1 }, tool), [{ carrier: 'AT&T', city, cap: 100_000 }]);
				expectNothingSent(c, result, refusedAsTool('As an AI agent tool, Buy needs a Maximum Total Cost set by the workflow\u2019s builder'));
			},
		},
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Buy again",
			expected: 'refused, says how to check and how to run again on purpose; nothing sent',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'att', 1).city;
				const result = await c.run(buy({ maxTotalCost: 1_000 }), [{ carrier: 'AT&T', city }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could buy the same proxies twice$/);
			},
		},
		'item-dependent option': {
			scenario: 'Dry Run = {{ $json.dry }}: true for item 0, false for item 1',
			expected: 'refused before anything is sent, naming Dry Run',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'att', 2).city;
				const result = await c.run(buy({ dryRun: '={{ $json.dry }}', maxTotalCost: 1_000 }), [
					{ carrier: 'AT&T', city, dry: true },
					{ carrier: 'AT&T', city, dry: false },
				]);
				expectNothingSent(c, result, /^Dry Run must be the same for every item of the run/);
			},
		},
		'charge above the cap': {
			scenario: 'the price doubles between the quote and the order (the service charges the new price)',
			expected: 'the item goes to the error output with both amounts; one order, charged once',
			short: 'error output · 1 charged',
			body: async (c) => {
				const city = cityWith(c.sim, 'att', 1).city;
				c.sim.changePricesAfterNextQuote(2);
				const result = await c.run(buy({ maxTotalCost: 1_000 }, toErrorOutput), [{ carrier: 'AT&T', city }]);
				const failed = result.output('Node Under Test', 1);
				expect(result.items).toHaveLength(0);
				expect(failed[0].json.error).toMatch(/^The proxies were bought, but the service charged [\d.]+, more than the quote of [\d.]+$/);
				expect(requests(c, 'POST /v1/proxies/deploy')).toBe(1);
				expect(c.sim.ledger).toHaveLength(1);
				c.obs.note(String(failed[0].json.error));
			},
		},
		'echo mismatch': {
			scenario: 'Wait for New Proxies while someone else buys the same carrier and city',
			expected: 'no proxy named that this run did not buy: candidates only',
			short: 'candidates only',
			body: async (c) => {
				const city = cityWith(c.sim, 'att', 1).city;
				c.sim.orders.deployDelayMs = 500;
				c.sim.addProxyOnNextOrder('deploy', null, { isp: 'AT&T', city, proxy_name: 'PRX-FOREIGN-0001' });
				const result = await c.run(buy({ maxTotalCost: 1_000, waitForNewProxies: true, waitTimeoutSeconds: 4 }), [{ carrier: 'AT&T', city }]);
				const json = result.items[0].json;
				expect(json).not.toHaveProperty('new_proxies');
				expect(json.status).toMatch(/^bought(_unidentified|_not_yet_visible)?$/);
				expect(String(json.note)).toMatch(/none is named as bought by this item/);
				c.obs.note(`status ${String(json.status)}, candidates ${JSON.stringify(json.candidates)}`);
			},
		},
	},
	'Proxy > Extend': {
		'target from the tool input': targetFromInput('Extend', (extra) => extend({ maxTotalCost: 1_000, keepWalletAtLeast: 1 }, extra)),
		'agent-filled limit': {
			scenario: 'as a tool, Maximum Total Cost = {{ $json.cap }} (the tool input)',
			expected: 'read from the tool call\u2019s input item: refused, nothing sent',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(extend({ maxTotalCost: '={{ $json.cap }}', keepWalletAtLeast: 1 }, tool), [{ name: c.names[0], cap: 100_000 }]);
				expectNothingSent(c, result, refusedAsTool('As an AI agent tool, Options > Maximum Total Cost may not be read from the tool call\u2019s input item'));
			},
		},
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Extend again",
			expected: 'refused; nothing sent or charged',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(extend({}), [{ name: c.names[0] }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could pay twice for the same extension$/);
			},
		},
		'item-dependent option': {
			scenario: 'Maximum Total Cost = {{ $json.cap }}: 1000 for item 0, 1 for item 1',
			expected: 'refused before anything is sent, naming Maximum Total Cost',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(extend({ maxTotalCost: '={{ $json.cap }}' }), [
					{ name: c.names[0], cap: 1_000 },
					{ name: c.names[1], cap: 1 },
				]);
				expectNothingSent(c, result, /^Maximum Total Cost must be the same for every item of the run/);
			},
		},
		'charge above the cap': {
			scenario: 'quotes rewritten to half the price by the hostile front; the service charges in full',
			expected: 'the charged batch fails its items (error output) with both amounts; no further batch is sent',
			short: 'error output · 1 batch',
			hostile: (front) =>
				front.add({
					route: 'POST /v1/price',
					kind: 'rewrite',
					reply: 'transform',
					times: Infinity,
					transform: (json: { data: { total: { due: number } } }) => {
						json.data.total.due = json.data.total.due / 2;
						return json;
					},
				}),
			body: async (c) => {
				const result = await c.run(extend({ maxTotalCost: 10_000, batchSize: 1 }, toErrorOutput), [{ name: c.names[0] }, { name: c.names[1] }]);
				const failed = result.output('Node Under Test', 1);
				expect(result.items).toHaveLength(0);
				expect(failed).toHaveLength(2);
				expect(failed[0].json.error).toMatch(/was extended \(charged [\d.]+\), but the service charged more than allowed/);
				expect(requests(c, 'POST /v1/proxies/allocate')).toBe(1);
				expect(c.sim.ledger).toHaveLength(1);
				c.obs.note(String(failed[0].json.message).split('.')[0]);
			},
		},
		'echo mismatch': {
			scenario: 'the service answers that it applied 2 weeks where 1 was asked (reply rewritten after it acted)',
			expected: 'the item reports what the service says it applied (applied_differently), the request beside it',
			short: 'applied_differently',
			hostile: (front) =>
				front.add({
					route: 'POST /v1/proxies/allocate',
					kind: 'rewrite',
					reply: 'transform',
					transform: (json: { data: { proxies: { time: Array<{ interval: number }> } } }) => {
						for (const line of json.data.proxies.time) line.interval = 2;
						return json;
					},
				}),
			body: async (c) => {
				const result = await c.run(extend({}), [{ name: c.names[0] }]);
				const json = result.items[0].json;
				expect(json).toMatchObject({ status: 'applied_differently', interval: 2, requested_interval: 1 });
				expect(c.sim.ledger).toHaveLength(1);
				c.obs.note(String(json.note));
			},
		},
	},
	'Proxy > Remove': {
		'target from the tool input': targetFromInput('Remove', (extra) => ({ parameters: { ...remove(0, extra).parameters, options: { dryRun: true } } })),
		'agent-filled limit': {
			scenario: "as a tool, Confirm Number of Proxies = {{ $fromAI('count') }}, then a typed 1",
			expected: 'as a tool Remove only previews: both refused, nothing removed',
			short: 'refused · 0 req',
			body: async (c) => {
				const filled = await c.run(remove("={{ $fromAI('count', '', 'number') }}", tool), [{ name: c.names[0], count: 1 }]);
				expectNothingSent(c, filled, refusedAsTool('As an AI agent tool, Remove needs Dry Run: as a tool it only previews what a removal would take'));
				const result = await c.run(remove(1, tool), [{ name: c.names[0] }]);
				expectNothingSent(c, result, refusedAsTool('As an AI agent tool, Remove needs Dry Run: as a tool it only previews what a removal would take'));
			},
		},
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Remove again",
			expected: 'refused; nothing removed',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(remove(1), [{ name: c.names[0] }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could send a removal twice$/);
			},
		},
		'item-dependent option': {
			scenario: 'Confirm Number of Proxies = {{ $json.n }}: 2 for item 0, 1 for item 1',
			expected: 'refused before anything is sent, naming the confirmation',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(remove('={{ $json.n }}'), [{ name: c.names[0], n: 2 }, { name: c.names[1], n: 1 }]);
				expectNothingSent(c, result, /^Confirm Number of Proxies must be the same for every item of the run/);
			},
		},
	},
	'Proxy > Change Location': {
		'target from the tool input': targetFromInput('Change Location', (extra) => move({ allowAsTool: true, keepWalletAtLeast: 1, maxMoveCost: 0 }, 'Denver', extra)),
		'agent-filled limit': {
			scenario: "as a tool, Allow as AI Tool = {{ $fromAI('allow') }} (the agent passes true)",
			expected: 'counts as not allowed: refused, nothing moved',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'tmobile', 1).city;
				const result = await c.run(move({ allowAsTool: "={{ $fromAI('allow', '', 'boolean') }}", keepWalletAtLeast: 1 }, city, tool), [{ name: c.names[0], allow: true }]);
				expectNothingSent(c, result, refusedAsTool('As an AI agent tool, Change Location needs Allow as AI Tool turned on by the workflow\u2019s builder'));
			},
		},
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Change Location again",
			expected: 'refused (a move may cost money); nothing sent',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'tmobile', 1).city;
				const result = await c.run(move({}, city), [{ name: c.names[0] }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could move a proxy twice$/);
			},
		},
		'item-dependent option': {
			scenario: 'Wait Timeout = {{ $json.wait }}: 0 for item 0, 30 for item 1',
			expected: 'refused before anything is sent, naming the option',
			short: 'refused · 0 req',
			body: async (c) => {
				const city = cityWith(c.sim, 'tmobile', 2).city;
				const result = await c.run(move({ waitTimeoutSeconds: '={{ $json.wait }}' }, city), [{ name: c.names[0], wait: 0 }, { name: c.names[1], wait: 30 }]);
				expectNothingSent(c, result, /^Wait Timeout \(Seconds\) must be the same for every item of the run/);
			},
		},
		'echo mismatch': {
			scenario: 'the reply carries no new name, and someone else adds a proxy in that carrier and city meanwhile',
			expected: 'the new name is given only when one proxy can be it; never a proxy this run did not move',
			short: 'never a foreign name',
			body: async (c) => {
				const city = cityWith(c.sim, 'tmobile', 1).city;
				const old = c.sim.account().proxies.get(c.names[0])!;
				c.sim.orders.swapReplyName = 'absent';
				c.sim.addProxyOnNextOrder('swap', null, { isp: 'T-Mobile', city, proxy_name: 'PRX-FOREIGN-0002', expires_at: old.expires_at, added_at: old.added_at });
				const result = await c.run(move({ waitTimeoutSeconds: 4 }, city), [{ name: c.names[0] }]);
				const json = result.items[0].json;
				expect(json.new_proxy_name).not.toBe('PRX-FOREIGN-0002');
				expect(requests(c, 'POST /v1/proxies/swap/:name')).toBe(1);
				c.obs.note(`status ${String(json.status)}, new name ${String(json.new_proxy_name)}`);
			},
		},
	},
	'Proxy > Set Auto-Renew': {
		'target from the tool input': targetFromInput('Set Auto-Renew', (extra) => renew({ maxRenewalCommitment: 100_000 }, 1, extra)),
		'agent-filled limit': {
			scenario: 'as a tool, turning auto-renew on with Maximum Renewal Commitment = {{ $json.commitment }}',
			expected: 'read from the tool call\u2019s input item: refused, nothing sent',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(renew({ maxRenewalCommitment: '={{ $json.commitment }}' }, 1, tool), [{ name: c.names[0], commitment: 1_000_000 }]);
				expectNothingSent(c, result, refusedAsTool('As an AI agent tool, Options > Maximum Renewal Commitment may not be read from the tool call\u2019s input item'));
			},
		},
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Set Auto-Renew again",
			expected: 'refused; nothing changed (a change that may have been made is never sent again, issue 35)',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(renew({}), [{ name: c.names[0] }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could send the auto-renew change twice$/);
			},
		},
		'item-dependent option': {
			scenario: 'Batch Size = {{ $json.size }}: 1 for item 0, 100 for item 1',
			expected: 'refused before anything is sent, naming Batch Size',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(renew({ batchSize: '={{ $json.size }}' }), [{ name: c.names[0], size: 1 }, { name: c.names[1], size: 100 }]);
				expectNothingSent(c, result, /^Batch Size must be the same for every item of the run/);
			},
		},
		'charge above the cap': {
			scenario: 'one renewal of the proxies (quoted) costs more than Maximum Renewal Commitment = 1',
			expected: 'refused after the quote; no setting sent',
			short: 'refused · 0 changes',
			body: async (c) => {
				const result = await c.run(renew({ maxRenewalCommitment: 1 }), [{ name: c.names[0] }]);
				expect(result.error?.message).toMatch(/more than the Maximum Renewal Commitment of 1$/);
				expect(requests(c, 'PATCH /v1/proxies/allocate/renew')).toBe(0);
				c.obs.note(String(result.error?.message));
			},
		},
		'echo mismatch': {
			scenario: 'the service applies at most 2 periods; 5 were asked',
			expected: 'the item reports the echoed interval (applied_differently), the request beside it',
			short: 'applied_differently',
			body: async (c) => {
				c.sim.renewals.maxAutoRenewInterval = 2;
				const result = await c.run(renew({}, 5), [{ name: c.names[0] }]);
				expect(result.items[0].json).toMatchObject({ status: 'applied_differently', interval: 2, requested_interval: 5 });
				c.obs.note(String(result.items[0].json.note));
			},
		},
	},
	'Proxy > Rotate IP': {
		'target from the tool input': targetFromInput('Rotate IP', (extra) => rotate({}, extra)),
		'execution retry': {
			scenario: "n8n's Retry of a failed execution (mode retry) runs Rotate IP again",
			expected: 'refused: a command the service accepted is never sent again',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(rotate({}), [{ name: c.names[0] }], 'retry');
				expectNothingSent(c, result, /^This is a retry of a failed execution, which could send the IP change twice$/);
			},
		},
		'item-dependent option': {
			scenario: 'Concurrency = {{ $json.c }}: 1 for item 0, 5 for item 1',
			expected: 'refused before anything is sent, naming Concurrency',
			short: 'refused · 0 req',
			body: async (c) => {
				const result = await c.run(rotate({ concurrency: '={{ $json.c }}' }), [{ name: c.names[0], c: 1 }, { name: c.names[1], c: 5 }]);
				expectNothingSent(c, result, /^Concurrency must be the same for every item of the run/);
			},
		},
	},
};

const table = ROWS.flatMap((row) => COLUMNS.filter((column) => CELLS[row]?.[column]).map((column): [Row, Column] => [row, column]));
results.plan(table.length);

describe('Guards: agents, retries and a service that does not do what was asked', () => {
	it.concurrent.each(table)('%s \u00d7 %s', async (row, column) => {
		const spec = CELLS[row]![column]!;
		await results.cell({ table: 'guards', row, column, scenario: spec.scenario, expected: spec.expected, short: spec.short }, async (obs) => {
			await withSim({ seed: 13, proxies: 8, cities: 8, balance: 50_000 }, async (sim) => {
				const front = spec.hostile ? await HostileFront.start(sim.url) : undefined;
				try {
					spec.hostile?.(front!);
					const credentials = front ? { baseUrl: front.url, apiKey: sim.demoApiKey } : credentialsFor(sim);
					const c: Ctx = {
						sim,
						obs,
						credentials,
						names: [...sim.account().proxies.keys()],
						run: (node, items = [{}], mode) => harness.runNode({ type: 'proxyAccount', ...node }, { credentials, items, mode }),
					};
					sim.resetLogs();
					try {
						await spec.body(c);
					} finally {
						obs.count(sim);
					}
				} finally {
					await front?.stop();
				}
			});
		});
	});
});
