/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
import { createServer } from 'node:net';

import { apiRequests, capturedLogs, createHarness, credentialsFor, visibleText } from '../harness';
import type { NodeResult } from '../harness';
import { ProxyAccountSimulator } from '../simulator';
import type { FaultSpec } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 5, proxies: 6, cities: 6, balance: 100_000 });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

/** A fast retry policy for tests: same rules, shorter waits. */
const FAST = { budgetMs: 3_000, maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 100 };

interface ProbeCall {
	call: 'stock' | 'list' | 'get' | 'find' | 'quote' | 'allocate';
	proxyName?: string;
	lines?: unknown[];
	timeoutMs?: number;
	retry?: object;
	continueOnFail?: boolean;
	baseUrl?: string;
}

async function probe(p: ProbeCall): Promise<NodeResult> {
	return await harness.runNode(
		{
			type: 'transportProbe',
			continueOnFail: p.continueOnFail,
			parameters: {
				call: p.call,
				proxyName: p.proxyName ?? '',
				lines: JSON.stringify(p.lines ?? []),
				timeoutMs: p.timeoutMs ?? 5_000,
				retry: JSON.stringify(p.retry ?? FAST),
			},
		},
		{ credentials: { baseUrl: p.baseUrl ?? sim.url, apiKey: sim.demoApiKey } },
	);
}

function fault(f: FaultSpec) {
	sim.injectFault(f);
}

const firstProxy = () => [...sim.account().proxies.values()][0];
const allocateLine = (interval = 1) => ({ proxy_name: firstProxy().proxy_name, interval, period: 'weekly' });
const description = (result: NodeResult) => String((result.error as { description?: string } | undefined)?.description ?? '');

/** `call` for proxy "nope" against a service that answers business errors as ok:false with HTTP 200. */
async function unknownProxyAsOkFalse200(call: 'get' | 'find'): Promise<NodeResult> {
	const okFalse = await ProxyAccountSimulator.start({ seed: 3, businessErrors: 'ok-false-200' });
	try {
		return await harness.runNode(
			{ type: 'transportProbe', parameters: { call, proxyName: 'nope', retry: '{}', lines: '[]', timeoutMs: 5000 } },
			{ credentials: credentialsFor(okFalse) },
		);
	} finally {
		await okFalse.stop();
	}
}

describe('transport: successful calls are validated and keep unknown fields', () => {
	it('reads every endpoint and returns typed data', async () => {
		const stock = await probe({ call: 'stock' });
		expect(stock.status).toBe('success');
		const entries = stock.items[0].json.entries as Array<{ carriers: Record<string, number> }>;
		expect(entries).toHaveLength(sim.stock.length);
		expect(Object.keys(entries[0].carriers)).toEqual(sim.carriers.map((c) => c.key));

		const list = await probe({ call: 'list' });
		expect((list.items[0].json.result as unknown[]).length).toBe(sim.account().proxies.size);

		const one = await probe({ call: 'get', proxyName: firstProxy().proxy_name });
		expect((one.items[0].json.result as { proxy_name: string }).proxy_name).toBe(firstProxy().proxy_name);
		expect(typeof one.items[0].json.serverTime).toBe('number');
	});

	it('passes fields the document does not list through to the user', async () => {
		fault({ route: 'GET /v1/proxies', kind: 'drift', set: { 'data.*.brand_new_field': 'kept' } });
		const list = await probe({ call: 'list' });
		expect(list.status).toBe('success');
		const proxies = list.items[0].json.result as Array<Record<string, unknown>>;
		expect(proxies.every((p) => p.brand_new_field === 'kept')).toBe(true);
		expect(proxies[0]).toHaveProperty('country');
	});

	it('uses the service clock (its date header) as now', async () => {
		const frozen = await ProxyAccountSimulator.start({ seed: 2, now: '2030-01-02T03:04:05.000Z', frozenClock: true });
		try {
			const result = await harness.runNode(
				{ type: 'transportProbe', parameters: { call: 'stock', retry: '{}', lines: '[]', timeoutMs: 5000 } },
				{ credentials: credentialsFor(frozen) },
			);
			expect(result.items[0].json.serverTime).toBe(Date.parse('2030-01-02T03:04:05.000Z'));
		} finally {
			await frozen.stop();
		}
	});

	it('encodes any proxy name as one path segment', async () => {
		for (const name of ['a/b', 'what?', 'hash#tag', 'spa ce', 'ünï-çødé', '../up', '%2F']) {
			sim.addProxy(null, { proxy_name: name });
			const result = await probe({ call: 'get', proxyName: name });
			expect(result.status).toBe('success');
			expect((result.items[0].json.result as { proxy_name: string }).proxy_name).toBe(name);
		}
		const paths = apiRequests(sim, 'GET /v1/proxies/:name').map((r) => r.path);
		expect(paths).toContain('/v1/proxies/a%2Fb');
		expect(paths).toContain('/v1/proxies/..%2Fup');
		expect(paths).toContain('/v1/proxies/%252F');
	});
});

