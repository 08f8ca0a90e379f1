/**
 * The service's clock as the trigger takes it (trigger/clock.ts, pure): a reply's `Date` is taken
 * when its offset to this machine's clock agrees with the accepted one (within CLOCK_SLACK_MS);
 * one reply ahead is dated by the accepted offset until a second reply confirms it; a reply behind
 * is taken as it is; an undated reply is dated by this machine and the accepted offset.
 */
import { CLOCK_SLACK_MS, serviceNow } from '../../nodes/ProxyAccount/trigger/clock';

const HOUR = 3_600_000;
const LOCAL = 1_700_000_000_000;
const OFFSET = -5 * HOUR; // the service's clock against this machine's

describe('serviceNow', () => {
	it('the first reply is taken as it is; without a Date, this machine\'s clock', () => {
		expect(serviceNow(undefined, LOCAL + OFFSET, LOCAL)).toEqual({ now: LOCAL + OFFSET, clock: [OFFSET, null] });
		expect(serviceNow(undefined, undefined, LOCAL)).toEqual({ now: LOCAL, clock: [0, null] });
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

	it('a reply behind is taken as it is (it can only delay an event); an undated one uses the accepted offset', () => {
		expect(serviceNow([OFFSET, null], LOCAL + OFFSET - 2 * HOUR, LOCAL).now).toBe(LOCAL + OFFSET - 2 * HOUR);
		expect(serviceNow([OFFSET, 7], undefined, LOCAL)).toEqual({ now: LOCAL + OFFSET, clock: [OFFSET, 7] });
	});
});
