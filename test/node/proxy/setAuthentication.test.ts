/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (the passwords here are made up for the test); never shipped */
/**
 * Proxy > Set Authentication (username and password, IP whitelist) in real WorkflowExecute runs against the simulator; the password never shows.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, capturedLogs, visibleText } from '../../harness';
import { sim, names, record, run, auth } from '../../harness/suites/device-settings';

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

	it.each([
		['Username', 'username', '={{ $json.user }}', 'undefined'],
		['Password', 'password', '={{ $json.pw }}', 'undefined'],
		['Password', 'password', '={{ null }}', 'null'],
		['Username', 'username', '={{ "" }}', 'an empty text'],
	])('%s as an expression that gives nothing (%s = %s) is refused: nothing is sent, no password is generated', async (field, key, expression, gives) => {
		const name = names()[7];
		const before = record(name).password;
		const result = await run(auth({ username: 'kept_user', password: 'Kept-Pass-123', [key]: expression }), [{ name }]);
		expect(result.error?.message).toBe(`${field} is an expression that gives ${gives} [item 0]`);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(record(name).password).toBe(before);
	});

	it('a password shorter than 8 characters is refused before any request, without showing it', async () => {
		const result = await run(auth({ password: '={{ $json.pw }}' }), [{ name: names()[7], pw: 'Short7!' }]);
		expect(result.error?.message).toBe('Password is shorter than 8 characters [item 0]');
		expect(visibleText(result.items, result.error)).not.toContain('Short7!');
		expect(apiRequests(sim)).toHaveLength(0);
	});

	it('an Include Password that is not true or false is refused before the change is sent', async () => {
		const name = names()[7];
		const before = record(name).password;
		const result = await run(auth({ password: 'Another-Pass-42', options: { includePassword: '={{ "yes" }}' } }), [{ name }]);
		expect(result.error?.message).toBe('Include Password must be true or false, but it is \u201cyes\u201d [item 0]');
		expect(apiRequests(sim)).toHaveLength(0);
		expect(record(name).password).toBe(before);
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
