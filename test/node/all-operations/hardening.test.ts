/**
 * The promises of the hardening issue that need no hostile server in front of the simulator, each
 * proved in real WorkflowExecute runs: failed items reach n8n's error output in every operation
 * under all three On Error modes; Retry On Fail never pays twice; safety options set by expressions
 * fail closed; a proxy named twice is charged once; one unpriceable line fails alone; a failed
 * later batch names what was already paid; the stock total respects the carrier filter; the
 * expiring window says when it does not protect a second run.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { apiRequests, createHarness, credentialsFor } from '../../harness';
import type { NodeResult, NodeUnderTest } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 31, proxies: 60, cities: 10, balance: 10_000_000, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

type OnError = NonNullable<NodeUnderTest['onError']>;
const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];

const names = () => [...sim.account().proxies.keys()];
const byName = (value: string) => ({ __rl: true, mode: 'name', value });
/** How to fix a failed item: its `message`. */
const fix = (item: INodeExecutionData) => String(item.json.message ?? '');
const paired = (items: INodeExecutionData[]) =>
	items.map((item) => (item.pairedItem as { item: number }).item).sort((a, b) => a - b);

function run(parameters: IDataObject, items: IDataObject[], node: Partial<NodeUnderTest> = {}): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, ...node }, { credentials: credentialsFor(sim), items });
}

function extendParams(options: IDataObject = {}, extra: IDataObject = {}): IDataObject {
	return {
		resource: 'proxy',
		operation: 'extend',
		proxyName: byName('={{ $json.name }}'),
		interval: '={{ $json.interval ?? 1 }}',
		period: 'weekly',
		options,
		...extra,
	};
}

/** A proxy of the account in a city the service no longer sells: its quote line is refused. */
function unsellable(): string {
	return sim.addProxy(null, { city: 'Atlantis', state: 'AT' }).proxy_name;
}

// ----- 1. failed items reach the error output ---------------------------------------------------------

interface RoutingCase {
	label: string;
	parameters: IDataObject;
	items: () => IDataObject[];
	/** Before the run: faults to inject. */
	prepare?: () => void;
	/** Input items that must fail and succeed. */
	failing: number[];
	succeeding: number[];
	/** The message the run stops with in stopWorkflow mode. */
	stopMessage: RegExp;
}

