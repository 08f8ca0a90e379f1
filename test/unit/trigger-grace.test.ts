/**
 * Unit tests of the trigger's grace period for entries missing from a list, on the pure detect
 * functions (no engine, no HTTP): a city or proxy that is stored but missing from a reply is kept
 * as it was and marked missing; it is forgotten only once it has been missing from GRACE_POLLS
 * polls in a row AND for GRACE_MS (the service's clock); when it comes back it is compared with
 * what was kept. Also: version 1 states are read, the state stays bounded, and going back to an
 * older state (n8n 2.x after a restart) with the marks restarted never repeats an event.
 */
import type { IDataObject } from 'n8n-workflow';

import { readPlaceFilters, readProxyFilters } from '../../nodes/ProxyAccount/helpers/filters';
import type { ProxyRecord, StockEntry } from '../../nodes/ProxyAccount/transport';
import type { StockChange } from '../../nodes/ProxyAccount/trigger/params';
import { detectExpiring, detectNewProxies, detectStatusChanges } from '../../nodes/ProxyAccount/trigger/proxies';
import type { TriggerState } from '../../nodes/ProxyAccount/trigger/state';
import {
	commitState,
	GRACE_MS,
	GRACE_POLLS,
	loadState,
	sameJson,
	STATE_VERSION,
	stillMissing,
	withoutMarks,
} from '../../nodes/ProxyAccount/trigger/state';
import type { Detection } from '../../nodes/ProxyAccount/trigger/stock';
import { detectStockChanges } from '../../nodes/ProxyAccount/trigger/stock';
import { prng } from '../harness/prng';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

// ----- records --------------------------------------------------------------------------------------

function proxy(name: string, fields: Partial<ProxyRecord> = {}): ProxyRecord {
	return {
		proxy_name: name,
		nickname: null,
		isp: 'AT&T',
		period: 'weekly',
		auto_renew: false,
		auto_renew_interval: 0,
		added_at: iso(T0 - 24 * HOUR),
		expires_at: iso(T0 + 10 * 24 * HOUR),
		network_status: 'online',
		server_ip: '203.0.113.10',
		h_port: 8000,
		s_port: 9000,
		auth_method: 'userpass',
		username: `u_${name}`,
		password: 'secret',
		whitelist: [],
		auto_change: false,
		auto_change_time: 0,
		last_ip_change: iso(T0),
		last_reboot: iso(T0),
		traffic: 0,
		h_threads: 1,
		s_threads: 1,
		city: 'Austin',
		state: 'TX',
		...fields,
	};
}

function city(name: string, state: string, counts: Record<string, number>, open = true): StockEntry {
	const any = Object.values(counts).some((count) => count > 0);
	return { city: name, state, status: !open ? 'coming' : any ? 'available' : 'out', open, visible: true, ...counts, carriers: { ...counts } };
}

