/**
 * Proxy > Rotate IP through n8n-core's real WorkflowExecute against the simulator: throttles honoured (skip or wait, never a storm of 429s), each command sent once, the Limited key of the rotation link never shown.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, capturedLogs, credentialsFor, visibleText } from '../../harness';
import type { NodeResult, TestCredentials } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';
import { harness, sim, names, command, rotations } from '../../harness/suites/device';

describe('Proxy > Rotate IP', () => {
	it('sends one request per proxy, a few at a time; each item says it was sent to the device, with last_ip_change', async () => {
		const list = names().slice(0, 6);
		const result = await command('rotateIp', list, { concurrency: 3 });
		expect(result.status).toBe('success');
		expect(rotations().map((r) => decodeURIComponent(r.path.split('/').pop()!)).sort()).toEqual([...list].sort());
		expect(result.items.map((i) => i.json.proxy_name)).toEqual(list);
		expect(result.items.map((i) => i.pairedItem)).toEqual(list.map((_, item) => ({ item })));
		for (const item of result.items) {
			expect(item.json.status).toBe('sent');
			expect(Date.parse(String(item.json.last_ip_change))).toBe(sim.clock.now());
		}
	});

	it('a proxy changed less than a minute ago is skipped with the reason, and nothing is sent for it', async () => {
		const [recent, other] = names();
		sim.account().proxies.get(recent)!.last_ip_change = new Date(sim.clock.now() - 20_000).toISOString();
		const result = await command('rotateIp', [recent, other]);
		expect(result.items[0].json).toMatchObject({ proxy_name: recent, status: 'skipped' });
		expect(String(result.items[0].json.reason)).toMatch(/^the last IP change was made at \S+, 20 s ago \(perhaps by an earlier run or attempt\), and the service allows one a minute: allowed again in 4[01] s; no new one was made\. Turn on Wait Until Allowed/);
		expect(result.items[1].json.status).toBe('sent');
		expect(rotations()).toHaveLength(1);
	});

	it('rotating again within the minute: the service\'s 429 is met once per proxy and the proxy skipped, never a storm', async () => {
		const list = names().slice(0, 4);
		await command('rotateIp', list);
		sim.resetLogs();
		// The list does not show the change yet (the device applies it later): only the 429 tells.
		const again = await command('rotateIp', list, { concurrency: 4 });
		expect(again.items.map((i) => i.json.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
		expect(String(again.items[0].json.reason)).toMatch(/^the service refused another IP change \(429\): the last IP change was made at about \S+, about \d+ s ago \(perhaps by an earlier run or attempt\)/);
		expect(rotations()).toHaveLength(4);
		expect(rotations().every((r) => r.status === 429)).toBe(true);
	});

	it("the service's rate limit on the endpoint (a 429 asking for a second) pauses the whole run; every proxy goes through once", async () => {
		// 3 IP changes a second for the whole key, on the simulator's real clock.
		const live = await ProxyAccountSimulator.start({ seed: 12, proxies: 8, rateLimit: { 'POST /v1/proxies/changeip/:name': { limit: 3, windowMs: 1_000 } } });
		try {
			const past = new Date(live.clock.now() - 3_600_000).toISOString();
			for (const proxy of live.account().proxies.values()) Object.assign(proxy, { last_ip_change: past, auto_change: false, auto_change_time: 0 });
			const list = [...live.account().proxies.keys()];
			const started = Date.now();
			const result = await harness.runNode(
				{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'rotateIp', proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, options: { concurrency: 4 } } },
				{ credentials: credentialsFor(live), items: list.map((name) => ({ name })) },
			);
			expect(result.items.map((item) => item.json.status)).toEqual(list.map(() => 'sent'));
			const calls = apiRequests(live, 'POST /v1/proxies/changeip/:name');
			const accepted = calls.filter((call) => call.status === 202).map((call) => decodeURIComponent(call.path.split('/').pop()!));
			expect(accepted.sort()).toEqual([...list].sort());
			// The first burst meets the limit (at most one 429 per request in flight); after the pause the
			// node keeps to the rate it saw accepted, so at most one more.
			const limited = calls.filter((call) => call.status === 429);
			expect(limited.length).toBeGreaterThan(0);
			expect(limited.length).toBeLessThanOrEqual(4 + 1);
			const firstBurstEnds = calls.findIndex((call, i) => i > 0 && call.status === 202 && calls[i - 1].status === 429);
			expect(calls.slice(firstBurstEnds).filter((call) => call.status === 429).length).toBeLessThanOrEqual(1);
			// 8 changes at 3 a second need at least two more windows after the first.
			expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
		} finally {
			await live.stop();
		}
	});

	it('a rate limit that does not let up: the proxy is skipped after 4 tries, with the reason', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/changeip/:name', kind: 'rateLimit', retryAfter: 1, times: 4 });
		const [one] = names();
		const result = await command('rotateIp', [one]);
		expect(result.items[0].json).toMatchObject({ proxy_name: one, status: 'skipped', reason: 'the service refused it for now (429) and asked to wait 1 s, 4 times' });
		expect(rotations()).toHaveLength(4);
		expect(rotations().every((call) => call.status === 429)).toBe(true);
	});

	it('Wait Until Allowed waits for the throttle within Max Wait, then sends once; a longer wait is skipped', async () => {
		const live = await ProxyAccountSimulator.start({ seed: 12, proxies: 3 });
		try {
			const [a, b] = [...live.account().proxies.keys()];
			for (const [name, ago] of [[a, 57_000], [b, 20_000]] as const) {
				const proxy = live.account().proxies.get(name)!;
				proxy.auto_change = false;
				proxy.last_ip_change = new Date(live.clock.now() - ago).toISOString();
			}
			const waited = await command('rotateIp', [a], { waitUntilAllowed: true, maxWaitSeconds: 10 }, credentialsFor(live));
			expect(waited.items[0].json.status).toBe('sent');
			const tooLong = await command('rotateIp', [b], { waitUntilAllowed: true, maxWaitSeconds: 1 }, credentialsFor(live));
			expect(tooLong.items[0].json.status).toBe('skipped');
			expect(String(tooLong.items[0].json.reason)).toMatch(/allowed again in \d+ s, longer than Max Wait; no new one was made$/);
			const sent = apiRequests(live, 'POST /v1/proxies/changeip/:name');
			expect(sent.map((r) => r.status)).toEqual([202]);
		} finally {
			await live.stop();
		}
	});

	it('Wait for New IP reads the proxy until the change shows', async () => {
		const free = await ProxyAccountSimulator.start({ seed: 12, proxies: 3 });
		try {
			const [target] = [...free.account().proxies.keys()];
			free.account().proxies.get(target)!.last_ip_change = new Date(free.clock.now() - 3_600_000).toISOString();
			free.account().proxies.get(target)!.auto_change = false;
			const result = await harness.runNode(
				{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'rotateIp', proxyName: { __rl: true, mode: 'name', value: target }, options: { waitForNewIp: true, newIpTimeoutSeconds: 15 } } },
				{ credentials: credentialsFor(free) },
			);
			expect(result.items[0].json.status).toBe('confirmed');
			expect(apiRequests(free, 'GET /v1/proxies/:name').length).toBeGreaterThan(1);
		} finally {
			await free.stop();
		}
	});

	it('the rotation link uses the Limited key, which never shows in an output, an error or a log', async () => {
		const limited = sim.account().limitedKey;
		const [name] = names();
		const ok = await command('rotateIp', [name], { useRotationLink: true }, { ...credentialsFor(sim), limitedApiKey: limited });
		expect(ok.items[0].json.status).toBe('sent');
		expect(apiRequests(sim, 'GET /v1/proxies/changeip/:key/:name')).toHaveLength(1);
		// The Limited key goes only into the rotation link's path: no other request carries it.
		for (const request of apiRequests(sim).filter((r) => r.route !== 'GET /v1/proxies/changeip/:key/:name')) {
			expect(JSON.stringify({ path: request.path, headers: request.headers, body: request.body })).not.toContain(limited);
		}
		expect(apiRequests(sim).length).toBeGreaterThan(1);
		sim.injectFault({ route: 'GET /v1/proxies/changeip/:key/:name', kind: 'status', status: 500, body: { ok: false, message: `link ${limited} failed` } });
		const failed = await command('rotateIp', [names()[1]], { useRotationLink: true }, { ...credentialsFor(sim), limitedApiKey: limited }, {}, true);
		expect(failed.items[0].json.error).toBeDefined();
		expect(visibleText(failed.items, failed.error)).not.toContain(limited);
		expect(JSON.stringify(failed.run.data.resultData)).not.toContain(limited);
		const missing = await command('rotateIp', [name], { useRotationLink: true });
		expect(missing.error?.message).toBe('Use Rotation Link needs a Limited API Key');
	});

	it('the rotation link goes without the master key: no Authorization header, the master key nowhere in it', async () => {
		const limited = sim.account().limitedKey;
		const ok = await command('rotateIp', [names()[0]], { useRotationLink: true }, { ...credentialsFor(sim), limitedApiKey: limited });
		expect(ok.items[0].json.status).toBe('sent');
		const [link] = apiRequests(sim, 'GET /v1/proxies/changeip/:key/:name');
		expect(link.headers.authorization).toBeUndefined();
		expect(JSON.stringify({ path: link.path, headers: link.headers })).not.toContain(sim.demoApiKey);
		// The other requests of the run (the list read) still carry the master key.
		const others = apiRequests(sim).filter((r) => r !== link);
		expect(others.length).toBeGreaterThan(0);
		for (const request of others) expect(request.headers.authorization).toBe(`Bearer ${sim.demoApiKey}`);
	});

	describe('a credential with only a Limited key', () => {
		const limitedOnly = (): TestCredentials => ({ baseUrl: sim.url, apiKey: '', limitedApiKey: sim.account().limitedKey });
		const secretsIn = (result: NodeResult) => [visibleText(result.items, result.error), JSON.stringify(result.run.data.resultData), JSON.stringify(capturedLogs)].join('\n');

		it('rotates through the rotation link alone: no list read, no key but the Limited one in the path, never shown', async () => {
			const limited = sim.account().limitedKey;
			const [a, b] = names();
			capturedLogs.length = 0;
			const result = await command('rotateIp', [a, b], { useRotationLink: true }, limitedOnly());
			expect(result.status).toBe('success');
			expect(result.items.map((i) => i.json.status)).toEqual(['sent', 'sent']);
			expect(result.items.map((i) => i.json.proxy_name)).toEqual([a, b]);
			expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/proxies/changeip/:key/:name', 'GET /v1/proxies/changeip/:key/:name']);
			for (const request of apiRequests(sim)) expect(request.headers.authorization).toBeUndefined();
			for (const item of result.items) expect(Date.parse(String(item.json.last_ip_change))).toBe(sim.clock.now());
			expect(secretsIn(result)).not.toContain(limited);
		});

		it('an unknown proxy is told by the service, a proxy changed a minute ago by its 429: nothing else is sent', async () => {
			const [recent] = names();
			sim.account().proxies.get(recent)!.last_ip_change = new Date(sim.clock.now() - 20_000).toISOString();
			const result = await command('rotateIp', [recent, 'PRX-NOT-THERE'], { useRotationLink: true }, limitedOnly(), {}, true);
			expect(result.items[0].json).toMatchObject({ proxy_name: recent, status: 'skipped' });
			expect(result.items[0].json.reason).toMatch(/refused another IP change \(429\): the last IP change was made at about/);
			expect(result.items[1].json.error).toMatch(/^Proxy \u201cPRX-NOT-THERE\u201d was not found in this Proxy Account/);
			expect(apiRequests(sim)).toHaveLength(2);
			expect(secretsIn(result)).not.toContain(sim.account().limitedKey);
		});

		it.each<[string, string, IDataObject]>([
			['Rotate IP without the rotation link', 'rotateIp', {}],
			['Reboot', 'reboot', {}],
			['Get', 'get', {}],
		])('%s refuses before anything is sent: it needs the master key', async (_label, operation, options) => {
			const result = await command(operation, [names()[0]], options, limitedOnly(), {}, true);
			expect(result.items[0].json.error).toMatch(/^This operation needs the master API key; this credential has only a Limited key, which can only rotate IPs through the rotation link/);
			expect(apiRequests(sim)).toHaveLength(0);
			expect(secretsIn(result)).not.toContain(sim.account().limitedKey);
		});

		it('Wait for New IP (which reads the proxy) is refused before anything is sent', async () => {
			const result = await command('rotateIp', [names()[0]], { useRotationLink: true, waitForNewIp: true }, limitedOnly());
			expect(result.error?.message).toBe('Wait for New IP needs the master API key; this credential has only a Limited key, which can only rotate IPs through the rotation link');
			expect(apiRequests(sim)).toHaveLength(0);
		});
	});

	it.each([
		['a Limited key the service does not know (401)', () => undefined],
		['a 403 whose message quotes the key', () => sim.injectFault({ route: 'GET /v1/proxies/changeip/:key/:name', kind: 'status', status: 403, body: { ok: false, message: `Limited key ${sim.account().limitedKey} may not do this` } })],
	])('%s: a message about the Limited key, never the key; nothing changed', async (label, arrange) => {
		const key = label.includes('401') ? 'pa_lim_00000000000000000000000000000000' : sim.account().limitedKey;
		arrange();
		capturedLogs.length = 0;
		const result = await command('rotateIp', [names()[0]], { useRotationLink: true }, { baseUrl: sim.url, apiKey: '', limitedApiKey: key }, {}, true);
		expect(result.items[0].json.error).toMatch(/^The Limited API Key was refused by the Proxy Account service \(HTTP 40[13], GET \/v1\/proxies\/changeip\/\{limitedApiKey\}\/\{proxyName\}\)/);
		expect(result.items[0].json.message).toMatch(/^Check the Limited API Key in the Proxy Account credential.*so nothing was changed\.$/);
		if (label.includes('quotes')) expect(result.items[0].json.message).toContain('Limited key *** may not do this');
		expect(apiRequests(sim, 'GET /v1/proxies/changeip/:key/:name')).toHaveLength(1);
		expect([visibleText(result.items), JSON.stringify(result.run.data.resultData), JSON.stringify(capturedLogs)].join('\n')).not.toContain(key);
	});

	it('a Limited key used as the master key is refused by the service everywhere but rotation', async () => {
		const limited = sim.account().limitedKey;
		const read = await harness.runNode({ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'getAll', returnAll: true } }, { credentials: { baseUrl: sim.url, apiKey: limited } });
		expect(read.status).toBe('error');
		expect(read.error?.message).toMatch(/not allowed/);
		expect(visibleText([], read.error)).not.toContain(limited);
	});
});
