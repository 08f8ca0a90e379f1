/* eslint-disable @n8n/community-nodes/no-restricted-imports -- the simulator's clock, run by Node under jest and ts-node (node:async_hooks); never shipped */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { Period, SimClock } from './types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** How far one period moves an expiry. */
export const PERIOD_MS: Readonly<Record<Period, number>> = {
	hourly: HOUR,
	daily: DAY,
	weekly: 7 * DAY,
	monthly: 30 * DAY,
	yearly: 365 * DAY,
};

function pad2(n: number): string {
	return n < 10 ? `0${n}` : String(n);
}

/**
 * Formats an instant the way the service does: ISO 8601 with milliseconds and a numeric UTC offset,
 * never 'Z'. formatTimestamp(0, -360) === '1969-12-31T18:00:00.000-06:00'.
 */
export function formatTimestamp(ms: number, offsetMinutes = -360): string {
	const offset = Math.trunc(offsetMinutes);
	const local = new Date(ms + offset * 60_000).toISOString(); // 'YYYY-MM-DDTHH:mm:ss.sssZ'
	const sign = offset < 0 ? '-' : '+';
	const abs = Math.abs(offset);
	return `${local.slice(0, -1)}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

const TIMESTAMP_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Parses an ISO 8601 timestamp (with offset or 'Z') to epoch ms; NaN when it is not one. */
export function parseTimestamp(value: unknown): number {
	if (typeof value !== 'string' || !TIMESTAMP_RE.test(value)) return Number.NaN;
	return Date.parse(value);
}

/** Converts a clock option (ms or ISO string) to epoch ms. */
export function toEpochMs(value: number | string | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) throw new Error(`Invalid clock value: ${value}`);
		return value;
	}
	const parsed = Date.parse(value);
	if (Number.isNaN(parsed)) throw new Error(`Invalid clock value: ${value}`);
	return parsed;
}

/**
 * This process's clock (`Date.now`) as a trigger polling a simulator reads it: the simulator's own
 * clock (a frozen one, plus the real time that passed since it started), as on a machine whose clock
 * agrees with the service's. The trigger checks one clock against the other (a first reply dated far
 * from this machine's clock is not believed; a later one dated far ahead of the time that passed is
 * not trusted). Only inside `withClockOf` (PollHarness polls run in it), in the asynchronous context
 * of that poll: other code, and polls of other simulators running at the same time, read their own.
 * Installed for jest by test/setup/env.ts.
 */
const pollClock = new AsyncLocalStorage<SimulatorClock>();
const clocksByUrl = new Map<string, SimulatorClock>();
let followed = false;
/** The real clock, whatever `followSimulatorClocks` did to `Date.now`. */
const realNow = Date.now.bind(Date);

export function followSimulatorClocks(): void {
	if (followed) return;
	followed = true;
	Date.now = () => pollClock.getStore()?.machineNow() ?? realNow();
}

/** The clock of the simulator listening at `url` (set by ProxyAccountSimulator; null to forget it). */
export function registerClock(url: string, clock: SimulatorClock | null): void {
	if (clock) clocksByUrl.set(url, clock);
	else clocksByUrl.delete(url);
}

/** Runs `body` with `Date.now` moved along with the frozen clock of the simulator at `baseUrl`. */
export async function withClockOf<T>(baseUrl: string, body: () => Promise<T>): Promise<T> {
	const clock = [...clocksByUrl].find(([url]) => baseUrl.startsWith(url))?.[1];
	return clock ? await pollClock.run(clock, body) : await body();
}

/**
 * The simulator clock. Running: start + real elapsed time + advances. Frozen: moves only by
 * advance()/set().
 */
export class SimulatorClock implements SimClock {
	private base: number;
	private realStart: number;
	private offset = 0;

	/** For a frozen clock, what `Date.now` adds to the real time in its polls (see `machineNow`). */
	localShift: number;

	constructor(
		start: number,
		private readonly frozen: boolean,
	) {
		this.base = start;
		this.realStart = realNow();
		this.localShift = start - this.realStart;
	}

	now(): number {
		if (this.frozen) return this.base + this.offset;
		return this.base + (realNow() - this.realStart) + this.offset;
	}

	/** This machine's clock in a poll: a running clock's now; a frozen one's plus the real time since it started. */
	machineNow(): number {
		return this.frozen ? realNow() + this.localShift : this.now();
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error(`Invalid clock advance: ${ms}`);
		if (this.frozen) this.localShift += ms;
		this.offset += ms;
	}

	set(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error(`Invalid clock value: ${ms}`);
		if (this.frozen) this.localShift += ms - this.now();
		this.base = ms;
		this.realStart = realNow();
		this.offset = 0;
	}

	get isFrozen(): boolean {
		return this.frozen;
	}
}
