/**
 * The service's clock as the trigger uses it. Each reply's `Date` header gives the service's time;
 * one reply is not trusted blindly: the difference between the service's clock and this machine's
 * (the offset) stays the same from poll to poll, whatever the time between them, so a reply whose
 * offset runs ahead of the last accepted one by more than CLOCK_SLACK_MS is an outlier (a reply
 * dated a day ahead would make Proxy Expiring report proxies a day early, and end grace periods
 * early). Such a reply is dated by the accepted offset instead, until a second reply in a row
 * confirms the new offset (the service's clock really moved). A reply dated behind is taken as it
 * is (it can only delay an event, never invent one). A reply without a `Date` header is dated by
 * the accepted offset; before any dated reply, by this machine's clock.
 *
 * Pure: the previous clock state, the reply's time (undefined without a header) and this
 * machine's time in, the time to use and the next clock state out.
 */

/** [accepted offset, offset of the last reply that was not accepted (null: none)], in ms. */
export type ClockState = [offset: number, candidate: number | null];

export const CLOCK_SLACK_MS = 10 * 60_000;

export function isClockState(value: unknown): value is ClockState {
	if (!Array.isArray(value) || value.length !== 2) return false;
	const [offset, candidate] = value as unknown[];
	return (
		typeof offset === 'number' &&
		Number.isFinite(offset) &&
		(candidate === null || (typeof candidate === 'number' && Number.isFinite(candidate)))
	);
}

const near = (a: number, b: number | null) => b !== null && Math.abs(a - b) <= CLOCK_SLACK_MS;

export function serviceNow(
	previous: ClockState | undefined,
	replyTime: number | undefined,
	localNow: number,
): { now: number; clock: ClockState } {
	if (replyTime === undefined) {
		return previous === undefined
			? { now: localNow, clock: [0, null] }
			: { now: localNow + previous[0], clock: previous };
	}
	const offset = replyTime - localNow;
	if (previous === undefined) return { now: replyTime, clock: [offset, null] };
	const [accepted, candidate] = previous;
	// Within a second of the accepted offset, it is kept (the state does not change every poll).
	if (Math.abs(offset - accepted) < 1000) return { now: replyTime, clock: [accepted, null] };
	if (near(offset, accepted) || near(offset, candidate))
		return { now: replyTime, clock: [offset, null] };
	// Not (yet) confirmed: a reply behind is taken as it is, one ahead is dated by the accepted offset.
	const now = offset < accepted ? replyTime : localNow + accepted;
	return { now, clock: [accepted, offset] };
}
