import type { INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, createHarness, credentialsFor } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 17, proxies: 15, cities: 9 });
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.resetLogs());

const node = { type: 'proxyAccount', parameters: { resource: 'price', operation: 'quote' } };
const options = async (method: string) =>
	(await harness.callMethod(node, 'loadOptions', method, credentialsFor(sim))) as INodePropertyOptions[];

describe('editor methods', () => {
	it('getCarriers: display names discovered from live stock, one request', async () => {
		expect((await options('getCarriers')).map((o) => o.value)).toEqual(['AT&T', 'Verizon', 'T-Mobile']);
		expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/stock']);
	});

	it('getStockCarriers: stock keys labelled with display names; a new carrier appears without a release', async () => {
		sim.addCarrier({ key: 'uscellular', name: 'US Cellular', code: 'UC' });
		const found = await options('getStockCarriers');
		expect(found.map((o) => o.value)).toEqual(['att', 'verizon', 'tmobile', 'uscellular']);
		expect(found.map((o) => o.name)).toEqual(['AT&T', 'Verizon', 'T-Mobile', 'Uscellular']);
	});

	it('getCities: every city, the ones in stock first, with counts per carrier', async () => {
		const cities = await options('getCities');
		expect(cities.map((o) => o.value).sort()).toEqual(sim.stock.map((c) => c.city).sort());
		const firstOut = cities.findIndex((o) => /\((out of stock|coming)\)$/.test(o.name));
		expect(firstOut).toBeGreaterThan(0);
		expect(cities.slice(firstOut).every((o) => /\((out of stock|coming)\)$/.test(o.name))).toBe(true);
		expect(cities.find((o) => o.value === 'Austin')?.description).toMatch(/^AT&T \d+, Verizon \d+, T-Mobile \d+/);
	});

	it('getCities: with a Quote line\'s carrier chosen, its cities in stock come first and the others say so', async () => {
		const withCarrier = (carrier: string) =>
			harness.callMethod(
				{ type: 'proxyAccount', parameters: { resource: 'price', operation: 'quote', lines: { line: [{ carrier, city: '' }] } } },
				'loadOptions',
				'getCities',
				credentialsFor(sim),
				undefined,
				'parameters.lines.line[0].city',
			) as Promise<INodePropertyOptions[]>;
		const open = sim.stock.filter((c) => c.open);
		const city = open.find((c) => c.counts.verizon > 0 && c.counts.att === 0) ?? open[0];
		sim.setStockCount(city.city, 'verizon', 5);
		sim.setStockCount(city.city, 'att', 0);
		const forAtt = await withCarrier('AT&T');
		const forVerizon = await withCarrier('Verizon');
		expect(forAtt.find((o) => o.value === city.city)?.name).toBe(`${city.city}, ${city.state} (no AT&T)`);
		expect(forVerizon.find((o) => o.value === city.city)?.name).toBe(`${city.city}, ${city.state}`);
		const marked = (list: INodePropertyOptions[]) => list.map((o) => /\((no AT&T|coming)\)$/.test(o.name));
		const firstMarked = marked(forAtt).indexOf(true);
		expect(marked(forAtt).slice(firstMarked).every(Boolean)).toBe(true);
		for (const o of forAtt.slice(0, firstMarked)) expect(sim.stock.find((c) => c.city === o.value)!.counts.att).toBeGreaterThan(0);
		// An expression or no carrier yet: cities with any stock first, as before.
		expect((await withCarrier('={{ $json.carrier }}')).map((o) => o.name)).toEqual((await options('getCities')).map((o) => o.name));
	});

	it('getCities: Buy\'s and Change Location\'s City follows their Carrier field the same way', async () => {
		const city = sim.stock.find((c) => c.open)!;
		sim.setStockCount(city.city, 'att', 0);
		sim.setStockCount(city.city, 'verizon', 3);
		for (const operation of ['buy', 'changeLocation']) {
			const list = (await harness.callMethod(
				{ type: 'proxyAccount', parameters: { resource: 'proxy', operation, carrier: 'AT&T' } },
				'loadOptions',
				'getCities',
				credentialsFor(sim),
				undefined,
				'parameters.city',
			)) as INodePropertyOptions[];
			expect(list.find((o) => o.value === city.city)?.name).toBe(`${city.city}, ${city.state} (no AT&T)`);
		}
	});

	it('getNetworkStatuses: online and offline, then any other status the proxies show, one request', async () => {
		const proxy = [...sim.account().proxies.values()][0];
		const before = proxy.network_status;
		proxy.network_status = 'Maintenance';
		try {
			const statuses = await options('getNetworkStatuses');
			expect(statuses.slice(0, 2).map((o) => o.value)).toEqual(['online', 'offline']);
			expect(statuses.map((o) => o.value)).toContain('maintenance');
			expect(statuses.find((o) => o.value === 'maintenance')?.name).toBe('Maintenance');
			expect(new Set(statuses.map((o) => o.value)).size).toBe(statuses.length);
			expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/proxies']);
			const trigger = (await harness.callMethod(
				{ type: 'proxyAccountTrigger', parameters: { event: 'proxyStatusChanged' } },
				'loadOptions',
				'getNetworkStatusesOrAny',
				credentialsFor(sim),
			)) as INodePropertyOptions[];
			expect(trigger[0]).toMatchObject({ name: 'Any', value: '' });
			expect(trigger.slice(1).map((o) => o.value)).toEqual(statuses.map((o) => o.value));
		} finally {
			proxy.network_status = before;
		}
	});

	it('searchProxies: the resource locator list, filtered, soonest expiry first', async () => {
		const all = (await harness.callMethod(node, 'listSearch', 'searchProxies', credentialsFor(sim))) as INodeListSearchResult;
		expect(all.results).toHaveLength(sim.account().proxies.size);
		const expiries = all.results.map((r) => sim.account().proxies.get(String(r.value))!.expires_at);
		expect(expiries).toEqual([...expiries].sort());
		const one = [...sim.account().proxies.values()][4];
		const filtered = (await harness.callMethod(node, 'listSearch', 'searchProxies', credentialsFor(sim), one.proxy_name.toLowerCase())) as INodeListSearchResult;
		expect(filtered.results.map((r) => r.value)).toEqual([one.proxy_name]);
		expect(filtered.results[0].name).toContain(one.city);
	});

	it('searchProxies: matches the carrier too, and each row says when the proxy expires', async () => {
		const search = async (filter: string) =>
			((await harness.callMethod(node, 'listSearch', 'searchProxies', credentialsFor(sim), filter)) as INodeListSearchResult).results;
		const byCarrier = await search('verizon');
		const verizon = [...sim.account().proxies.values()].filter((p) => p.isp === 'Verizon');
		expect(verizon.length).toBeGreaterThan(0);
		for (const p of verizon) expect(byCarrier.map((r) => r.value)).toContain(p.proxy_name);
		const all = await search('');
		// The expiry right after the name, so the editor's cut at the row's end never hides it.
		for (const row of all) expect(row.name).toMatch(new RegExp(`^${String(row.value)} \u2013 (expires in (\\d+ d( \\d+ h)?|\\d+ h|\\d+ min)|expired) \u2013 `));
		const soonest = sim.account().proxies.get(String(all[0].value))!;
		const minutes = Math.floor((Date.parse(soonest.expires_at) - sim.clock.now()) / 60_000);
		if (minutes >= 1440) expect(all[0].name).toContain(`expires in ${Math.floor(minutes / 1440)} d`);
	});
});

