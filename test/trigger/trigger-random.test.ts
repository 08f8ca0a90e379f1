/**
 * Randomized test of the Proxy Account Trigger: over many seeded rounds of random stock changes,
 * city openings and closings, new and removed proxies, status changes, extensions (through the
 * allocate endpoint and directly), clock advances, injected faults, restarts and "Fetch Test
 * Event" runs, the events the trigger emits must equal exactly the events a simple reference model
 * computes from the sequence of states the trigger observed successfully.
 *
 * The reference model below is written from the event definitions, not from the node's code: it
 * works on the service's raw payloads (fetched by the test, not by the node) and keeps its own
 * memory. With a frozen clock nothing changes between the test's fetch and the trigger's poll, so
 * that payload is the state the poll saw.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, PollHarness } from '../harness';
import { ProxyAccountSimulator } from '../simulator';
import type { FaultSpec, RouteKey } from '../simulator';
import { simClient } from '../simulator/testkit';
import type { SimClient } from '../simulator/testkit';

const SEED = 0x5eed7;
const ROUNDS = 130;
const HOUR = 3_600_000;
const START = Date.parse('2025-06-01T00:00:00.000Z');

// ----- a small seeded PRNG (mulberry32) --------------------------------------------------------------

function prng(seed: number) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return {
		next,
		int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
		chance: (p: number) => next() < p,
		pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)],
	};
}

// ----- what the service said (raw payloads) -----------------------------------------------------------

interface City {
	city: string;
	state: string;
	status: string;
	counts: Record<string, number>;
}

interface Proxy {
	name: string;
	nickname: string | null;
	expires_at: string;
	status: string;
	city: string;
	state: string;
	isp: string;
}

interface Snapshot {
	now: number;
	cities: City[];
	proxies: Proxy[];
}

async function snapshot(client: SimClient, carrierKeys: string[]): Promise<Snapshot> {
	const stock = await client.call('GET', '/v1/stock');
	const list = await client.call('GET', '/v1/proxies');
	expect(stock.status).toBe(200);
	expect(list.status).toBe(200);
	const cities = (stock.json.data as Array<Record<string, unknown>>).map((entry) => {
		const counts: Record<string, number> = {};
		for (const key of carrierKeys) counts[key] = entry[key] as number;
		return { city: entry.city as string, state: entry.state as string, status: entry.status as string, counts };
	});
	const proxies = (list.json.data as Array<Record<string, unknown>>).map((p) => ({
		name: p.proxy_name as string,
		nickname: p.nickname as string | null,
		expires_at: p.expires_at as string,
		status: p.network_status as string,
		city: p.city as string,
		state: p.state as string,
		isp: p.isp as string,
	}));
	return { now: Date.parse(String(stock.headers.date)), cities, proxies };
}

// ----- the reference model ---------------------------------------------------------------------------

interface Config {
	label: string;
	parameters: INodeParameters;
	route: RouteKey;
	model: Model;
}

/** Computes the expected events (as comparable keys) of one successful poll; null state = baseline. */
interface Model {
	observe(previous: Snapshot | null, current: Snapshot): string[];
}

const lower = (text: string) => text.toLowerCase();

function inList(value: string, list: string[] | undefined): boolean {
	return list === undefined || list.map(lower).includes(lower(value));
}

