/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Contract tests of the hostile front server (test/harness/hostile.ts): transparent by default,
 * and each rule does what it says, in order, the given number of times, and after the service has
 * acted where it says so. stop() leaves nothing open, hanging replies included.
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

import { HostileFront, REDIRECT_STATUSES } from '../harness/hostile';
import type { HostileRule, RedirectStatus } from '../harness/hostile';
import { ProxyAccountSimulator } from '../simulator';
import { simClient, sleep, transportError } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

interface RawResponse {
	status: number;
	headers: IncomingHttpHeaders;
	text: string;
}

/**
 * One request with node:http, never following a redirect (the testkit's axios follows them).
 */
function rawCall(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const target = new URL(path, baseUrl);
		const data = options.body === undefined ? undefined : JSON.stringify(options.body);
		const headers: Record<string, string | number> = {};
		if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
		if (data !== undefined) {
			headers['Content-Type'] = 'application/json';
			headers['Content-Length'] = Buffer.byteLength(data);
		}
		const req = request(
			{ host: target.hostname, port: target.port, method, path: `${target.pathname}${target.search}`, headers, agent: false },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end(data);
	});
}

/** Waits for `condition`; the bound only catches a condition that never comes (wide for a busy machine). */
async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('Condition not met in time');
		await sleep(5);
	}
}

