/**
 * The network model of the benchmarks and of `npm run simulator -- --network-model`: what a real
 * service adds to loopback. Round trip: 50 ms, jittered by 10 ms. Rate limits per API key and
 * endpoint, answered with 429 and retry-after: the per-proxy throttles of account-operations.md
 * (an IP change a minute, a reboot per 5 minutes) are the simulator's own; the others are not
 * published and are chosen here as plausible for a small API: reads 10 per second, a quote or a
 * charge 5 per second, settings 5 per second. Every reply of a rate-limited endpoint carries the
 * IETF draft's rate-limit headers (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`).
 */
import type { RouteKey } from './routes';
import type { RateLimitRule, SimulatorOptions } from './types';

const perSecond = (limit: number): RateLimitRule => ({ limit, windowMs: 1_000, headers: 'draft' });

const RATE_LIMITS: Partial<Record<RouteKey, RateLimitRule>> = {
	'GET /v1/stock': perSecond(10),
	'GET /v1/proxies': perSecond(10),
	'GET /v1/proxies/:name': perSecond(10),
	'GET /v1/funds': perSecond(10),
	'POST /v1/price': perSecond(5),
	'POST /v1/proxies/allocate': perSecond(5),
	'POST /v1/proxies/deploy': perSecond(5),
	'PATCH /v1/proxies/allocate/renew': perSecond(5),
	'POST /v1/proxies/changeip/:name': perSecond(5),
	'POST /v1/proxies/reboot/:name': perSecond(5),
};

export const NETWORK_MODEL: Required<Pick<SimulatorOptions, 'network' | 'rateLimit'>> = {
	network: { latencyMs: 50, jitterMs: 10 },
	rateLimit: RATE_LIMITS,
};
