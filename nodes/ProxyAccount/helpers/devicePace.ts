/*
 * The pace of a device command's requests on its endpoint, for a whole run: the service's rate
 * limit is kept to (from its rate-limit headers once a reply carried them), a short 429 pauses every
 * request, and a limit that asks for longer than the run waits stops the endpoint for the run.
 */
import { sleep } from 'n8n-workflow';

import type { RateLimitFacts } from '../transport';

/**
 * The longest the run waits for the endpoint's rate limit, whether a 429 asked for it or the
 * headers said the quota is back only then. A 429 asking for longer than this that cannot be a
 * proxy's own throttle, or a quota back later than this, stops the endpoint for the run.
 */
export const RATE_LIMIT_PAUSE_MAX_MS = 5_000;
/** Margin on the headers' reset: whole seconds, and the clocks of n8n and the service. */
const RESET_MARGIN_MS = 250;

export const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** A request the pace lets go: hand its number back to `settle` with its reply or failure. */
export interface Ticket {
	seq: number;
}

export interface EndpointPace {
	/**
	 * Waits until the endpoint may be sent the next request: a ticket to send it now, or why nothing
	 * more goes to the endpoint in this run.
	 */
	acquire(): Promise<Ticket | { refused: string }>;
	/** The reply (or failure) of a ticket's request: its rate-limit headers, and whether it was accepted. */
	settle(ticket: Ticket, rateLimit: RateLimitFacts | undefined, accepted: boolean): void;
	/** A 429 of the endpoint's rate limit asking for a short wait: every request pauses for it. */
	pause(askedMs: number): void;
	/** A rate limit asking for longer than the run waits: nothing more is sent; the reason. */
	stop(askedMs: number): string;
}

export function endpointPace(): EndpointPace {
	// After a short 429: every request holds back until `resumeAt`, then they go out evenly spaced,
	// at the rate the service accepted before it (so many per the wait it asked for, with 5% to
	// spare; 10% slower after each further 429).
	let resumeAt = 0;
	let acceptedSincePause = 0;
	let spacingMs = 0;
	let nextSendAt = 0;
	// From the rate-limit headers: what is left of the quota after request number `seq` (as its
	// reply said it, less the earlier requests still in flight then), and when the whole quota is
	// back. The requests sent after `seq` are taken from it.
	let sent = 0;
	const inFlight = new Set<number>();
	let quota: { seq: number; remaining: number; backAt: number; limit?: number } | undefined;
	let stoppedMs: number | undefined;
	let waiters: Array<() => void> = [];

	const stoppedReason = (ms: number) =>
		`the service\u2019s rate limit asks to wait ${seconds(ms)} s, longer than this run waits; not sent`;
	const stop = (askedMs: number) => {
		stoppedMs = Math.max(stoppedMs ?? 0, askedMs);
		return stoppedReason(stoppedMs);
	};
	const nextReply = async () => await new Promise<void>((resolve) => waiters.push(resolve));

	/** Waits until the headers' quota has room; a reason when it is back too late for this run. */
	const quotaRoom = async (): Promise<string | undefined> => {
		while (quota !== undefined && stoppedMs === undefined) {
			if (quota.remaining - (sent - quota.seq) > 0) return undefined;
			if (inFlight.size > 0) {
				await nextReply();
				continue;
			}
			const waitMs = quota.backAt - Date.now();
			if (waitMs > RATE_LIMIT_PAUSE_MAX_MS) return stop(waitMs);
			const before = quota;
			if (waitMs > 0) await sleep(waitMs);
			// The whole quota is back (unless a fresher reply said otherwise meanwhile).
			if (quota === before) quota = { ...before, seq: sent, remaining: before.limit ?? 1 };
		}
		return stoppedMs === undefined ? undefined : stoppedReason(stoppedMs);
	};

	const holdAfterPause = async () => {
		const now = Date.now();
		let at = Math.max(now, resumeAt);
		if (spacingMs > 0) {
			at = Math.max(at, nextSendAt);
			nextSendAt = at + spacingMs;
		}
		if (at > now) await sleep(at - now);
	};

	return {
		async acquire() {
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
		settle({ seq }, rateLimit, accepted) {
			inFlight.delete(seq);
			if (accepted) acceptedSincePause++;
			// The reply of the latest request sent is the freshest word; the earlier ones still in
			// flight may not be counted in it yet.
			if (rateLimit !== undefined && (quota === undefined || seq > quota.seq)) {
				const olderInFlight = [...inFlight].filter((other) => other < seq).length;
				quota = {
					seq,
					remaining: rateLimit.remaining - olderInFlight,
					backAt: Date.now() + rateLimit.resetSeconds * 1000 + RESET_MARGIN_MS,
					limit: rateLimit.limit,
				};
			}
			const waiting = waiters;
			waiters = [];
			for (const wake of waiting) wake();
		},
		pause(askedMs) {
			const now = Date.now();
			// The first 429 of a pause sets the pace; the others of the same burst only join the pause.
			if (now >= resumeAt) {
				spacingMs =
					spacingMs === 0
						? Math.ceil((askedMs / Math.max(1, acceptedSincePause)) * 1.05)
						: Math.ceil(spacingMs * 1.1);
				acceptedSincePause = 0;
			}
			resumeAt = Math.max(resumeAt, now + askedMs);
		},
		stop,
	};
}