const ROUTING: RoutingCase[] = [
	{
		label: 'Proxy > Get: an unknown proxy and an empty name',
		parameters: { resource: 'proxy', operation: 'get', proxyName: byName('={{ $json.name }}') },
		items: () => [{ name: names()[0] }, { name: 'PRX-NOPE-0000' }, { name: '' }, { name: names()[1] }],
		failing: [1, 2],
		succeeding: [0, 3],
		stopMessage: /Proxy \u201cPRX-NOPE-0000\u201d was not found/,
	},
	{
		label: 'Proxy > Get Many: a bad Limit',
		parameters: { resource: 'proxy', operation: 'getAll', limit: '={{ $json.limit }}' },
		items: () => [{ limit: 2 }, { limit: 0 }],
		failing: [1],
		succeeding: [0],
		stopMessage: /^Limit must be a whole number of 1 or more, but it is 0 \[item 1\]$/,
	},
	{
		label: 'Proxy > Get Many: the list read fails (500)',
		parameters: { resource: 'proxy', operation: 'getAll', limit: 2 },
		items: () => [{}, {}],
		prepare: () => sim.injectFault({ route: 'GET /v1/proxies', kind: 'status', status: 500 }),
		failing: [0, 1],
		succeeding: [],
		stopMessage: /could not handle the request \(HTTP 500/,
	},
	{
		label: 'Stock > Get Many: a bad Limit',
		parameters: { resource: 'stock', operation: 'getAll', limit: '={{ $json.limit }}', filters: {} },
		items: () => [{ limit: 'x' }, { limit: 3 }],
		failing: [0],
		succeeding: [1],
		stopMessage: /^Limit must be a whole number/,
	},
	{
		label: 'Price > Quote: a bad interval and a city the service refuses',
		parameters: {
			resource: 'price',
			operation: 'quote',
			lines: { line: [{ carrier: 'AT&T', city: '={{ $json.city }}', interval: '={{ $json.interval }}', period: 'weekly' }] },
		},
		items: () => [{ city: sim.stock[0].city, interval: 1 }, { city: sim.stock[0].city, interval: 0 }, { city: 'Atlantis', interval: 1 }],
		failing: [1, 2],
		succeeding: [0],
		stopMessage: /^Interval must be a whole number/,
	},
	{
		label: 'Price > Quote (all items in one quote): the quote is refused',
		parameters: {
			resource: 'price',
			operation: 'quote',
			combineItems: true,
			lines: { line: [{ carrier: 'AT&T', city: '={{ $json.city }}', interval: 1, period: 'weekly' }] },
		},
		items: () => [{ city: sim.stock[0].city }, { city: 'Atlantis' }],
		failing: [0, 1],
		succeeding: [],
		stopMessage: /rejected the request/,
	},
	{
		label: 'Proxy > Extend, Proxy From a field: an item without the field and one holding an object',
		parameters: { resource: 'proxy', operation: 'extend', proxySource: 'field', proxyNameField: 'proxy_name', interval: 1, period: 'weekly', options: {} },
		items: () => [{ proxy_name: names()[5] }, { other: 'x' }, { proxy_name: { nested: true } }, { proxy_name: names()[6] }],
		failing: [1, 2],
		succeeding: [0, 3],
		stopMessage: /^Proxy Name Field \u201cproxy_name\u201d is not a field of this item \[item 1\]$/,
	},
	{
		label: 'Proxy > Extend: bad input, an unknown proxy, a refused and an uncertain batch',
		parameters: extendParams({ batchSize: 1 }),
		items: () => {
			const list = names();
			return [{ name: list[0] }, { name: 'PRX-NOPE-0000' }, { name: list[1], interval: 0 }, { name: list[2] }, { name: list[3] }, { name: list[4] }];
		},
		prepare: () => {
			// Batches: [list0], [list2], [list3], [list4]: the second is refused, the third uncertain.
			sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 0, when: 'before' });
			sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'okFalse', status: 402, message: 'Insufficient funds', data: { funds: 1, diff: 78 } });
			sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'status', status: 503 });
		},
		failing: [1, 2, 3, 4],
		succeeding: [0, 5],
		stopMessage: /^Proxy \u201cPRX-NOPE-0000\u201d was not found|^Interval must be/,
	},
	{
		label: 'Proxy > Buy: a bad quantity and a city the service refuses to price',
		parameters: { resource: 'proxy', operation: 'buy', carrier: 'AT&T', city: '={{ $json.city }}', quantity: '={{ $json.quantity }}', interval: 1, period: 'weekly' },
		items: () => [{ city: 'Atlantis', quantity: 1 }, { city: 'Atlantis', quantity: 0 }],
		failing: [0, 1],
		succeeding: [],
		stopMessage: /^Quantity must be a whole number from 1 to 100, but it is 0 \[item 1\]$/,
	},
	{
		label: 'Proxy > Remove: an unknown proxy, a good one removed',
		parameters: { resource: 'proxy', operation: 'remove', proxyName: byName('={{ $json.name }}'), confirmCount: 2, options: { dryRun: true } },
		items: () => [{ name: 'PRX-NOPE-0000' }, { name: names()[20] }],
		failing: [0],
		succeeding: [1],
		stopMessage: /^Proxy \u201cPRX-NOPE-0000\u201d was not found/,
	},
];