/** An emitted item as a comparable key. */
function eventKey(item: IDataObject): string {
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

// ----- one adapter per event -------------------------------------------------------------------------

type Item = ProxyRecord | StockEntry;

interface Adapter {
	label: string;
	/** The list at the start; the entry keyed `subject` is the one that goes missing. */
	list(): Item[];
	subject: string;
	key(item: Item): string;
	detect(previous: TriggerState | null, items: Item[], now: number): Detection<TriggerState>;
	/** The subject as it comes back changed, and what that poll emits. */
	changed(item: Item): Item;
	changedEvents: string[];
	/** What the poll emits that sees the subject come back, unchanged, once it was forgotten. */
	returnEvents: string[];
	/** The keys of the entries a state stores. */
	stored(state: TriggerState): string[];
}

const proxyOutput = { simplify: true, includePassword: false };
const proxyFilters = readProxyFilters({});
const cityKeyOf = (item: Item) => `${(item as StockEntry).city}|${(item as StockEntry).state}`;
const nameOf = (item: Item) => (item as ProxyRecord).proxy_name;

function stockAdapter(change: StockChange, changedEvents: string[], returnEvents: string[]): Adapter {
	return {
		label: `stockChanged/${change}`,
		list: () => [city('Austin', 'TX', { att: 10, verizon: 0 }), city('Denver', 'CO', { att: 4, verizon: 0 }), city('Miami', 'FL', { att: 0, verizon: 0 })],
		subject: 'Denver|CO',
		key: cityKeyOf,
		detect: (previous, items, now) =>
			detectStockChanges(previous as never, { entries: items as StockEntry[], now }, { event: 'stockChanged', change, threshold: 3, filters: readPlaceFilters({}) }),
		changed: () => city('Denver', 'CO', { att: change === 'anyChange' ? 5 : 4, verizon: change === 'anyChange' ? 0 : 3 }),
		changedEvents,
		returnEvents,
		stored: (state) => Object.keys((state as { stock: object }).stock),
	};
}

const ADAPTERS: Adapter[] = [
	stockAdapter('becameAvailable', ['became_available|Denver|verizon|0|available|3|available'], ['became_available|Denver|att|0|null|4|available']),
	stockAdapter('anyChange', ['count_changed|Denver|att|4|available|5|available'], ['count_changed|Denver|att|0|null|4|available']),
	stockAdapter('reachedThreshold', ['reached_threshold|Denver|verizon|0|available|3|available'], ['reached_threshold|Denver|att|0|null|4|available']),
	{
		label: 'proxyExpiring',
		// PRX-X is inside the 24 h window from the start: recorded as seen at the baseline.
		list: () => [proxy('PRX-A'), proxy('PRX-X', { expires_at: iso(T0 + 2 * HOUR) }), proxy('PRX-B', { expires_at: iso(T0 + 30 * HOUR) })],
		subject: 'PRX-X',
		key: nameOf,
		detect: (previous, items, now) =>
			detectExpiring(previous as never, { proxies: items as ProxyRecord[], now }, { event: 'proxyExpiring', withinHours: 24, filters: proxyFilters, output: proxyOutput }),
		changed: (item) => ({ ...(item as ProxyRecord), expires_at: iso(T0 + 6 * HOUR) }),
		changedEvents: [`proxy_expiring|PRX-X|${iso(T0 + 6 * HOUR)}`],
		returnEvents: [`proxy_expiring|PRX-X|${iso(T0 + 2 * HOUR)}`],
		stored: (state) => Object.keys((state as { reported: object }).reported),
	},
	{
		label: 'proxyStatusChanged',
		list: () => [proxy('PRX-A'), proxy('PRX-X'), proxy('PRX-B', { network_status: 'offline' })],
		subject: 'PRX-X',
		key: nameOf,
		detect: (previous, items, now) =>
			detectStatusChanges(previous as never, { proxies: items as ProxyRecord[], now }, {
				event: 'proxyStatusChanged',
				fromStatus: '',
				toStatus: '',
				filters: proxyFilters,
				output: proxyOutput,
			}),
		changed: (item) => ({ ...(item as ProxyRecord), network_status: 'offline' }),
		changedEvents: ['proxy_status_changed|PRX-X|online|offline'],
		// A proxy that is not stored is recorded without an event (there is no status before).
		returnEvents: [],
		stored: (state) => Object.keys((state as { status: object }).status),
	},
	{
		label: 'newProxy',
		list: () => [proxy('PRX-A'), proxy('PRX-X'), proxy('PRX-B')],
		subject: 'PRX-X',
		key: nameOf,
		detect: (previous, items, now) => detectNewProxies(previous as never, { proxies: items as ProxyRecord[], now }, { event: 'newProxy', filters: proxyFilters, output: proxyOutput }),
		// Only names matter to New Proxy: a changed record is not new.
		changed: (item) => ({ ...(item as ProxyRecord), network_status: 'offline' }),
		changedEvents: [],
		returnEvents: ['new_proxy|PRX-X'],
		stored: (state) => (state as { names: string[] }).names,
	},
];

/** One poll's list: the full list, without the subject (`missing`) or with it changed (`changed`). */
type Step = { at: number; list: 'full' | 'missing' | 'changed' };

/** Runs the adapter from a baseline at T0 through `steps`; returns each step's events and the states. */
function run(adapter: Adapter, steps: Step[]) {
	const full = adapter.list();
	let state = adapter.detect(null, full, T0).nextState;
	const baseline = state;
	const events: string[][] = [];
	const states: TriggerState[] = [];
	for (const step of steps) {
		const items =
			step.list === 'full' ? full : step.list === 'missing' ? full.filter((item) => adapter.key(item) !== adapter.subject) : full.map((item) => (adapter.key(item) === adapter.subject ? adapter.changed(item) : item));
		const result = adapter.detect(state, items, step.at);
		events.push(result.events.map(eventKey));
		state = result.nextState;
		states.push(state);
	}
	return { baseline, events, states, state };
}

const missing = (...minutes: number[]): Step[] => minutes.map((m) => ({ at: T0 + m * MINUTE, list: 'missing' as const }));
const back = (minutes: number, list: 'full' | 'changed' = 'full'): Step => ({ at: T0 + minutes * MINUTE, list });

describe('grace period constants', () => {
	it('are 3 polls and one hour, and the state layout is version 2', () => {
		expect(GRACE_POLLS).toBe(3);
		expect(GRACE_MS).toBe(3_600_000);
		expect(STATE_VERSION).toBe(2);
	});

	it('stillMissing counts polls from the first miss and forgets only at 3 polls AND one hour', () => {
		expect(stillMissing(undefined, T0)).toEqual([1, T0]);
		expect(stillMissing([1, T0], T0 + 2 * HOUR)).toEqual([2, T0]);
		expect(stillMissing([2, T0], T0 + 59 * MINUTE)).toEqual([3, T0]);
		expect(stillMissing([2, T0], T0 + HOUR)).toBeUndefined();
		expect(stillMissing([9, T0], T0 + HOUR - 1)).toEqual([10, T0]);
		// The service's clock went back: the hour starts again from now.
		expect(stillMissing([5, T0], T0 - HOUR)).toEqual([6, T0 - HOUR]);
	});
});

describe.each(ADAPTERS.map((adapter) => [adapter.label, adapter] as const))('%s with a grace period', (_label, adapter) => {
	it.each([1, 2])('missing from %i poll(s), then back unchanged: no event, and the state is as before', (misses) => {
		const steps = [...missing(...Array.from({ length: misses }, (_, i) => 10 * (i + 1))), back(10 * (misses + 1))];
		const { baseline, events, states, state } = run(adapter, steps);
		expect(events.flat()).toEqual([]);
		// While missing: kept, as it was, and marked.
		for (let i = 0; i < misses; i++) {
			expect(adapter.stored(states[i])).toContain(adapter.subject);
			expect(states[i].gone).toEqual({ [adapter.subject]: [i + 1, T0 + 10 * MINUTE] });
		}
		// Back: the mark is cleared and the state is the baseline again.
		expect(state.gone).toBeUndefined();
		expect(sameJson(state, baseline)).toBe(true);
	});

	it('missing from 3 or more polls but for less than an hour: still kept; back unchanged: no event', () => {
		const { events, states } = run(adapter, [...missing(5, 10, 15, 20, 25, 64), back(65)]);
		expect(events.flat()).toEqual([]);
		expect(adapter.stored(states[5])).toContain(adapter.subject);
		expect(states[5].gone).toEqual({ [adapter.subject]: [6, T0 + 5 * MINUTE] });
	});

	it('missing for an hour or more but from fewer than 3 polls: still kept; back unchanged: no event', () => {
		const { events, states } = run(adapter, [...missing(10, 130), back(140)]);
		expect(events.flat()).toEqual([]);
		expect(states[1].gone).toEqual({ [adapter.subject]: [2, T0 + 10 * MINUTE] });
	});

	it('missing from 3 polls over an hour: forgotten; its return is what the event defines for an unknown entry', () => {
		const { events, states } = run(adapter, [...missing(10, 40, 70), back(80)]);
		expect(events.slice(0, 3).flat()).toEqual([]);
		expect(adapter.stored(states[1])).toContain(adapter.subject);
		expect(adapter.stored(states[2])).not.toContain(adapter.subject);
		expect(states[2].gone).toBeUndefined();
		expect(events[3]).toEqual(adapter.returnEvents);
		expect(adapter.stored(states[3])).toContain(adapter.subject);
	});

	it('back changed after missing: exactly the event of the change, against what was kept', () => {
		const { events, state } = run(adapter, [...missing(10, 20), back(30, 'changed'), back(40, 'changed')]);
		expect(events).toEqual([[], [], adapter.changedEvents, []]);
		expect(state.gone).toBeUndefined();
	});

	it('an entry that comes back clears its mark: missing again counts from 1', () => {
		const { events, states } = run(adapter, [...missing(10, 40), back(50), ...missing(60, 70, 80), back(90)]);
		expect(events.flat()).toEqual([]);
		expect(states[2].gone).toBeUndefined();
		expect(states[5].gone).toEqual({ [adapter.subject]: [3, T0 + 60 * MINUTE] });
	});

	it('only stored entries have marks, and the other entries are untouched', () => {
		const { states, baseline } = run(adapter, missing(10));
		const kept = states[0];
		expect(Object.keys(kept.gone ?? {})).toEqual([adapter.subject]);
		expect(adapter.stored(kept).sort()).toEqual(adapter.stored(baseline).sort());
	});
});

describe('version 1 states (before the grace period)', () => {
	const V1: Array<[TriggerState['event'], IDataObject, Adapter]> = [
		['stockChanged', { v: 1, event: 'stockChanged', stock: { 'Austin|TX': { s: 'available', c: { att: 10 } }, 'Denver|CO': { s: 'available', c: { att: 4 } }, 'Miami|FL': { s: 'out', c: {} } } }, ADAPTERS[0]],
		['proxyExpiring', { v: 1, event: 'proxyExpiring', reported: { 'PRX-X': iso(T0 + 2 * HOUR) } }, ADAPTERS[3]],
		['proxyStatusChanged', { v: 1, event: 'proxyStatusChanged', status: { 'PRX-A': 'online', 'PRX-X': 'online', 'PRX-B': 'offline' } }, ADAPTERS[4]],
		['newProxy', { v: 1, event: 'newProxy', names: ['PRX-A', 'PRX-X', 'PRX-B'] }, ADAPTERS[5]],
	];

	it.each(V1)('%s: a version 1 state is read as version 2 with nothing missing; the same list emits nothing and writes nothing', (event, v1, adapter) => {
		const staticData = JSON.parse(JSON.stringify(v1)) as IDataObject;
		const previous = loadState(staticData, event);
		expect(previous).not.toBeNull();
		expect(previous).toMatchObject({ v: STATE_VERSION, event });
		expect(previous?.gone).toBeUndefined();
		const { events, nextState } = adapter.detect(previous, adapter.list(), T0);
		expect(events).toEqual([]);
		commitState(staticData, nextState, previous);
		// Nothing changed, so n8n has nothing to save: the static data is still the version 1 state.
		expect(staticData).toEqual(v1);
	});

	it.each(V1)('%s: a partial list after the upgrade keeps the missing entry and writes version 2 with its mark', (event, v1, adapter) => {
		const staticData = JSON.parse(JSON.stringify(v1)) as IDataObject;
		const partial = adapter.list().filter((item) => adapter.key(item) !== adapter.subject);
		const previous = loadState(staticData, event);
		const { events, nextState } = adapter.detect(previous, partial, T0);
		expect(events).toEqual([]);
		commitState(staticData, nextState, previous);
		expect(staticData).toMatchObject({ v: 2, event, gone: { [adapter.subject]: [1, T0] } });
		const reloaded = loadState(JSON.parse(JSON.stringify(staticData)) as IDataObject, event);
		expect(reloaded?.gone).toEqual({ [adapter.subject]: [1, T0] });
		expect(adapter.detect(reloaded, adapter.list(), T0 + MINUTE).events).toEqual([]);
	});

	it('damaged marks, or an unknown version, are not trusted (a new baseline)', () => {
		const names = ['PRX-A'];
		expect(loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [0, T0] } }, 'newProxy')).toBeNull();
		expect(loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [1, 'yesterday'] } }, 'newProxy')).toBeNull();
		expect(loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [1] } }, 'newProxy')).toBeNull();
		expect(loadState({ v: 2, event: 'newProxy', names, gone: ['PRX-A'] }, 'newProxy')).toBeNull();
		expect(loadState({ v: 3, event: 'newProxy', names }, 'newProxy')).toBeNull();
		expect(loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [2, T0] } }, 'newProxy')).toEqual({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [2, T0] } });
	});
});

