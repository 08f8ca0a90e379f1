/**
 * How messages word counts and quotations (common/wording.ts), with 1 and with 2, and the error
 * mapper's quotation of the service: never "1 proxies were quoted", "these 1 proxy" or "valid.”.".
 */
import { countOf, countWere, proxiesCount, proxiesWere, quotedSentence, theseProxies } from '../../nodes/ProxyAccount/common/wording';
import { toNodeApiError } from '../../nodes/ProxyAccount/transport/errors';
import type { RequestInfo } from '../../nodes/ProxyAccount/transport/failures';
import { NODE } from '../fixtures/records';

describe('wording of counts', () => {
	it.each([
		[1, '1 proxy', '1 proxy was', 'this proxy', '1 item', '1 earlier batch was'],
		[2, '2 proxies', '2 proxies were', 'these 2 proxies', '2 items', '2 earlier batches were'],
		[0, '0 proxies', '0 proxies were', 'these 0 proxies', '0 items', '0 earlier batches were'],
	])('%i: %s, %s, %s, %s, %s', (n, count, were, these, items, batches) => {
		expect(proxiesCount(n)).toBe(count);
		expect(proxiesWere(n)).toBe(were);
		expect(theseProxies(n)).toBe(these);
		expect(countOf(n, 'item')).toBe(items);
		expect(countWere(n, 'earlier batch', 'earlier batches')).toBe(batches);
	});
});

describe('quoted text that ends a sentence', () => {
	it.each([
		['Not found', '\u201cNot found\u201d.'],
		['Proxy name not valid.', '\u201cProxy name not valid.\u201d'],
		['Really?', '\u201cReally?\u201d'],
		['Stop!', '\u201cStop!\u201d'],
	])('%s → %s', (text, expected) => {
		expect(quotedSentence(text)).toBe(expected);
	});

	it('the service quoted in an error: one period, never “…valid.”.', () => {
		const info: RequestInfo = {
			endpoint: 'GET /v1/proxies/{proxyName}',
			chargesMoney: false,
			baseUrl: 'https://api.example.com',
			attempts: 1,
			elapsedMs: 10,
			timeoutMs: 30_000,
			secrets: [],
			proxyName: 'PRX-9',
		};
		const ended = toNodeApiError(NODE, { kind: 'http', status: 404, body: { ok: false, message: 'Proxy name is not valid.' } }, info);
		expect(ended.description).toContain('The service said: \u201cProxy name is not valid.\u201d');
		expect(ended.description).not.toContain('\u201d.');
		const plain = toNodeApiError(NODE, { kind: 'http', status: 404, body: { ok: false, message: 'Proxy name is not valid' } }, info);
		expect(plain.description).toContain('The service said: \u201cProxy name is not valid\u201d.');
	});
});
