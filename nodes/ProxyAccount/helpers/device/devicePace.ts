/*
 * The pace of a device command's requests on its endpoint, for a whole run: the service's rate
 * limit is kept to (from its rate-limit headers once a reply carried them), a 429 of the endpoint's
 * limit pauses every request, and the run stops sending to the endpoint once its limit asks for
 * longer than the run waits. Every wait is bounded and awaited: no header, however wrong, makes a
 * loop that does not await or a wait without end.
 */
import { sleep } from 'n8n-workflow';

import type { RateLimitFacts } from '../../transport';

/**
 * The longest pause the endpoint's rate limit makes without Wait Until Allowed (asked by a 429 or
 * by the headers' reset); a longer one stops the endpoint for the run.
 */
export const RATE_LIMIT_PAUSE_MAX_MS = 5_000;
/** The shortest pause a 429 makes: a `Retry-After: 0` means "less than a second", not "at once". */
const RATE_LIMIT_PAUSE_MIN_MS = 1_000;
/** How long in all the endpoint's rate limit may hold a run back without Wait Until Allowed. */
const RUN_WAIT_DEFAULT_MS = 20_000;
/** Margin on the headers' reset (given in whole seconds, rounded up by the service). */
const RESET_MARGIN_MS = 50;

export const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * How long in all the run waits for the endpoint's rate limit (`waitMs`), whether a wait longer
 * than RATE_LIMIT_PAUSE_MAX_MS may be taken, and the bound as a reason names it.
 */
export function paceBounds(waitUntilAllowed: boolean, maxWaitMs: number) {
	return waitUntilAllowed
		? { waitMs: maxWaitMs, longWaits: true, label: `Max Wait (${seconds(maxWaitMs)} s)` }
		: {
				waitMs: RUN_WAIT_DEFAULT_MS,
				longWaits: false,
				label: `the ${seconds(RUN_WAIT_DEFAULT_MS)} s a run waits without Wait Until Allowed`,
			};
}

type PaceBounds = ReturnType<typeof paceBounds>;

/** A count from a header: a whole number from 0, else undefined (a lying or broken header). */
const count = (value: number | undefined) =>
	value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/**
 * The spacing of requests after a 429 (no headers): the rate the service accepted before it (so
 * many per the wait it asked for, with 5% to spare; 10% slower after each further 429), never
 * slower than one request per wait asked (at most RATE_LIMIT_PAUSE_MAX_MS).
 */
function nextSpacing(spacingMs: number, askedMs: number, accepted: number, capMs: number): number {
	const spacing =
		spacingMs === 0
			? Math.ceil((askedMs / Math.max(1, accepted)) * 1.05)
			: Math.ceil(spacingMs * 1.1);
	return Math.min(spacing, capMs, RATE_LIMIT_PAUSE_MAX_MS);
}

/**
 * What the headers of request `seq`'s reply leave of the quota (less the `olderInFlight` requests
 * sent before it and not answered yet), when the whole quota is back and how much comes back then;
 * undefined when the headers give nothing usable.
 */
function quotaOf(seq: number, rateLimit: RateLimitFacts | undefined, olderInFlight: number) {
	const remaining = count(rateLimit?.remaining);
	const reset = rateLimit?.resetSeconds;
	if (remaining === undefined || reset === undefined || !(reset >= 0)) return undefined;
	const limit = count(rateLimit?.limit);
	return {
		seq,
		remaining: remaining - olderInFlight,
		backAt: Date.now() + Math.min(reset, 1e9) * 1000 + RESET_MARGIN_MS,
		// A limit of 0 (or none) cannot be what comes back: one request, then the next reply tells.
		whole: limit !== undefined && limit > 0 ? limit : 1,
	};
}

const tooLong = (ms: number) =>
	`the service\u2019s rate limit asks to wait ${seconds(ms)} s, longer than this run waits; not sent`;

const heldTooLong = (refusals: number, heldMs: number, ms: number, bounds: PaceBounds) =>
	`the service\u2019s rate limit refused ${refusals} request${refusals === 1 ? '' : 's'} of this run (429), asking it to wait ${seconds(heldMs)} s in all; waiting ${seconds(ms)} s more would pass ${bounds.label}; not sent`;

/**
 * The pace of one run: `acquire` waits until the endpoint may be sent the next request (a ticket
 * to send it now, or why nothing more goes to the endpoint in this run); `settle` takes a ticket's
 * reply or failure (its rate-limit headers, whether it was accepted); `hold` takes a 429 of the
 * endpoint's rate limit asking to wait `askedMs` (every request holds back for it), undefined or
 * why nothing more is sent in this run; `acceptedAny` tells whether the endpoint accepted a request.
 */