// ----- randomized, still pure ----------------------------------------------------------------------------


/** A small account whose entries change, drop out of replies, and (for churn) go for good. */
function account(adapter: Adapter, size: number) {
	const isStock = adapter.label.startsWith('stock');
	const made = new Map<string, Item>();
	const create = (i: number, version: number): Item =>
		isStock
			? city(`City${i}`, 'TX', { att: version % 3 === 0 ? 0 : version, verizon: version % 2 })
			: proxy(`PRX-${i}`, {
					// Every proxy stays inside the 24 h window, so Proxy Expiring stores all of them; an
					// extension (a new version) moves the expiry later, still inside it.
					expires_at: iso(T0 - 48 * HOUR + version * HOUR),
					network_status: ['online', 'offline', 'rebooting'][version % 3],
				});
	// The same record object for the same version, as a list of 10,000 would not be rebuilt either.
	const make = (i: number, version: number): Item => {
		const id = `${i}:${version}`;
		let item = made.get(id);
		if (item === undefined) made.set(id, (item = create(i, version)));
		return item;
	};
	const entries = new Map<number, { version: number }>();
	for (let i = 0; i < size; i++) entries.set(i, { version: 1 });
	return {
		entries,
		items: (drop: (i: number) => boolean) => [...entries].filter(([i]) => !drop(i)).map(([i, e]) => make(i, e.version)),
		/** The entry key of index i, as the adapter keys it. */
		key: (i: number) => adapter.key(make(i, 1)),
	};
}