function stockModel(kind: 'becameAvailable' | 'anyChange' | 'reachedThreshold', opts: { cities?: string[]; states?: string[]; carrier?: string; threshold?: number }): Model {
	return {
		observe(previous, current) {
			if (!previous) return [];
			const out: string[] = [];
			for (const now of current.cities) {
				if (!inList(now.city, opts.cities) || !inList(now.state, opts.states)) continue;
				const before = previous.cities.find((c) => c.city === now.city && c.state === now.state);
				for (const carrier of Object.keys(now.counts)) {
					if (opts.carrier !== undefined && carrier !== opts.carrier) continue;
					const b = before ? before.counts[carrier] : 0;
					const bs = before ? before.status : null;
					const a = now.counts[carrier];
					let change: string | undefined;
					if (kind === 'becameAvailable' && !(b > 0 && bs === 'available') && a > 0 && now.status === 'available') change = 'became_available';
					if (kind === 'anyChange' && a !== b) change = 'count_changed';
					if (kind === 'reachedThreshold' && b < opts.threshold! && a >= opts.threshold!) change = 'reached_threshold';
					if (change) out.push(`${change}|${now.city}|${carrier}|${b}|${bs}|${a}|${now.status}`);
				}
			}
			return out;
		},
	};
}

interface ProxyFilter {
	cities?: string[];
	carrierName?: string;
	nameContains?: string;
}

function proxyMatches(p: Proxy, f: ProxyFilter): boolean {
	if (!inList(p.city, f.cities)) return false;
	if (f.carrierName !== undefined && p.isp !== f.carrierName) return false;
	if (f.nameContains !== undefined && !lower(`${p.name} ${p.nickname ?? ''}`).includes(lower(f.nameContains))) return false;
	return true;
}

/** Once per proxy per expiry: remembers every (name, expiry) seen inside the window. */
function expiringModel(hours: number, filter: ProxyFilter): Model {
	const seen = new Set<string>();
	return {
		observe(previous, current) {
			const names = new Set(current.proxies.map((p) => p.name));
			for (const key of [...seen]) if (!names.has(key.split('\u0000')[0])) seen.delete(key);
			const out: string[] = [];
			for (const p of current.proxies) {
				const expires = Date.parse(p.expires_at);
				const key = `${p.name}\u0000${expires}`;
				if (expires - current.now > hours * HOUR || seen.has(key)) continue;
				seen.add(key);
				if (previous && proxyMatches(p, filter)) out.push(`proxy_expiring|${p.name}|${p.expires_at}`);
			}
			return out;
		},
	};
}

function statusModel(filter: ProxyFilter, from?: string, to?: string): Model {
	return {
		observe(previous, current) {
			if (!previous) return [];
			const out: string[] = [];
			for (const p of current.proxies) {
				const before = previous.proxies.find((q) => q.name === p.name);
				if (!before || before.status === p.status || !proxyMatches(p, filter)) continue;
				if (from !== undefined && before.status !== from) continue;
				if (to !== undefined && p.status !== to) continue;
				out.push(`proxy_status_changed|${p.name}|${before.status}|${p.status}`);
			}
			return out;
		},
	};
}

function newProxyModel(filter: ProxyFilter): Model {
	return {
		observe(previous, current) {
			if (!previous) return [];
			return current.proxies
				.filter((p) => !previous.proxies.some((q) => q.name === p.name) && proxyMatches(p, filter))
				.map((p) => `new_proxy|${p.name}`);
		},
	};
}

/** The same keys, read from an emitted item. */
function keyOf(item: IDataObject): string {
	const before = item.before as IDataObject | null;
	const after = item.after as IDataObject | null;
	switch (item.event) {
		case 'stock_changed':
			return `${item.change}|${item.city}|${item.carrier}|${before?.count}|${before?.status}|${after?.count}|${after?.status}`;
		case 'proxy_expiring':
			return `proxy_expiring|${item.proxy_name}|${item.expires_at}`;
		case 'proxy_status_changed':
			return `proxy_status_changed|${item.proxy_name}|${before?.network_status}|${after?.network_status}`;
		default:
			return `new_proxy|${item.proxy_name}`;
	}
}

// ----- the run ------------------------------------------------------------------------------------------

const STOCK: RouteKey = 'GET /v1/stock';
const PROXIES: RouteKey = 'GET /v1/proxies';