describe('failed items reach n8n\u2019s error output (every operation, all three On Error modes)', () => {
	const cases = ROUTING.flatMap((c) => MODES.map((mode): [string, OnError, RoutingCase] => [c.label, mode, c]));
	it.each(cases)('%s \u2014 %s', async (_label, mode, c) => {
		c.prepare?.();
		const ledgerBefore = sim.ledger.length;
		const result = await run(c.parameters, c.items(), { onError: mode });
		if (mode === 'stopWorkflow') {
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(c.stopMessage);
			return;
		}
		expect(result.status).toBe('success');
		if (mode === 'continueRegularOutput') {
			const all = result.output('Node Under Test', 0);
			expect(paired(all.filter((item) => item.json.error !== undefined))).toEqual(c.failing);
			// The shape every n8n version routes to the error output: `error` and `message` only.
			for (const item of all.filter((i) => i.json.error !== undefined)) expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
			expect([...new Set(paired(all.filter((item) => item.json.error === undefined)))]).toEqual(c.succeeding);
			return;
		}
		const good = result.output('Node Under Test', 0);
		const bad = result.output('Node Under Test', 1);
		// The success branch holds only successes; every failed item is on the error branch, paired.
		expect(good.every((item) => item.json.error === undefined)).toBe(true);
		expect([...new Set(paired(good))]).toEqual(c.succeeding);
		expect(paired(bad)).toEqual(c.failing);
		for (const item of bad) {
			expect(typeof item.json.error).toBe('string');
			expect(fix(item)).not.toBe('');
		}
		if (c.parameters.operation === 'extend' && c.parameters.proxySource === undefined) {
			// The uncertain batch says so; the refused one says nothing was charged.
			const uncertain = bad.find((item) => (item.pairedItem as { item: number }).item === 4)!;
			expect(fix(uncertain)).toMatch(/may have been applied/);
			const refused = bad.find((item) => (item.pairedItem as { item: number }).item === 3)!;
			expect(fix(refused)).toMatch(/nothing was charged/);
			expect(sim.ledger.length - ledgerBefore).toBe(2); // list0 and list4: the 503 came before the service acted, not that the node could know
		}
	});
});

// ----- 2. Retry On Fail never pays twice ----------------------------------------------------------------

describe('Retry On Fail can never pay twice', () => {
	const retry = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };

	it.each([
		['a window longer than the extension', { onlyIfExpiringWithinHours: 10_000 }, undefined],
		['the charge reply timing out after the service applied it', { timeoutSeconds: 1 }, 'timeout'],
	] as Array<[string, IDataObject, string | undefined]>)('is refused before any request: %s', async (_label, options, fault) => {
		if (fault === 'timeout') sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 1_500, when: 'after' });
		for (const onError of ['stopWorkflow', 'continueRegularOutput'] as OnError[]) {
			const result = await run(extendParams(options), [{ name: names()[10] }, { name: names()[11] }], { ...retry, onError });
			if (onError === 'stopWorkflow') expect(result.error?.message).toBe('Retry On Fail is on, which could pay twice for the same extension');
			else expect(result.items.map((item) => item.json.error)).toEqual(['Retry On Fail is on, which could pay twice for the same extension', 'Retry On Fail is on, which could pay twice for the same extension']);
		}
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('Dry Run runs under Retry On Fail and charges nothing, even when n8n retries it', async () => {
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'status', status: 500 });
		const result = await run(extendParams({ dryRun: true }), [{ name: names()[12] }], retry);
		expect(result.status).toBe('success');
		expect(result.items[0].json.status).toBe('dry_run');
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(2); // n8n ran the node again after the 500
		expect(sim.ledger).toHaveLength(0);
	});
});

// ----- 5. safety options set by expressions fail closed --------------------------------------------------

