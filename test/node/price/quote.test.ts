import type { IDataObject } from 'n8n-workflow';

import { apiRequests, createHarness, credentialsFor } from '../../harness';
import type { NodeResult } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 13, cities: 8 });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

function quote(lines: Array<Record<string, unknown>>, extra: IDataObject = {}, items?: IDataObject[], continueOnFail = false): Promise<NodeResult> {
	return harness.runNode(
		{ type: 'proxyAccount', continueOnFail, parameters: { resource: 'price', operation: 'quote', lines: { line: lines }, simplify: false, ...extra } },
		{ credentials: credentialsFor(sim), items },
	);
}

const austin = (interval: unknown = 1, period: unknown = 'weekly', carrier: unknown = 'AT&T') => ({ carrier, city: 'Austin', interval, period });

interface Quote {
	member: boolean;
	periods: Record<string, { individual: Record<string, { interval: number; standard: number; member: number; total: number }>; bulk: { individual: number; price: number | null }; total: { standard: number; member: number; due: number } }>;
	total: { standard: number; member: number; due: number };
	savings: { total: number };
}

describe('Price > Quote', () => {
	it('is simplified by default: one item per line with its price, no generated keys', async () => {
		const result = await harness.runNode(
			{ type: 'proxyAccount', parameters: { resource: 'price', operation: 'quote', lines: { line: [austin(2)] } } },
			{ credentials: credentialsFor(sim) },
		);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ carrier: 'AT&T', city: 'Austin', interval: 2, period: 'weekly' });
		expect(result.items[0].json).not.toHaveProperty('periods');
	});

	it('returns the quote as the service returns it, all relations intact', async () => {
		const result = await quote([austin(2), austin(1), austin(1, 'monthly', 'Verizon')]);
		expect(result.status).toBe('success');
		const q = result.items[0].json as unknown as Quote;
		expect(Object.keys(q.periods).sort()).toEqual(['monthly', 'weekly']);
		let due = 0;
		for (const period of Object.values(q.periods)) {
			const items = Object.values(period.individual);
			const sum = items.reduce((a, item) => a + item.total, 0);
			expect(period.total.due).toBeCloseTo(sum, 2);
			due += period.total.due;
		}
		expect(q.total.due).toBeCloseTo(due, 2);
		expect(q.savings.total).toBeCloseTo(q.total.standard - q.total.due, 2);
		const body = apiRequests(sim, 'POST /v1/price')[0].body as { proxies: IDataObject[] };
		expect(body.proxies).toEqual([
			{ isp: 'AT&T', location: 'Austin', interval: 2, period: 'weekly' },
			{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' },
			{ isp: 'Verizon', location: 'Austin', interval: 1, period: 'monthly' },
		]);
	});

	it('Simplify: one item per line with unit price, line total and the quote totals', async () => {
		const result = await quote([austin(2), austin(3)], { simplify: true });
		expect(result.items).toHaveLength(2);
		const [a, b] = result.items.map((item) => item.json);
		expect(a).toMatchObject({ line: 1, carrier: 'AT&T', city: 'Austin', period: 'weekly', interval: 2 });
		for (const line of [a, b]) {
			expect(line.line_total).toBeCloseTo((line.interval as number) * (line.unit_price as number), 2);
			expect(line.unit_price).toBe(line.bulk_price); // two weekly lines: the bulk price applies
		}
		expect(a.quote_total_due).toBeCloseTo((a.line_total as number) + (b.line_total as number), 2);
		expect(a.period_total_due).toBe(a.quote_total_due);
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: 0 }))).toBe(true);
	});

	it('one quote per input item by default', async () => {
		const result = await quote([{ carrier: '={{ $json.carrier }}', city: 'Austin', interval: 1, period: 'weekly' }], {}, [
			{ carrier: 'AT&T' },
			{ carrier: 'T-Mobile' },
		]);
		expect(result.items).toHaveLength(2);
		expect(apiRequests(sim, 'POST /v1/price')).toHaveLength(2);
	});

	it('Combine All Items Into One Quote: one request, one line per item, lines paired to their items', async () => {
		const items = [{ carrier: 'AT&T' }, { carrier: 'Verizon' }, { carrier: 'T-Mobile' }];
		const lines = [{ carrier: '={{ $json.carrier }}', city: 'Austin', interval: 1, period: 'weekly' }];
		const simplified = await quote(lines, { combineItems: true, simplify: true }, items);
		expect(apiRequests(sim, 'POST /v1/price')).toHaveLength(1);
		expect(simplified.items.map((item) => [item.json.carrier, item.pairedItem])).toEqual([
			['AT&T', { item: 0 }],
			['Verizon', { item: 1 }],
			['T-Mobile', { item: 2 }],
		]);
		const raw = await quote(lines, { combineItems: true }, items);
		expect(raw.items).toHaveLength(1);
		expect(raw.items[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(Object.keys((raw.items[0].json as unknown as Quote).periods.weekly.individual)).toHaveLength(3);
	});

	it.each([
		['interval 0', austin(0), /^Interval must be a whole number from 1 to 1000, but it is 0 \[item 0\]$/],
		['interval "abc"', austin('abc'), /^Interval must be a whole number .* but it is \u201cabc\u201d \[item 0\]$/],
		['an unknown period', austin(1, 'daily-ish'), /^Period must be one of .* \[item 0\]$/],
		['a carrier expression resolving to empty', austin(1, 'weekly', "={{ '' }}"), /^Carrier is empty \[item 0\]$/],
		['a city expression resolving to null', { carrier: 'AT&T', city: '={{ null }}', interval: 1, period: 'weekly' }, /^City is empty \[item 0\]$/],
	])('refuses %s before any request', async (_label, line, message) => {
		const result = await quote([line as Record<string, unknown>]);
		expect(result.error?.message).toMatch(message);
		expect(sim.requests).toHaveLength(0);
	});

	it('names the line when there are several', async () => {
		const result = await quote([austin(1), austin(-2)]);
		expect(result.error?.message).toBe('Interval (line 2) must be a whole number from 1 to 1000, but it is -2 [item 0]');
	});

	it('refuses an empty list of lines', async () => {
		const result = await quote([]);
		expect(result.error?.message).toBe('Lines is empty [item 0]');
		expect(sim.requests).toHaveLength(0);
	});

	it('an unknown carrier or city gets the service message; with continue on fail, an error item per input item', async () => {
		const result = await quote([{ carrier: 'AT&T', city: '={{ $json.city }}', interval: 1, period: 'weekly' }], {}, [
			{ city: 'Austin' },
			{ city: 'Atlantis' },
		], true);
		expect(result.items[0].json.total).toBeDefined();
		expect(result.items[1].json.error).toMatch(/^The Proxy Account service rejected the request: .*location/);
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
	});
});
