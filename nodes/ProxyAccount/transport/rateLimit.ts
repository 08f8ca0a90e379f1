/* The rate-limit headers of a reply: what is left of the endpoint's quota and when it is back. */

export interface RateLimitFacts {
	/** The quota, when the reply says it. */
	limit?: number;
	/** Requests left in the quota. */
	remaining: number;
	/** Seconds until the whole quota is back. */
	resetSeconds: number;
}

/** A whole number at the start of a header (`5` or `5, 5;w=1`), or undefined. */
function leadingWhole(value: string | undefined): number | undefined {
	const match = value === undefined ? null : /^\s*(\d{1,15})(?![\d.])/.exec(value);
	return match ? Number(match[1]) : undefined;
}

/** An `X-RateLimit-Reset` this large is the epoch second the quota is back, not a delay. */
const EPOCH_SECONDS = 1_000_000_000;

/**
 * The rate-limit facts of a reply: the IETF draft's `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds), or the same as `X-RateLimit-*` (reset in seconds or as the epoch
 * second, read against the service's clock). Undefined unless both Remaining and Reset are there.
 */
export function parseRateLimit(
	header: (lowerCaseName: string) => string | undefined,
	serverNow: number,
): RateLimitFacts | undefined {
	for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
		const remaining = leadingWhole(header(`${prefix}remaining`));
		const reset = leadingWhole(header(`${prefix}reset`));
		if (remaining === undefined || reset === undefined) continue;
		const limit = leadingWhole(header(`${prefix}limit`));
		const resetSeconds = reset >= EPOCH_SECONDS ? Math.max(0, reset - serverNow / 1000) : reset;
		return limit === undefined ? { remaining, resetSeconds } : { limit, remaining, resetSeconds };
	}
	return undefined;
}
