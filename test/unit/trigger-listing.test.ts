/**
 * The proxy events remember, in this process, the maps they built and the record each value was
 * made from (trigger/listing.ts), to compare a list with the stored map without looking names up
 * or reading unchanged records again. Whatever the list does (same order, reordered, repeated
 * names, names that leave and come back or move, array-index names, changed fields), each poll must detect
 * exactly what it detects from the same state read back from JSON (as after a restart: nothing
 * remembered), and store the same state; so must a poll whose walk reuses what `leftOut` matched.
 */
import type { IDataObject } from 'n8n-workflow';

import { readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport/schemas';
import { detectExpiring } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectIpChanges } from '../../nodes/ProxyAccount/trigger/events/ipChanged.event';
import { detectNewProxies } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import { detectRemoved } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import { detectStatusChanges } from '../../nodes/ProxyAccount/trigger/events/proxyStatusChanged.event';
import { formatLike, isoOf } from '../../nodes/ProxyAccount/trigger/compact';
import { leftOut } from '../../nodes/ProxyAccount/trigger/listing';
import { TRIGGER } from '../../nodes/ProxyAccount/trigger/events';
import { FILTER_NODE } from '../harness/filter-node';
import { prng } from '../harness/prng';
import type { Prng } from '../harness/prng';
import { HOUR, iso, proxy, T0 } from '../fixtures/records';

const filters = readProxyFilters(FILTER_NODE, undefined, {});
const output = { simplify: true, includePassword: false };
type Detect = (previous: never, observation: { proxies: ProxyRecord[]; now: number }, params: never) => { events: IDataObject[]; nextState: unknown };
const EVENTS: Array<[string, Detect, IDataObject]> = [
	['proxyStatusChanged', detectStatusChanges as Detect, { event: 'proxyStatusChanged', fromStatus: '', toStatus: '', filters, output }],
	['ipChanged', detectIpChanges as Detect, { event: 'ipChanged', onlyAutoRotating: false, filters, output }],
	['newProxy', detectNewProxies as Detect, { event: 'newProxy', filters, output }],
	['proxyRemoved', detectRemoved as Detect, { event: 'proxyRemoved', filters }],
	['proxyExpiring', detectExpiring as Detect, { event: 'proxyExpiring', withinHours: 6, filters, output }],
];

const NAMES = ['a-1', 'b-2', 'c-3', 'd-4', 'e-5', 'f-6', 'g-7', 'h-8', '12', '7', 'constructor', 'toString'];

/** One poll's list: the account's proxies, shuffled, with some left out and some repeated. */
function listOf(random: Prng, account: Map<string, ProxyRecord>): ProxyRecord[] {
	let list = [...account.values()];
	if (random.chance(0.3)) list = list.filter(() => !random.chance(0.3));
	if (random.chance(0.3)) {
		const i = random.int(0, Math.max(0, list.length - 1));
		const j = random.int(0, Math.max(0, list.length - 1));
		[list[i], list[j]] = [list[j], list[i]];
	}
	if (random.chance(0.2) && list.length > 0) list.splice(random.int(0, list.length), 0, { ...random.pick(list), network_status: 'rebooting' });
	// A name listed twice with two expiries: the first record is the one read (Proxy Expiring skips the
	// proxies it knows outside the window, and must not take the second for the first).
	if (random.chance(0.2) && list.length > 0) list.splice(random.int(0, list.length), 0, { ...random.pick(list), expires_at: iso(T0 + random.int(1, 40) * HOUR) });
	// The records as a reply carries them: new objects and new strings each poll.
	return JSON.parse(JSON.stringify(list)) as ProxyRecord[];
}

