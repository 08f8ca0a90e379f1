import type { IDataObject } from 'n8n-workflow';

import { apiRequests, createHarness, credentialsFor } from '../harness';
import type { NodeResult } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 8, proxies: 40, cities: 12, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

const proxies = () => [...sim.account().proxies.values()];

function run(parameters: IDataObject, items?: IDataObject[], continueOnFail = false): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, continueOnFail }, { credentials: credentialsFor(sim), items });
}

const getProxy = (value: string, extra: IDataObject = {}) =>
	run({ resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'name', value }, ...extra });

describe('Proxy > Get', () => {
	it('returns the simplified proxy with time to expiry, without the password', async () => {
		const record = proxies()[0];
		const result = await getProxy(record.proxy_name);
		expect(result.status).toBe('success');
		const json = result.items[0].json;
		expect(json.proxy_name).toBe(record.proxy_name);
		expect(json.expires_at).toBe(record.expires_at);
		expect(json.expires_in_hours).toBeCloseTo((Date.parse(record.expires_at) - sim.clock.now()) / 3_600_000, 1);
		expect(json).not.toHaveProperty('password');
		expect(Object.keys(json).length).toBeLessThanOrEqual(15);
		expect(JSON.stringify(result.items)).not.toContain(record.password);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(apiRequests(sim).map((r) => r.path)).toEqual([`/v1/proxies/${encodeURIComponent(record.proxy_name)}`]);
	});

	it('returns the whole record (extra fields too) with Simplify off, still without the password', async () => {
		const record = proxies()[1];
		const result = await getProxy(record.proxy_name, { simplify: false });
		const json = result.items[0].json;
		expect(json).toHaveProperty('traffic', record.traffic);
		expect(json).toHaveProperty('country');
		expect(json).not.toHaveProperty('password');
	});

	it('includes the password only when asked for', async () => {
		const record = proxies()[2];
		const simple = await getProxy(record.proxy_name, { options: { includePassword: true } });
		expect(simple.items[0].json.password).toBe(record.password);
		const raw = await getProxy(record.proxy_name, { simplify: false, options: { includePassword: true } });
		expect(raw.items[0].json.password).toBe(record.password);
	});

	it('picks the proxy from the list mode too', async () => {
		const record = proxies()[3];
		const result = await run({ resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'list', value: record.proxy_name } });
		expect(result.items[0].json.proxy_name).toBe(record.proxy_name);
	});

	it('an unknown name is a clear not-found error naming the proxy', async () => {
		const result = await getProxy('PRX-US-XX9-9999');
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Proxy \u201cPRX-US-XX9-9999\u201d was not found in this Proxy Account');
	});

	it.each(['../etc', 'a?b=c', 'x#y', '%2F', 'ünïcødé name'])('encodes the name %s in the path', async (name) => {
		sim.addProxy(null, { proxy_name: name });
		const result = await getProxy(name);
		expect(result.items[0].json.proxy_name).toBe(name);
		expect(apiRequests(sim)[0].path).toBe(`/v1/proxies/${encodeURIComponent(name)}`);
	});

	it('refuses an empty name before any request, naming the item and the field', async () => {
		const result = await run(
			{ resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' } },
			[{ name: proxies()[0].proxy_name }, { name: '  ' }],
		);
		expect(result.error?.message).toBe('Proxy is empty [item 1]');
		expect(apiRequests(sim)).toHaveLength(1);
	});

	it('with continue on fail, one item per input item, errors paired', async () => {
		const result = await run(
			{ resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' } },
			[{ name: proxies()[0].proxy_name }, { name: 'missing' }, { name: proxies()[1].proxy_name }],
			true,
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[1].json.error).toMatch(/\u201cmissing\u201d was not found/);
	});
});

describe('Proxy > Get Many', () => {
	const getMany = (extra: IDataObject = {}, items?: IDataObject[]) =>
		run({ resource: 'proxy', operation: 'getAll', returnAll: true, ...extra }, items);

	it('returns every proxy, simplified, without passwords', async () => {
		const result = await getMany();
		expect(result.items).toHaveLength(sim.account().proxies.size);
		expect(result.items.every((item) => !('password' in item.json) && typeof item.json.expires_in_hours === 'number')).toBe(true);
		const text = JSON.stringify(result.items);
		expect(proxies().some((p) => text.includes(p.password))).toBe(false);
	});

	it('respects Limit', async () => {
		const result = await run({ resource: 'proxy', operation: 'getAll', returnAll: false, limit: 3 });
		expect(result.items).toHaveLength(3);
	});

	it('filters by city, state, carrier, network status, name and expiry window', async () => {
		const sample = proxies()[5];
		const now = sim.clock.now();
		const cases: Array<[IDataObject, (p: ReturnType<typeof proxies>[number]) => boolean]> = [
			[{ city: sample.city.toUpperCase() }, (p) => p.city === sample.city],
			[{ state: sample.state.toLowerCase() }, (p) => p.state === sample.state],
			[{ carrier: sample.isp }, (p) => p.isp === sample.isp],
			[{ carrier: ['AT&T', 'Verizon'] }, (p) => p.isp === 'AT&T' || p.isp === 'Verizon'],
			[{ networkStatus: 'online' }, (p) => p.network_status === 'online'],
			[{ nameContains: sample.proxy_name.slice(-4) }, (p) => `${p.proxy_name} ${p.nickname ?? ''}`.includes(sample.proxy_name.slice(-4))],
			[{ expiringWithinHours: 24 }, (p) => Date.parse(p.expires_at) - now <= 24 * 3_600_000],
		];
		for (const [filters, expected] of cases) {
			const result = await getMany({ filters });
			const want = proxies().filter(expected).map((p) => p.proxy_name).sort();
			expect(want.length).toBeGreaterThan(0);
			expect(result.items.map((item) => item.json.proxy_name).sort()).toEqual(want);
		}
	});

	it('sorts by expiry', async () => {
		const result = await getMany({ sort: 'expiresAsc' });
		const times = result.items.map((item) => Date.parse(item.json.expires_at as string));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		const desc = await getMany({ sort: 'expiresDesc', returnAll: false, limit: 1 });
		expect(Date.parse(desc.items[0].json.expires_at as string)).toBe(Math.max(...times));
	});

	it('reads the list once for many input items, each item getting its own filtered results', async () => {
		const cities = [...new Set(proxies().map((p) => p.city))].slice(0, 3);
		const result = await getMany({ filters: { city: '={{ $json.city }}' } }, cities.map((city) => ({ city })));
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(1);
		cities.forEach((city, i) => {
			const mine = result.items.filter((item) => (item.pairedItem as { item: number }).item === i);
			expect(mine.length).toBe(proxies().filter((p) => p.city === city).length);
			expect(mine.every((item) => item.json.city === city)).toBe(true);
		});
	});

	it('refuses a negative expiry window, naming the field', async () => {
		const result = await getMany({ filters: { expiringWithinHours: -1 } });
		expect(result.error?.message).toBe('Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1 [item 0]');
	});
});

describe('Stock > Get Many', () => {
	const stock = (extra: IDataObject = {}) => run({ resource: 'stock', operation: 'getAll', returnAll: true, ...extra });

	it('returns one item per city with a carriers map and a total', async () => {
		const result = await stock();
		expect(result.items).toHaveLength(sim.stock.length);
		result.items.forEach((item, n) => {
			const city = sim.stock[n];
			expect(item.json.city).toBe(city.city);
			expect(item.json.carriers).toEqual(city.counts);
			expect(item.json.total).toBe(Object.values(city.counts).reduce((a, b) => a + b, 0));
			expect(item.pairedItem).toEqual({ item: 0 });
		});
	});

	it('discovers a new carrier from the payload', async () => {
		const other = await ProxyAccountSimulator.start({ seed: 4, cities: 6 });
		try {
			other.addCarrier({ key: 'uscellular', name: 'US Cellular', code: 'UC' });
			other.setStockCount(other.stock[0].city, 'uscellular', 7);
			const result = await harness.runNode(
				{ type: 'proxyAccount', parameters: { resource: 'stock', operation: 'getAll', returnAll: true, filters: { carrier: 'uscellular', onlyAvailable: true } } },
				{ credentials: credentialsFor(other) },
			);
			expect(result.items.map((item) => item.json.city)).toEqual([other.stock[0].city]);
			expect((result.items[0].json.carriers as IDataObject).uscellular).toBe(7);
		} finally {
			await other.stop();
		}
	});

	it('filters: only available, carrier, state, city; and Limit', async () => {
		const available = await stock({ filters: { onlyAvailable: true } });
		expect(available.items.map((item) => item.json.city)).toEqual(
			sim.stock.filter((c) => c.open && Object.values(c.counts).some((n) => n > 0)).map((c) => c.city),
		);
		const key = sim.carriers[1].key;
		const byCarrier = await stock({ filters: { onlyAvailable: true, carrier: key } });
		expect(byCarrier.items.map((item) => item.json.city)).toEqual(sim.stock.filter((c) => c.open && c.counts[key] > 0).map((c) => c.city));
		// Several carriers: cities with stock for any of them, the total counting only them.
		const [a, b] = [sim.carriers[0].key, sim.carriers[2].key];
		const byTwo = await stock({ filters: { onlyAvailable: true, carrier: [a, sim.carriers[2].name] } });
		const wantTwo = sim.stock.filter((c) => c.open && (c.counts[a] > 0 || c.counts[b] > 0));
		expect(wantTwo.length).toBeGreaterThan(0);
		expect(byTwo.items.map((item) => item.json.city)).toEqual(wantTwo.map((c) => c.city));
		for (const item of byTwo.items) {
			const city = sim.stock.find((c) => c.city === item.json.city)!;
			expect(item.json.total).toBe(city.counts[a] + city.counts[b]);
		}
		const first = sim.stock[0];
		expect((await stock({ filters: { state: first.state } })).items.every((item) => item.json.state === first.state)).toBe(true);
		expect((await stock({ filters: { city: first.city.toLowerCase() } })).items.map((item) => item.json.city)).toEqual([first.city]);
		expect((await run({ resource: 'stock', operation: 'getAll', returnAll: false, limit: 2 })).items).toHaveLength(2);
	});
});
