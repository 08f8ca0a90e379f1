/**
 * The secret audit's hardest cases: a service (or a gateway in front of it) that echoes the API key
 * in an error, and proxy records that carry passwords. Whatever comes back, no output item, error
 * message, error description, stored run data or log line may show the key, or a password that
 * was not asked for.
 */
import type { IDataObject } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { capturedLogs, createHarness, PollHarness } from '../harness';
import type { NodeResult } from '../harness';
import type { FaultSpec, ProxyAccountSimulator } from '../simulator';
import type { Observation } from './support';
import { auditCell, Results, SecretAudit, withSim } from './support';

const results = new Results('secrets');
const audit = new SecretAudit();
const harness = createHarness([new ProxyAccountTrigger()]);

afterAll(() => results.write());
results.declare('secret-audit', ['The service echoes the API key', 'Proxy passwords']);

const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };

interface EchoCase {
	label: string;
	fault: (key: string) => FaultSpec;
	parameters: Record<string, unknown>;
	items?: (sim: ProxyAccountSimulator) => IDataObject[];
	message: string;
	/** Whether the node shows what the service said (then as ***); a 429 shows only how long to wait. */
	echoShown: boolean;
}

const ECHOES: EchoCase[] = [
	{
		label: 'a 401 whose problem+json detail quotes the key (Stock > Get Many)',
		fault: (key) => ({
			route: 'GET /v1/stock',
			kind: 'status',
			status: 401,
			body: { type: 'about:blank', title: 'Unauthorized', status: 401, detail: `The key ${key} is not valid` },
			contentType: 'application/problem+json',
		}),
		parameters: { resource: 'stock', operation: 'getAll', returnAll: true },
		message: 'The Proxy Account API key was not accepted',
		echoShown: true,
	},
	{
		label: 'ok:false in a 200 whose message quotes the key (Proxy > Get)',
		fault: (key) => ({ route: 'GET /v1/proxies/:name', kind: 'okFalse', status: 200, message: `Key ${key} is suspended` }),
		parameters: { resource: 'proxy', operation: 'get', proxyName: byName },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service could not process the request: Key *** is suspended',
		echoShown: true,
	},
	{
		label: 'a 429 storm whose detail quotes the key (Price > Quote)',
		fault: (key) => ({
			route: 'POST /v1/price',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '120' },
			body: { type: 'about:blank', title: 'Too Many Requests', status: 429, detail: `Too many requests for ${key}` },
			contentType: 'application/problem+json',
			times: Infinity,
		}),
		parameters: { resource: 'price', operation: 'quote', lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: 1, period: 'weekly' }] } },
		message: 'The Proxy Account service is limiting how often it can be called',
		echoShown: false,
	},
	{
		label: 'a refused quote line whose message quotes the key (Price > Quote)',
		fault: (key) => ({ route: 'POST /v1/price', kind: 'okFalse', status: 400, message: `proxies[0].location is not valid for ${key}` }),
		parameters: { resource: 'price', operation: 'quote', lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: 1, period: 'weekly' }] } },
		message: 'The Proxy Account service rejected the request: proxies[0].location is not valid for *** (City \u201cAustin\u201d) [item 0]',
		echoShown: true,
	},
	{
		label: 'a 500 HTML page titled with the key (Proxy > Extend, nothing charged)',
		fault: (key) => ({
			route: 'POST /v1/proxies/allocate',
			kind: 'status',
			status: 500,
			body: `<html><head><title>Upstream error for ${key}</title></head><body>nginx</body></html>`,
			contentType: 'text/html',
		}),
		parameters: { resource: 'proxy', operation: 'extend', proxyName: byName, interval: 1, period: 'weekly' },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service answered with a web page instead of data (HTTP 500, POST /v1/proxies/allocate)',
		echoShown: true,
	},
	{
		label: 'a 400 whose message quotes the key (Proxy > Set IPv4)',
		fault: (key) => ({ route: 'POST /v1/proxies/ipv4/:name', kind: 'okFalse', status: 400, message: `enable refused for ${key}` }),
		parameters: { resource: 'proxy', operation: 'setIpv4', proxyName: byName, ipv4Enabled: false },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service rejected the request: enable refused for *** [item 0]',
		echoShown: true,
	},
	{
		label: 'a 403 problem+json quoting the key (Proxy > Set Authentication)',
		fault: (key) => ({
			route: 'PATCH /v1/proxies/auth/basic/:name',
			kind: 'status',
			status: 403,
			body: { type: 'about:blank', title: 'Forbidden', status: 403, detail: `Key ${key} may only change IPs` },
			contentType: 'application/problem+json',
		}),
		parameters: { resource: 'proxy', operation: 'setAuthentication', proxyName: byName },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account API key is not allowed to do this',
		echoShown: true,
	},
	{
		label: 'ok:false in a 200 whose message quotes the key (Account > Get Funds)',
		fault: (key) => ({ route: 'GET /v1/funds', kind: 'okFalse', status: 200, message: `Wallet of ${key} is frozen` }),
		parameters: { resource: 'account', operation: 'getFunds' },
		message: 'The Proxy Account service could not process the request: Wallet of *** is frozen',
		echoShown: true,
	},
	{
		label: 'a refused change whose message quotes the key (Proxy > Set Auto-Renew)',
		fault: (key) => ({ route: 'PATCH /v1/proxies/allocate/renew', kind: 'okFalse', status: 400, message: `Settings locked for ${key}` }),
		parameters: { resource: 'proxy', operation: 'setAutoRenew', proxyName: byName, autoRenew: false, interval: 1 },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service rejected the request: Settings locked for ***',
		echoShown: true,
	},
	{
		label: 'a refused order whose message quotes the key (Proxy > Buy, nothing charged)',
		fault: (key) => ({ route: 'POST /v1/proxies/deploy', kind: 'okFalse', status: 400, message: `Order refused for ${key}` }),
		parameters: { resource: 'proxy', operation: 'buy', carrier: 'AT&T', city: 'Austin', quantity: 1, interval: 1, period: 'weekly' },
		message: 'The Proxy Account service rejected the request: Order refused for ***',
		echoShown: true,
	},
	{
		label: 'a 500 whose message quotes the key (Proxy > Remove, never repeated)',
		fault: (key) => ({ route: 'DELETE /v1/proxies/remove', kind: 'status', status: 500, body: { ok: false, message: `Removal failed for ${key}` } }),
		parameters: { resource: 'proxy', operation: 'remove', proxyName: byName, confirmCount: 1 },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service could not handle the request (HTTP 500, DELETE /v1/proxies/remove)',
		echoShown: true,
	},
	{
		label: 'a refused move whose message quotes the key (Proxy > Change Location)',
		fault: (key) => ({ route: 'POST /v1/proxies/swap/:name', kind: 'okFalse', status: 400, message: `Swap locked for ${key}` }),
		parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: byName, carrier: 'AT&T', city: 'Austin', copySettings: true },
		items: (sim) => [{ name: [...sim.account().proxies.keys()][0] }],
		message: 'The Proxy Account service rejected the request: Swap locked for *** [item 0]',
		echoShown: true,
	},
	{
		label: 'a 503 whose message quotes the key (Proxy > Reboot)',
		fault: (key) => ({ route: 'POST /v1/proxies/reboot/:name', kind: 'status', status: 503, body: { ok: false, message: `Modem of ${key} busy` } }),
		parameters: { resource: 'proxy', operation: 'reboot', proxyName: byName },
		items: (sim) => {
			const [name] = [...sim.account().proxies.keys()];
			sim.account().proxies.get(name)!.last_reboot = '2020-01-01T00:00:00.000Z';
			return [{ name }];
		},
		message: 'The Proxy Account service could not handle the request (HTTP 503, POST /v1/proxies/reboot/{proxyName})',
		echoShown: true,
	},
];