/** The account between two polls: proxies added, removed, extended, rotated, their status changed. */
function change(random: Prng, account: Map<string, ProxyRecord>, now: number): void {
	for (const name of NAMES) {
		const record = account.get(name);
		if (!record) {
			if (random.chance(0.15)) account.set(name, proxy(name, { added_at: iso(now - random.int(0, 3) * HOUR), expires_at: iso(now + random.int(1, 20) * HOUR) }));
			continue;
		}
		const roll = random.next();
		if (roll < 0.08) account.delete(name);
		else if (roll < 0.3) record.network_status = random.pick(['online', 'offline', 'rebooting']);
		else if (roll < 0.5) record.last_ip_change = random.chance(0.5) ? iso(now - random.int(0, 5) * 60_000) : 'not a time';
		else if (roll < 0.6) record.expires_at = iso(Date.parse(record.expires_at) + 24 * HOUR);
		else if (roll < 0.7) record.city = random.pick(['Austin', 'Dallas']);
		else if (roll < 0.75) record.auto_renew = !record.auto_renew;
		else if (roll < 0.8) record.period = random.pick(['weekly', 'monthly']);
		else if (roll < 0.85) {
			// Moved by Change Location: the same paid time under a name not in the account.
			const to = random.pick(NAMES);
			if (!account.has(to)) {
				account.delete(name);
				account.set(to, { ...record, proxy_name: to });
			}
		}
	}
}

/** The map of the names each event remembers: its module's first state key, as poll.ts reads it. */
const remembers = (event: string) => TRIGGER.events.find((module) => module.event.value === event)?.stateKeys[0] ?? '';
/** The part of the list poll.ts compares that map with (the event's `listToCompare`, or the whole list). */
const compared = (event: string, previous: unknown, list: ProxyRecord[], params: IDataObject, now: number): ProxyRecord[] => {
	const module = TRIGGER.events.find((candidate) => candidate.event.value === event);
	return previous === null ? list : (module?.listToCompare?.(previous as never, list, params as never, now) ?? list);
};

describe('the proxy events remember their maps without changing what they detect', () => {
	for (const [event, detect, params] of EVENTS) {
		it(`${event}: every poll detects and stores what it would from the same state read back from JSON`, () => {
			for (let seed = 1; seed <= 40; seed++) {
				const random = prng(seed);
				const account = new Map<string, ProxyRecord>();
				let remembered: unknown = null;
				let now = T0;
				for (let poll = 0; poll < 30; poll++) {
					now += 20 * 60_000;
					change(random, account, now);
					const list = listOf(random, account);
					const fromJson = remembered === null ? null : JSON.parse(JSON.stringify(remembered));
					const cold = detect(fromJson as never, { proxies: JSON.parse(JSON.stringify(list)), now }, params as never);
					// As the poll does it: the left-out names found first (leftOut), whose matches the walk reuses.
					const aligned = JSON.parse(JSON.stringify(list)) as ProxyRecord[];
					const stored = (remembered as IDataObject | null)?.[remembers(event)];
					if (stored !== undefined && stored !== null && typeof stored === 'object') leftOut(stored as IDataObject, compared(event, remembered, aligned, params, now));
					const warm = detect(remembered as never, { proxies: list, now }, params as never);
					const reused = detect(remembered as never, { proxies: aligned, now }, params as never);
					expect(warm.events).toEqual(cold.events);
					expect(reused.events).toEqual(cold.events);
					// The same state, its entries in the same order (the order removals are reported in).
					expect(JSON.stringify(warm.nextState)).toBe(JSON.stringify(cold.nextState));
					expect(JSON.stringify(reused.nextState)).toBe(JSON.stringify(cold.nextState));
					// Now and then a restart: the state read back from JSON, remembered from then on.
					remembered = poll % 7 === 3 ? JSON.parse(JSON.stringify(warm.nextState)) : warm.nextState;
				}
			}
		});
	}
});

