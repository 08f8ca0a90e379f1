/**
 * The Low Funds event through n8n-core's PollContext (PollHarness) against the simulator: one
 * GET /v1/funds per poll, one event per drop below the limits, re-armed on recovery, the state
 * kept as it was when a poll fails, and Fetch Test Event returning an item shaped like the event.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, PollHarness } from '../harness';
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';

const DAY = 86_400_000;
const START = Date.parse('2026-03-01T18:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 5, proxies: 0, frozenClock: true, now: START, balance: 100, member: true });
});
afterEach(async () => await sim.stop());

function trigger(parameters: INodeParameters, staticData: IDataObject = {}): PollHarness {
	return new PollHarness(harness, { type: 'proxyAccountTrigger', parameters }, { baseUrl: sim.url, apiKey: sim.demoApiKey }, staticData);
}

async function poll(t: PollHarness, kind: 'activate' | 'manual' = 'activate'): Promise<IDataObject[] | null> {
	const result = await t.poll(kind);
	return result === null ? null : result[0].map((item) => item.json);
}

/** The trigger's own state in the workflow's static data. */
const stateOf = (t: PollHarness) => (t.staticData['node:Trigger Under Test'] ?? {}) as IDataObject;
const setBalance = (amount: number) => (sim.account().balance = amount);
const lowFunds = (extra: INodeParameters = {}): INodeParameters => ({ event: 'lowFunds', fundsThreshold: 50, ...extra });

describe('Low Funds', () => {
	it('emits once when the balance drops below the threshold, then re-arms on recovery', async () => {
		const t = trigger(lowFunds());
		sim.resetLogs();
		expect(await poll(t)).toBeNull(); // 100: baseline, not low
		setBalance(49.5);
		const items = await poll(t);
		expect(items).toHaveLength(1);
		expect(items![0]).toMatchObject({ event: 'low_funds', funds: 49.5, threshold: 50, reasons: ['threshold'], shortfall: 0.5 });
		expect(stateOf(t)).toMatchObject({ v: 3, event: 'lowFunds', below: true });
		setBalance(10);
		expect(await poll(t)).toBeNull(); // still low: no second event
		setBalance(50);
		expect(await poll(t)).toBeNull(); // recovered: re-armed
		expect(stateOf(t)).toMatchObject({ v: 3, event: 'lowFunds', below: false });
		setBalance(20);
		expect(await poll(t)).toHaveLength(1);
		// One request per poll, each a GET /v1/funds.
		expect(sim.requests.map((r) => r.route)).toEqual(Array(5).fill('GET /v1/funds'));
	});

	it('the first poll emits when the balance is already low', async () => {
		setBalance(5);
		const t = trigger(lowFunds());
		expect(await poll(t)).toHaveLength(1);
		expect(await poll(t)).toBeNull();
	});

	it('Below Upcoming Renewals compares with the renewals due in the next 7 days', async () => {
		const t = trigger(lowFunds({ fundsThreshold: 0, belowUpcomingRenewals: true }));
		expect(await poll(t)).toBeNull();
		// A monthly auto-renew proxy due in 2 days: member price 229 > the balance of 100.
		sim.addProxy(null, { proxy_name: 'RENEW-1', isp: 'AT&T', period: 'monthly', auto_renew: true, auto_renew_interval: 1, expires_at: formatTimestamp(START + 2 * DAY, sim.utcOffsetMinutes) });
		const items = await poll(t);
		expect(items).toHaveLength(1);
		expect(items![0]).toMatchObject({ funds: 100, threshold: null, renewal_required: 229, reasons: ['upcoming_renewals'], shortfall: 129 });
		// Turning auto-renew off for it clears the need: re-armed.
		sim.account().proxies.get('RENEW-1')!.auto_renew = false;
		expect(await poll(t)).toBeNull();
		expect(stateOf(t).below).toBe(false);
	});

	it('a failed poll throws and leaves the state; the next good poll emits the pending event', async () => {
		const t = trigger(lowFunds());
		await poll(t);
		const before = t.staticData;
		setBalance(1);
		sim.injectFault({ route: 'GET /v1/funds', kind: 'status', status: 500 });
		await expect(t.poll()).rejects.toBeInstanceOf(NodeApiError);
		expect(t.staticData).toEqual(before);
		expect(await poll(t)).toHaveLength(1);
	});

	it('a restart from the last emitting poll\u2019s state never repeats the event', async () => {
		setBalance(5);
		const t = trigger(lowFunds());
		expect(await poll(t)).toHaveLength(1);
		t.restart();
		expect(await poll(t)).toBeNull();
	});

	it('Fetch Test Event returns the event as it looks now, marked sample, and changes no state', async () => {
		const t = trigger(lowFunds());
		const items = await poll(t, 'manual');
		expect(items).toHaveLength(1);
		expect(Object.keys(items![0]).sort()).toEqual(
			['checked_at', 'event', 'funds', 'low', 'reasons', 'renewal_required', 'renewing_count', 'sample', 'sample_note', 'shortfall', 'threshold', 'total_required'].sort(),
		);
		// Not low now, and it says so (a real event is always low: true).
		expect(items![0]).toMatchObject({ event: 'low_funds', funds: 100, sample: true, low: false, reasons: [] });
		expect(stateOf(t)).toEqual({});
	});

	it.each([
		[{ fundsThreshold: 0, belowUpcomingRenewals: false }, /Threshold.*can never be low/],
		[{ fundsThreshold: -1 }, /Threshold.*0 or more/],
		[{ fundsThreshold: '={{ "lots" }}' }, /Threshold.*0 or more/],
	] as Array<[INodeParameters, RegExp]>)('refuses %j before any request', async (extra, message) => {
		sim.resetLogs();
		const t = trigger(lowFunds(extra));
		await expect(t.poll()).rejects.toThrow(message);
		expect(sim.requests).toHaveLength(0);
	});
});
