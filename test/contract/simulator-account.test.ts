/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Contract tests of the simulator's funds and auto-renew endpoints over real loopback HTTP:
 * GET /v1/funds (the wallet and what is coming up in the next 7 days by the sim clock) and
 * PATCH /v1/proxies/allocate/renew (many proxies' auto-renew settings in one request).
 */
import { formatTimestamp, ProxyAccountSimulator } from '../simulator';
import { simClient } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';
const DAY = 86_400_000;

describe('Proxy Account simulator (funds and auto-renew)', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;
	const key = 'pa_live_funds000000000000000000000000';

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 7, now: NOW, frozenClock: true, proxies: 0 });
		api = simClient(sim.url, key);
	});

	afterAll(async () => {
		await sim.stop();
	});

	function at(ms: number): string {
		return formatTimestamp(sim.clock.now() + ms, sim.utcOffsetMinutes);
	}

	describe('GET /v1/funds', () => {
		beforeAll(() => {
			sim.addAccount({ apiKey: key, balance: 123.45, member: true });
			// Member prices: monthly 229, weekly 89, daily 17.
			sim.addProxy(key, { proxy_name: 'R1', isp: 'AT&T', period: 'monthly', auto_renew: true, auto_renew_interval: 2, expires_at: at(2 * DAY) });
			sim.addProxy(key, { proxy_name: 'R2', isp: 'AT&T', period: 'weekly', auto_renew: true, auto_renew_interval: 1, expires_at: at(7 * DAY) });
			sim.addProxy(key, { proxy_name: 'E1', isp: 'AT&T', period: 'daily', auto_renew: false, auto_renew_interval: 3, expires_at: at(DAY) });
			// Outside the window: later than 7 days, or already expired.
			sim.addProxy(key, { proxy_name: 'L1', isp: 'AT&T', period: 'monthly', auto_renew: true, auto_renew_interval: 1, expires_at: at(8 * DAY) });
			sim.addProxy(key, { proxy_name: 'X1', isp: 'AT&T', period: 'monthly', auto_renew: false, auto_renew_interval: 1, expires_at: at(-DAY) });
		});

		it('answers the wallet and the upcoming renewals and expiries', async () => {
			const res = await api.call('GET', '/v1/funds');
			expect(res.status).toBe(200);
			expect(res.json).toEqual({
				ok: true,
				message: 'Funds retrieved',
				data: {
					funds: 123.45,
					upcoming: {
						renewing: { count: 2, amount: 2 * 229 + 89 },
						expiring: { count: 1, amount: 17 },
						total: { renewal_required: 547, total_required: 564, total_commitment: 2 * 229 + 89 + 229 },
					},
				},
			});
		});

		it('follows the sim clock and the balance control', async () => {
			sim.clock.advance(DAY + 1); // E1 has expired; L1 is now within 7 days
			const control = await api.call('POST', '/__sim/account', { key: null, body: { apiKey: key, balance: 10 } });
			expect(control.status).toBeLessThan(300);
			const res = await api.call('GET', '/v1/funds');
			expect(res.json.data.funds).toBe(10);
			expect(res.json.data.upcoming.renewing).toEqual({ count: 3, amount: 2 * 229 + 89 + 229 });
			expect(res.json.data.upcoming.expiring).toEqual({ count: 0, amount: 0 });
			sim.clock.advance(-(DAY + 1));
		});

		it('is an authenticated read (401 without a key)', async () => {
			const res = await api.call('GET', '/v1/funds', { key: null });
			expect(res.status).toBe(401);
		});
	});

	describe('PATCH /v1/proxies/allocate/renew', () => {
		const renew = (time: unknown) => api.call('PATCH', '/v1/proxies/allocate/renew', { body: { proxies: { time } } });

		it('applies and echoes the settings, visible in GET /v1/proxies', async () => {
			const res = await renew([
				{ proxy_name: 'R1', auto_renew: false, interval: 1 },
				{ proxy_name: 'E1', auto_renew: true, interval: 4 },
			]);
			expect(res.status).toBe(200);
			expect(res.json.ok).toBe(true);
			expect(res.json.data).toEqual({
				proxies: {
					time: [
						{ proxy_name: 'R1', auto_renew: false, interval: 1 },
						{ proxy_name: 'E1', auto_renew: true, interval: 4 },
					],
				},
			});
			const list = await api.call('GET', '/v1/proxies');
			const byName = new Map<string, { auto_renew: boolean; auto_renew_interval: number }>(
				list.json.data.map((p: { proxy_name: string; auto_renew: boolean; auto_renew_interval: number }) => [p.proxy_name, p]),
			);
			expect(byName.get('R1')).toMatchObject({ auto_renew: false, auto_renew_interval: 1 });
			expect(byName.get('E1')).toMatchObject({ auto_renew: true, auto_renew_interval: 4 });
			expect(sim.ledger).toHaveLength(0); // no charge
		});

		it.each([
			['an unknown proxy', [{ proxy_name: 'NOPE', auto_renew: true, interval: 1 }], 404, /Proxy not found: NOPE/],
			['a string boolean', [{ proxy_name: 'R2', auto_renew: 'true', interval: 1 }], 400, /auto_renew must be a boolean/],
			['interval 0', [{ proxy_name: 'R2', auto_renew: true, interval: 0 }], 400, /interval must be a positive integer/],
			['interval 1.5', [{ proxy_name: 'R2', auto_renew: true, interval: 1.5 }], 400, /interval must be a positive integer/],
			['an empty list', [], 400, /non-empty array/],
			['a missing name', [{ auto_renew: true, interval: 1 }], 400, /proxy_name/],
		])('refuses %s and changes nothing', async (_label, time, status, message) => {
			const before = JSON.stringify(Array.from(sim.account(key).proxies.values()));
			const res = await renew([{ proxy_name: 'R2', auto_renew: false, interval: 9 }, ...(time as unknown[])]);
			if ((time as unknown[]).length === 0) {
				// the prefix line makes it valid: send the empty list alone
				const empty = await renew([]);
				expect(empty.status).toBe(400);
				expect(empty.json.message).toMatch(message);
				sim.account(key).proxies.get('R2')!.auto_renew = true;
				sim.account(key).proxies.get('R2')!.auto_renew_interval = 1;
				return;
			}
			expect(res.status).toBe(status);
			expect(res.json).toMatchObject({ ok: false });
			expect(res.json.message).toMatch(message);
			expect(JSON.stringify(Array.from(sim.account(key).proxies.values()))).toBe(before);
		});

		it('applies, stores and echoes what differs from the request: an interval cap, a proxy whose auto-renew stays off', async () => {
			sim.renewals.maxAutoRenewInterval = 2;
			sim.renewals.autoRenewRefused.add('L1');
			try {
				const res = await renew([
					{ proxy_name: 'R2', auto_renew: true, interval: 5 },
					{ proxy_name: 'L1', auto_renew: true, interval: 1 },
					{ proxy_name: 'X1', auto_renew: false, interval: 2 },
				]);
				expect(res.status).toBe(200);
				expect(res.json.data.proxies.time).toEqual([
					{ proxy_name: 'R2', auto_renew: true, interval: 2 },
					{ proxy_name: 'L1', auto_renew: false, interval: 1 },
					{ proxy_name: 'X1', auto_renew: false, interval: 2 },
				]);
				expect(sim.account(key).proxies.get('R2')).toMatchObject({ auto_renew: true, auto_renew_interval: 2 });
				expect(sim.account(key).proxies.get('L1')).toMatchObject({ auto_renew: false, auto_renew_interval: 1 });
			} finally {
				sim.renewals.maxAutoRenewInterval = undefined;
				sim.renewals.autoRenewRefused.clear();
				Object.assign(sim.account(key).proxies.get('R2')!, { auto_renew: true, auto_renew_interval: 1 });
				Object.assign(sim.account(key).proxies.get('L1')!, { auto_renew: true, auto_renew_interval: 1 });
			}
		});

		it('refuses with ok:false and 200 in the ok-false-200 style', async () => {
			const other = await ProxyAccountSimulator.start({ seed: 7, now: NOW, frozenClock: true, proxies: 1, businessErrors: 'ok-false-200' });
			try {
				const client = simClient(other.url, other.demoApiKey);
				const res = await client.call('PATCH', '/v1/proxies/allocate/renew', {
					body: { proxies: { time: [{ proxy_name: 'NOPE', auto_renew: true, interval: 1 }] } },
				});
				expect(res.status).toBe(200);
				expect(res.json).toEqual({ ok: false, message: 'Proxy not found: NOPE' });
			} finally {
				await other.stop();
			}
		});
	});
});