describe('transport: each failure becomes a clear node error', () => {
	it('unknown proxy: names the proxy', async () => {
		const result = await probe({ call: 'get', proxyName: 'PRX-DOES-NOT-EXIST' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Proxy \u201cPRX-DOES-NOT-EXIST\u201d was not found in this Proxy Account [item 0]');
		expect(description(result)).toMatch(/Check the proxy name/);
	});

	it('unknown proxy answered as ok:false with HTTP 200 is an error too', async () => {
		const result = await unknownProxyAsOkFalse200('get');
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Proxy \u201cnope\u201d was not found/);
	});

	it('insufficient funds: says how much is missing and that nothing was charged', async () => {
		const poorKey = 'pa_test_poor_account_key_0000000001';
		const poor = sim.addAccount({ apiKey: poorKey, balance: 10, member: true, proxies: 2 });
		const name = [...poor.proxies.keys()][0];
		const result = await harness.runNode(
			{
				type: 'transportProbe',
				parameters: { call: 'allocate', lines: JSON.stringify([{ proxy_name: name, interval: 1, period: 'weekly' }]), retry: '{}', timeoutMs: 5000 },
			},
			{ credentials: { baseUrl: sim.url, apiKey: poorKey } },
		);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The wallet is 79 short for this extension');
		expect(description(result)).toMatch(/holds 10\..*nothing was charged/);
		expect(sim.ledger).toHaveLength(0);
		expect(sim.account(poorKey).balance).toBe(10);
	});

	it('invalid input: quotes the service message', async () => {
		const result = await probe({ call: 'quote', lines: [{ isp: 'AT&T', location: 'Atlantis', interval: 1, period: 'weekly' }] });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^The Proxy Account service rejected the request: .*location/);
	});

	it('rate limited: retries after retry-after and succeeds', async () => {
		fault({ route: 'GET /v1/stock', kind: 'rateLimit', retryAfter: 1 });
		const result = await probe({ call: 'stock' });
		expect(result.status).toBe('success');
		const requests = apiRequests(sim, 'GET /v1/stock');
		expect(requests.map((r) => r.status)).toEqual([429, 200]);
		expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(900);
	});

	it('rate limited longer than the retry budget: fails at once with when to retry', async () => {
		fault({ route: 'GET /v1/stock', kind: 'rateLimit', retryAfter: 120, times: Infinity });
		const started = Date.now();
		const result = await probe({ call: 'stock' });
		// "At once": far below the 120 s asked, and wide for a busy machine.
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service is limiting how often it can be called');
		expect(description(result)).toMatch(/wait 120 s/);
		expect(apiRequests(sim, 'GET /v1/stock')).toHaveLength(1);
	});

	it.each([502, 503, 504])('HTTP %i on a read: retried with backoff, then succeeds', async (status) => {
		fault({ route: 'GET /v1/proxies', kind: 'status', status, body: { ok: false, message: 'Upstream trouble' }, times: 2 });
		const result = await probe({ call: 'list' });
		expect(result.status).toBe('success');
		expect(apiRequests(sim, 'GET /v1/proxies').map((r) => r.status)).toEqual([status, status, 200]);
	});

	it('HTTP 503 for longer than the budget: fails with the attempts it made', async () => {
		fault({ route: 'GET /v1/proxies', kind: 'status', status: 503, body: { ok: false, message: 'Maintenance' }, times: Infinity });
		const result = await probe({ call: 'list' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/could not process the request: Maintenance|could not handle the request \(HTTP 503/);
		expect(description(result)).toMatch(/tried 4 times/);
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(4);
	});

	it('HTTP 500 is not retried', async () => {
		fault({ route: 'GET /v1/stock', kind: 'status', status: 500, body: { ok: false, message: 'Unexpected error' } });
		const result = await probe({ call: 'stock' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service could not handle the request (HTTP 500, GET /v1/stock)');
		expect(description(result)).toMatch(/The service said: \u201cUnexpected error\u201d/);
		expect(apiRequests(sim, 'GET /v1/stock')).toHaveLength(1);
	});

	it('an HTML page from a gateway: says so', async () => {
		fault({ route: 'GET /v1/stock', kind: 'html', times: Infinity });
		const result = await probe({ call: 'stock' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service answered with a web page instead of data (HTTP 502, GET /v1/stock)');
	});

	it('malformed JSON: says the reply is not valid JSON', async () => {
		fault({ route: 'GET /v1/stock', kind: 'malformed' });
		const result = await probe({ call: 'stock' });
		expect(result.error?.message).toBe('The Proxy Account service sent a reply that is not valid JSON (HTTP 200, GET /v1/stock)');
	});

	it('ok:false inside a 200: an error with the service message', async () => {
		fault({ route: 'GET /v1/stock', kind: 'okFalse', message: 'Unexpected error' });
		const result = await probe({ call: 'stock' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Unexpected error/);
	});

	it('schema drift: a missing field is named with the endpoint', async () => {
		fault({ route: 'GET /v1/proxies', kind: 'drift', remove: ['data.2.expires_at'] });
		const result = await probe({ call: 'list' });
		expect(result.error?.message).toBe(
			'The Proxy Account service sent data in an unexpected shape: data[2].expires_at is missing (GET /v1/proxies)',
		);
	});

	it('schema drift: a wrong type is named with the endpoint', async () => {
		fault({ route: 'POST /v1/price', kind: 'drift', set: { 'data.total.due': 'ninety' } });
		const result = await probe({ call: 'quote', lines: [{ isp: 'AT&T', location: sim.stock[0].city, interval: 1, period: 'weekly' }] });
		expect(result.error?.message).toBe(
			'The Proxy Account service sent data in an unexpected shape: data.total.due should be number but is string (POST /v1/price)',
		);
	});

	it('timeout on a read: retried, then a timeout message', async () => {
		fault({ route: 'GET /v1/stock', kind: 'latency', delayMs: 1_500, when: 'before', times: Infinity });
		const result = await probe({ call: 'stock', timeoutMs: 300, retry: { ...FAST, maxAttempts: 2 } });
		expect(result.error?.message).toBe('The Proxy Account service did not answer within 0.3 s (GET /v1/stock)');
		expect(apiRequests(sim, 'GET /v1/stock')).toHaveLength(2);
	});

	it('connection reset mid-body on a read: retried, then succeeds', async () => {
		fault({ route: 'GET /v1/proxies', kind: 'reset', when: 'mid-body' });
		const result = await probe({ call: 'list' });
		expect(result.status).toBe('success');
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(2);
	});

	it('connection refused: says where it tried to connect', async () => {
		const port = await freePort();
		const result = await probe({ call: 'stock', baseUrl: `http://127.0.0.1:${port}` });
		expect(result.error?.message).toBe(`Could not connect to the Proxy Account service at http://127.0.0.1:${port}`);
		expect(description(result)).toMatch(/Nothing was sent. It was tried 4 times/);
	});

	it('continueOnFail turns a failure into an error item paired with its input', async () => {
		fault({ route: 'GET /v1/stock', kind: 'status', status: 500, body: { ok: false, message: 'Unexpected error' } });
		const result = await probe({ call: 'stock', continueOnFail: true });
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.error).toMatch(/could not handle the request \(HTTP 500/);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('transport: findProxy (the trigger asks whether a proxy it remembers still exists)', () => {
	const reads = () => apiRequests(sim, 'GET /v1/proxies/:name');

	it('a proxy the service has: its record, read once', async () => {
		const name = firstProxy().proxy_name;
		const result = await probe({ call: 'find', proxyName: name });
		expect(result.status).toBe('success');
		expect((result.items[0].json.found as { proxy_name: string }).proxy_name).toBe(name);
		expect(reads()).toHaveLength(1);
	});

	it('the service says it has no such proxy (404, ok:false): no record and no error, read once', async () => {
		const result = await probe({ call: 'find', proxyName: 'PRX-DOES-NOT-EXIST' });
		expect(result.status).toBe('success');
		expect(result.items[0].json.found).toBeNull();
		expect(reads()).toHaveLength(1);
	});

	it('an unknown proxy answered as ok:false with HTTP 200 is that same answer', async () => {
		const result = await unknownProxyAsOkFalse200('find');
		expect(result.status).toBe('success');
		expect(result.items[0].json.found).toBeNull();
	});

	// Any other answer says nothing of the proxy: it fails as send does, with send's message.
	const doubts: Array<[string, FaultSpec, RegExp]> = [
		['a 404 web page from a gateway', { route: 'GET /v1/proxies/:name', kind: 'html', status: 404, times: Infinity }, /web page instead of data \(HTTP 404/],
		['a 404 without a body', { route: 'GET /v1/proxies/:name', kind: 'status', status: 404, body: '', times: Infinity }, /HTTP 404/],
		['a 500', { route: 'GET /v1/proxies/:name', kind: 'status', status: 500, times: Infinity }, /HTTP 500/],
		['a 400 that says "not found"', { route: 'GET /v1/proxies/:name', kind: 'okFalse', status: 400, message: 'Proxy not found', times: Infinity }, /Proxy not found/],
		['a reply cut off', { route: 'GET /v1/proxies/:name', kind: 'malformed', times: Infinity }, /not valid JSON/],
	];
	it.each(doubts)('%s: an error, never "no such proxy"', async (_label, spec, message) => {
		fault(spec);
		const result = await probe({ call: 'find', proxyName: firstProxy().proxy_name });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		const sent = await probe({ call: 'get', proxyName: firstProxy().proxy_name });
		expect(sent.error?.message).toBe(result.error?.message);
	});
});

describe('transport: an allocate that may have reached the service is never sent again', () => {
	it('timed out after the service charged: one request, one charge, and the error says to check before re-running', async () => {
		fault({ route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 1_500, when: 'after' });
		const balance = sim.account().balance;
		const result = await probe({ call: 'allocate', lines: [allocateLine()], timeoutMs: 400 });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service did not answer within 0.4 s (POST /v1/proxies/allocate)');
		expect(description(result)).toMatch(/may have been applied.*not sent again.*expiry dates/);
		await new Promise((resolve) => setTimeout(resolve, 1_300)); // let the slow answer finish
		expect(apiRequests(sim, 'POST /v1/proxies/allocate')).toHaveLength(1);
		expect(sim.ledger).toHaveLength(1);
		expect(sim.account().balance).toBe(balance - sim.ledger[0].amount);
	});

	it.each([
		['HTTP 503', { kind: 'status', status: 503, body: { ok: false, message: 'Busy' } }],
		['HTTP 502 HTML page', { kind: 'html' }],
		['reset after processing', { kind: 'reset', when: 'after' }],
		['reset mid-body', { kind: 'reset', when: 'mid-body' }],
		['malformed body', { kind: 'malformed' }],
	] as Array<[string, Partial<FaultSpec>]>)('%s: not retried', async (_label, spec) => {
		fault({ route: 'POST /v1/proxies/allocate', ...spec } as FaultSpec);
		const result = await probe({ call: 'allocate', lines: [allocateLine()] });
		expect(result.status).toBe('error');
		expect(apiRequests(sim, 'POST /v1/proxies/allocate')).toHaveLength(1);
		expect(sim.ledger.length).toBeLessThanOrEqual(1);
	});

	it('a 429 proves it was not processed: retried, and charged once', async () => {
		fault({ route: 'POST /v1/proxies/allocate', kind: 'rateLimit', retryAfter: 0 });
		const result = await probe({ call: 'allocate', lines: [allocateLine(2)] });
		expect(result.status).toBe('success');
		expect(apiRequests(sim, 'POST /v1/proxies/allocate').map((r) => r.status)).toEqual([429, 200]);
		expect(sim.ledger).toHaveLength(1);
		expect(sim.ledger[0].interval).toBe(2);
	});

	it('a refused connection proves it was not sent: retried within the budget', async () => {
		const port = await freePort();
		const result = await probe({ call: 'allocate', lines: [allocateLine()], baseUrl: `http://127.0.0.1:${port}` });
		expect(result.error?.message).toMatch(/Could not connect/);
		expect(description(result)).toMatch(/tried 4 times/);
	});
});

describe('transport: the API key is never shown', () => {
	it('appears in no output, error or log line across failures', async () => {
		const key = sim.demoApiKey;
		const results: NodeResult[] = [];
		fault({ route: 'GET /v1/stock', kind: 'status', status: 401, body: { title: 'Unauthorized', detail: `Bad key ${key}`, status: 401 }, contentType: 'application/problem+json' });
		results.push(await probe({ call: 'stock' }));
		fault({ route: 'GET /v1/stock', kind: 'okFalse', message: `key ${key} is suspended` });
		results.push(await probe({ call: 'stock', continueOnFail: true }));
		fault({ route: 'GET /v1/stock', kind: 'rateLimit', retryAfter: 0 });
		results.push(await probe({ call: 'stock' }));
		for (const result of results) expect(visibleText(result.items, result.error)).not.toContain(key);
		expect(results[0].error?.message).toBe('The Proxy Account API key was not accepted');
		expect(description(results[0])).toContain('Bad key ***');
		expect(JSON.stringify(capturedLogs)).not.toContain(key);
		expect(capturedLogs.some((line) => line.message === 'Proxy Account request will be retried')).toBe(true);
	});
});

async function freePort(): Promise<number> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}
