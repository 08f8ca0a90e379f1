const HOUR_MS = 3_600_000;

/** An ISO 8601 timestamp in milliseconds; NaN when it is none. */
const msOf = (timestamp: unknown) => (typeof timestamp === 'string' ? Date.parse(timestamp) : NaN);

/** Hours from `now` until an ISO 8601 timestamp, to 0.01 h; negative once passed; null if unreadable. */
export function hoursUntil(timestamp: unknown, now: number): number | null {
	const at = msOf(timestamp);
	return Number.isNaN(at) ? null : Math.round(((at - now) / HOUR_MS) * 100) / 100;
}

/** Whether a proxy's expiry falls within `hours` from `now`, to the millisecond (an expired one does too). */
export function expiresWithin(timestamp: unknown, now: number, hours: number): boolean {
	const at = msOf(timestamp);
	return !Number.isNaN(at) && at - now <= hours * HOUR_MS;
}

/** Time left until an expiry, for a person: "expires in 3 d 4 h", "expires in 45 min", "expired". */
export function timeLeftText(timestamp: unknown, now: number): string {
	const at = msOf(timestamp);
	if (Number.isNaN(at)) return 'expiry unknown';
	const minutes = Math.floor((at - now) / 60_000);
	if (minutes <= 0) return 'expired';
	if (minutes < 60) return `expires in ${minutes} min`;
	const days = Math.floor(minutes / 1440);
	const hours = Math.floor((minutes % 1440) / 60);
	if (days === 0) return `expires in ${hours} h`;
	return hours === 0 ? `expires in ${days} d` : `expires in ${days} d ${hours} h`;
}
