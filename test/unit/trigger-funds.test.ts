/**
 * Low Funds detection (no engine): low against a threshold and/or the upcoming renewals, one event
 * per drop, none while it stays low, re-armed once the balance recovers; the first poll emits when
 * already low.
 */
import { detectLowFunds, lowFundsItem, lowReasons } from '../../nodes/ProxyAccount/trigger/events/lowFunds.event';
import type { LowFundsParams, LowFundsState } from '../../nodes/ProxyAccount/trigger/events/lowFunds.event';
import type { FundsData } from '../../nodes/ProxyAccount/transport';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');

function funds(balance: number, renewalRequired = 0): FundsData {
	return {
		funds: balance,
		upcoming: {
			renewing: { count: renewalRequired > 0 ? 2 : 0, amount: renewalRequired },
			expiring: { count: 1, amount: 17 },
			total: { renewal_required: renewalRequired, total_required: renewalRequired + 17, total_commitment: 500 },
		},
	};
}

const threshold = (amount: number): LowFundsParams => ({ event: 'lowFunds', threshold: amount, belowUpcomingRenewals: false });
const renewals: LowFundsParams = { event: 'lowFunds', belowUpcomingRenewals: true };
const both = (amount: number): LowFundsParams => ({ event: 'lowFunds', threshold: amount, belowUpcomingRenewals: true });
const state = (below: boolean): LowFundsState => ({ v: 3, event: 'lowFunds', below });

describe('lowReasons', () => {
	it.each([
		[threshold(50), funds(49.99), ['threshold']],
		[threshold(50), funds(50), []],
		[threshold(50), funds(0.1 + 0.2 + 49.7), []], // 50.000000000000004: compared in cents
		[renewals, funds(100, 100.01), ['upcoming_renewals']],
		[renewals, funds(100, 100), []],
		[renewals, funds(0, 0), []],
		[both(50), funds(40, 45), ['threshold', 'upcoming_renewals']],
		[both(50), funds(60, 70), ['upcoming_renewals']],
		[both(50), funds(60, 10), []],
	] as Array<[LowFundsParams, FundsData, string[]]>)('%j with %j', (params, data, expected) => {
		expect(lowReasons(data, params)).toEqual(expected);
	});
});

describe('detectLowFunds', () => {
	it('emits once per drop, stays quiet while low, re-arms when the balance recovers', () => {
		const params = threshold(50);
		const balances = [80, 60, 45, 30, 49.99, 50, 55, 20, 20, 100];
		let previous: LowFundsState | null = state(false);
		const emitted: number[] = [];
		for (const balance of balances) {
			const { events, nextState } = detectLowFunds(previous, { funds: funds(balance), now: NOW }, params);
			if (events.length > 0) emitted.push(balance);
			expect(events.length).toBeLessThanOrEqual(1);
			previous = nextState;
		}
		expect(emitted).toEqual([45, 20]);
		expect(previous).toEqual(state(false));
	});

	it('the first poll (no state) emits when already low, and records the baseline otherwise', () => {
		expect(detectLowFunds(null, { funds: funds(10), now: NOW }, threshold(50)).events).toHaveLength(1);
		const calm = detectLowFunds(null, { funds: funds(90), now: NOW }, threshold(50));
		expect(calm.events).toEqual([]);
		expect(calm.nextState).toEqual(state(false));
	});

	it('a stored "below" suppresses the event; the next state says below', () => {
		const result = detectLowFunds(state(true), { funds: funds(10), now: NOW }, threshold(50));
		expect(result.events).toEqual([]);
		expect(result.nextState).toEqual(state(true));
	});

	it('renewals rising above the balance is a drop too', () => {
		const first = detectLowFunds(state(false), { funds: funds(200, 150), now: NOW }, renewals);
		expect(first.events).toEqual([]);
		const second = detectLowFunds(first.nextState, { funds: funds(200, 229), now: NOW }, renewals);
		expect(second.events).toHaveLength(1);
		expect(second.events[0]).toMatchObject({ reasons: ['upcoming_renewals'], shortfall: 29, renewal_required: 229 });
	});

	it('does not change its inputs', () => {
		const previous = state(false);
		const data = funds(10);
		const before = JSON.stringify([previous, data]);
		detectLowFunds(previous, { funds: data, now: NOW }, both(50));
		expect(JSON.stringify([previous, data])).toBe(before);
	});
});

describe('lowFundsItem', () => {
	it('has the balance, the limits, why and by how much', () => {
		expect(lowFundsItem({ funds: funds(12.5, 40), now: NOW }, both(30))).toEqual({
			event: 'low_funds',
			low: true,
			funds: 12.5,
			threshold: 30,
			renewal_required: 40,
			total_required: 57,
			renewing_count: 2,
			reasons: ['threshold', 'upcoming_renewals'],
			shortfall: 27.5,
			checked_at: '2026-11-21T12:00:00.000Z',
		});
	});

	it('threshold null without one; shortfall 0 when not low', () => {
		const item = lowFundsItem({ funds: funds(500, 40), now: NOW }, renewals);
		expect(item.threshold).toBeNull();
		expect(item.shortfall).toBe(0);
		expect(item.reasons).toEqual([]);
	});
});
