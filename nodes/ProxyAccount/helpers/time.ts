/** Hours from `now` until an ISO 8601 timestamp; negative once it has passed; null if unreadable. */
export function hoursUntil(timestamp: unknown, now: number): number | null {
	if (typeof timestamp !== 'string') return null;
	const at = Date.parse(timestamp);
	if (Number.isNaN(at)) return null;
	return Math.round(((at - now) / 3_600_000) * 100) / 100;
}

/** Whether a proxy's expiry falls within `hours` from `now` (an expired proxy does too). */
export function expiresWithin(timestamp: unknown, now: number, hours: number): boolean {
	const left = hoursUntil(timestamp, now);
	return left !== null && left <= hours;
}