export function endpointPace(bounds: PaceBounds) {
	// After a 429: every request holds back until `resumeAt`, then they go out `spacingMs` apart.
	let resumeAt = 0;
	let acceptedSincePause = 0;
	let acceptedTotal = 0;
	let spacingMs = 0;
	let longestAskedMs = 0;
	let nextSendAt = 0;
	// What the run has been held back by the endpoint's refusals, and how many there were.
	let heldMs = 0;
	let refusals = 0;
	// From the rate-limit headers: what is left of the quota after request number `seq` (as its
	// reply said it, less the earlier requests still in flight then), and when the whole quota is
	// back (`limit` requests, or one when the headers give no usable limit).
	let sent = 0;
	const inFlight = new Set<number>();
	let quota: ReturnType<typeof quotaOf>;
	let stopped: string | undefined;
	let waiters: Array<() => void> = [];

	// Once the run stops sending, the requests waiting for their turn end at once, not at their turn.
	let wake: () => void = () => undefined;
	const stoppedSignal = new Promise<void>((resolve) => (wake = resolve));
	const stop = (reason: string) => {
		stopped ??= reason;
		wake();
		return stopped;
	};
	const wait = async (ms: number) => await Promise.race([sleep(ms), stoppedSignal]);
	/** Counts a wait of `ms` from now against the run's bound; why not, when it would pass it. */
	const charge = (ms: number): string | undefined => {
		if (ms > RATE_LIMIT_PAUSE_MAX_MS && !bounds.longWaits) return stop(tooLong(ms));
		const now = Date.now();
		const added = Math.max(0, now + ms - Math.max(now, resumeAt));
		if (heldMs + added > bounds.waitMs)
			return stop(heldMs > 0 ? heldTooLong(refusals, heldMs, ms, bounds) : tooLong(ms));
		heldMs += added;
		return undefined;
	};
	const nextReply = async () => await new Promise<void>((resolve) => waiters.push(resolve));

	/** Waits until the headers' quota has room; why not, when it is back too late for this run. */
	const quotaRoom = async (): Promise<string | undefined> => {
		// Every turn of this loop awaits a reply or a sleep, and a quota that is back has room.
		while (quota !== undefined && stopped === undefined) {
			if (quota.remaining - (sent - quota.seq) > 0) return undefined;
			if (inFlight.size > 0) {
				await nextReply();
				continue;
			}
			const waitMs = Math.max(0, quota.backAt - Date.now());
			if (waitMs > RATE_LIMIT_PAUSE_MAX_MS && charge(waitMs) !== undefined) break;
			const before = quota;
			await wait(waitMs);
			// The whole quota is back (unless a fresher reply said otherwise meanwhile).
			if (quota === before) quota = { ...before, seq: sent, remaining: before.whole };
		}
		return stopped;
	};

	const holdAfterPause = async () => {
		const now = Date.now();
		let at = Math.max(now, resumeAt);
		if (spacingMs > 0) {
			at = Math.max(at, nextSendAt);
			nextSendAt = at + spacingMs;
		}
		if (at > now) await wait(at - now);
	};

	return {
		async acquire(): Promise<{ seq: number } | { refused: string }> {
			const refused = await quotaRoom();
			if (refused !== undefined) return { refused };
			await holdAfterPause();
			// The pause may have ended the run's sending, or another request taken the last room.
			const late = await quotaRoom();
			if (late !== undefined) return { refused: late };
			sent++;
			inFlight.add(sent);
			return { seq: sent };
		},
		settle({ seq }: { seq: number }, rateLimit: RateLimitFacts | undefined, accepted: boolean) {
			inFlight.delete(seq);
			if (accepted) {
				acceptedSincePause++;
				acceptedTotal++;
			}
			// The reply of the latest request sent is the freshest word; the earlier ones still in
			// flight may not be counted in it yet.
			if ((quota?.seq ?? 0) < seq) {
				const olderInFlight = [...inFlight].filter((other) => other < seq).length;
				quota = quotaOf(seq, rateLimit, olderInFlight) ?? quota;
			}
			const waiting = waiters;
			waiters = [];
			for (const resume of waiting) resume();
		},
		hold(askedMs: number): string | undefined {
			refusals++;
			const asked = Math.max(RATE_LIMIT_PAUSE_MIN_MS, askedMs);
			const refused = stopped ?? charge(asked);
			if (refused !== undefined) return refused;
			const now = Date.now();
			// The first 429 of a pause sets the pace; the others of the same burst only join the pause.
			if (now >= resumeAt) {
				longestAskedMs = Math.max(longestAskedMs, asked);
				spacingMs = nextSpacing(spacingMs, asked, acceptedSincePause, longestAskedMs);
				acceptedSincePause = 0;
			}
			resumeAt = Math.max(resumeAt, now + asked);
			return undefined;
		},
		acceptedAny: () => acceptedTotal > 0,
	};
}
