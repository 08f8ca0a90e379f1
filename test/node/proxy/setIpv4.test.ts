/**
 * Proxy > Set IPv4 in real WorkflowExecute runs against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests } from '../../harness';
import { IPV4_DELAY_MS } from '../../simulator';
import { sim, names, byName, paired, run, ipv4 } from '../../harness/suites/device-settings';

describe('Proxy > Set IPv4', () => {
	it('sends a real boolean per item, says the change was sent to the device, and it appears after the delay', async () => {
		const [p0, p1] = names();
		const result = await run(ipv4({ ipv4Enabled: '={{ $json.on }}' }), [{ name: p0, on: false }, { name: p1, on: 'true' }]);
		expect(result.status).toBe('success');
		const requests = apiRequests(sim);
		expect(requests.map((r) => [r.method, r.path, r.body])).toEqual([
			['POST', `/v1/proxies/ipv4/${encodeURIComponent(p0)}`, { enable: false }],
			['POST', `/v1/proxies/ipv4/${encodeURIComponent(p1)}`, { enable: true }],
		]);
		expect(result.items.map((i) => i.json)).toEqual([
			expect.objectContaining({ proxy_name: p0, ipv4_enabled: false, ipv4: false, status: 'sent_to_device', last_ipv4_update: expect.any(String) }),
			expect.objectContaining({ proxy_name: p1, ipv4_enabled: true, ipv4: true, status: 'sent_to_device' }),
		]);
		expect(String(result.items[0].json.note)).toMatch(/IPv6 only.*sent to the device; it takes effect shortly/);
		expect(paired(result.items)).toEqual([0, 1]);
		sim.clock.advance(IPV4_DELAY_MS);
		const read = await run({ resource: 'proxy', operation: 'get', proxyName: byName(p0), simplify: false });
		expect(read.items[0].json.ipv4).toBeNull();
	});

	it('refuses an Enabled that is not true or false before any request', async () => {
		const result = await run(ipv4({ ipv4Enabled: '={{ "maybe" }}' }), [{ name: names()[2] }]);
		expect(result.error?.message).toBe('Enabled must be true or false, but it is \u201cmaybe\u201d [item 0]');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it.each([
		['a 503', { kind: 'status', status: 503 }],
		['a reset after the service acted', { kind: 'reset', when: 'after' }],
		['a malformed reply', { kind: 'malformed' }],
	] as Array<[string, IDataObject]>)('is sent once on %s, and says the setting may have been made', async (_label, fault) => {
		sim.injectFault({ route: 'POST /v1/proxies/ipv4/:name', ...fault } as never);
		const result = await run(ipv4({ ipv4Enabled: false }), [{ name: names()[3] }]);
		expect(result.status).toBe('error');
		expect(apiRequests(sim, 'POST /v1/proxies/ipv4/:name')).toHaveLength(1);
		const description = String((result.error as { description?: string }).description);
		expect(description).toMatch(/The IPv4 setting may have been made: the request may have reached the service, so it was not sent again\. Read the proxy \(Proxy Account > Get\)/);
		expect(description).not.toMatch(/charged|extension/);
	});

	it('a 400 says nothing was changed; a 429 before acting is waited for and sent again', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/ipv4/:name', kind: 'okFalse', status: 400, message: 'enable must be a boolean' });
		const refused = await run(ipv4(), [{ name: names()[4] }]);
		expect(String((refused.error as { description?: string }).description)).toMatch(/nothing was changed/);
		sim.resetLogs();
		sim.injectFault({ route: 'POST /v1/proxies/ipv4/:name', kind: 'rateLimit', retryAfter: 1 });
		const result = await run(ipv4(), [{ name: names()[4] }]);
		expect(result.status).toBe('success');
		expect(apiRequests(sim).map((r) => r.status)).toEqual([429, 202]);
	});
});