describe('safety options set by expressions fail closed', () => {
	it.each([
		['Dry Run', 'dryRun', '={{ $json.missing }}', /^Dry Run must be true or false, but it is empty$/],
		['Dry Run', 'dryRun', '={{ "yes" }}', /^Dry Run must be true or false, but it is \u201cyes\u201d$/],
		['Dry Run', 'dryRun', '={{ 1 }}', /^Dry Run must be true or false, but it is 1$/],
		['Maximum Total Cost', 'maxTotalCost', '={{ $json.missing }}', /^Maximum Total Cost must be an amount of 0 or more, but it is empty$/],
		['Maximum Total Cost', 'maxTotalCost', '={{ "" }}', /^Maximum Total Cost must be an amount of 0 or more, but it is empty$/],
		['Maximum Total Cost', 'maxTotalCost', '={{ NaN }}', /^Maximum Total Cost must be an amount of 0 or more, but it is NaN$/],
		['Maximum Total Cost', 'maxTotalCost', '={{ "lots" }}', /^Maximum Total Cost must be an amount .* but it is \u201clots\u201d$/],
		['Only If Expiring Within', 'onlyIfExpiringWithinHours', '={{ $json.missing }}', /^Only If Expiring Within \(Hours\) must be a number of hours of 0 or more, but it is empty$/],
		['Only If Expiring Within', 'onlyIfExpiringWithinHours', '={{ "soon" }}', /^Only If Expiring Within \(Hours\) must be .* but it is \u201csoon\u201d$/],
		['Batch Size', 'batchSize', '={{ $json.missing }}', /^Batch Size must be a whole number from 1 to 1000, but it is empty$/],
		['Batch Size', 'batchSize', '={{ NaN }}', /^Batch Size must be a whole number from 1 to 1000, but it is NaN$/],
		['Timeout', 'timeoutSeconds', '={{ $json.missing }}', /^Timeout \(Seconds\) must be a whole number from 1 to 600, but it is empty$/],
		['Timeout', 'timeoutSeconds', '={{ 3600 }}', /^Timeout \(Seconds\) must be a whole number from 1 to 600, but it is 3600$/],
		['Timeout', 'timeoutSeconds', '={{ 2 ** 31 }}', /^Timeout \(Seconds\) must be a whole number from 1 to 600, but it is 2147483648$/],
	])('%s = %s (%s) is refused before any request, nothing charged', async (_label, option, expression, message) => {
		const result = await run(extendParams({ [option]: expression }), [{ name: names()[13] }, { name: names()[14] }]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.ledger).toHaveLength(0);
	});

	it('with Continue On Fail, every item carries the refusal of a run-wide option, on the error output', async () => {
		const result = await run(extendParams({ maxTotalCost: '={{ $json.missing }}' }), [{ name: names()[13] }, { name: names()[14] }], { onError: 'continueErrorOutput' });
		expect(result.output('Node Under Test', 0)).toHaveLength(0);
		expect(paired(result.output('Node Under Test', 1))).toEqual([0, 1]);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('Dry Run given as the strings "true" and "false" is understood', async () => {
		const dry = await run(extendParams({ dryRun: '={{ "true" }}' }), [{ name: names()[15] }]);
		expect(dry.items[0].json.status).toBe('dry_run');
		expect(sim.ledger).toHaveLength(0);
		const real = await run(extendParams({ dryRun: '={{ " False " }}' }), [{ name: names()[15] }]);
		expect(real.items[0].json.status).toBe('extended');
		expect(sim.ledger).toHaveLength(1);
	});

	it.each([
		['Proxy > Get', { resource: 'proxy', operation: 'get', proxyName: byName(names.length ? 'x' : 'x') }],
		['Proxy > Get Many', { resource: 'proxy', operation: 'getAll' }],
		['Stock > Get Many', { resource: 'stock', operation: 'getAll', filters: {} }],
	])('%s: a Timeout that resolves to nothing is refused before any request', async (_label, parameters) => {
		const result = await run({ ...parameters, options: { timeoutSeconds: '={{ $json.missing }}' } }, [{}]);
		expect(result.error?.message).toBe('Timeout (Seconds) must be a whole number from 1 to 600, but it is empty [item 0]');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('Get Many: an Expiring Within filter that resolves to nothing is refused instead of returning every proxy', async () => {
		const result = await run({ resource: 'proxy', operation: 'getAll', returnAll: true, filters: { expiringWithinHours: '={{ $json.missing }}' } }, [{}]);
		expect(result.error?.message).toBe('Expiring Within (Hours) must be a number of hours of 0 or more, but it is empty [item 0]');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

// ----- 3. the window only protects a second run when it is shorter than the extension ----------------

describe('Only If Expiring Within and a second run', () => {
	const hints = (result: NodeResult) =>
		(result.run.data.resultData.runData['Node Under Test']?.[0]?.hints ?? []).map((hint) => hint.message);

	it('a window shorter than the extension: the second run pays nothing, and no warning is shown', async () => {
		const name = sim.addProxy(null, { expires_at: new Date(sim.clock.now() + 2 * 3_600_000).toISOString() }).proxy_name;
		const first = await run(extendParams({ onlyIfExpiringWithinHours: 24 }), [{ name }]);
		const second = await run(extendParams({ onlyIfExpiringWithinHours: 24 }), [{ name }]);
		expect(first.items[0].json.status).toBe('extended');
		expect(second.items[0].json.status).toBe('skipped');
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([name]);
		expect(hints(first)).toEqual([]);
	});

	it('a window as long as the extension or longer: the second run extends again, and the run says so', async () => {
		const name = sim.addProxy(null, { expires_at: new Date(sim.clock.now() + 2 * 3_600_000).toISOString() }).proxy_name;
		const first = await run(extendParams({ onlyIfExpiringWithinHours: 200 }), [{ name }]);
		const second = await run(extendParams({ onlyIfExpiringWithinHours: 200 }), [{ name }]);
		expect(first.items[0].json.status).toBe('extended');
		expect(second.items[0].json.status).toBe('extended');
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([name, name]);
		expect(hints(first)).toEqual([
			'Only If Expiring Within (200 h) is not shorter than the extension, so a second run extends the same proxies again. Keep it shorter than Interval \u00d7 Period.',
		]);
	});
});

// ----- 10. a proxy named twice in one run is never charged twice -------------------------------------------

describe('a proxy named twice in one run', () => {
	it('the same extension twice, without a window: charged once, the repeat skipped with a reason', async () => {
		const [a, b] = names().slice(20, 22);
		const result = await run(extendParams(), [{ name: a }, { name: b }, { name: a }, { name: a }]);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.status)).toEqual(['extended', 'extended', 'skipped', 'skipped']);
		expect(result.items[2].json.reason).toBe('same proxy as item 0 of this run, which stands for both');
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([a, b]);
		const charged = result.items.reduce((sum, item) => sum + Number(item.json.charged), 0);
		expect(Math.round(charged * 100)).toBe(Math.round(sim.ledger.reduce((sum, entry) => sum + entry.amount, 0) * 100));
	});

	it('different extensions of one proxy fail all its items before any charge, naming both items', async () => {
		const [a, b] = names().slice(22, 24);
		const stopped = await run(extendParams(), [{ name: a }, { name: b }, { name: a, interval: 2 }]);
		expect(stopped.status).toBe('error');
		expect(stopped.error?.message).toBe(`Proxy \u201c${a}\u201d is named by items 0 and 2 with different requests (1 weekly and 2 weekly) [item 0]`);
		expect(apiRequests(sim)).toHaveLength(0);

		const tolerant = await run(extendParams(), [{ name: a }, { name: b }, { name: a, interval: 2 }], { onError: 'continueErrorOutput' });
		expect(paired(tolerant.output('Node Under Test', 1))).toEqual([0, 2]);
		expect(tolerant.output('Node Under Test', 1)[1].json.error).toBe(
			`Proxy \u201c${a}\u201d is named by items 0 and 2 with different requests (1 weekly and 2 weekly) [item 2]`,
		);
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual([b]);
	});

	it('a repeat of a proxy that failed fails the same way', async () => {
		const result = await run(extendParams(), [{ name: 'PRX-NOPE-1' }, { name: 'PRX-NOPE-1' }], { onError: 'continueErrorOutput' });
		expect(result.output('Node Under Test', 1).map((item) => item.json.error)).toEqual([
			'Proxy \u201cPRX-NOPE-1\u201d was not found in this Proxy Account [item 0]',
			'Proxy \u201cPRX-NOPE-1\u201d was not found in this Proxy Account [item 0]',
		]);
		expect(paired(result.output('Node Under Test', 1))).toEqual([0, 1]);
	});
});

// ----- 12. one line the service will not price fails alone ---------------------------------------------

describe('one bad line fails alone', () => {
	it.each([
		['Maximum Total Cost', { maxTotalCost: 100_000 }, 'extended'],
		['Dry Run', { dryRun: true }, 'dry_run'],
	])('%s: only the item behind the refused line fails, named by its item; the others go on', async (_label, options, status) => {
		const bad = unsellable();
		const [a, b] = names().slice(24, 26);
		const result = await run(extendParams(options), [{ name: a }, { name: bad }, { name: b }], { onError: 'continueErrorOutput' });
		const good = result.output('Node Under Test', 0);
		const failed = result.output('Node Under Test', 1);
		expect(good.map((item) => [item.json.proxy_name, item.json.status])).toEqual([[a, status], [b, status]]);
		expect(failed).toHaveLength(1);
		expect(failed[0].pairedItem).toEqual({ item: 1 });
		expect(failed[0].json.error).toBe(`Proxy \u201c${bad}\u201d cannot be priced for this extension [item 1]`);
		expect(fix(failed[0])).toMatch(/in Atlantis .*location must be a known city.*nothing was charged for it; the other proxies go on/);
		expect(sim.ledger.map((entry) => entry.proxy_name)).toEqual(status === 'extended' ? [a, b] : []);
	});

	it('without Continue On Fail the run stops at that line, before any charge', async () => {
		const bad = unsellable();
		const result = await run(extendParams({ maxTotalCost: 100_000 }), [{ name: names()[26] }, { name: bad }]);
		expect(result.error?.message).toBe(`Proxy \u201c${bad}\u201d cannot be priced for this extension [item 1]`);
		expect(apiRequests(sim, 'POST /v1/proxies/allocate')).toHaveLength(0);
	});
});

// ----- 13. a failed later batch hides nothing ------------------------------------------------------------

describe('a failed later batch without Continue On Fail', () => {
	it('names up to 20 proxies already extended, then a count, and the amount charged so far', async () => {
		const list = names().slice(30, 55);
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 0, when: 'before' });
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'status', status: 500 });
		const result = await run(extendParams({ batchSize: 22 }), list.map((name) => ({ name })));
		expect(result.status).toBe('error');
		const charged = Math.round(sim.ledger.reduce((sum, entry) => sum + entry.amount, 0) * 100) / 100;
		const description = String((result.error as { description?: string }).description);
		expect(description).toContain(`This was batch 2 of 2 (3 proxies), which may have been applied. Before it in this run, the service extended 22 proxies: ${list.slice(0, 20).join(', ')} and 2 more, charged ${charged} in all.`);
		expect(description).toMatch(/may have been applied/);
	});
});

// ----- 14. stock total with a carrier filter ------------------------------------------------------------

describe('Stock > Get Many with a carrier filter', () => {
	it('counts only that carrier in the total', async () => {
		sim.setStockCount(sim.stock[0].city, 'att', 4);
		sim.setStockCount(sim.stock[0].city, 'verizon', 7);
		const filtered = await run({ resource: 'stock', operation: 'getAll', returnAll: true, filters: { carrier: 'att', city: sim.stock[0].city } }, [{}]);
		expect(filtered.items[0].json.total).toBe(4);
		const all = await run({ resource: 'stock', operation: 'getAll', returnAll: true, filters: { city: sim.stock[0].city } }, [{}]);
		expect(all.items[0].json.total).toBe(Object.values(sim.stock[0].counts).reduce((sum, count) => sum + count, 0));
	});
});