function visible(result: NodeResult): string {
	const error = result.error as { message?: string; description?: string } | undefined;
	return [JSON.stringify(result.run.data.resultData), error?.message, error?.description].join('\n');
}

async function echoCell(c: EchoCase, continueOnFail: boolean): Promise<void> {
	await results.cell(
		{
			table: 'secret-audit',
			row: 'The service echoes the API key',
			column: `${c.label}${continueOnFail ? ', Continue On Fail' : ''}`,
			scenario: `${c.label}; Continue On Fail ${continueOnFail ? 'on (an error item)' : 'off (the execution stops)'}`,
			expected: `\u201c${c.message}\u201d; the key appears nowhere (message, description, items, run data, logs)${c.echoShown ? '; the echo is shown as ***' : ''}`,
		},
		async (obs: Observation) => {
			await withSim({}, async (sim) => {
				audit.addSim(sim);
				const key = sim.demoApiKey;
				sim.injectFault(c.fault(key));
				const result = await harness.runNode(
					{ type: 'proxyAccount', continueOnFail, parameters: c.parameters },
					{ credentials: { baseUrl: sim.url, apiKey: key }, items: c.items?.(sim) },
				);
				audit.run(c.label, result);
				obs.count(sim);
				const text = visible(result);
				const error = continueOnFail ? result.items[0]?.json : (result.error as unknown as IDataObject | undefined);
				obs.note(`${result.status}: \u201c${String(error?.error ?? error?.message)}\u201d; description: \u201c${String(error?.description)}\u201d`);
				obs.note(`the key appears ${text.split(key).length - 1} times; *** appears ${text.split('***').length - 1} times`);
				expect(continueOnFail ? result.items[0].json.error : result.error?.message).toBe(c.message);
				expect(text).not.toContain(key);
				expect(text.includes('***')).toBe(c.echoShown);
				expect(sim.ledger).toHaveLength(0);
			});
		},
	);
}