describe('node description', () => {
	it('the canvas subtitle names each operation, resolved by n8n\u2019s expression engine', async () => {
		const { Workflow } = await import('n8n-workflow');
		const { ProxyAccount } = await import('../../../nodes/ProxyAccount/ProxyAccount.node');
		const subtitle = String(new ProxyAccount().description.subtitle);
		const expected: Record<string, string> = {
			'proxy:get': 'Get Proxy',
			'proxy:getAll': 'Get Many Proxies',
			'proxy:extend': 'Extend Proxies',
			'proxy:buy': 'Buy Proxies',
			'proxy:remove': 'Remove Proxies',
			'price:quote': 'Quote Price',
			'stock:getAll': 'Get Many Stock Entries',
		};
		for (const [key, label] of Object.entries(expected)) {
			const [resource, operation] = key.split(':');
			const inode = harness.toNode({ type: 'proxyAccount', parameters: { resource, operation } }, 'Proxy Account', [0, 0]);
			const workflow = new Workflow({ nodes: [inode], connections: {}, active: false, nodeTypes: harness.nodeTypes });
			expect(workflow.expression.getSimpleParameterValue(inode, subtitle, 'internal', {})).toBe(label);
		}
	});

	it('the trigger\u2019s canvas subtitle names every event, resolved by n8n\u2019s expression engine', () => {
		const trigger = new ProxyAccountTrigger().description;
		const subtitle = String(trigger.subtitle);
		const events = trigger.properties.find((p) => p.name === 'event')!.options as Array<{ name: string; value: string }>;
		expect(events).toHaveLength(7);
		for (const { name, value } of events) {
			const inode = harness.toNode({ type: 'proxyAccountTrigger', parameters: { event: value } }, 'Proxy Account Trigger', [0, 0]);
			const workflow = new Workflow({ nodes: [inode], connections: {}, active: false, nodeTypes: harness.nodeTypes });
			expect(workflow.expression.getSimpleParameterValue(inode, subtitle, 'internal', {})).toBe(name);
		}
	});
});
