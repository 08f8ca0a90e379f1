/**
 * Error mapping of the transport (no HTTP): every RequestFailure, built by hand, gets its
 * FailureKind; whether the service may have acted; the node error's message and fix, the money
 * note of a request that charges, secrets masked; the facts an operation may ask of the error;
 * classifying a thrown error and reading Retry-After.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { sentences } from '../../nodes/ProxyAccount/common/wording';
import { requestErrorFacts, toNodeApiError } from '../../nodes/ProxyAccount/transport/errors';
import type { FailureKind, RequestFailure, RequestInfo } from '../../nodes/ProxyAccount/transport/failures';
import { classifyThrown, failureKind, mayHaveActed, parseErrorBody, parseRetryAfter } from '../../nodes/ProxyAccount/transport/failures';
import { NODE } from '../fixtures/records';

const READ: RequestInfo = {
	endpoint: 'GET /v1/proxies/{proxyName}',
	chargesMoney: false,
	baseUrl: 'https://api.example.com',
	attempts: 1,
	elapsedMs: 120,
	timeoutMs: 30_000,
	secrets: ['sk_live_SECRET'],
};
const CHARGE: RequestInfo = {
	...READ,
	endpoint: 'POST /v1/proxies/allocate',
	chargesMoney: true,
	itemIndex: 0,
	walletUse: { what: 'this extension', less: 'extend fewer proxies or for a shorter time' },
};

const LINK: RequestInfo = {
	...READ,
	endpoint: 'GET /v1/proxies/changeip/{limitedApiKey}/{proxyName}',
	key: 'limited',
	change: { what: 'The IP change', check: 'Read the proxy' },
};

const network = (reason: Extract<RequestFailure, { kind: 'network' }>['reason'], code = 'X'): RequestFailure => ({ kind: 'network', reason, code });
const http = (status: number, fields: Partial<Extract<RequestFailure, { kind: 'http' }>> = {}): RequestFailure => ({ kind: 'http', status, ...fields });
const refusal = (status: number, message?: string, data?: unknown): RequestFailure => http(status, { body: { ok: false, message, data } });
const schema: RequestFailure = { kind: 'schema', status: 200, field: 'data[3].expires_at', issue: 'is missing' };

const MAY_HAVE_APPLIED =
	'The extension may have been applied: the request may have reached the service, so it was not sent again. Check the proxies\u2019 expiry dates (Proxy Account > Get or Get Many) before you run the extension again, so nothing is paid twice.';
const REFUSED_NOTHING_CHARGED = 'The service refused the request before acting on it, so nothing was charged.';
const NOTHING_SENT = 'Nothing was sent, so nothing was charged.';

const ALL_KINDS: FailureKind[] = [
	'connection-refused', 'address-unknown', 'timeout', 'connection-closed', 'cancelled', 'network', 'redirect', 'web-page', 'proxy-not-found', 'wallet-short',
	'input-refused', 'refused', 'key-refused', 'key-not-allowed', 'limited-key-refused', 'rate-limited', 'unreadable', 'server-trouble', 'no-endpoint', 'client-refused', 'unexpected-shape',
];

describe('failureKind', () => {
	const rows: Array<[string, FailureKind, RequestFailure, RequestInfo]> = [
		['connection refused', 'connection-refused', network('refused', 'ECONNREFUSED'), READ],
		['unknown address', 'address-unknown', network('dns', 'ENOTFOUND'), READ],
		['timeout', 'timeout', network('timeout', 'ETIMEDOUT'), READ],
		['connection reset', 'connection-closed', network('reset', 'ECONNRESET'), READ],
		['cancelled', 'cancelled', network('aborted', 'ERR_CANCELED'), READ],
		['another network error', 'network', network('other', 'EHOSTUNREACH'), READ],
		['a redirect', 'redirect', http(301, { redirectTo: 'https://elsewhere.example' }), READ],
		['a redirect to an unreadable place', 'redirect', http(302, { redirectTo: null }), READ],
		['a web page', 'web-page', http(502, { bodyProblem: 'html', pageTitle: 'Bad Gateway' }), READ],
		['404 ok:false for one proxy', 'proxy-not-found', refusal(404, 'Not found'), { ...READ, proxyName: 'PRX-1' }],
		['404 ok:false naming a proxy', 'proxy-not-found', refusal(404, 'Proxy PRX-1 does not exist'), READ],
		['404 ok:false about something else', 'no-endpoint', refusal(404, 'Not found'), READ],
		['402 ok:false', 'wallet-short', refusal(402, 'Payment required'), CHARGE],
		['wallet data in a 409', 'wallet-short', refusal(409, 'Nope', { diff: 5, funds: 1 }), CHARGE],
		['wallet data in a 200', 'wallet-short', refusal(200, 'Nope', { funds: 1 }), CHARGE],
		['400 ok:false', 'input-refused', refusal(400, 'interval must be positive'), CHARGE],
		['422 ok:false', 'input-refused', refusal(422, 'bad'), READ],
		['409 ok:false on a charge, whatever its wording', 'refused', refusal(409, 'insufficient funds'), CHARGE],
		['409 ok:false on a read, worded as short of funds', 'wallet-short', refusal(409, 'Not enough balance'), READ],
		['409 ok:false on a read, worded as not found', 'proxy-not-found', refusal(409, 'No such proxy'), READ],
		['409 ok:false on a read, worded as invalid', 'input-refused', refusal(409, 'Field is required'), READ],
		['409 ok:false on a read, worded otherwise', 'refused', refusal(409, 'Try later'), READ],
		['200 ok:false on a read without a message', 'refused', refusal(200), READ],
		['401 without a service body', 'key-refused', http(401, { body: { title: 'Unauthorized', detail: 'bad key' } }), READ],
		['403', 'key-not-allowed', http(403), READ],
		['401 on the rotation link', 'limited-key-refused', http(401, { body: { title: 'Unauthorized' } }), LINK],
		['403 ok:false on the rotation link', 'limited-key-refused', refusal(403, 'Forbidden'), LINK],
		['429', 'rate-limited', http(429, { retryAfterSeconds: 3 }), READ],
		['malformed JSON', 'unreadable', http(200, { bodyProblem: 'malformed' }), READ],
		['an empty body', 'unreadable', http(502, { bodyProblem: 'empty' }), READ],
		['5xx', 'server-trouble', http(503), READ],
		['5xx with ok:false', 'server-trouble', refusal(500, 'boom'), READ],
		['404 without a service body', 'no-endpoint', http(404), READ],
		['another 4xx', 'client-refused', http(418), READ],
		['a reply of another shape', 'unexpected-shape', schema, READ],
	];

	it.each(rows)('%s: %s', (_label, kind, failure, info) => {
		expect(failureKind(failure, info)).toBe(kind);
	});

	it('the rows above reach every kind', () => {
		expect(new Set(rows.map((row) => row[1]))).toEqual(new Set(ALL_KINDS));
	});
});

describe('mayHaveActed', () => {
	it.each<[string, boolean, RequestFailure]>([
		['refused connection', false, network('refused')],
		['unknown address', false, network('dns')],
		['timeout', true, network('timeout')],
		['reset', true, network('reset')],
		['cancelled', true, network('aborted')],
		['other network error', true, network('other')],
		['400', false, refusal(400, 'bad')],
		['402', false, refusal(402)],
		['404 without body', false, http(404)],
		['429', false, http(429)],
		['401', false, http(401)],
		['200 ok:false', false, refusal(200, 'no')],
		['201 ok:false', false, refusal(201, 'no')],
		['200 ok:false but the body was unreadable', true, http(200, { body: { ok: false }, bodyProblem: 'malformed' })],
		['200 unreadable', true, http(200, { bodyProblem: 'empty' })],
		['200 ok:true', true, http(200, { body: { ok: true } })],
		['301 redirect', true, http(301, { redirectTo: 'https://x.example' })],
		['500', true, http(500)],
		['503 ok:false', true, refusal(503, 'down')],
		['schema', true, schema],
	])('%s: %s', (_label, expected, failure) => {
		expect(mayHaveActed(failure)).toBe(expected);
	});
});

describe('sentences', () => {
	it('joins the parts that say something, trimmed, with one space', () => {
		expect(sentences(' One. ', false, undefined, null, '', '  ', 'Two.')).toBe('One. Two.');
		expect(sentences()).toBe('');
		expect(sentences(false, undefined)).toBe('');
	});
});

describe('toNodeApiError', () => {
	it('a proxy not found: the proxy named, the service quoted, the item, the cause', () => {
		const error = toNodeApiError(NODE, refusal(404, 'Not found'), { ...READ, proxyName: 'PRX-9', itemIndex: 2 });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Proxy \u201cPRX-9\u201d was not found in this Proxy Account [item 2]');
		expect(error.description).toBe('Check the proxy name (names are case-sensitive), or pick the proxy from the list. The service said: \u201cNot found\u201d.');
		expect(error.httpCode).toBe('404');
		expect(error.context.itemIndex).toBe(2);
		expect(error.failure).toEqual({ cause: 'configuration-invalid' });
	});

	it('a refused connection on a read: nothing was sent, the retries counted', () => {
		const error = toNodeApiError(NODE, network('refused', 'ECONNREFUSED'), { ...READ, attempts: 3, elapsedMs: 4500 });
		expect(error.message).toBe('Could not connect to the Proxy Account service at https://api.example.com');
		expect(error.description).toBe('Nothing was sent. It was tried 3 times over 4.5 s. Check the Base URL in the Proxy Account credential and that n8n can reach that address.');
		expect(error.httpCode).toBeNull();
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	});

	it('another network error names its code', () => {
		const error = toNodeApiError(NODE, network('other', 'ENETUNREACH'), READ);
		expect(error.message).toBe('The request to the Proxy Account service could not be completed (GET /v1/proxies/{proxyName}, ENETUNREACH)');
		expect(error.description).toBe('Check the Base URL in the credential and the network between n8n and the service.');
		expect(error.failure).toBeUndefined();
	});

	it('a timeout on a read: the timeout in seconds and how to raise it', () => {
		const error = toNodeApiError(NODE, network('timeout', 'ETIMEDOUT'), READ);
		expect(error.message).toBe('The Proxy Account service did not answer within 30 s (GET /v1/proxies/{proxyName})');
		expect(error.description).toBe('The service is slow or unreachable right now; try again later, or raise Timeout (Seconds).');
	});

	it('rate limited: the wait asked for, in the message and in the failure', () => {
		const error = toNodeApiError(NODE, http(429, { retryAfterSeconds: 2.5 }), { ...READ, attempts: 2, elapsedMs: 3000 });
		expect(error.message).toBe('The Proxy Account service is limiting how often it can be called');
		expect(error.description).toBe('It asked to wait 2.50 s before the next request. It was tried 2 times over 3 s. Run the workflow again later or space its runs further apart.');
		expect(error.failure).toEqual({ cause: 'rate-limited', retryAfterMs: 2500 });
		expect(toNodeApiError(NODE, http(429), READ).failure).toEqual({ cause: 'rate-limited' });
	});

	it('a web page: the page title, and the cause by status class', () => {
		const gateway = toNodeApiError(NODE, http(502, { bodyProblem: 'html', pageTitle: 'Bad Gateway' }), READ);
		expect(gateway.message).toBe('The Proxy Account service answered with a web page instead of data (HTTP 502, GET /v1/proxies/{proxyName})');
		expect(gateway.description).toBe(
			'The page was titled \u201cBad Gateway\u201d. A gateway in front of the service is failing, or the Base URL points at a website rather than the API (it should be the address before /v1).',
		);
		expect(gateway.failure).toEqual({ cause: 'temporarily-unavailable' });
		expect(toNodeApiError(NODE, http(200, { bodyProblem: 'html' }), READ).failure).toEqual({ cause: 'configuration-invalid' });
	});

	it('a redirect names where it pointed', () => {
		expect(toNodeApiError(NODE, http(301, { redirectTo: 'https://new.example' }), READ).message).toBe(
			'The Proxy Account service answered with a redirect (HTTP 301) to https://new.example, which was not followed (GET /v1/proxies/{proxyName})',
		);
		expect(toNodeApiError(NODE, http(302, { redirectTo: null }), READ).message).toBe(
			'The Proxy Account service answered with a redirect (HTTP 302) to an address that could not be read, which was not followed (GET /v1/proxies/{proxyName})',
		);
	});

	it('a reply of another shape names the field and asks for an update', () => {
		const error = toNodeApiError(NODE, schema, READ);
		expect(error.message).toBe('The Proxy Account service sent data in an unexpected shape: data[3].expires_at is missing (GET /v1/proxies/{proxyName})');
		expect(error.description).toBe('The service may have changed its API. Update n8n-nodes-proxy-account; if it is already current, report this message.');
		expect(error.failure).toEqual({ cause: 'node-defect' });
	});

	it('wallet short: the amounts, and that nothing was charged', () => {
		const error = toNodeApiError(NODE, refusal(402, 'Insufficient funds', { diff: 12.5, funds: 3 }), CHARGE);
		expect(error.message).toBe('The wallet is 12.50 short for this extension');
		expect(error.description).toBe(`The wallet holds 3. Top up the wallet in the Proxy Account dashboard, or extend fewer proxies or for a shorter time. ${REFUSED_NOTHING_CHARGED}`);
		expect(toNodeApiError(NODE, refusal(402), CHARGE).message).toBe('The wallet does not hold enough funds for this extension');
	});

	it('wallet short: speaks of what the request pays for, and of "this request" when it does not say', () => {
		const short = refusal(402, 'Insufficient funds', { diff: 4, funds: 0 });
		const buy = toNodeApiError(NODE, short, { ...CHARGE, endpoint: 'POST /v1/proxies/deploy', walletUse: { what: 'this purchase', less: 'buy fewer proxies' } });
		expect(buy.message).toBe('The wallet is 4 short for this purchase');
		expect(buy.description).toMatch(/^The wallet holds 0\. Top up the wallet in the Proxy Account dashboard, or buy fewer proxies\. /);
		const other = toNodeApiError(NODE, short, { ...CHARGE, walletUse: undefined });
		expect(other.message).toBe('The wallet is 4 short for this request');
		expect(other.description).toMatch(/^The wallet holds 0\. Top up the wallet in the Proxy Account dashboard\. /);
	});

	it('a refused Limited key: a message about the Limited key, never the key, nothing changed', () => {
		const echoed = ['pa', 'lim', '0123456789abcdef'].join('_');
		const error = toNodeApiError(NODE, http(401, { body: { title: 'Unauthorized', detail: `key ${echoed} is not valid` } }), { ...LINK, secrets: [echoed] });
		expect(error.message).toBe('The Limited API Key was refused by the Proxy Account service (HTTP 401, GET /v1/proxies/changeip/{limitedApiKey}/{proxyName})');
		expect(error.description).toMatch(/^Check the Limited API Key in the Proxy Account credential: paste it again/);
		expect(error.description).toMatch(/so nothing was changed\.$/);
		expect(JSON.stringify({ message: error.message, description: error.description })).not.toContain(echoed);
		expect(error.failure).toEqual({ cause: 'credential-invalid' });
	});

	it.each<[string, RequestFailure, string]>([
		['a timeout', network('timeout', 'ETIMEDOUT'), MAY_HAVE_APPLIED],
		['a reset connection', network('reset', 'ECONNRESET'), MAY_HAVE_APPLIED],
		['a 5xx', http(500), `Try again later. ${MAY_HAVE_APPLIED}`],
		['an unreadable 200', http(200, { bodyProblem: 'malformed' }), `The reply was cut off or garbled. Try again later. ${MAY_HAVE_APPLIED}`],
		['a reply of another shape', schema, `The service may have changed its API. Update n8n-nodes-proxy-account; if it is already current, report this message. ${MAY_HAVE_APPLIED}`],
		['a refused connection', network('refused', 'ECONNREFUSED'), `Check the Base URL in the Proxy Account credential and that n8n can reach that address. ${NOTHING_SENT}`],
		['an unknown address', network('dns', 'ENOTFOUND'), `Check the Base URL in the Proxy Account credential for typos. ${NOTHING_SENT}`],
		['a 400 refusal', refusal(400, 'interval must be positive'), `Check the parameters named in the message (POST /v1/proxies/allocate). ${REFUSED_NOTHING_CHARGED}`],
		['an ok:false in a 200', refusal(200, 'Proxy is locked'), `HTTP 200 from POST /v1/proxies/allocate. Check the parameters and try again. ${REFUSED_NOTHING_CHARGED}`],
	])('a charge that failed with %s says exactly what mayHaveActed says', (_label, failure, description) => {
		const error = toNodeApiError(NODE, failure, CHARGE);
		expect(error.description).toBe(description);
		expect(error.description?.includes('may have been applied')).toBe(mayHaveActed(failure));
		expect(error.description?.includes('nothing was charged')).toBe(!mayHaveActed(failure));
		expect(requestErrorFacts(error)?.mayHaveActed).toBe(mayHaveActed(failure));
	});

	it('a read says nothing about money', () => {
		for (const failure of [network('timeout'), refusal(400, 'bad'), http(500)]) {
			const description = toNodeApiError(NODE, failure, READ).description ?? '';
			expect(description).not.toMatch(/charged|applied/);
		}
	});

	it('masks the API key wherever the service repeats it', () => {
		const failure = refusal(422, 'API key sk_live_SECRET is not valid for sk_live_SECRET');
		const error = toNodeApiError(NODE, failure, READ);
		expect(error.message).toBe('The Proxy Account service rejected the request: API key *** is not valid for ***');
		expect(JSON.stringify({ message: error.message, description: error.description, messages: error.messages })).not.toContain('SECRET');
		expect(requestErrorFacts(error)?.said).toBe('API key *** is not valid for ***');
	});

	it('masks no secret shorter than 4 characters (it would mask ordinary words)', () => {
		const error = toNodeApiError(NODE, refusal(422, 'abc is wrong'), { ...READ, secrets: ['abc'] });
		expect(error.message).toBe('The Proxy Account service rejected the request: abc is wrong');
	});

	it('quotes a gateway problem (detail, then title) when there is no message', () => {
		const error = toNodeApiError(NODE, http(503, { body: { title: 'Service Unavailable', detail: 'Maintenance until 14:00' } }), READ);
		expect(error.message).toBe('The Proxy Account service could not handle the request (HTTP 503, GET /v1/proxies/{proxyName})');
		expect(error.description).toBe('The service said: \u201cMaintenance until 14:00\u201d. Try again later.');
		expect(requestErrorFacts(toNodeApiError(NODE, http(401, { body: { title: 'Unauthorized' } }), READ))?.said).toBe('Unauthorized');
	});
});

describe('requestErrorFacts', () => {
	it('the facts of an error the transport made', () => {
		expect(requestErrorFacts(toNodeApiError(NODE, refusal(409, 'Try later'), READ))).toEqual({ kind: 'refused', mayHaveActed: false, said: 'Try later' });
		expect(requestErrorFacts(toNodeApiError(NODE, network('timeout'), CHARGE))).toEqual({ kind: 'timeout', mayHaveActed: true, said: undefined });
	});

	it('nothing for an error the transport did not make, a NodeApiError included', () => {
		expect(requestErrorFacts(new NodeApiError(NODE, { message: 'x' }))).toBeUndefined();
		expect(requestErrorFacts(new NodeOperationError(NODE, 'x'))).toBeUndefined();
		expect(requestErrorFacts(new Error('x'))).toBeUndefined();
		expect(requestErrorFacts({ kind: 'timeout', mayHaveActed: true })).toBeUndefined();
		expect(requestErrorFacts(undefined)).toBeUndefined();
	});
});

describe('classifyThrown', () => {
	const coded = (code: string, message = '') => Object.assign(new Error(message), { code });
	it.each<[string, unknown, RequestFailure]>([
		['ECONNREFUSED', coded('ECONNREFUSED'), network('refused', 'ECONNREFUSED')],
		['ETIMEDOUT', coded('ETIMEDOUT'), network('timeout', 'ETIMEDOUT')],
		['ECONNABORTED (axios timeout)', coded('ECONNABORTED', 'timeout of 30000ms exceeded'), network('timeout', 'ECONNABORTED')],
		['UND_ERR_CONNECT_TIMEOUT', coded('UND_ERR_CONNECT_TIMEOUT'), network('timeout', 'UND_ERR_CONNECT_TIMEOUT')],
		['a timeout told only in the message', new Error('Request timeout'), network('timeout', 'UNKNOWN')],
		['ECONNRESET', coded('ECONNRESET'), network('reset', 'ECONNRESET')],
		['EPIPE', coded('EPIPE'), network('reset', 'EPIPE')],
		['socket hang up', new Error('socket hang up'), network('reset', 'UNKNOWN')],
		['ENOTFOUND', coded('ENOTFOUND'), network('dns', 'ENOTFOUND')],
		['EAI_AGAIN', coded('EAI_AGAIN'), network('dns', 'EAI_AGAIN')],
		['ERR_CANCELED', coded('ERR_CANCELED', 'canceled'), network('aborted', 'ERR_CANCELED')],
		['EHOSTUNREACH', coded('EHOSTUNREACH'), network('other', 'EHOSTUNREACH')],
		['a code in the cause', Object.assign(new Error('fetch failed'), { cause: coded('ECONNREFUSED') }), network('refused', 'ECONNREFUSED')],
		['a code that is not an error code', coded('ok-ish'), network('other', 'UNKNOWN')],
		['a string', 'boom', network('other', 'UNKNOWN')],
		['undefined', undefined, network('other', 'UNKNOWN')],
	])('%s', (_label, error, expected) => {
		expect(classifyThrown(error)).toEqual(expected);
	});

	it('looks at most four causes deep', () => {
		let error: unknown = coded('ECONNREFUSED');
		for (let i = 0; i < 3; i++) error = { cause: error };
		expect(classifyThrown(error)).toMatchObject({ kind: 'network', reason: 'refused' });
		expect(classifyThrown({ cause: error })).toMatchObject({ kind: 'network', reason: 'other' });
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2025-03-01T12:00:00.000Z');
	it.each<[unknown, number | undefined]>([
		['120', 120],
		[' 7 ', 7],
		['1.5', 1.5],
		[30, 30],
		['0', 0],
		['Sat, 01 Mar 2025 12:00:30 GMT', 30],
		['Sat, 01 Mar 2025 11:59:00 GMT', 0],
		['soon', undefined],
		['', undefined],
		[null, undefined],
		[undefined, undefined],
		[{}, undefined],
	])('%p is %p seconds', (value, expected) => {
		expect(parseRetryAfter(value, now)).toBe(expected);
	});
});

describe('parseErrorBody', () => {
	it('reads a JSON object, and nothing else', () => {
		expect(parseErrorBody('{"ok":false,"message":"no"}')).toEqual({ ok: false, message: 'no' });
		expect(parseErrorBody('<html>')).toBeUndefined();
		expect(parseErrorBody('[1]')).toBeUndefined();
		expect(parseErrorBody('{"ok":"false"}')).toBeUndefined();
	});
});
