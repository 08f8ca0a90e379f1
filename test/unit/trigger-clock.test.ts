/**
 * The service's clock as the trigger takes it (trigger/clock.ts, pure): a reply's `Date` is taken
 * when its offset to this machine's clock agrees with the accepted one (within CLOCK_SLACK_MS);
 * one reply ahead or behind is dated by the accepted offset until a second reply confirms it; the
 * first reply is checked against this machine's clock (beyond the slack, this machine's clock dates
 * it); an undated reply is dated by this machine and the accepted offset.
 */
import { CLOCK_SLACK_MS, serviceNow } from '../../nodes/ProxyAccount/trigger/clock';

const HOUR = 3_600_000;
const LOCAL = 1_700_000_000_000;
const OFFSET = -5 * HOUR; // the service's clock against this machine's

describe('serviceNow', () => {
	it('the first reply is taken within the slack of this machine\'s clock; without a Date, this machine\'s clock', () => {
		const near = CLOCK_SLACK_MS - 1;
		expect(serviceNow(undefined, LOCAL + near, LOCAL)).toEqual({ now: LOCAL + near, clock: [near, null] });
		expect(serviceNow(undefined, LOCAL - near, LOCAL)).toEqual({ now: LOCAL - near, clock: [-near, null] });
		expect(serviceNow(undefined, undefined, LOCAL)).toEqual({ now: LOCAL, clock: [0, null] });
	});

	it('a first reply a day ahead (or behind) is dated by this machine\'s clock; a second one in a row confirms it', () => {
		for (const off of [24 * HOUR, -24 * HOUR, OFFSET]) {
			const first = serviceNow(undefined, LOCAL + off, LOCAL);
			expect(first).toEqual({ now: LOCAL, clock: [0, off] });
			const later = LOCAL + 5 * 60_000;
			// The next reply agrees with this machine: the first was wrong.
			expect(serviceNow(first.clock, later, later)).toEqual({ now: later, clock: [0, null] });
			// The next reply keeps the same gap: the service's clock is confirmed.
			expect(serviceNow(first.clock, later + off, later)).toEqual({ now: later + off, clock: [off, null] });
		}
	});

	it('replies that agree are taken; the offset follows a drift within the slack', () => {
		const later = LOCAL + 5 * 60_000;
		expect(serviceNow([OFFSET, null], later + OFFSET + 500, later)).toEqual({ now: later + OFFSET + 500, clock: [OFFSET, null] });
		const drift = OFFSET + CLOCK_SLACK_MS;
		expect(serviceNow([OFFSET, null], later + drift, later)).toEqual({ now: later + drift, clock: [drift, null] });
	});

	it('one reply a day ahead is dated by the accepted offset; a second one confirms the new clock', () => {
		const at = LOCAL + 5 * 60_000;
		const ahead = serviceNow([OFFSET, null], at + OFFSET + 24 * HOUR, at);
		expect(ahead).toEqual({ now: at + OFFSET, clock: [OFFSET, OFFSET + 24 * HOUR] });
		const back = serviceNow(ahead.clock, at + 60_000 + OFFSET, at + 60_000);
		expect(back).toEqual({ now: at + 60_000 + OFFSET, clock: [OFFSET, null] });
		const confirmed = serviceNow(ahead.clock, at + 60_000 + OFFSET + 24 * HOUR, at + 60_000);
		expect(confirmed).toEqual({ now: at + 60_000 + OFFSET + 24 * HOUR, clock: [OFFSET + 24 * HOUR, null] });
	});

	it('a reply behind is dated by the accepted offset until confirmed, like one ahead; an undated one uses the accepted offset', () => {
		const behind = serviceNow([OFFSET, null], LOCAL + OFFSET - 24 * HOUR, LOCAL);
		expect(behind).toEqual({ now: LOCAL + OFFSET, clock: [OFFSET, OFFSET - 24 * HOUR] });
		expect(serviceNow(behind.clock, LOCAL + 1000 + OFFSET - 24 * HOUR, LOCAL + 1000).now).toBe(LOCAL + 1000 + OFFSET - 24 * HOUR);
		expect(serviceNow([OFFSET, 7], undefined, LOCAL)).toEqual({ now: LOCAL + OFFSET, clock: [OFFSET, 7] });
	});
});
