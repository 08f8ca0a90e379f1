/**
 * Contract tests of the simulator's fault injection: each fault kind does what it says, is consumed
 * in order, is logged, and charges only when it processes the request.
 */
import { ProxyAccountSimulator } from '../simulator';
import { simClient, sleep, transportError } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

describe('Proxy Account simulator faults', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	let proxyName: string;

	const allocateBody = () => ({ proxies: { time: [{ proxy_name: proxyName, interval: 1, period: 'weekly' }] } });
	const allocate = (timeoutMs?: number) => api.call('POST', '/v1/proxies/allocate', { body: allocateBody(), timeoutMs });
	const lastLog = () => sim.requests[sim.requests.length - 1];

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 9, frozenClock: true, now: '2026-11-21T11:17:34.123Z', proxies: 6 });
		api = simClient(sim.url, sim.demoApiKey);
		proxyName = Array.from(sim.account().proxies.keys())[0];
	});

	beforeEach(() => {
		sim.clearFaults();
		sim.resetLogs();
		sim.account().balance = 5000;
	});

	afterAll(async () => {
		await sim.stop();
	});

	it('status: sends the given status, body and headers instead of processing, once', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'status', status: 503, body: { ok: false, message: 'Maintenance' }, headers: { 'x-sim': 'yes' } });
		const res = await allocate();
		expect(res.status).toBe(503);
		expect(res.json).toEqual({ ok: false, message: 'Maintenance' });
		expect(res.headers['x-sim']).toBe('yes');
		expect(sim.ledger).toHaveLength(0);
		expect(lastLog()).toMatchObject({ status: 503, fault: 'status:503', route: 'POST /v1/proxies/allocate' });
		const next = await allocate();
		expect(next.status).toBe(200);
		expect(sim.ledger).toHaveLength(1);
		expect(lastLog().fault).toBeUndefined();
	});

	it('status: sends a raw string body with the given content type', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'status', status: 500, body: 'upstream exploded', contentType: 'text/plain' });
		const res = await api.call('GET', '/v1/stock');
		expect(res.status).toBe(500);
		expect(res.headers['content-type']).toBe('text/plain');
		expect(res.text).toBe('upstream exploded');
	});

	it.each([
		[undefined, '1'],
		[7, '7'],
	])('rateLimit (retryAfter %p): 429 problem+json with retry-after %s', async (retryAfter, header) => {
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'rateLimit', retryAfter });
		const res = await api.call('GET', '/v1/proxies');
		expect(res.status).toBe(429);
		expect(res.headers['retry-after']).toBe(header);
		expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
		expect(res.json).toMatchObject({ title: 'Too Many Requests', status: 429, instance: '/v1/proxies' });
		expect(res.json).not.toHaveProperty('ok');
	});

	it("latency 'before': waits, then processes", async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'latency', delayMs: 250, when: 'before' });
		const started = Date.now();
		const res = await api.call('GET', '/v1/stock');
		expect(Date.now() - started).toBeGreaterThanOrEqual(240);
		expect(res.status).toBe(200);
		expect(res.json.data.length).toBe(8);
		expect(lastLog()).toMatchObject({ status: 200, fault: 'latency:before' });
	});

	it("latency 'after' on allocate: charges once while the client times out", async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 400 });
		const expiresBefore = sim.account().proxies.get(proxyName)!.expires_at;
		const error = await transportError(allocate(120));
		expect(error.code).toBe('ECONNABORTED');
		expect(sim.ledger).toHaveLength(1);
		expect(sim.ledger[0]).toMatchObject({ proxy_name: proxyName, amount: 89, previous_expires_at: expiresBefore });
		expect(sim.account().balance).toBe(5000 - 89);
		expect(sim.account().proxies.get(proxyName)!.expires_at).not.toBe(expiresBefore);
		await sleep(400);
		expect(sim.ledger).toHaveLength(1);
		expect(sim.account().balance).toBe(5000 - 89);
		expect(lastLog()).toMatchObject({ fault: 'latency:after', status: null });
	});

	it("latency 'before' on allocate: a client that gave up is not charged", async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 300, when: 'before' });
		const error = await transportError(allocate(100));
		expect(error.code).toBe('ECONNABORTED');
		await sleep(350);
		expect(sim.ledger).toHaveLength(0);
		expect(sim.account().balance).toBe(5000);
		expect(lastLog()).toMatchObject({ fault: 'latency:before', status: null });
	});

	it("reset 'before': the client gets a socket error and nothing is charged", async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'reset' });
		const error = await transportError(allocate());
		expect(error.code).toMatch(/^(ECONNRESET|EPIPE)$/);
		expect(error.response).toBeUndefined();
		expect(sim.ledger).toHaveLength(0);
		expect(sim.account().balance).toBe(5000);
		expect(lastLog()).toMatchObject({ fault: 'reset:before', status: null, route: 'POST /v1/proxies/allocate' });
	});

	it("reset 'after': the client gets a socket error but the allocation was charged", async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'reset', when: 'after' });
		const error = await transportError(allocate());
		expect(error.code).toMatch(/^(ECONNRESET|EPIPE)$/);
		expect(error.response).toBeUndefined();
		expect(sim.ledger).toHaveLength(1);
		expect(sim.account().balance).toBe(5000 - 89);
		expect(lastLog()).toMatchObject({ fault: 'reset:after', status: null });
	});

	it("reset 'mid-body': headers and part of the body arrive, then the connection drops", async () => {
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'reset', when: 'mid-body' });
		const error = await transportError(api.call('GET', '/v1/proxies'));
		expect(error.message).toMatch(/aborted|socket hang up|ECONNRESET|terminated/i);
		expect(error.response?.status).toBe(200);
		expect(lastLog()).toMatchObject({ fault: 'reset:mid-body', status: null });
		expect((await api.call('GET', '/v1/proxies')).status).toBe(200);
	});

	it('html: an nginx-like HTML error page, 502 by default', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'html' });
		sim.injectFault({ route: 'GET /v1/stock', kind: 'html', status: 504 });
		const first = await api.call('GET', '/v1/stock');
		expect(first.status).toBe(502);
		expect(first.headers['content-type']).toBe('text/html');
		expect(first.text).toContain('<html>');
		expect(first.text).toContain('502 Bad Gateway');
		expect(first.text).toContain('nginx');
		expect(first.json).toBeUndefined();
		const second = await api.call('GET', '/v1/stock');
		expect(second.status).toBe(504);
		expect(second.text).toContain('504 Gateway Timeout');
	});

	it.each(['GET /v1/stock', 'GET /v1/proxies', 'POST /v1/price', 'POST /v1/proxies/allocate'] as const)(
		'malformed on %s: 200 application/json whose body does not parse, nothing charged',
		async (route) => {
			sim.injectFault({ route, kind: 'malformed' });
			const [method, path] = route.split(' ') as ['GET' | 'POST', string];
			const body = route === 'POST /v1/price'
				? { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] }
				: route === 'POST /v1/proxies/allocate' ? allocateBody() : undefined;
			const res = await api.call(method, path, { body });
			expect(res.status).toBe(200);
			expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
			expect(res.text.startsWith('{"ok":true')).toBe(true);
			expect(() => JSON.parse(res.text)).toThrow();
			expect(sim.ledger).toHaveLength(0);
		},
	);

	it('okFalse: 200 {ok:false, message:"Unexpected error"} by default, or the given status/message/data', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'okFalse' });
		sim.injectFault({ route: 'GET /v1/stock', kind: 'okFalse', status: 400, message: 'Boom', data: { code: 7 } });
		const first = await api.call('GET', '/v1/stock');
		expect(first.status).toBe(200);
		expect(first.json).toEqual({ ok: false, message: 'Unexpected error' });
		const second = await api.call('GET', '/v1/stock');
		expect(second.status).toBe(400);
		expect(second.json).toEqual({ ok: false, message: 'Boom', data: { code: 7 } });
	});

	it('drift: processes normally, then removes and sets fields of the response only', async () => {
		const normal = (await api.call('GET', '/v1/proxies')).json;
		sim.injectFault({
			route: 'GET /v1/proxies',
			kind: 'drift',
			remove: ['data.0.expires_at', 'data.*.password'],
			set: { 'data.*.h_port': 'not-a-port', 'data.1.brand_new': { nested: true }, 'meta.page': 1 },
		});
		const drifted = (await api.call('GET', '/v1/proxies')).json;
		expect(drifted.data).toHaveLength(normal.data.length);
		expect(drifted.data[0]).not.toHaveProperty('expires_at');
		expect(drifted.data[1].expires_at).toBe(normal.data[1].expires_at);
		for (const p of drifted.data) {
			expect(p).not.toHaveProperty('password');
			expect(p.h_port).toBe('not-a-port');
		}
		expect(drifted.data[1].brand_new).toEqual({ nested: true });
		expect(drifted.meta).toEqual({ page: 1 });
		expect(lastLog().fault).toBe('drift');
		// State untouched: the next response is normal again.
		expect((await api.call('GET', '/v1/proxies')).json).toEqual(normal);
	});

	it('drift on allocate: charges (it processes) and returns a wrong-typed total', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'drift', set: { 'data.total': '89.00' } });
		const res = await allocate();
		expect(res.status).toBe(200);
		expect(res.json.data.total).toBe('89.00');
		expect(sim.ledger).toHaveLength(1);
	});

	it('emptyList: list routes answer data: []', async () => {
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'emptyList' });
		sim.injectFault({ route: 'GET /v1/stock', kind: 'emptyList' });
		const proxies = await api.call('GET', '/v1/proxies');
		expect(proxies.status).toBe(200);
		expect(proxies.json).toEqual({ ok: true, data: [] });
		const stock = await api.call('GET', '/v1/stock');
		expect(stock.json).toEqual({ ok: true, message: 'Stock retrieved', data: [] });
	});

	it('hugeBody: a valid response padded to about the requested size', async () => {
		const normal = (await api.call('GET', '/v1/proxies')).json;
		sim.injectFault({ route: 'GET /v1/proxies', kind: 'hugeBody', bytes: 3_000_000 });
		const res = await api.call('GET', '/v1/proxies');
		expect(res.status).toBe(200);
		expect(Buffer.byteLength(res.text)).toBeGreaterThanOrEqual(3_000_000);
		expect(Buffer.byteLength(res.text)).toBeLessThan(3_001_000);
		expect(res.json.ok).toBe(true);
		expect(res.json.data).toEqual(normal.data);
	});

	it('hugeBody defaults to about 10 MB', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'hugeBody' });
		const res = await api.call('GET', '/v1/stock');
		expect(Buffer.byteLength(res.text)).toBeGreaterThanOrEqual(10 * 1024 * 1024);
		expect(res.json.message).toBe('Stock retrieved');
	});

	it('times, route "*" and injection order: consumed exactly as queued', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'status', status: 500, times: 2 });
		sim.injectFault({ route: '*', kind: 'status', status: 502 });
		sim.injectFault({ route: 'GET /v1/stock', kind: 'status', status: 503 });
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await api.call('GET', '/v1/stock')).status);
		expect(statuses).toEqual([500, 500, 502, 503]);
		sim.injectFault({ route: '*', kind: 'okFalse' });
		const other = await api.call('POST', '/v1/price', { body: { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] } });
		expect(other.json).toEqual({ ok: false, message: 'Unexpected error' });
		expect(sim.pendingFaults()).toHaveLength(0);
	});

	it('a fault for one route leaves other routes alone', async () => {
		sim.injectFault({ route: 'POST /v1/proxies/allocate', kind: 'status', status: 500 });
		expect((await api.call('GET', '/v1/stock')).status).toBe(200);
		expect((await api.call('GET', '/v1/proxies')).status).toBe(200);
		expect(sim.pendingFaults()).toHaveLength(1);
		expect((await allocate()).status).toBe(500);
	});

	it('times: Infinity lasts until clearFaults()', async () => {
		sim.injectFault({ route: 'GET /v1/stock', kind: 'status', status: 500, times: Infinity });
		for (let i = 0; i < 5; i++) expect((await api.call('GET', '/v1/stock')).status).toBe(500);
		sim.clearFaults();
		expect((await api.call('GET', '/v1/stock')).status).toBe(200);
		expect(sim.requests.map((r) => r.fault ?? null)).toEqual([...Array(5).fill('status:500'), null]);
	});

	it('rejects a malformed fault spec', () => {
		expect(() => sim.injectFault({ route: 'GET /v1/nope' as never, kind: 'html' })).toThrow(/route/);
		expect(() => sim.injectFault({ route: 'GET /v1/stock', kind: 'latency', delayMs: -1 })).toThrow(/delayMs/);
		expect(sim.pendingFaults()).toHaveLength(0);
	});
});