// Each echo with and without Continue On Fail, the trigger echo, passwords, the file's scan.
results.plan(ECHOES.length * 2 + 4);

describe('secrets: the API key and passwords never leave the node', () => {
	it.concurrent.each(ECHOES.flatMap((c) => [[c.label, false, c] as const, [c.label, true, c] as const]))(
		'%s (continue on fail: %s)',
		async (_label, continueOnFail, c) => {
			await echoCell(c, continueOnFail);
		},
	);

	it('a failed poll whose ok:false message quotes the key: the thrown error shows ***', async () => {
		await results.cell(
			{
				table: 'secret-audit',
				row: 'The service echoes the API key',
				column: 'Trigger: ok:false quoting the key',
				scenario: 'a scheduled poll of Stock Changed answered with {ok:false, message: "... <key> ..."}',
				expected: 'the poll fails with the message showing ***; the key appears nowhere; the state is not touched',
			},
			async (obs) => {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					const key = sim.demoApiKey;
					const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'stockChanged' } }, { baseUrl: sim.url, apiKey: key });
					expect(await t.poll()).toBeNull();
					const baseline = JSON.stringify(t.staticData);
					sim.injectFault({ route: 'GET /v1/stock', kind: 'okFalse', status: 200, message: `Account ${key} is locked` });
					let error: unknown;
					try {
						await t.poll();
					} catch (caught) {
						error = caught;
					}
					audit.poll('trigger echo', null, error);
					obs.count(sim);
					const e = error as { message?: string; description?: string };
					obs.note(`poll failed: \u201c${String(e?.message)}\u201d`);
					expect(e?.message).toBe('The Proxy Account service could not process the request: Account *** is locked');
					expect(JSON.stringify(error)).not.toContain(key);
					expect(`${e.message} ${e.description}`).not.toContain(key);
					expect(JSON.stringify(t.staticData)).toBe(baseline);
				});
			},
		);
	});

	it('passwords: left out of every output unless Include Password is on, and then only there', async () => {
		await results.cell(
			{
				table: 'secret-audit',
				row: 'Proxy passwords',
				column: 'Get, Get Many, trigger',
				scenario:
					'Get and Get Many with Simplify on and off, and the New Proxy and Proxy Expiring trigger events, each without and with Include Password',
				expected: 'no password in any output without Include Password; with it, exactly the passwords of the proxies returned',
			},
			async (obs) => {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
					const proxies = [...sim.account().proxies.values()];
					const passwords = proxies.map((proxy) => proxy.password);
					const leaked = (text: string) => passwords.filter((password) => text.includes(password)).length;
					const counts: string[] = [];
					for (const includePassword of [false, true]) {
						for (const simplify of [true, false]) {
							const get = await harness.runNode(
								{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'get', proxyName: byName, simplify, options: { includePassword } } },
								{ credentials, items: [{ name: proxies[0].proxy_name }] },
							);
							const many = await harness.runNode(
								{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'getAll', returnAll: true, simplify, options: { includePassword } } },
								{ credentials },
							);
							for (const [label, result, expected] of [
								['Get', get, 1],
								['Get Many', many, proxies.length],
							] as Array<[string, NodeResult, number]>) {
								if (!includePassword) audit.run(`${label} simplify ${simplify}`, result);
								const found = leaked(JSON.stringify(result.run.data.resultData));
								counts.push(`${label}${simplify ? '' : ' (raw)'}${includePassword ? ' + Include Password' : ''}: ${found}`);
								expect(result.status).toBe('success');
								expect(found).toBe(includePassword ? expected : 0);
								if (includePassword) expect(result.items.every((item) => typeof item.json.password === 'string')).toBe(true);
							}
						}
					}
					for (const includePassword of [false, true]) {
						for (const event of ['newProxy', 'proxyExpiring']) {
							const t = new PollHarness(
								harness,
								{ type: 'proxyAccountTrigger', parameters: { event, withinHours: 24, options: { includePassword } } },
								credentials,
							);
							await t.poll();
							const added = sim.addProxy(null, { expires_at: new Date(sim.clock.now() + 3 * 3_600_000).toISOString() });
							passwords.push(added.password);
							audit.addSim(sim);
							const output = await t.poll();
							if (!includePassword) audit.poll(`${event} event`, output);
							const found = leaked(JSON.stringify(output));
							counts.push(`trigger ${event}${includePassword ? ' + Include Password' : ''}: ${found}`);
							expect(output?.[0]).toHaveLength(1);
							expect(found).toBe(includePassword ? 1 : 0);
						}
					}
					obs.note(`passwords found per output: ${counts.join('; ')}`);
				});
			},
		);
	});

	it('passwords set or generated by Set Authentication, and Proxy Removed items: only with Include Password', async () => {
		await results.cell(
			{
				table: 'secret-audit',
				row: 'Proxy passwords',
				column: 'Set Authentication, Proxy Removed',
				scenario:
					'Set Authentication with a given and with a generated password, without and with Include Password; Proxy Removed reporting a deleted proxy; whitelist switch',
				expected:
					'no password (given, generated or stored) in any output without Include Password; with it, exactly the new password; Proxy Removed never shows one',
			},
			async (obs) => {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
					const names = [...sim.account().proxies.keys()];
					const counts: string[] = [];
					for (const includePassword of [false, true]) {
						for (const password of ['', 'Given-Pass-4242']) {
							const result = await harness.runNode(
								{
									type: 'proxyAccount',
									parameters: { resource: 'proxy', operation: 'setAuthentication', proxyName: byName, password, options: { includePassword } },
								},
								{ credentials, items: [{ name: names[1] }, { name: names[2] }] },
							);
							const now = [names[1], names[2]].map((name) => sim.account().proxies.get(name)!.password);
							audit.addSim(sim); // the new passwords join the audit's list
							if (!includePassword) audit.run(`Set Authentication ${password === '' ? 'generated' : 'given'}`, result);
							const text = JSON.stringify(result.run.data.resultData);
							const found = now.filter((pw) => text.includes(pw)).length;
							counts.push(`Set Authentication (${password === '' ? 'generated' : 'given'})${includePassword ? ' + Include Password' : ''}: ${found}`);
							expect(result.status).toBe('success');
							expect(found).toBe(includePassword ? 2 : 0);
						}
					}
					const whitelist = await harness.runNode(
						{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'setAuthentication', proxyName: byName, authMethod: 'ipWhitelist', whitelist: '203.0.113.7' } },
						{ credentials, items: [{ name: names[3] }] },
					);
					audit.run('Set Authentication whitelist', whitelist);
					const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'proxyRemoved' } }, credentials);
					await t.poll();
					const removed = sim.account().proxies.get(names[1])!;
					sim.discardProxy(null, names[1]);
					let output = null;
					for (let i = 0; i < 4 && output === null; i++) {
						sim.clock.advance(40 * 60_000);
						output = await t.poll();
					}
					audit.poll('Proxy Removed event', output);
					expect(output?.[0].map((item) => item.json.proxy_name)).toEqual([names[1]]);
					expect(JSON.stringify(output)).not.toContain(removed.password);
					counts.push('Proxy Removed: 0');
					obs.note(`passwords found per output: ${counts.join('; ')}`);
				});
			},
		);
	});

	it('secret audit of this file: no API key, no password that was not asked for', async () => {
		await auditCell(results, audit, capturedLogs, 'the secret cases (runs with Include Password on excluded from the password search)');
	});

	it('a failed Low Funds poll whose ok:false message quotes the key: the thrown error shows ***', async () => {
		await results.cell(
			{
				table: 'secret-audit',
				row: 'The service echoes the API key',
				column: 'Trigger Low Funds: ok:false quoting the key',
				scenario: 'a scheduled poll of Low Funds answered with {ok:false, message: "... <key> ..."}',
				expected: 'the poll fails with the message showing ***; the key appears nowhere; the state is not touched',
			},
			async (obs) => {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					const key = sim.demoApiKey;
					const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'lowFunds', fundsThreshold: 1 } }, { baseUrl: sim.url, apiKey: key });
					expect(await t.poll()).toBeNull();
					const baseline = JSON.stringify(t.staticData);
					sim.injectFault({ route: 'GET /v1/funds', kind: 'okFalse', status: 200, message: `Wallet ${key} is frozen` });
					let error: unknown;
					try {
						await t.poll();
					} catch (caught) {
						error = caught;
					}
					audit.poll('low funds echo', null, error);
					obs.count(sim);
					const e = error as { message?: string; description?: string };
					obs.note(`poll failed: \u201c${String(e?.message)}\u201d`);
					expect(e?.message).toBe('The Proxy Account service could not process the request: Wallet *** is frozen');
					expect(JSON.stringify(error)).not.toContain(key);
					expect(`${e.message} ${e.description}`).not.toContain(key);
					expect(JSON.stringify(t.staticData)).toBe(baseline);
				});
			},
		);
	});
});
