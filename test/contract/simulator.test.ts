/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Contract tests of the Proxy Account simulator over real loopback HTTP: authentication, stock,
 * proxies, quotes, allocation, business errors, the clock, rate limits and the logs.
 */
import {
	cityCode,
	parseTimestamp,
	PERIOD_MS,
	PROXY_EXTRA_FIELDS,
	PROXY_FIELDS,
	ProxyAccountSimulator,
} from '../simulator';
import type { Period } from '../simulator';
import { simClient, sleep, TIMESTAMP_RE } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const NOW = '2026-11-21T11:17:34.123Z';
const DAY = 86_400_000;
const DOCUMENTED_STOCK_FIELDS = ['city', 'state', 'status', 'open', 'visible'];
const ITEM_KEY_RE = /^[A-Z]{2}-[A-Z]{2}-[0-9A-F]{8}$/;

function cents(amount: number): number {
	return Math.round(amount * 100);
}

function sum(values: number[]): number {
	return values.reduce((a, b) => a + cents(b), 0) / 100;
}

describe('Proxy Account simulator (core contract)', () => {
	let sim: ProxyAccountSimulator;
	let api: SimClient;

	beforeAll(async () => {
		sim = await ProxyAccountSimulator.start({ seed: 42, now: NOW, frozenClock: true, proxies: 24 });
		api = simClient(sim.url, sim.demoApiKey);
	});

	afterAll(async () => {
		await sim.stop();
	});

	/** Balance, ledger size and every expiry: what a rejected request must leave alone. */
	function snapshot() {
		const account = sim.account();
		return {
			balance: account.balance,
			ledger: sim.ledger.length,
			expiries: Array.from(account.proxies.values()).map((p) => `${p.proxy_name}=${p.expires_at}`),
		};
	}

	describe('authentication (the gateway)', () => {
		it.each([
			['no Authorization header', null],
			['an unknown key', 'pa_live_0123456789abcdef0123456789abcdef'],
			['a malformed header value', 'not a bearer'],
		])('refuses %s with 401 problem+json and no ok field', async (_label, key) => {
			const headers = key === 'not a bearer' ? { Authorization: 'Basic dXNlcjpwYXNz' } : undefined;
			const res = await api.call('GET', '/v1/proxies', { key: key === 'not a bearer' ? null : key, headers });
			expect(res.status).toBe(401);
			expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
			expect(res.json).toEqual({
				type: expect.any(String),
				title: 'Unauthorized',
				status: 401,
				detail: expect.any(String),
				instance: '/v1/proxies',
			});
			expect(res.json).not.toHaveProperty('ok');
			if (key) expect(res.text).not.toContain(key);
		});

		it('answers 200 with the demo key on every endpoint', async () => {
			const name = sim.account().proxies.keys().next().value as string;
			const results = await Promise.all([
				api.call('GET', '/v1/stock'),
				api.call('GET', '/v1/proxies'),
				api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`),
				api.call('POST', '/v1/price', { body: { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] } }),
			]);
			for (const res of results) {
				expect(res.status).toBe(200);
				expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
				expect(res.json.ok).toBe(true);
			}
		});

		it('sends a Date header from the simulator clock', async () => {
			const before = await api.call('GET', '/v1/stock');
			expect(before.headers.date).toBe(new Date(sim.clock.now()).toUTCString());
			expect(before.headers.date).toBe('Sat, 21 Nov 2026 11:17:34 GMT');
			sim.clock.advance(3 * DAY);
			try {
				const after = await api.call('GET', '/v1/stock');
				expect(after.headers.date).toBe('Tue, 24 Nov 2026 11:17:34 GMT');
			} finally {
				sim.clock.advance(-3 * DAY);
			}
		});
	});

	describe('GET /v1/stock', () => {
		it('lists cities with carriers as integer fields and status derived from counts and open', async () => {
			const res = await api.call('GET', '/v1/stock');
			expect(res.status).toBe(200);
			expect(res.json.ok).toBe(true);
			expect(res.json.message).toBe('Stock retrieved');
			const data = res.json.data as Array<Record<string, unknown>>;
			expect(data).toHaveLength(8);
			const statuses = new Set<string>();
			for (const entry of data) {
				const carrierFields = Object.keys(entry).filter(
					(k) => !DOCUMENTED_STOCK_FIELDS.includes(k) && Number.isInteger(entry[k]),
				);
				expect(carrierFields).toEqual(['att', 'verizon', 'tmobile']);
				expect(Object.keys(entry)).toEqual(['city', 'state', ...carrierFields, 'status', 'open', 'visible']);
				expect(entry.state).toMatch(/^[A-Z]{2}$/);
				expect(typeof entry.open).toBe('boolean');
				expect(typeof entry.visible).toBe('boolean');
				const anyStock = carrierFields.some((k) => (entry[k] as number) > 0);
				const expected = !entry.open ? 'coming' : anyStock ? 'available' : 'out';
				expect(entry.status).toBe(expected);
				statuses.add(entry.status as string);
			}
			expect(statuses).toEqual(new Set(['available', 'out', 'coming']));
			const byCity = new Map(data.map((e) => [e.city, e]));
			expect(byCity.get('Austin')).toMatchObject({ state: 'TX', status: 'available' });
			expect(byCity.get('Cleveland')).toMatchObject({ state: 'OH', status: 'available' });
			expect(byCity.get('New York')).toMatchObject({ state: 'NY', status: 'available' });
			expect(new Set(data.map((e) => e.city)).size).toBe(data.length);
		});

		it('reflects live stock changes in the next response', async () => {
			const out = sim.stock.find((c) => c.open && Object.values(c.counts).every((n) => n === 0));
			expect(out).toBeDefined();
			const city = out!.city;
			sim.setStockCount(city, 'verizon', 3);
			let entry = (await api.call('GET', '/v1/stock')).json.data.find((e: { city: string }) => e.city === city);
			expect(entry).toMatchObject({ verizon: 3, status: 'available' });
			sim.setCityOpen(city, false);
			entry = (await api.call('GET', '/v1/stock')).json.data.find((e: { city: string }) => e.city === city);
			expect(entry).toMatchObject({ verizon: 3, open: false, status: 'coming' });
			sim.setCityOpen(city, true);
			sim.setStockCount(city, 'verizon', 0);
			entry = (await api.call('GET', '/v1/stock')).json.data.find((e: { city: string }) => e.city === city);
			expect(entry).toMatchObject({ verizon: 0, open: true, status: 'out' });
		});
	});

	describe('GET /v1/proxies and GET /v1/proxies/{name}', () => {
		it('returns records with the 25 documented fields in order, then the extra fields', async () => {
			const res = await api.call('GET', '/v1/proxies');
			expect(res.status).toBe(200);
			expect(Object.keys(res.json)).toEqual(['ok', 'data']);
			const data = res.json.data as Array<Record<string, unknown>>;
			expect(data).toHaveLength(24);
			const cities = new Map(sim.stock.map((c) => [c.city, c.state]));
			const carriers = sim.carriers.map((c) => c.name);
			for (const p of data) {
				expect(Object.keys(p)).toEqual([...PROXY_FIELDS, ...PROXY_EXTRA_FIELDS]);
				expect(p.proxy_name).toMatch(/^PRX-US-[A-Z]{2}\d-\d{4}$/);
				expect((p.proxy_name as string).slice(7, 9)).toBe(cityCode(p.city as string));
				expect(p.nickname === null || typeof p.nickname === 'string').toBe(true);
				expect(carriers).toContain(p.isp);
				expect(['hourly', 'daily', 'weekly', 'monthly', 'yearly']).toContain(p.period);
				expect(typeof p.auto_renew).toBe('boolean');
				expect(Number.isInteger(p.auto_renew_interval)).toBe(true);
				for (const field of ['added_at', 'expires_at', 'last_ip_change', 'last_reboot']) {
					expect(p[field]).toMatch(TIMESTAMP_RE);
					expect(p[field]).toMatch(/-06:00$/);
				}
				expect(['online', 'offline', 'rebooting']).toContain(p.network_status);
				expect(p.server_ip).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
				expect(Number.isInteger(p.h_port) && Number.isInteger(p.s_port)).toBe(true);
				expect(p.h_port).not.toBe(p.s_port);
				expect(p.auth_method).toBe('basic');
				expect(typeof p.username).toBe('string');
				expect((p.password as string).length).toBeGreaterThanOrEqual(12);
				if (p.whitelist !== null) {
					expect(Array.isArray(p.whitelist)).toBe(true);
					for (const ip of p.whitelist as string[]) expect(ip).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
				}
				expect(typeof p.auto_change).toBe('boolean');
				if (p.auto_change) expect(p.auto_change_time).toBeGreaterThan(0);
				else expect(p.auto_change_time).toBe(0);
				expect(Number.isInteger(p.traffic)).toBe(true);
				expect(Number.isInteger(p.h_threads) && Number.isInteger(p.s_threads)).toBe(true);
				expect(cities.get(p.city as string)).toBe(p.state);
				expect(p.country).toBe('US');
				if (p.next_ip_change !== null) expect(p.next_ip_change).toMatch(TIMESTAMP_RE);
			}
			// Expiry spread relative to the service's clock.
			const now = Date.parse(res.headers.date as string);
			const expiries = data.map((p) => parseTimestamp(p.expires_at) - now);
			expect(expiries.filter((d) => d < 0).length).toBeGreaterThanOrEqual(2);
			expect(expiries.filter((d) => d >= 0 && d < DAY).length).toBeGreaterThanOrEqual(4);
			expect(Math.max(...expiries)).toBeLessThanOrEqual(61 * DAY);
			expect(expiries.filter((d) => d > 7 * DAY).length).toBeGreaterThan(0);
		});

		it('returns one proxy by name, equal to its list record', async () => {
			const list = (await api.call('GET', '/v1/proxies')).json.data;
			const res = await api.call('GET', `/v1/proxies/${encodeURIComponent(list[3].proxy_name)}`);
			expect(res.status).toBe(200);
			expect(Object.keys(res.json)).toEqual(['ok', 'data']);
			expect(res.json.data).toEqual(list[3]);
		});

		it('answers an unknown name with the not-found business error', async () => {
			const res = await api.call('GET', '/v1/proxies/PRX-US-ZZ9-9999');
			expect(res.status).toBe(404);
			expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
			expect(res.json).toEqual({ ok: false, message: 'Proxy not found' });
		});

		it.each(['team/alpha', 'what?', 'room #5', 'with spaces', 'Zürich–東京 ✓', '100%', 'a+b&c=d'])(
			'finds the proxy named %j when the name is percent-encoded',
			async (name) => {
				sim.addProxy(undefined, { proxy_name: name, city: 'Austin' });
				try {
					const encoded = encodeURIComponent(name);
					const res = await api.call('GET', `/v1/proxies/${encoded}`);
					expect(res.status).toBe(200);
					expect(res.json.data.proxy_name).toBe(name);
					expect(res.json.data.state).toBe('TX');
					expect(sim.requests[sim.requests.length - 1].path).toBe(`/v1/proxies/${encoded}`);
				} finally {
					sim.account().proxies.delete(name);
				}
			},
		);
	});

	describe('POST /v1/price', () => {
		const quote = (proxies: unknown, key?: string) => api.call('POST', '/v1/price', { body: { proxies }, key });

		it('applies the bulk price to two weekly lines of one carrier and keeps every sum consistent', async () => {
			const res = await quote([
				{ isp: 'Verizon', location: 'Austin', interval: 2, period: 'weekly' },
				{ isp: 'Verizon', location: 'Austin', interval: 3, period: 'weekly' },
			]);
			expect(res.status).toBe(200);
			expect(res.json.message).toBe('Price calculated');
			const data = res.json.data;
			expect(Object.keys(data)).toEqual(['member', 'periods', 'savings', 'total']);
			expect(data.member).toBe(true);
			expect(Object.keys(data.periods)).toEqual(['weekly']);
			const weekly = data.periods.weekly;
			expect(weekly.bulk).toEqual({ individual: 2, price: 79 });
			const keys = Object.keys(weekly.individual);
			expect(keys).toHaveLength(2);
			for (const key of keys) expect(key).toMatch(ITEM_KEY_RE);
			expect(keys.every((k) => k.startsWith('VR-AU-'))).toBe(true);
			const items = Object.values(weekly.individual) as Array<{ interval: number; standard: number; member: number; total: number }>;
			expect(items.map((i) => i.interval)).toEqual([2, 3]);
			for (const item of items) {
				expect(item).toMatchObject({ standard: 99, member: 89 });
				expect(item.total).toBe(item.interval * weekly.bulk.price);
			}
			expect(weekly.total).toEqual({
				standard: sum(items.map((i) => i.interval * i.standard)),
				member: sum(items.map((i) => i.interval * i.member)),
				due: sum(items.map((i) => i.total)),
			});
			expect(weekly.total).toEqual({ standard: 495, member: 445, due: 395 });
			expect(data.total).toEqual(weekly.total);
			expect(data.savings).toEqual({
				member: { weekly: { individual: 10, total: 50 } },
				bulk: { weekly: { individual: 10, total: 50 } },
				interval: 0,
				total: 100,
			});
			expect(data.savings.total).toBe(data.total.standard - data.total.due);
		});

		it('sums several periods and carriers, without bulk where a period has one item or no bulk price', async () => {
			const res = await quote([
				{ isp: 'AT&T', location: 'New York', interval: 1, period: 'monthly' },
				{ isp: 'T-Mobile', location: 'Cleveland', interval: 3, period: 'hourly' },
				{ isp: 'AT&T', location: 'Cleveland', interval: 1, period: 'hourly' },
				{ isp: 'Verizon', location: 'New York', interval: 2, period: 'weekly' },
			]);
			const data = res.json.data;
			expect(Object.keys(data.periods).sort()).toEqual(['hourly', 'monthly', 'weekly']);
			expect(data.periods.monthly.bulk).toEqual({ individual: 1, price: null });
			expect(data.periods.hourly.bulk).toEqual({ individual: 2, price: null });
			expect(Object.values(data.periods.hourly.individual).map((i) => (i as { total: number }).total)).toEqual([4.5, 1.5]);
			expect(Object.keys(data.periods.monthly.individual)[0]).toMatch(/^AT-NY-[0-9A-F]{8}$/);
			expect(Object.keys(data.periods.hourly.individual)[0]).toMatch(/^TM-CL-[0-9A-F]{8}$/);
			for (const field of ['standard', 'member', 'due'] as const) {
				expect(data.total[field]).toBe(sum(Object.values(data.periods).map((p) => (p as { total: Record<string, number> }).total[field])));
			}
			expect(data.total).toEqual({ standard: 279 + 8 + 198, member: 229 + 6 + 178, due: 229 + 6 + 178 });
			const savingsSum = sum([
				...Object.values(data.savings.member).map((s) => (s as { total: number }).total),
				...Object.values(data.savings.bulk).map((s) => (s as { total: number }).total),
				data.savings.interval,
			]);
			expect(savingsSum).toBe(data.savings.total);
			expect(data.savings.total).toBe(sum([data.total.standard, -data.total.due]));
		});

		it('charges non-members the standard price, and the bulk price when it applies', async () => {
			const key = 'pa_live_nonmember00000000000000000000';
			sim.addAccount({ apiKey: key, balance: 100, member: false });
			const single = (await quote([{ isp: 'AT&T', location: 'Austin', interval: 2, period: 'weekly' }], key)).json.data;
			expect(single.member).toBe(false);
			expect(single.total).toEqual({ standard: 198, member: 178, due: 198 });
			expect(single.savings.member.weekly).toEqual({ individual: 0, total: 0 });
			expect(single.savings.total).toBe(0);
			const bulk = (
				await quote(
					[
						{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' },
						{ isp: 'T-Mobile', location: 'Cleveland', interval: 1, period: 'weekly' },
					],
					key,
				)
			).json.data;
			expect(bulk.total).toEqual({ standard: 198, member: 178, due: 158 });
			expect(bulk.savings.bulk.weekly).toEqual({ individual: 20, total: 40 });
			expect(bulk.savings.total).toBe(40);
		});

		it('gives distinct item keys even for identical lines', async () => {
			const line = { isp: 'T-Mobile', location: 'New York', interval: 1, period: 'monthly' };
			const res = await quote(Array.from({ length: 50 }, () => ({ ...line })));
			const keys = Object.keys(res.json.data.periods.monthly.individual);
			expect(keys).toHaveLength(50);
			expect(new Set(keys).size).toBe(50);
			for (const key of keys) expect(key).toMatch(/^TM-NY-[0-9A-F]{8}$/);
		});

		it('accepts the nested list of the documentation sample with the same totals as the flat list', async () => {
			const lines = [
				{ isp: 'Verizon', location: 'Austin', interval: 1, period: 'weekly' },
				{ isp: 'AT&T', location: 'Cleveland', interval: 2, period: 'weekly' },
				{ isp: 'AT&T', location: 'Cleveland', interval: 1, period: 'monthly' },
			];
			const flat = (await quote(lines)).json.data;
			const nested = await quote([lines]);
			expect(nested.status).toBe(200);
			expect(nested.json.data.total).toEqual(flat.total);
			expect(nested.json.data.savings).toEqual(flat.savings);
			for (const period of ['weekly', 'monthly']) {
				expect(nested.json.data.periods[period].total).toEqual(flat.periods[period].total);
				expect(nested.json.data.periods[period].bulk).toEqual(flat.periods[period].bulk);
			}
		});

		const good = { isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' };
		it.each<[string, unknown, RegExp]>([
			['a body that is not JSON', 'not json {', /JSON/],
			['a missing proxies list', {}, /^proxies must be a non-empty array$/],
			['an empty proxies list', { proxies: [] }, /^proxies must be a non-empty array$/],
			['proxies that is not a list', { proxies: { isp: 'AT&T' } }, /^proxies must be a non-empty array$/],
			['a line that is not an object', { proxies: [good, 'weekly'] }, /^proxies\[1\] must be an object$/],
			['an unknown carrier', { proxies: [good, { ...good, isp: 'Sprint' }] }, /^proxies\[1\]\.isp /],
			['a carrier key instead of its name', { proxies: [{ ...good, isp: 'att' }] }, /^proxies\[0\]\.isp /],
			['an unknown city', { proxies: [good, { ...good, location: 'Atlantis' }] }, /^proxies\[1\]\.location /],
			['a missing location', { proxies: [{ isp: 'AT&T', interval: 1, period: 'weekly' }] }, /^proxies\[0\]\.location /],
			['interval 0', { proxies: [good, { ...good, interval: 0 }] }, /^proxies\[1\]\.interval must be a positive integer$/],
			['a negative interval', { proxies: [good, { ...good, interval: -2 }] }, /^proxies\[1\]\.interval must be a positive integer$/],
			['a fractional interval', { proxies: [good, { ...good, interval: 1.5 }] }, /^proxies\[1\]\.interval must be a positive integer$/],
			['a string interval', { proxies: [good, { ...good, interval: '2' }] }, /^proxies\[1\]\.interval must be a positive integer$/],
			['an interval above 1000', { proxies: [good, { ...good, interval: 1001 }] }, /^proxies\[1\]\.interval must be a positive integer/],
			['an unknown period', { proxies: [good, { ...good, period: 'fortnightly' }] }, /^proxies\[1\]\.period must be one of/],
			['a bad line in the nested form', { proxies: [[good, { ...good, interval: 0 }]] }, /^proxies\[0\]\[1\]\.interval /],
		])('rejects %s, naming the field, and changes nothing', async (_label, body, message) => {
			const before = snapshot();
			const res = await api.call('POST', '/v1/price', { body });
			expect(res.status).toBe(400);
			expect(res.json.ok).toBe(false);
			expect(res.json.message).toMatch(message);
			expect(snapshot()).toEqual(before);
		});

		it('prices a fourth carrier added at run time, which also appears in stock', async () => {
			const other = await ProxyAccountSimulator.start({ seed: 5, frozenClock: true, now: NOW });
			try {
				other.addCarrier({ key: 'uscellular', name: 'US Cellular', code: 'UC', prices: { weekly: { standard: 90, member: 80, bulk: 70 } } });
				other.setStockCount('Austin', 'uscellular', 9);
				const client = simClient(other.url, other.demoApiKey);
				const stock = (await client.call('GET', '/v1/stock')).json.data;
				for (const entry of stock) {
					expect(Object.keys(entry)).toEqual(['city', 'state', 'att', 'verizon', 'tmobile', 'uscellular', 'status', 'open', 'visible']);
					expect(Number.isInteger(entry.uscellular)).toBe(true);
				}
				expect(stock[0]).toMatchObject({ city: 'Austin', uscellular: 9 });
				const res = await client.call('POST', '/v1/price', {
					body: { proxies: [{ isp: 'US Cellular', location: 'Austin', interval: 1, period: 'weekly' }] },
				});
				expect(res.status).toBe(200);
				const [[key, item]] = Object.entries(res.json.data.periods.weekly.individual);
				expect(key).toMatch(/^UC-AU-[0-9A-F]{8}$/);
				expect(item).toEqual({ interval: 1, standard: 90, member: 80, total: 80 });
			} finally {
				await other.stop();
			}
		});
	});

	describe('POST /v1/proxies/allocate', () => {
		function pickProxies() {
			const now = sim.clock.now();
			const all = Array.from(sim.account().proxies.values());
			const active = all.filter((p) => parseTimestamp(p.expires_at) > now);
			const expired = all.filter((p) => parseTimestamp(p.expires_at) <= now);
			expect(active.length).toBeGreaterThanOrEqual(2);
			expect(expired.length).toBeGreaterThanOrEqual(1);
			return { active, expired, now };
		}

		it('moves expires_at by interval x period and deducts exactly the quoted total', async () => {
			const { active, expired, now } = pickProxies();
			const lines: Array<{ proxy_name: string; interval: number; period: Period }> = [
				{ proxy_name: active[0].proxy_name, interval: 2, period: 'weekly' },
				{ proxy_name: expired[0].proxy_name, interval: 1, period: 'weekly' },
				{ proxy_name: active[1].proxy_name, interval: 3, period: 'daily' },
			];
			const records = lines.map((l) => sim.account().proxies.get(l.proxy_name)!);
			const previous = records.map((r) => r.expires_at);
			const quoteRes = await api.call('POST', '/v1/price', {
				body: { proxies: lines.map((l, i) => ({ isp: records[i].isp, location: records[i].city, interval: l.interval, period: l.period })) },
			});
			const quoted = quoteRes.json.data;
			const balanceBefore = sim.account().balance;
			sim.resetLogs();

			const res = await api.call('POST', '/v1/proxies/allocate', { body: { proxies: { time: lines } } });
			expect(res.status).toBe(200);
			expect(res.json.message).toBe('Proxies allocated');
			expect(res.json.data.total).toBe(quoted.total.due);
			expect(res.json.data.proxies.time).toEqual(
				lines.map((l) => ({ proxy_name: l.proxy_name, period: l.period, interval: l.interval, individual_total: expect.any(Number) })),
			);
			const individual = res.json.data.proxies.time.map((t: { individual_total: number }) => t.individual_total);
			expect(sum(individual)).toBe(res.json.data.total);
			// The same per-line amounts as the quote (bulk on the two weekly lines).
			expect(individual).toEqual([
				...Object.values(quoted.periods.weekly.individual).map((i) => (i as { total: number }).total),
				...Object.values(quoted.periods.daily.individual).map((i) => (i as { total: number }).total),
			]);
			expect(individual).toEqual([158, 79, 51]);
			expect(cents(sim.account().balance)).toBe(cents(balanceBefore) - cents(quoted.total.due));

			const expected = [
				parseTimestamp(previous[0]) + 2 * PERIOD_MS.weekly,
				now + 1 * PERIOD_MS.weekly,
				parseTimestamp(previous[2]) + 3 * PERIOD_MS.daily,
			];
			const after = await Promise.all(lines.map((l) => api.call('GET', `/v1/proxies/${encodeURIComponent(l.proxy_name)}`)));
			after.forEach((r, i) => {
				expect(r.json.data.expires_at).toMatch(TIMESTAMP_RE);
				expect(parseTimestamp(r.json.data.expires_at)).toBe(expected[i]);
			});

			const allocateSeq = sim.requests.find((r) => r.route === 'POST /v1/proxies/allocate')!.seq;
			expect(sim.ledger).toEqual(
				lines.map((l, i) => ({
					seq: allocateSeq,
					at: now,
					apiKey: sim.demoApiKey,
					proxy_name: l.proxy_name,
					interval: l.interval,
					period: l.period,
					amount: individual[i],
					previous_expires_at: previous[i],
					new_expires_at: after[i].json.data.expires_at,
				})),
			);
		});

		it('refuses the whole request when funds are insufficient, with data.funds and data.diff', async () => {
			const { active, expired } = pickProxies();
			sim.account().balance = 100.25;
			try {
				const before = snapshot();
				const res = await api.call('POST', '/v1/proxies/allocate', {
					body: {
						proxies: {
							time: [
								{ proxy_name: expired[0].proxy_name, interval: 1, period: 'daily' },
								{ proxy_name: active[0].proxy_name, interval: 1, period: 'monthly' },
							],
						},
					},
				});
				expect(res.status).toBe(402);
				expect(res.json.ok).toBe(false);
				expect(res.json.message).toMatch(/insufficient funds/i);
				expect(res.json.data).toEqual({ funds: 100.25, diff: 17 + 229 - 100.25 });
				expect(snapshot()).toEqual(before);
			} finally {
				sim.account().balance = 5000;
			}
		});

		it('refuses the whole request when one proxy is unknown', async () => {
			const { active } = pickProxies();
			const before = snapshot();
			const res = await api.call('POST', '/v1/proxies/allocate', {
				body: {
					proxies: {
						time: [
							{ proxy_name: active[0].proxy_name, interval: 1, period: 'weekly' },
							{ proxy_name: 'PRX-US-NOPE-0000', interval: 1, period: 'weekly' },
						],
					},
				},
			});
			expect(res.status).toBe(404);
			expect(res.json).toEqual({ ok: false, message: 'Proxy not found: PRX-US-NOPE-0000' });
			expect(snapshot()).toEqual(before);
		});

		const name = () => Array.from(sim.account().proxies.keys())[0];
		it.each<[string, () => unknown, RegExp]>([
			['a missing proxies object', () => ({}), /^proxies must be an object/],
			['proxies as a list', () => ({ proxies: [{ proxy_name: name(), interval: 1, period: 'weekly' }] }), /^proxies must be an object/],
			['an empty time list', () => ({ proxies: { time: [] } }), /^proxies\.time must be a non-empty array$/],
			['a missing proxy_name', () => ({ proxies: { time: [{ interval: 1, period: 'weekly' }] } }), /^proxies\.time\[0\]\.proxy_name /],
			[
				'interval 0 on the second line',
				() => ({ proxies: { time: [{ proxy_name: name(), interval: 1, period: 'weekly' }, { proxy_name: name(), interval: 0, period: 'weekly' }] } }),
				/^proxies\.time\[1\]\.interval must be a positive integer$/,
			],
			['a fractional interval', () => ({ proxies: { time: [{ proxy_name: name(), interval: 0.5, period: 'weekly' }] } }), /^proxies\.time\[0\]\.interval /],
			['an unknown period', () => ({ proxies: { time: [{ proxy_name: name(), interval: 1, period: 'biweekly' }] } }), /^proxies\.time\[0\]\.period must be one of/],
			['a body that is not JSON', () => '{"proxies":', /JSON/],
		])('rejects %s with 400 and changes nothing', async (_label, body, message) => {
			const before = snapshot();
			const res = await api.call('POST', '/v1/proxies/allocate', { body: body() });
			expect(res.status).toBe(400);
			expect(res.json.ok).toBe(false);
			expect(res.json.message).toMatch(message);
			expect(snapshot()).toEqual(before);
		});

		it('extends from the current expiry when the same proxy is listed twice', async () => {
			const { active } = pickProxies();
			const record = active[0];
			const start = parseTimestamp(record.expires_at);
			const res = await api.call('POST', '/v1/proxies/allocate', {
				body: { proxies: { time: [{ proxy_name: record.proxy_name, interval: 1, period: 'hourly' }, { proxy_name: record.proxy_name, interval: 2, period: 'hourly' }] } },
			});
			expect(res.status).toBe(200);
			expect(res.json.data.total).toBe(4.5);
			expect(parseTimestamp(record.expires_at)).toBe(start + 3 * PERIOD_MS.hourly);
		});
	});

	describe('routing', () => {
		it('answers an unknown route with 404 {ok:false, message:"Not found"}', async () => {
			const res = await api.call('GET', '/v1/funds-unknown');
			expect(res.status).toBe(404);
			expect(res.json).toEqual({ ok: false, message: 'Not found' });
		});

		it('answers a wrong method with 405 and Allow', async () => {
			const res = await api.call('DELETE', '/v1/stock');
			expect(res.status).toBe(405);
			expect(res.headers.allow).toBe('GET');
			expect(res.json.ok).toBe(false);
			const price = await api.call('GET', '/v1/price');
			expect(price.status).toBe(405);
			expect(price.headers.allow).toBe('POST');
		});
	});

	describe('clock', () => {
		it('moves only by advance()/set() when frozen, and expiries do not move by themselves', async () => {
			const start = sim.clock.now();
			const name = Array.from(sim.account().proxies.keys())[5];
			const before = (await api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`)).json.data.expires_at;
			await sleep(20);
			expect(sim.clock.now()).toBe(start);
			sim.clock.advance(2 * DAY);
			expect(sim.clock.now()).toBe(start + 2 * DAY);
			const res = await api.call('GET', `/v1/proxies/${encodeURIComponent(name)}`);
			expect(res.json.data.expires_at).toBe(before);
			expect(Date.parse(res.headers.date as string)).toBe(Math.floor((start + 2 * DAY) / 1000) * 1000);
			sim.clock.set(start);
			expect(sim.clock.now()).toBe(start);
		});

		it('runs with real time when not frozen, plus advances', async () => {
			const running = await ProxyAccountSimulator.start({ now: '2030-01-01T00:00:00.000Z', proxies: 0 });
			try {
				const t0 = running.clock.now();
				expect(t0).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00.000Z'));
				await sleep(30);
				expect(running.clock.now() - t0).toBeGreaterThanOrEqual(25);
				running.clock.advance(DAY);
				expect(running.clock.now() - t0).toBeGreaterThanOrEqual(DAY + 25);
				running.clock.set(Date.parse('2031-05-05T00:00:00.000Z'));
				expect(running.clock.now() - Date.parse('2031-05-05T00:00:00.000Z')).toBeLessThan(1000);
			} finally {
				await running.stop();
			}
		});
	});

	describe('rate limits', () => {
		it('answers 429 problem+json with retry-after per key and route, until the window passes', async () => {
			const limited = await ProxyAccountSimulator.start({
				frozenClock: true,
				proxies: 1,
				rateLimit: { 'GET /v1/stock': { limit: 2, windowMs: 10_000 } },
			});
			try {
				const client = simClient(limited.url, limited.demoApiKey);
				expect((await client.call('GET', '/v1/stock')).status).toBe(200);
				limited.clock.advance(4_000);
				expect((await client.call('GET', '/v1/stock')).status).toBe(200);
				const refused = await client.call('GET', '/v1/stock');
				expect(refused.status).toBe(429);
				expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
				expect(refused.headers['retry-after']).toBe('6');
				expect(refused.json).toMatchObject({ title: 'Too Many Requests', status: 429, instance: '/v1/stock' });
				expect(refused.json).not.toHaveProperty('ok');
				// Other routes and other keys have their own budget.
				expect((await client.call('GET', '/v1/proxies')).status).toBe(200);
				limited.addAccount({ apiKey: 'pa_live_second000000000000000000000000' });
				expect((await client.call('GET', '/v1/stock', { key: 'pa_live_second000000000000000000000000' })).status).toBe(200);
				limited.clock.advance(6_000);
				expect((await client.call('GET', '/v1/stock')).status).toBe(200);
				expect(limited.requests.map((r) => r.status)).toEqual([200, 200, 429, 200, 200, 200]);
			} finally {
				await limited.stop();
			}
		});
	});

	describe('business error style ok-false-200', () => {
		it('sends the same error bodies with status 200, while the gateway still answers 401', async () => {
			const okFalse = await ProxyAccountSimulator.start({ businessErrors: 'ok-false-200', balance: 10, proxies: 3, frozenClock: true });
			try {
				const client = simClient(okFalse.url, okFalse.demoApiKey);
				const invalid = await client.call('POST', '/v1/price', { body: { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 0, period: 'weekly' }] } });
				expect(invalid.status).toBe(200);
				expect(invalid.json).toEqual({ ok: false, message: 'proxies[0].interval must be a positive integer' });
				const missing = await client.call('GET', '/v1/proxies/nope');
				expect(missing.status).toBe(200);
				expect(missing.json).toEqual({ ok: false, message: 'Proxy not found' });
				const name = Array.from(okFalse.account().proxies.keys())[0];
				const funds = await client.call('POST', '/v1/proxies/allocate', { body: { proxies: { time: [{ proxy_name: name, interval: 1, period: 'monthly' }] } } });
				expect(funds.status).toBe(200);
				expect(funds.json).toEqual({ ok: false, message: 'Insufficient funds', data: { funds: 10, diff: 219 } });
				expect(okFalse.ledger).toHaveLength(0);
				expect(okFalse.account().balance).toBe(10);
				const unauthorized = await client.call('GET', '/v1/stock', { key: null });
				expect(unauthorized.status).toBe(401);
				expect(unauthorized.json).not.toHaveProperty('ok');
			} finally {
				await okFalse.stop();
			}
		});
	});

	describe('request log and ledger', () => {
		it('records every request in order, with route, status, key, raw path and parsed body', async () => {
			sim.resetLogs();
			const name = Array.from(sim.account().proxies.keys())[1];
			await api.call('GET', '/v1/stock', { key: null });
			await api.call('POST', '/v1/price', { body: { proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] } });
			await api.call('POST', '/v1/proxies/allocate', { body: { proxies: { time: [{ proxy_name: name, interval: 1, period: 'weekly' }] } } });
			await api.call('GET', '/v1/nothing-here?x=1');
			await api.call('POST', '/v1/price', { body: 'garbage' });
			const log = sim.requests;
			expect(log.map((r) => [r.method, r.path, r.route, r.status])).toEqual([
				['GET', '/v1/stock', 'GET /v1/stock', 401],
				['POST', '/v1/price', 'POST /v1/price', 200],
				['POST', '/v1/proxies/allocate', 'POST /v1/proxies/allocate', 200],
				['GET', '/v1/nothing-here?x=1', null, 404],
				['POST', '/v1/price', 'POST /v1/price', 400],
			]);
			for (let i = 1; i < log.length; i++) expect(log[i].seq).toBe(log[i - 1].seq + 1);
			expect(log[0].apiKey).toBeNull();
			expect(log[0].headers.authorization).toBeUndefined();
			expect(log[1].apiKey).toBe(sim.demoApiKey);
			expect(log[1].headers.authorization).toBe(`Bearer ${sim.demoApiKey}`);
			expect(log[1].body).toEqual({ proxies: [{ isp: 'AT&T', location: 'Austin', interval: 1, period: 'weekly' }] });
			expect(log[4].body).toBe('garbage');
			expect(log.every((r) => r.at === sim.clock.now() && r.fault === undefined)).toBe(true);
			expect(sim.ledger).toHaveLength(1);
			expect(sim.ledger[0]).toMatchObject({ seq: log[2].seq, proxy_name: name, interval: 1, period: 'weekly', amount: 89 });
			sim.resetLogs();
			expect(sim.requests).toHaveLength(0);
			expect(sim.ledger).toHaveLength(0);
		});
	});

	it('never echoes the API key in any response body', () => {
		expect(api.texts.length).toBeGreaterThan(50);
		for (const text of api.texts) {
			expect(text).not.toContain(sim.demoApiKey);
			expect(text).not.toContain('pa_live_nonmember');
		}
	});
});
