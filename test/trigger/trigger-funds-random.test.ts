/**
 * Randomized test of the Low Funds event: over seeded rounds of random balance changes, auto-renew
 * proxies coming due, clock advances, injected faults, "Fetch Test Event" runs and restarts, the
 * trigger's events must equal those of a reference model written from the definition: the funds
 * are low when the balance is below the threshold or (option) below the renewals due; an event is
 * sent at a successful poll where they are low and were not low at the previous successful poll
 * (or there was none). A failed poll changes nothing. With n8n 2.x restarts (back to the static
 * data saved at the last emitting poll) a drop can be missed, never reported twice.
 */
import type { IDataObject } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, PollHarness } from '../harness';
import { prng } from '../harness/prng';
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';
import type { FaultSpec } from '../simulator';

const DAY = 86_400_000;
const START = Date.parse('2026-06-01T00:00:00.000Z');
const harness = createHarness([new ProxyAccountTrigger()]);

const FAULTS: FaultSpec[] = [
	{ route: 'GET /v1/funds', kind: 'status', status: 500 },
	{ route: 'GET /v1/funds', kind: 'okFalse', status: 200, message: 'Unexpected error' },
	{ route: 'GET /v1/funds', kind: 'malformed' },
	{ route: 'GET /v1/funds', kind: 'drift', remove: ['data.upcoming'] },
];

async function pollOnce(t: PollHarness, kind: 'activate' | 'manual' = 'activate') {
	try {
		const output = await t.poll(kind);
		return { items: output === null ? [] : output[0].map((item) => item.json), failed: false };
	} catch {
		return { items: [] as IDataObject[], failed: true };
	}
}

describe.each([
	['threshold 50', { fundsThreshold: 50 }, 0x10f],
	['upcoming renewals', { fundsThreshold: 0, belowUpcomingRenewals: true }, 0x20f],
	['both', { fundsThreshold: 80, belowUpcomingRenewals: true }, 0x30f],
] as Array<[string, IDataObject, number]>)('Low Funds, randomized (%s)', (_label, parameters, seed) => {
	it('n8n 1.x restarts: the events equal the reference model', async () => {
		const sim = await ProxyAccountSimulator.start({ seed: 4, proxies: 0, frozenClock: true, now: START, balance: 100, member: true });
		try {
			const rng = prng(seed);
			const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'lowFunds', ...parameters } }, { baseUrl: sim.url, apiKey: sim.demoApiKey });
			const threshold = Number(parameters.fundsThreshold);
			let modelBelow: boolean | null = null;
			let events = 0;
			for (let round = 0; round < 150; round++) {
				// The world changes.
				if (rng.chance(0.6)) sim.account().balance = rng.int(0, 16_000) / 100;
				if (rng.chance(0.15)) {
					sim.addProxy(null, {
						isp: 'AT&T',
						period: rng.pick(['daily', 'weekly'] as const),
						auto_renew: rng.chance(0.7),
						auto_renew_interval: rng.int(1, 2),
						expires_at: formatTimestamp(sim.clock.now() + rng.int(1, 10) * DAY, sim.utcOffsetMinutes),
					});
				}
				if (rng.chance(0.2)) sim.clock.advance(rng.int(1, 3) * DAY);
				if (rng.chance(0.1)) t.restart();
				if (rng.chance(0.1)) {
					const sample = await pollOnce(t, 'manual');
					expect(sample.failed).toBe(false);
					expect(sample.items).toHaveLength(1);
					expect(sample.items[0]).toMatchObject({ event: 'low_funds', sample: true });
				}
				// What the model expects, from the service's own answer (read by the test, not the node).
				const funds = sim.account().balance;
				const renewal = (await fundsNow(sim)).renewal_required;
				const below =
					(threshold > 0 && Math.round(funds * 100) < Math.round(threshold * 100)) ||
					(parameters.belowUpcomingRenewals === true && Math.round(funds * 100) < Math.round(renewal * 100));
				const faulted = rng.chance(0.15);
				if (faulted) sim.injectFault(rng.pick(FAULTS));
				const { items, failed } = await pollOnce(t);
				sim.clearFaults();
				expect(failed).toBe(faulted);
				if (failed) {
					expect(items).toEqual([]);
					continue;
				}
				const expected = below && modelBelow !== true ? 1 : 0;
				expect(items).toHaveLength(expected);
				if (expected) expect(items[0]).toMatchObject({ event: 'low_funds', funds });
				events += expected;
				modelBelow = below;
			}
			expect(events).toBeGreaterThan(2); // the run did exercise drops
		} finally {
			await sim.stop();
		}
	});

	it('n8n 2.x restarts: a drop may be missed, never reported twice', async () => {
		const sim = await ProxyAccountSimulator.start({ seed: 4, proxies: 0, frozenClock: true, now: START, balance: 100, member: true });
		try {
			const rng = prng(seed + 1);
			// An auto-renew weekly proxy due in 3 days: 89 of renewals (member price), never expiring here.
			sim.addProxy(null, { isp: 'AT&T', period: 'weekly', auto_renew: true, auto_renew_interval: 1, expires_at: formatTimestamp(START + 3 * DAY, sim.utcOffsetMinutes) });
			const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: { event: 'lowFunds', ...parameters } }, { baseUrl: sim.url, apiKey: sim.demoApiKey });
			let saved: IDataObject = {};
			let notLowSinceLastEvent = true;
			let emitted = 0;
			for (let round = 0; round < 150; round++) {
				if (rng.chance(0.6)) sim.account().balance = rng.int(0, 16_000) / 100;
				if (rng.chance(0.15)) t.restartFrom(saved);
				const { items, failed } = await pollOnce(t);
				expect(failed).toBe(false);
				if (items.length > 0) {
					expect(notLowSinceLastEvent).toBe(true);
					notLowSinceLastEvent = false;
					emitted++;
					saved = t.staticData; // n8n 2.x saves static data only when a poll emits
				}
				const renewal = (await fundsNow(sim)).renewal_required;
				const balance = sim.account().balance;
				const threshold = Number(parameters.fundsThreshold);
				const low =
					(threshold > 0 && balance < threshold) || (parameters.belowUpcomingRenewals === true && balance < renewal);
				if (!low) notLowSinceLastEvent = true;
			}
			expect(emitted).toBeGreaterThan(2);
		} finally {
			await sim.stop();
		}
	});
});

/** The service's upcoming totals, read by the test over HTTP. */
async function fundsNow(sim: ProxyAccountSimulator): Promise<{ renewal_required: number }> {
	const response = await fetch(`${sim.url}/v1/funds`, { headers: { Authorization: `Bearer ${sim.demoApiKey}` } });
	const body = (await response.json()) as { data: { upcoming: { total: { renewal_required: number } } } };
	return body.data.upcoming.total.renewal_required === undefined ? { renewal_required: 0 } : body.data.upcoming.total;
}