describe('leftOut: the remembered names a reply leaves out (what the trigger reads by name)', () => {
	/** The exact answer: the map's keys, in its order, that no record of the list names. */
	const exactly = (map: Record<string, unknown>, list: ProxyRecord[]) => {
		const names = new Set(list.map((record) => record.proxy_name));
		return Object.keys(map).filter((key) => !names.has(key));
	};
	const reversed = (map: Record<string, unknown>) => Object.fromEntries(Object.entries(map).reverse());

	for (const [event, detect, params] of EVENTS) {
		it(`${event}: over random polls, the stored map's keys missing from the list, in the map's order`, () => {
			let checked = 0;
			let nonEmpty = 0;
			let shorter = 0;
			for (let seed = 1; seed <= 40; seed++) {
				const random = prng(seed);
				const account = new Map<string, ProxyRecord>();
				let remembered: IDataObject | null = null;
				let now = T0;
				for (let poll = 0; poll < 30; poll++) {
					now += 20 * 60_000;
					change(random, account, now);
					const list = listOf(random, account);
					const stored = remembered?.[remembers(event)];
					if (stored !== undefined && stored !== null && typeof stored === 'object') {
						const map = stored as Record<string, unknown>;
						// As built by this process, as read back from JSON, and in another order than the list's.
						for (const form of [map, JSON.parse(JSON.stringify(map)) as Record<string, unknown>, reversed(map)]) {
							const want = exactly(form, list);
							expect(leftOut(form, list)).toEqual(want);
							checked += 1;
							if (want.length > 0) nonEmpty += 1;
						}
						// The part poll.ts compares (Proxy Expiring: without the proxies known outside the window).
						const part = compared(event, remembered, list, params, now);
						expect(leftOut(map, part)).toEqual(exactly(map, list));
						if (part.length < list.length) shorter += 1;
					}
					remembered = detect(remembered as never, { proxies: list, now }, params as never).nextState as IDataObject;
				}
			}
			expect(checked).toBeGreaterThan(1000);
			expect(nonEmpty).toBeGreaterThan(100);
			if (event === 'proxyExpiring') expect(shorter).toBeGreaterThan(100);
		});
	}

	it('a long list in the usual order: one left out, many left out (past the one-by-one check), none', () => {
		const names = Array.from({ length: 500 }, (_, i) => `px-${String(i).padStart(4, '0')}`);
		const map = Object.fromEntries(names.map((name) => [name, 1]));
		const list = (keep: (name: string) => boolean) => names.filter(keep).map((name) => proxy(name));
		expect(leftOut(map, list(() => true))).toEqual([]);
		expect(leftOut(map, list((name) => name !== 'px-0250'))).toEqual(['px-0250']);
		expect(leftOut(map, list((name) => name !== 'px-0499'))).toEqual(['px-0499']);
		const every7th = names.filter((_, i) => i % 7 === 0);
		expect(leftOut(map, list((name) => !every7th.includes(name)))).toEqual(every7th);
		// Listed, but out of place: not left out.
		const moved = list((name) => name !== 'px-0100');
		moved.push(proxy('px-0100'));
		expect(leftOut(map, moved)).toEqual([]);
		expect(leftOut(map, [])).toEqual(names);
	});
});

describe('formatLike', () => {
	/** What it did before: a regular expression for the offset. */
	function reference(ms: number | null | undefined, sample: unknown): string | null {
		const base = isoOf(ms);
		if (base === null || typeof sample !== 'string') return base;
		const offset = /([+-])(\d\d):(\d\d)$/.exec(sample);
		if (offset === null) return base;
		const minutes = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
		return `${new Date((ms as number) + minutes * 60_000).toISOString().slice(0, -1)}${offset[0]}`;
	}

	it('writes an instant as the old regular expression did, for every kind of sample', () => {
		const samples: unknown[] = [undefined, null, 5, '', 'Z', '2025-03-01T12:00:00Z', '2025-03-01T12:00:00.123-06:00', '2025-03-01T12:00:00+05:30', '+05:30', '-0:30', '2025-03-01T12:00:00+5:30', '2025-03-01T12:00:00+05-30', 'x+99:99', 'x-00:00', 'x+1a:00', '2025-03-01T12:00:00.000+14:00\n', 'x+0\u0663:00', 'x+05:3', 'x+05;30', 'x*05:30', '-05:30', 'x+05:30 ', 'x+:05:30'];
		const instants: Array<number | null | undefined> = [null, undefined, Number.NaN, Infinity, 0, T0, T0 + 123, -1e12];
		for (const sample of samples) for (const ms of instants) expect(formatLike(ms, sample)).toBe(reference(ms, sample));
		expect(() => formatLike(9e15, '2025-03-01T12:00:00-06:00')).toThrow(RangeError);
	});
});