describe('state size is bounded whatever the number of polls', () => {
	it.each(ADAPTERS.map((adapter) => [adapter.label, adapter] as const))(
		'%s: 1,000 polls with partial lists and churn keep at most the listed entries plus the ones inside their grace period',
		(_label, adapter) => {
			const rnd = prng(11);
			const acc = account(adapter, 40);
			let next = 40;
			let now = T0;
			let state = adapter.detect(null, acc.items(() => false), now).nextState;
			const baselineSize = JSON.stringify(state).length;
			let maxEntries = 0;
			let maxMarks = 0;
			let maxSize = 0;
			const strayMarks: string[] = [];
			for (let poll = 1; poll <= 1_000; poll++) {
				now += 5 * MINUTE;
				// Every 10 polls one entry goes for good and a new one comes.
				if (poll % 10 === 0) {
					acc.entries.delete([...acc.entries.keys()][rnd.int(0, acc.entries.size - 1)]);
					acc.entries.set(next++, { version: 1 });
				}
				const items = acc.items(() => rnd.chance(0.3));
				state = adapter.detect(state, items, now).nextState;
				const stored = new Set(adapter.stored(state));
				const marks = Object.keys(state.gone ?? {});
				// Every mark belongs to a stored entry that is not listed.
				const listed = new Set(items.map(adapter.key));
				for (const key of marks) if (!stored.has(key) || listed.has(key)) strayMarks.push(key);
				maxEntries = Math.max(maxEntries, stored.size);
				maxMarks = Math.max(maxMarks, marks.length);
				maxSize = Math.max(maxSize, JSON.stringify(state).length);
			}
			expect(strayMarks).toEqual([]);
			// A deleted entry is forgotten after at most 13 polls of 5 minutes (3 polls and an hour), so at
			// most 2 deleted entries are kept at once, besides the 40 listed ones.
			expect(maxEntries).toBeLessThanOrEqual(42);
			expect(maxMarks).toBeLessThanOrEqual(42);
			// At most those entries, each with a mark of about 30 characters: no growth with the polls.
			expect(maxSize).toBeLessThan(baselineSize * 1.1 + maxMarks * 40);
		},
	);
});