describe('Hostile front server', () => {
	let sim: ProxyAccountSimulator;
	let front: HostileFront;
	/** Through the front. */
	let api: SimClient;
	/** Straight to the simulator. */
	let direct: SimClient;
	let names: string[];
	let key: string;

	const allocateBody = (name = names[0]) => ({ proxies: { time: [{ proxy_name: name, interval: 1, period: 'weekly' }] } });
	const allocate = (timeoutMs?: number) => api.call('POST', '/v1/proxies/allocate', { body: allocateBody(), timeoutMs });
	const expiryIn = (list: { data: Array<{ proxy_name: string; expires_at: string }> }, name = names[0]) =>
		list.data.find((p) => p.proxy_name === name)?.expires_at;
	const simReads = () => sim.requests.filter((r) => r.method === 'GET').length;

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 5, frozenClock: true, balance: 1_000_000 });
		front = await HostileFront.start(sim.url);
		key = sim.demoApiKey;
		api = simClient(front.url, key);
		direct = simClient(sim.url, key);
		names = Array.from(sim.account().proxies.keys());
	});

	beforeEach(() => {
		front.clear();
		front.resetLog();
		front.sink.clear();
		sim.clearFaults();
		sim.resetLogs();
	});

	afterAll(async () => {
		await front.stop();
		await sim.stop();
	});

	it('listens on 127.0.0.1 with its sink on 127.0.0.2', () => {
		expect(front.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(front.sinkOrigin).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
		expect(front.sink.origin).toBe(front.sinkOrigin);
		expect(front.upstream).toBe(sim.url);
	});

	describe('pass-through', () => {
		it.each([
			['GET', '/v1/stock', undefined],
			['GET', '/v1/proxies', undefined],
			['GET', 'one proxy', undefined],
			['GET', '/v1/proxies/NO-SUCH-PROXY', undefined],
			['POST', '/v1/price', { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] }],
			['GET', '/v1/nothing-here', undefined],
			['POST', '/v1/stock', undefined],
		])('%s %s: the upstream reply, unchanged', async (method, rawPath, body) => {
			const path = rawPath === 'one proxy' ? `/v1/proxies/${encodeURIComponent(names[1])}` : rawPath;
			const expected = await direct.call(method as 'GET' | 'POST', path, { body });
			const res = await api.call(method as 'GET' | 'POST', path, { body });
			// Quote item keys are made up per request; everything else is the same.
			const itemKeys = (text: string) => text.replace(/"[A-Z]{2}-[A-Z]{2}-[0-9A-F]{8}"/g, '"<item>"');
			expect(res.status).toBe(expected.status);
			expect(itemKeys(res.text)).toBe(itemKeys(expected.text));
			if (method === 'GET') expect(res.text).toBe(expected.text);
			for (const header of ['content-type', 'content-length', 'date', 'allow']) expect(res.headers[header]).toBe(expected.headers[header]);
		});

		it('forwards method, path and query, headers (Authorization included) and body; the log keeps no key', async () => {
			const body = { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 2, period: 'daily' }] };
			const res = await api.call('POST', '/v1/price?trace=1', { body, headers: { 'X-Trace': 'abc' } });
			expect(res.status).toBe(200);
			const seen = sim.requests[sim.requests.length - 1];
			expect(seen).toMatchObject({ method: 'POST', path: '/v1/price?trace=1', route: 'POST /v1/price', body, status: 200 });
			expect(seen.headers.authorization).toBe(`Bearer ${key}`);
			expect(seen.headers['x-trace']).toBe('abc');
			expect(seen.headers['content-type']).toBe('application/json');
			expect(front.log).toEqual([
				{ seq: expect.any(Number), at: expect.any(Number), method: 'POST', path: '/v1/price?trace=1', route: 'POST /v1/price', upstreamStatus: 200, status: 200 },
			]);
			expect(JSON.stringify(front.log)).not.toContain(key);
		});

		it("relays the upstream's own faults: a 429 with retry-after, a 401 without a key", async () => {
			sim.injectFault({ route: 'GET /v1/proxies', kind: 'rateLimit', retryAfter: 7 });
			const limited = await api.call('GET', '/v1/proxies');
			expect(limited.status).toBe(429);
			expect(limited.headers['retry-after']).toBe('7');
			expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
			const anonymous = await api.call('GET', '/v1/stock', { key: null });
			expect(anonymous.status).toBe(401);
			expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="proxy-account"');
		});

		it("resets the client's connection when the upstream resets", async () => {
			sim.injectFault({ route: 'GET /v1/stock', kind: 'reset' });
			const error = await transportError(api.call('GET', '/v1/stock'));
			expect(error.code).toBe('ECONNRESET');
			expect(front.log[0]).toMatchObject({ upstreamStatus: null, status: null });
		});
	});

	describe('redirect', () => {
		it.each(REDIRECT_STATUSES)('%i: Location is the sink plus the path; nothing goes upstream, the sink gets nothing', async (status) => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status });
			const res = await rawCall(front.url, 'POST', '/v1/proxies/allocate', { key, body: allocateBody() });
			expect(res.status).toBe(status);
			expect(res.headers.location).toBe(`${front.sinkOrigin}/v1/proxies/allocate`);
			expect(res.text).toBe('');
			expect(sim.requests).toHaveLength(0);
			expect(sim.ledger).toHaveLength(0);
			expect(front.sink.requests).toHaveLength(0);
			expect(front.log[0]).toMatchObject({ rule: `redirect:${status}`, status });
			expect(front.log[0].upstreamStatus).toBeUndefined();
		});

		it('keeps the query string and honours `to`', async () => {
			front.add({ route: 'GET /v1/stock', kind: 'redirect', status: 302, to: 'http://example.invalid/base/' });
			const res = await rawCall(front.url, 'GET', '/v1/stock?city=Austin', { key });
			expect(res.headers.location).toBe('http://example.invalid/base/v1/stock?city=Austin');
		});

		it('forward: the service charges, and the client still gets the redirect', async () => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status: 303, forward: true });
			const res = await rawCall(front.url, 'POST', '/v1/proxies/allocate', { key, body: allocateBody() });
			expect(res.status).toBe(303);
			expect(res.headers.location).toBe(`${front.sinkOrigin}/v1/proxies/allocate`);
			expect(sim.ledger).toHaveLength(1);
			expect(front.sink.requests).toHaveLength(0);
			expect(front.log[0]).toMatchObject({ rule: 'redirect:303:forward', upstreamStatus: 200, status: 303 });
		});

		// What axios (follow-redirects) does by default: it follows to the other origin, drops the
		// Authorization header there, and turns a POST into a GET on 301, 302 and 303.
		it.each<[RedirectStatus, string]>([
			[301, 'GET'],
			[302, 'GET'],
			[303, 'GET'],
			[307, 'POST'],
			[308, 'POST'],
		])('a client that follows a %i lands on the sink (as %s) and appears to succeed, charging nothing', async (status, method) => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status });
			const res = await allocate();
			expect(res.status).toBe(200);
			expect(res.json).toEqual({ ok: true, message: 'ok', data: [] });
			expect(sim.ledger).toHaveLength(0);
			expect(front.sink.requests).toHaveLength(1);
			const landed = front.sink.requests[0];
			expect(landed).toMatchObject({ method, path: '/v1/proxies/allocate' });
			expect(landed.body).toBe(method === 'POST' ? JSON.stringify(allocateBody()) : '');
			expect(landed.headers.authorization).toBeUndefined();
		});
	});

	describe('trickle', () => {
		it('sends status and headers at once, then the identical body one byte per interval', async () => {
			const path = '/v1/proxies/NO-SUCH-PROXY';
			const expected = await direct.call('GET', path);
			front.add({ route: 'GET /v1/proxies/:name', kind: 'trickle', intervalMs: 20 });
			const started = Date.now();
			const res = await api.call('GET', path);
			const elapsed = Date.now() - started;
			expect(res.status).toBe(404);
			expect(res.text).toBe(expected.text);
			expect(res.headers['content-length']).toBe(String(Buffer.byteLength(expected.text)));
			expect(res.headers['content-type']).toBe(expected.headers['content-type']);
			// A lower bound only (a timer may fire a millisecond early, never much later than asked).
			expect(elapsed).toBeGreaterThanOrEqual((expected.text.length - 1) * 19);
			expect(front.log[0]).toMatchObject({ rule: 'trickle', status: 404 });
		});

		it('sends `bytes` bytes at a time', async () => {
			const path = `/v1/proxies/${encodeURIComponent(names[0])}`;
			const expected = await direct.call('GET', path);
			front.add({ route: 'GET /v1/proxies/:name', kind: 'trickle', intervalMs: 20, bytes: 100 });
			const started = Date.now();
			const res = await api.call('GET', path);
			expect(res.text).toBe(expected.text);
			expect(Date.now() - started).toBeGreaterThanOrEqual((Math.ceil(expected.text.length / 100) - 1) * 19);
		});

		it("axios' timeout is an idle timeout: a slow body that never pauses long arrives; a long pause fails", async () => {
			// A byte every 50 ms against a 1 s timeout: the body takes about 2 s in all, and no pause comes
			// near the timeout even on a busy machine (issue 35).
			front.add({ route: 'GET /v1/proxies/:name', kind: 'trickle', intervalMs: 50 });
			const started = Date.now();
			const slow = await api.call('GET', '/v1/proxies/NO-SUCH-PROXY', { timeoutMs: 1_000 });
			expect(Date.now() - started).toBeGreaterThan(1_000);
			expect(slow.json).toEqual({ ok: false, message: 'Proxy not found' });

			// A 10 s pause against a 3 s timeout: the headers come at once (within 3 s on a busy machine too).
			front.add({ route: 'GET /v1/proxies/:name', kind: 'trickle', intervalMs: 10_000, bytes: 10 });
			const error = await transportError(api.call('GET', '/v1/proxies/NO-SUCH-PROXY', { timeoutMs: 3_000 }));
			// Not reported as a timeout: the socket is destroyed and the body stream aborted.
			expect(error).toMatchObject({ code: 'ERR_BAD_RESPONSE', message: 'stream has been aborted' });
			// The front stops writing once the client has gone; the reply was not completed.
			await until(() => front.log[1].upstreamStatus === 404);
			expect(front.log[1].status).toBeNull();
		});
	});

	describe('rewrite, after the service has acted', () => {
		it('status: a 500 with the default body', async () => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'status', status: 500 });
			const res = await allocate();
			expect(res.status).toBe(500);
			expect(res.json).toEqual({ ok: false, message: 'Internal Server Error' });
			expect(res.headers['content-type']).toMatch(/^application\/json/);
			expect(sim.ledger).toHaveLength(1);
			expect(front.log[0]).toMatchObject({ rule: 'rewrite:status:500', upstreamStatus: 200, status: 500 });
		});

		it('status: a given body, content type and headers', async () => {
			front.add({
				route: 'POST /v1/proxies/allocate',
				kind: 'rewrite',
				reply: 'status',
				status: 502,
				body: '<html>bad gateway</html>',
				contentType: 'text/html',
				headers: { 'Retry-After': '3' },
			});
			const res = await allocate();
			expect(res.status).toBe(502);
			expect(res.text).toBe('<html>bad gateway</html>');
			expect(res.headers['content-type']).toBe('text/html');
			expect(res.headers['retry-after']).toBe('3');
			expect(sim.ledger).toHaveLength(1);
		});

		it('reset: the connection is reset after the charge', async () => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'reset' });
			const error = await transportError(allocate());
			expect(error.code).toBe('ECONNRESET');
			expect(sim.ledger).toHaveLength(1);
			expect(front.log[0]).toMatchObject({ rule: 'rewrite:reset', upstreamStatus: 200, status: null });
		});

		it('hang: nothing comes back after the charge', async () => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'hang' });
			const error = await transportError(allocate(300));
			expect(error.code).toBe('ECONNABORTED');
			expect(sim.ledger).toHaveLength(1);
			expect(front.log[0]).toMatchObject({ rule: 'rewrite:hang', upstreamStatus: 200, status: null });
		});

		it('malformed: a 200 with the JSON cut in half', async () => {
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'malformed' });
			const res = await allocate();
			expect(res.status).toBe(200);
			expect(res.json).toBeUndefined();
			expect(res.text.startsWith('{"ok":true,"message":"Proxies allocated"')).toBe(true);
			expect(sim.ledger).toHaveLength(1);
			// Half of what the service sent (the same reply, relayed whole, for comparison).
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'transform', transform: (json: unknown) => json });
			const whole = await allocate();
			expect(res.text).toBe(whole.text.slice(0, res.text.length));
			expect(res.text.length).toBeLessThanOrEqual(Math.ceil(whole.text.length / 2));
		});

		it("transform: the upstream's status with the transformed JSON", async () => {
			front.add({
				route: 'POST /v1/proxies/allocate',
				kind: 'rewrite',
				reply: 'transform',
				transform: (json: { data: { total: number } }) => {
					json.data.total = 0;
					return json;
				},
			});
			const res = await allocate();
			expect(res.status).toBe(200);
			expect(res.json.data.total).toBe(0);
			expect(res.json.data.proxies.time[0].proxy_name).toBe(names[0]);
			expect(sim.ledger).toHaveLength(1);
			expect(sim.ledger[0].amount).toBeGreaterThan(0);
			expect(front.log[0]).toMatchObject({ rule: 'rewrite:transform', status: 200 });
		});
	});

	describe('delay', () => {
		it('before: nothing reaches the service until the delay is over', async () => {
			// 3 s: the request is seen held at the front long before the delay ends, even on a busy machine.
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'delay', ms: 3_000 });
			const started = Date.now();
			const pending = allocate();
			await until(() => front.log.length === 1);
			expect(sim.requests).toHaveLength(0);
			const res = await pending;
			expect(Date.now() - started).toBeGreaterThanOrEqual(2_995);
			expect(res.status).toBe(200);
			expect(sim.ledger).toHaveLength(1);
			expect(front.log[0]).toMatchObject({ rule: 'delay:before', status: 200 });
		});

		it('before: a request whose client gave up is not forwarded', async () => {
			// The client gives up after 80 ms, long before the 1.5 s delay ends; then the delay passes.
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'delay', ms: 1_500 });
			await transportError(allocate(80));
			await sleep(1_600);
			expect(sim.requests).toHaveLength(0);
			expect(sim.ledger).toHaveLength(0);
			expect(front.log[0]).toMatchObject({ status: null });
			expect(front.log[0].upstreamStatus).toBeUndefined();
		});

		it('after: the service has acted while the client still waits', async () => {
			// 3 s: the charge is seen while the client still waits, even on a busy machine.
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'delay', ms: 3_000, when: 'after' });
			const started = Date.now();
			let settled = false;
			const pending = allocate().finally(() => {
				settled = true;
			});
			await until(() => sim.ledger.length === 1);
			expect(settled).toBe(false);
			const res = await pending;
			expect(Date.now() - started).toBeGreaterThanOrEqual(2_995);
			expect(res.status).toBe(200);
			expect(front.log[0]).toMatchObject({ rule: 'delay:after', upstreamStatus: 200, status: 200 });
		});
	});

	describe('lag', () => {
		it('serves the pre-charge list for N reads after an allocate, then the real one; the service sees every read', async () => {
			const primed = await api.call('GET', '/v1/proxies');
			const before = expiryIn(primed.json);
			front.add({ route: '*', kind: 'lag', reads: 3 });
			// Not armed yet: reads before the allocate are fresh, and an allocate that never reached
			// the service does not arm it.
			front.add({ route: 'POST /v1/proxies/allocate', kind: 'redirect', status: 307 });
			await rawCall(front.url, 'POST', '/v1/proxies/allocate', { key, body: allocateBody() });
			await api.call('GET', '/v1/proxies');
			expect(front.log.map((e) => e.lag)).toEqual([undefined, undefined, undefined]);
			expect(front.pending()).toEqual([expect.objectContaining({ kind: 'lag', armed: false })]);

			const charged = await allocate();
			expect(charged.status).toBe(200);
			const after = sim.ledger[0].new_expires_at;
			expect(sim.ledger[0].previous_expires_at).toBe(before);
			expect(after).not.toBe(before);
			expect(front.log[3]).toMatchObject({ route: 'POST /v1/proxies/allocate', lag: 'armed', upstreamStatus: 200 });
			expect(front.pending()).toEqual([expect.objectContaining({ kind: 'lag', armed: true, remaining: 1 })]);

			const read1 = await api.call('GET', '/v1/proxies');
			const read2 = await api.call('GET', `/v1/proxies/${encodeURIComponent(names[0])}`);
			const read3 = await api.call('GET', '/v1/proxies');
			expect(read1.text).toBe(primed.text);
			expect(read2.json).toEqual({ ok: true, data: primed.json.data[0] });
			expect(read2.json.data.expires_at).toBe(before);
			expect(expiryIn(read3.json)).toBe(before);
			expect(front.pending()).toEqual([]);

			const read4 = await api.call('GET', '/v1/proxies');
			expect(expiryIn(read4.json)).toBe(after);
			expect(front.log.map((e) => e.lag)).toEqual([undefined, undefined, undefined, 'armed', 'served', 'served', 'served', undefined]);
			expect(simReads()).toBe(6);
			expect(sim.ledger).toHaveLength(1);
			expect(sim.requests.filter((r) => r.method === 'GET').every((r) => r.status === 200)).toBe(true);
		});

		it('forMs: every read of its route is stale for the window, then fresh', async () => {
			await api.call('GET', '/v1/proxies');
			const before = expiryIn((await direct.call('GET', '/v1/proxies')).json);
			// 5 s: the reads below fall within the window on a busy machine too (issue 35).
			front.add({ route: 'GET /v1/proxies', kind: 'lag', forMs: 5_000 });
			await allocate();
			const after = sim.ledger[0].new_expires_at;
			for (let i = 0; i < 3; i++) expect(expiryIn((await api.call('GET', '/v1/proxies')).json)).toBe(before);
			// The rule's route is the list: single reads are fresh.
			const single = await api.call('GET', `/v1/proxies/${encodeURIComponent(names[0])}`);
			expect(single.json.data.expires_at).toBe(after);
			expect(front.pending()[0]).toMatchObject({ armed: true });
			await until(() => front.pending().length === 0);
			expect(expiryIn((await api.call('GET', '/v1/proxies')).json)).toBe(after);
		});

		it('lags only reads sent with the key that wrote', async () => {
			const other = sim.addAccount({ apiKey: 'pa_live_hostile_front_other_account_0001', balance: 100, proxies: 2 });
			const otherApi = simClient(front.url, other.apiKey);
			await api.call('GET', '/v1/proxies');
			await otherApi.call('GET', '/v1/proxies');
			front.add({ route: '*', kind: 'lag' });
			await allocate();
			await otherApi.call('GET', '/v1/proxies');
			expect(front.log[3].lag).toBeUndefined();
			expect(front.pending()[0]).toMatchObject({ armed: true });
			await api.call('GET', '/v1/proxies');
			expect(front.log[4].lag).toBe('served');
			expect(front.pending()).toEqual([]);
		});
	});

	describe('drop', () => {
		it('names: removes those proxies and relays the rest unchanged', async () => {
			const expected = await direct.call('GET', '/v1/proxies');
			front.add({ route: 'GET /v1/proxies', kind: 'drop', names: [names[1], names[3]] });
			const res = await api.call('GET', '/v1/proxies');
			expect(res.json.data).toEqual(expected.json.data.filter((p: { proxy_name: string }) => p.proxy_name !== names[1] && p.proxy_name !== names[3]));
			expect(res.json.data).toHaveLength(names.length - 2);
			expect(front.log[0]).toMatchObject({ rule: 'drop', status: 200 });
		});

		it('count: removes the first stock cities', async () => {
			const expected = await direct.call('GET', '/v1/stock');
			front.add({ route: 'GET /v1/stock', kind: 'drop', count: 3 });
			const res = await api.call('GET', '/v1/stock');
			expect(res.json).toEqual({ ...expected.json, data: expected.json.data.slice(3) });
			expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
		});

		it('fraction: a seeded random share, the same entries for the same seed', async () => {
			const expected = await direct.call('GET', '/v1/proxies');
			const all: string[] = expected.json.data.map((p: { proxy_name: string }) => p.proxy_name);
			front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 0.5, seed: 7 });
			front.add({ route: 'GET /v1/proxies', kind: 'drop', fraction: 0.5, seed: 7 });
			const first = await api.call('GET', '/v1/proxies');
			const second = await api.call('GET', '/v1/proxies');
			const kept: string[] = first.json.data.map((p: { proxy_name: string }) => p.proxy_name);
			expect(kept).toHaveLength(all.length - Math.round(all.length / 2));
			expect(kept).toEqual(all.filter((n) => kept.includes(n)));
			expect(second.json.data).toEqual(first.json.data);
		});

		it('on *, passes other routes by and waits for a list', async () => {
			front.add({ route: '*', kind: 'drop', count: 1 });
			const single = await api.call('GET', `/v1/proxies/${encodeURIComponent(names[0])}`);
			expect(single.json.data.proxy_name).toBe(names[0]);
			expect(front.pending()).toHaveLength(1);
			const stock = await api.call('GET', '/v1/stock');
			expect(stock.json.data).toHaveLength(sim.stock.length - 1);
			expect(front.pending()).toHaveLength(0);
		});
	});

	describe('times and order', () => {
		it('used `times` times each, in insertion order, on their route only', async () => {
			front.add({ route: 'GET /v1/stock', kind: 'rewrite', reply: 'status', status: 503, times: 2 });
			front.add({ route: 'GET /v1/stock', kind: 'rewrite', reply: 'status', status: 502 });
			expect((await api.call('GET', '/v1/proxies')).status).toBe(200);
			const statuses: number[] = [];
			for (let i = 0; i < 4; i++) statuses.push((await api.call('GET', '/v1/stock')).status);
			expect(statuses).toEqual([503, 503, 502, 200]);
			expect(front.pending()).toEqual([]);
		});

		it('Infinity lasts until clear(); * matches every service route but not a 404', async () => {
			front.add({ route: '*', kind: 'rewrite', reply: 'status', status: 418, body: { ok: false, message: 'teapot' }, times: Infinity });
			expect((await api.call('GET', '/v1/stock')).status).toBe(418);
			expect((await api.call('GET', '/v1/proxies')).status).toBe(418);
			expect((await api.call('POST', '/v1/price', { body: { proxies: [] } })).json).toEqual({ ok: false, message: 'teapot' });
			expect((await api.call('GET', '/v1/nothing-here')).status).toBe(404);
			expect(front.pending()).toEqual([expect.objectContaining({ remaining: Infinity })]);
			front.clear();
			expect((await api.call('GET', '/v1/stock')).status).toBe(200);
		});

		it('refuses rules it cannot apply', () => {
			const bad = (rule: unknown) => () => front.add(rule as HostileRule);
			expect(bad({ route: 'GET /v1/stock', kind: 'redirect', status: 200 })).toThrow(/status must be one of/);
			expect(bad({ route: 'GET /v1/stock', kind: 'lag' })).toThrow(/lag rule's route/);
			expect(bad({ route: 'GET /v1/proxies', kind: 'drop' })).toThrow(/names, count or fraction/);
			expect(bad({ route: 'GET /v1/proxies', kind: 'explode' })).toThrow(/rule.kind/);
			expect(bad({ route: 'GET /elsewhere', kind: 'trickle' })).toThrow(/rule.route/);
			expect(front.pending()).toEqual([]);
		});
	});

	it('stop() ends hanging and trickling replies, closes both servers and every socket; safe twice', async () => {
		const own = await HostileFront.start(sim.url);
		const client = simClient(own.url, key);
		own.add({ route: 'GET /v1/stock', kind: 'rewrite', reply: 'hang' });
		own.add({ route: 'GET /v1/proxies', kind: 'trickle', intervalMs: 5_000 });
		const hanging = transportError(client.call('GET', '/v1/stock', { timeoutMs: 20_000 }));
		const trickling = transportError(client.call('GET', '/v1/proxies', { timeoutMs: 20_000 }));
		await until(() => own.log.length === 2 && own.log.every((e) => e.upstreamStatus === 200));
		const started = Date.now();
		await own.stop();
		await own.stop();
		const [hung, trickled] = await Promise.all([hanging, trickling]);
		// Far below the clients' 20 s timeouts and the trickle's 5 s interval: stop() ended them.
		expect(Date.now() - started).toBeLessThan(4_000);
		expect(hung).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
		expect(trickled).toMatchObject({ code: 'ERR_BAD_RESPONSE', message: 'stream has been aborted' });
		await expect(rawCall(own.url, 'GET', '/v1/stock')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
		await expect(rawCall(own.sinkOrigin, 'GET', '/')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
	});
});
