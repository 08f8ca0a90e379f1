/* The service's clock (each reply's `Date` header) against this machine's (docs/trigger.md). */

/** [accepted offset, offset of the last reply that was not accepted (null: none)], in ms. */
export type ClockState = [offset: number, candidate: number | null];

export const CLOCK_SLACK_MS = 10 * 60_000;

export function isClockState(value: unknown): value is ClockState {
	if (!Array.isArray(value) || value.length !== 2) return false;
	const [offset, candidate] = value as unknown[];
	return Number.isFinite(offset) && (candidate === null || Number.isFinite(candidate));
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
	// The first reply is checked against this machine's clock: beyond the slack it is not believed
	// (this machine's clock dates it) until a second reply in a row confirms the service's time.
	if (previous === undefined)
		return Math.abs(offset) <= CLOCK_SLACK_MS
			? { now: replyTime, clock: [offset, null] }
			: { now: localNow, clock: [0, offset] };
	const [accepted, candidate] = previous;
	// Within a second of the accepted offset, it is kept (the state does not change every poll).
	if (Math.abs(offset - accepted) < 1000) return { now: replyTime, clock: [accepted, null] };
	if (near(offset, accepted) || near(offset, candidate))
		return { now: replyTime, clock: [offset, null] };
	// Not (yet) confirmed, ahead or behind: dated by the accepted offset (a reply a day behind would
	// otherwise date a missing mark or the settling hour a day back, and end them a day early).
	return { now: localNow + accepted, clock: [accepted, offset] };
}
