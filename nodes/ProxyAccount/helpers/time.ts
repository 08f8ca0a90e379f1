const HOUR_MS = 3_600_000;

/** Hours from `now` until an ISO 8601 timestamp, to 0.01 h; negative once passed; null if unreadable. */
export function hoursUntil(timestamp: unknown, now: number): number | null {
	if (typeof timestamp !== 'string') return null;
	const at = Date.parse(timestamp);
	if (Number.isNaN(at)) return null;
	return Math.round(((at - now) / HOUR_MS) * 100) / 100;
}

/** Whether a proxy's expiry falls within `hours` from `now`, to the millisecond (an expired one does too). */
export function expiresWithin(timestamp: unknown, now: number, hours: number): boolean {
	if (typeof timestamp !== 'string') return false;
	const at = Date.parse(timestamp);
	return !Number.isNaN(at) && at - now <= hours * HOUR_MS;
}