/**
 * n8n 2.x saves static data only when a poll emits, so after a restart the trigger goes back to the
 * state of the last emitting poll. That is the same as if the polls in between had not happened,
 * except for the missing marks: an entry marked missing then may have come back in a lost poll.
 * The trigger therefore restarts marks it did not store itself (poll.ts); this property test runs
 * the detect functions through many reverting restarts, with entries that flap in and out of
 * partial lists (never missing from more than 2 lists in a row, so none is ever due to be
 * forgotten), and checks that no event is emitted twice for the same change.
 */
describe('going back to the state of the last emitting poll never repeats an event', () => {
	function simulate(adapter: Adapter, restartMarks: boolean, seed: number) {
		const rnd = prng(seed);
		const acc = account(adapter, 12);
		const streak = new Map<number, number>();
		let now = T0;
		let state: TriggerState = adapter.detect(null, acc.items(() => false), now).nextState;
		// The baseline emits nothing, so n8n 2.x has not saved it: a restart before the first event
		// would start a new baseline. Here it counts as saved, the harder case.
		let saved = state;
		// As poll.ts does: the marks are used as stored only when they are the ones stored last.
		const compared = (stored: TriggerState) => (!restartMarks || sameJson(stored.gone, state.gone) ? stored : withoutMarks(stored));
		const seen = new Set<string>();
		const repeated: string[] = [];
		let emitted = 0;
		let reverts = 0;
		let added = 100;
		for (let poll = 0; poll < 2_000; poll++) {
			now += rnd.int(5, 45) * MINUTE;
			for (const [, entry] of acc.entries) if (rnd.chance(0.03)) entry.version += 1;
			// Now and then a new entry (never one that was there before), so every event has polls that emit.
			if (rnd.chance(0.02)) acc.entries.set(added++, { version: 1 });
			// A partial list: each entry may be dropped, but never from more than 2 lists in a row.
			const dropped = (i: number) => {
				const drop = (streak.get(i) ?? 0) < 2 && rnd.chance(0.35);
				streak.set(i, drop ? (streak.get(i) ?? 0) + 1 : 0);
				return drop;
			};
			let previous = state;
			if (rnd.chance(0.1)) {
				reverts += 1;
				previous = saved;
			}
			const { events, nextState } = adapter.detect(compared(previous), acc.items(dropped), now);
			state = nextState;
			if (events.length > 0) saved = state;
			for (const item of events) {
				// The same change of the same version of an entry, reported twice, is a repeat.
				const name = String(item.proxy_name ?? `${item.city}|${item.state}`);
				const index = Number(/(\d+)/.exec(name)?.[1]);
				const key = `${eventKey(item)}#v${acc.entries.get(index)?.version}`;
				emitted += 1;
				if (seen.has(key)) repeated.push(key);
				seen.add(key);
			}
		}
		return { emitted, repeated, reverts };
	}

	it.each(ADAPTERS.map((adapter) => [adapter.label, adapter] as const))('%s: 2,000 polls, about 200 reverting restarts, no repeat', (_label, adapter) => {
		const result = simulate(adapter, true, 7);
		expect(result.reverts).toBeGreaterThan(150);
		expect(result.repeated).toEqual([]);
		if (adapter.label !== 'proxyStatusChanged' && adapter.label !== 'newProxy') expect(result.emitted).toBeGreaterThan(20);
	});

	it('without restarting the marks, the same runs do repeat events (so the restart is needed)', () => {
		// New Proxy and Proxy Expiring report a forgotten entry again when it returns.
		expect(simulate(ADAPTERS[5], false, 7).repeated.length).toBeGreaterThan(0);
		expect(simulate(ADAPTERS[3], false, 7).repeated.length).toBeGreaterThan(0);
	});
});
