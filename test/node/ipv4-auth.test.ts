/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (the passwords here are made up for the test); never shipped */
/**
 * Proxy > Set IPv4 and Proxy > Set Authentication in real WorkflowExecute runs against the
 * simulator: what is sent (request log), what changes (simulator state), what the output says, that
 * a change is never repeated once it may have reached the service, that bad input fails before any
 * request naming the item, the field and the entry, that the password (given or generated) leaves
 * the node only with Include Password, and all three On Error modes.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { apiRequests, capturedLogs, createHarness, credentialsFor, visibleText } from '../harness';
import type { NodeResult, NodeUnderTest } from '../harness';
import { IPV4_DELAY_MS, ProxyAccountSimulator } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 12, proxies: 30, cities: 8, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

type OnError = NonNullable<NodeUnderTest['onError']>;
const names = () => [...sim.account().proxies.keys()];
const record = (name: string) => sim.account().proxies.get(name)!;
const byName = (value: string) => ({ __rl: true, mode: 'name', value });
const paired = (items: INodeExecutionData[]) => items.map((item) => (item.pairedItem as { item: number }).item);

function run(parameters: IDataObject, items: IDataObject[] = [{}], node: Partial<NodeUnderTest> = {}): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, ...node }, { credentials: credentialsFor(sim), items });
}

const ipv4 = (extra: IDataObject = {}) => ({ resource: 'proxy', operation: 'setIpv4', proxyName: byName('={{ $json.name }}'), ...extra });
const auth = (extra: IDataObject = {}) => ({ resource: 'proxy', operation: 'setAuthentication', proxyName: byName('={{ $json.name }}'), ...extra });

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

describe('Proxy > Set Authentication: username and password', () => {
	it('sets the given credentials; the password stays out of the output', async () => {
		const name = names()[5];
		const result = await run(auth({ authMethod: 'usernamePassword', username: 'scraper_01', password: 'Given-Pass-123' }), [{ name }]);
		expect(result.status).toBe('success');
		expect(apiRequests(sim).map((r) => [r.method, r.path, r.body])).toEqual([
			['PATCH', `/v1/proxies/auth/basic/${encodeURIComponent(name)}`, { username: 'scraper_01', password: 'Given-Pass-123' }],
		]);
		expect(record(name)).toMatchObject({ username: 'scraper_01', password: 'Given-Pass-123', auth_method: 'basic', whitelist: null });
		const json = result.items[0].json;
		expect(json).toEqual({
			proxy_name: name,
			last_auth_change: expect.any(String),
			username: 'scraper_01',
			authentication: 'username_password',
			username_generated: false,
			password_generated: false,
			message: 'Authentication updated',
		});
		expect(visibleText(result.items)).not.toContain('Given-Pass-123');
	});

	it('empty fields are sent as null; the generated password is absent everywhere unless asked for', async () => {
		const name = names()[6];
		const result = await run(auth({ username: '', password: '' }), [{ name }]);
		expect(apiRequests(sim)[0].body).toEqual({ username: null, password: null });
		const generated = record(name).password;
		expect(result.items[0].json).toMatchObject({ username: record(name).username, username_generated: true, password_generated: true });
		expect(result.items[0].json).not.toHaveProperty('password');
		expect(visibleText(result.items, result.error)).not.toContain(generated);
		const logs = JSON.stringify(capturedLogs);
		expect(logs).not.toContain(generated);

		const asked = await run(auth({ options: { includePassword: true } }), [{ name }]);
		expect(asked.items[0].json.password).toBe(record(name).password);
		expect(record(name).password).not.toBe(generated);
	});

	it('refuses a password with a space before any request, without showing it', async () => {
		const result = await run(auth({ password: '={{ $json.pw }}' }), [{ name: names()[7], pw: 'my secret pw' }]);
		expect(result.error?.message).toBe('Password contains a space, a line break or another invisible character [item 0]');
		expect(visibleText(result.items, result.error)).not.toContain('my secret pw');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('a service error that repeats the password does not show it; a timeout is sent once', async () => {
		sim.injectFault({ route: 'PATCH /v1/proxies/auth/basic/:name', kind: 'okFalse', status: 422, message: 'password Repeated-Secret-9 is too weak' });
		const refused = await run(auth({ password: 'Repeated-Secret-9' }), [{ name: names()[8] }]);
		expect(refused.status).toBe('error');
		// Everything the error carries but the node's own parameters (where the user typed it).
		const carried = JSON.parse(JSON.stringify(refused.error)) as IDataObject;
		delete carried.node;
		expect(JSON.stringify(carried)).not.toContain('Repeated-Secret-9');
		expect(visibleText(refused.items, { message: refused.error?.message, description: (refused.error as { description?: string }).description })).not.toContain('Repeated-Secret-9');
		expect(String(refused.error?.message)).toMatch(/rejected the request: password \*\*\* is too weak/);
		sim.resetLogs();
		sim.injectFault({ route: 'PATCH /v1/proxies/auth/basic/:name', kind: 'latency', delayMs: 1_500, when: 'after' });
		const before = record(names()[8]).password;
		const slow = await run(auth({ options: { timeoutSeconds: 1 } }), [{ name: names()[8] }]);
		expect(slow.status).toBe('error');
		expect(apiRequests(sim)).toHaveLength(1);
		const changed = record(names()[8]).password;
		expect(changed).not.toBe(before); // the service acted: the node says it may have
		expect(String((slow.error as { description?: string }).description)).toMatch(/The authentication change may have been made/);
		expect(visibleText(slow.items, slow.error)).not.toContain(changed);
	});
});

describe('Proxy > Set Authentication: IP whitelist', () => {
	it('sends the checked list as one comma-separated string and outputs the entries', async () => {
		const name = names()[9];
		const result = await run(auth({ authMethod: 'ipWhitelist', whitelist: ' 203.0.113.7, 198.51.100.0/24\n2001:db8::/32 ' }), [{ name }]);
		expect(result.status).toBe('success');
		expect(apiRequests(sim)[0].body).toEqual({ authorize_ip: '203.0.113.7,198.51.100.0/24,2001:db8::/32' });
		expect(result.items[0].json).toMatchObject({
			proxy_name: name,
			authentication: 'ip_whitelist',
			whitelist: '203.0.113.7,198.51.100.0/24,2001:db8::/32',
			whitelist_entries: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'],
		});
		expect(record(name)).toMatchObject({ auth_method: 'whitelist', whitelist: '203.0.113.7,198.51.100.0/24,2001:db8::/32' });
		// The node still reads the proxy, whitelist as a string or (seeded) as a list.
		const read = await run({ resource: 'proxy', operation: 'getAll', returnAll: true, simplify: false });
		expect(read.status).toBe('success');
	});

	it('refuses a bad entry before any request, naming the item, the field and the entry', async () => {
		const result = await run(auth({ authMethod: 'ipWhitelist', whitelist: '={{ $json.ips }}' }), [
			{ name: names()[10], ips: '1.2.3.4' },
			{ name: names()[10], ips: '1.2.3.4, 300.1.1.1' },
		]);
		expect(result.error?.message).toBe('IP Whitelist holds \u201c300.1.1.1\u201d, which is not an IP address or a CIDR range [item 1]');
		expect(apiRequests(sim)).toHaveLength(1); // item 0 ran; item 1 was refused before its request
	});
});

describe('failed items reach n8n\u2019s error output (all three On Error modes)', () => {
	const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
	const CASES: Array<[string, IDataObject, () => IDataObject[], RegExp]> = [
		['Set IPv4', ipv4({ ipv4Enabled: '={{ $json.on }}' }), () => [{ name: names()[11], on: true }, { name: 'PRX-NOPE-0000', on: true }, { name: names()[12], on: 'x' }], /was not found/],
		[
			'Set Authentication',
			auth({ authMethod: '={{ $json.m }}', whitelist: '={{ $json.ips }}' }),
			() => [{ name: names()[13], m: 'ipWhitelist', ips: '1.2.3.4' }, { name: names()[14], m: 'ipWhitelist', ips: 'nope' }, { name: names()[15], m: 'usernamePassword' }, { name: 'PRX-NOPE-0000', m: 'usernamePassword' }],
			/holds \u201cnope\u201d/,
		],
	];
	const cases = CASES.flatMap(([label, parameters, items, stop]) => MODES.map((mode) => [label, mode, parameters, items, stop] as const));
	it.each(cases)('%s \u2014 %s', async (label, mode, parameters, items, stop) => {
		const result = await run(parameters, items(), { onError: mode });
		const failing = label === 'Set IPv4' ? [1, 2] : [1, 3];
		const succeeding = label === 'Set IPv4' ? [0] : [0, 2];
		if (mode === 'stopWorkflow') {
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(stop);
			return;
		}
		expect(result.status).toBe('success');
		if (mode === 'continueRegularOutput') {
			const all = result.output('Node Under Test', 0);
			const bad = all.filter((item) => item.json.error !== undefined);
			expect(paired(bad)).toEqual(failing);
			for (const item of bad) expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
			expect(paired(all.filter((item) => item.json.error === undefined))).toEqual(succeeding);
		} else {
			expect(paired(result.output('Node Under Test', 0))).toEqual(succeeding);
			const bad = result.output('Node Under Test', 1);
			expect(paired(bad)).toEqual(failing);
			for (const item of bad) expect(String(item.json.message)).not.toBe('');
		}
		const passwords = names().map((n) => record(n).password);
		const text = visibleText(result.output('Node Under Test', 0));
		for (const pw of passwords) expect(text).not.toContain(pw);
	});
});
