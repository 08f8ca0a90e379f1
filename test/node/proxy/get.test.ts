/**
 * Proxy > Get in a real WorkflowExecute run against the simulator.
 */
import { apiRequests } from '../../harness';
import { sim, proxies, run, getProxy } from '../../harness/suites/reads';

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
		expect(result.error?.message).toBe('Proxy \u201cPRX-US-XX9-9999\u201d was not found in this Proxy Account [item 0]');
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
