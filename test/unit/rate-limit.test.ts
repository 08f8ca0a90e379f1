/** The rate-limit headers the device commands pace themselves by: the IETF draft's and the X- ones. */
import { parseRateLimit } from '../../nodes/ProxyAccount/transport';

const from = (headers: Record<string, string>) => (name: string) => headers[name];
const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRateLimit', () => {
	it('reads RateLimit-Limit, -Remaining and -Reset (seconds)', () => {
		expect(parseRateLimit(from({ 'ratelimit-limit': '5', 'ratelimit-remaining': '2', 'ratelimit-reset': '1' }), NOW)).toEqual({ limit: 5, remaining: 2, resetSeconds: 1 });
	});

	it('reads X-RateLimit-*, with a reset given as the epoch second, against the service clock', () => {
		const reset = String(NOW / 1000 + 30);
		expect(parseRateLimit(from({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }), NOW)).toEqual({ limit: 60, remaining: 0, resetSeconds: 30 });
		expect(parseRateLimit(from({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '12' }), NOW)).toEqual({ remaining: 3, resetSeconds: 12 });
	});

	it('takes the leading number of a list or a policy (5, 5;w=1); nothing without Remaining and Reset, or with a value that is not a whole number', () => {
		expect(parseRateLimit(from({ 'ratelimit-limit': '5, 5;w=1', 'ratelimit-remaining': '4', 'ratelimit-reset': '1' }), NOW)?.limit).toBe(5);
		expect(parseRateLimit(from({ 'ratelimit-limit': '5' }), NOW)).toBeUndefined();
		expect(parseRateLimit(from({ 'ratelimit-remaining': '1.5', 'ratelimit-reset': '1' }), NOW)).toBeUndefined();
		expect(parseRateLimit(from({ 'ratelimit-remaining': 'soon', 'ratelimit-reset': '1' }), NOW)).toBeUndefined();
	});
});