function faultFor(route: RouteKey, rnd: ReturnType<typeof prng>): { spec: FaultSpec; retried: boolean } {
	const driftField = route === STOCK ? 'data.1.status' : 'data.0.expires_at';
	const options: Array<{ spec: FaultSpec; retried: boolean }> = [
		{ spec: { route, kind: 'status', status: 500 }, retried: false },
		{ spec: { route, kind: 'malformed' }, retried: false },
		{ spec: { route, kind: 'drift', remove: [driftField] }, retried: false },
		{ spec: { route, kind: 'drift', set: { 'data.2.open': 'yes', 'data.2.traffic': 'lots' } }, retried: false },
		{ spec: { route, kind: 'rateLimit', retryAfter: 120 }, retried: false },
		{ spec: { route, kind: 'okFalse', status: 400, message: 'Unexpected error' }, retried: false },
	];
	// Rarely, a 503 once: the transport retries it and the poll succeeds.
	if (rnd.chance(0.04)) return { spec: { route, kind: 'status', status: 503 }, retried: true };
	return rnd.pick(options);
}

describe('randomized: emitted events equal the events of the observed states', () => {
	let sim: ProxyAccountSimulator;
	afterAll(async () => await sim?.stop());

	it(`${ROUNDS} rounds of random changes, faults and restarts over 10 triggers (seed ${SEED})`, async () => {
		sim = await ProxyAccountSimulator.start({ seed: 77, proxies: 30, cities: 10, frozenClock: true, now: START, balance: 10_000_000 });
		const rnd = prng(SEED);
		const client = simClient(sim.url, sim.demoApiKey);
		const carrierKeys = sim.carriers.map((c) => c.key);
		const carrierNames = sim.carriers.map((c) => c.name);
		const cityNames = sim.stock.map((c) => c.city);
		const states = [...new Set(sim.stock.map((c) => c.state))];
		const harness = createHarness([new ProxyAccountTrigger()]);

		const configs: Config[] = [
			{ label: 'stock available', parameters: { event: 'stockChanged' }, route: STOCK, model: stockModel('becameAvailable', {}) },
			{
				label: 'stock any, verizon',
				parameters: { event: 'stockChanged', stockChange: 'anyChange', stockFilters: { carrier: 'verizon' } },
				route: STOCK,
				model: stockModel('anyChange', { carrier: 'verizon' }),
			},
			{
				label: 'stock threshold 3, some cities',
				parameters: { event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 3, stockFilters: { city: cityNames.slice(0, 5).join(', ') } },
				route: STOCK,
				model: stockModel('reachedThreshold', { threshold: 3, cities: cityNames.slice(0, 5) }),
			},
			{
				label: 'stock available, one state',
				parameters: { event: 'stockChanged', stockFilters: { state: states[0].toLowerCase() } },
				route: STOCK,
				model: stockModel('becameAvailable', { states: [states[0]] }),
			},
			{ label: 'expiring 24 h', parameters: { event: 'proxyExpiring', withinHours: 24 }, route: PROXIES, model: expiringModel(24, {}) },
			{
				label: 'expiring 6 h, AT&T',
				parameters: { event: 'proxyExpiring', withinHours: 6, proxyFilters: { carrier: 'AT&T' } },
				route: PROXIES,
				model: expiringModel(6, { carrierName: 'AT&T' }),
			},
			{ label: 'status any', parameters: { event: 'proxyStatusChanged' }, route: PROXIES, model: statusModel({}) },
			{
				label: 'status online to offline, some cities',
				parameters: { event: 'proxyStatusChanged', fromStatus: 'online', toStatus: 'offline', proxyFilters: { city: cityNames.slice(0, 6).join(',') } },
				route: PROXIES,
				model: statusModel({ cities: cityNames.slice(0, 6) }, 'online', 'offline'),
			},
			{ label: 'new any', parameters: { event: 'newProxy' }, route: PROXIES, model: newProxyModel({}) },
			{
				label: 'new, name contains 7',
				parameters: { event: 'newProxy', proxyFilters: { nameContains: '7' } },
				route: PROXIES,
				model: newProxyModel({ nameContains: '7' }),
			},
		];
		const triggers = configs.map((config) => ({
			config,
			poll: new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: config.parameters }, { baseUrl: sim.url, apiKey: sim.demoApiKey }),
			last: null as Snapshot | null,
			emitted: [] as string[],
			expected: [] as string[],
		}));

		const counts = { polls: 0, failed: 0, retried: 0, restarts: 0, manual: 0, events: 0, extensions: 0 };
		let added = 0;
		const maxSize = new Map<string, number>();

		for (let round = 0; round < ROUNDS; round++) {
			// --- random changes -----------------------------------------------------------------------
			const changes = rnd.int(0, 3);
			for (let i = 0; i < changes; i++) {
				const city = rnd.pick(sim.stock);
				sim.setStockCount(city.city, rnd.pick(carrierKeys), rnd.pick([0, 0, 0, 1, 2, 3, 4, 6, rnd.int(0, 20)]));
			}
			if (rnd.chance(0.12)) {
				const city = rnd.pick(sim.stock);
				sim.setCityOpen(city.city, !city.open);
			}
			const proxies = sim.account().proxies;
			if (rnd.chance(0.2)) {
				added += 1;
				const city = rnd.pick(sim.stock);
				sim.addProxy(null, {
					proxy_name: `PRX-RND-${String(added).padStart(3, '0')}`,
					nickname: rnd.chance(0.3) ? `fleet-${rnd.int(1, 99)}` : null,
					city: city.city,
					state: city.state,
					isp: rnd.pick(carrierNames),
					network_status: rnd.pick(['online', 'online', 'offline', 'rebooting']),
					expires_at: new Date(sim.clock.now() + rnd.int(-5 * 3600, 72 * 3600) * 1000 + rnd.int(0, 999)).toISOString(),
				});
			}
			for (let i = rnd.int(0, 2); i > 0; i--) {
				rnd.pick([...proxies.values()]).network_status = rnd.pick(['online', 'online', 'offline', 'rebooting']);
			}
			if (rnd.chance(0.25)) {
				counts.extensions += 1;
				const proxy = rnd.pick([...proxies.values()]);
				if (rnd.chance(0.5)) {
					const response = await client.call('POST', '/v1/proxies/allocate', {
						body: { proxies: { time: [{ proxy_name: proxy.proxy_name, interval: rnd.int(1, 30), period: rnd.pick(['hourly', 'daily']) }] } },
					});
					expect(response.status).toBe(200);
				} else {
					// Moved later directly, as another client of the account would.
					proxy.expires_at = new Date(Math.max(Date.parse(proxy.expires_at), sim.clock.now()) + rnd.int(1, 48) * HOUR).toISOString();
				}
			}
			if (rnd.chance(0.05) && proxies.size > 12) proxies.delete(rnd.pick([...proxies.keys()]));
			if (rnd.chance(0.8)) sim.clock.advance(rnd.int(0, 5 * 3600) * 1000);
			if (rnd.chance(0.03)) sim.clock.advance(rnd.int(24, 60) * HOUR);

			// --- what the service says now (nothing changes until the next round) ------------------------
			const current = await snapshot(client, carrierKeys);

			// --- every trigger polls ----------------------------------------------------------------------
			for (const t of triggers) {
				if (rnd.chance(0.03)) {
					counts.restarts += 1;
					t.poll.restart();
				}
				if (rnd.chance(0.03)) {
					counts.manual += 1;
					const before = JSON.stringify(t.poll.staticData);
					const sample = await t.poll.poll('manual');
					expect(sample?.[0].length).toBeGreaterThan(0);
					expect(sample?.[0].every((item) => item.json.sample === true)).toBe(true);
					expect(JSON.stringify(t.poll.staticData)).toBe(before);
				}
				const fault = rnd.chance(0.12) ? faultFor(t.config.route, rnd) : undefined;
				if (fault) sim.injectFault(fault.spec);
				sim.resetLogs();
				const stateBefore = JSON.stringify(t.poll.staticData);
				counts.polls += 1;
				let items: IDataObject[] | null;
				try {
					const result = await t.poll.poll();
					items = result === null ? null : result[0].map((item) => item.json);
				} catch (error) {
					expect(fault && !fault.retried).toBeTruthy();
					expect(error).toBeInstanceOf(NodeApiError);
					expect((error as NodeApiError).message).toMatch(/Proxy Account service/);
					expect(JSON.stringify(t.poll.staticData)).toBe(stateBefore);
					expect(sim.requests.map((r) => r.route)).toEqual([t.config.route]);
					counts.failed += 1;
					continue;
				}
				expect(fault === undefined || fault.retried).toBe(true);
				if (fault?.retried) counts.retried += 1;
				// One endpoint, one request (two when a 503 was retried).
				expect(sim.requests.map((r) => r.route)).toEqual(fault?.retried ? [t.config.route, t.config.route] : [t.config.route]);
				expect(sim.pendingFaults()).toHaveLength(0);

				const expected = t.config.model.observe(t.last, current);
				t.last = current;
				const emitted = (items ?? []).map(keyOf);
				if (items !== null) expect(items.length).toBeGreaterThan(0);
				for (const item of items ?? []) {
					if (item.event !== 'stock_changed') expect(item.record).not.toHaveProperty('password');
					expect(item).not.toHaveProperty('sample');
				}
				if (JSON.stringify(emitted) !== JSON.stringify(expected)) {
					throw new Error(
						`round ${round}, trigger "${t.config.label}": emitted ${JSON.stringify(emitted)} but the observed states give ${JSON.stringify(expected)}`,
					);
				}
				t.emitted.push(...emitted);
				t.expected.push(...expected);
				counts.events += emitted.length;
				const size = JSON.stringify(t.poll.staticData).length;
				maxSize.set(t.config.label, Math.max(maxSize.get(t.config.label) ?? 0, size));
			}
		}

		// Exactly the events of the observed states: none missed, none repeated.
		for (const t of triggers) {
			expect(t.emitted).toEqual(t.expected);
			if (t.config.parameters.event === 'proxyExpiring' || t.config.parameters.event === 'newProxy') {
				expect(new Set(t.emitted).size).toBe(t.emitted.length);
			}
		}
		// Every kind of trigger saw events, and the run went through enough of everything.
		for (const t of triggers) expect(t.emitted.length).toBeGreaterThan(0);
		expect(counts.polls).toBeGreaterThanOrEqual(1_000);
		expect(counts.failed).toBeGreaterThan(50);
		expect(counts.retried).toBeGreaterThan(0);
		expect(counts.restarts).toBeGreaterThan(10);
		expect(counts.manual).toBeGreaterThan(10);
		expect(counts.extensions).toBeGreaterThan(10);

		// Bounded state: one entry per city or proxy at most, whatever the number of polls.
		const proxyCount = sim.account().proxies.size;
		for (const t of triggers) {
			const state = t.poll.staticData['node:Trigger Under Test'] as IDataObject;
			const entries = Object.keys((state.stock ?? state.reported ?? state.status ?? {}) as object).length + ((state.names as string[] | undefined)?.length ?? 0);
			expect(entries).toBeLessThanOrEqual(state.stock ? sim.stock.length : proxyCount);
			expect(maxSize.get(t.config.label)).toBeLessThan(state.stock ? 2_000 : 200 * (30 + added));
		}
		const perTrigger = Object.fromEntries(triggers.map((t) => [t.config.label, t.emitted.length]));
		console.log(`randomized trigger run: ${JSON.stringify({ ...counts, proxies: proxyCount, added, perTrigger })}`);
	});
});
