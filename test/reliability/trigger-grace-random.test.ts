/**
 * Randomized tests of the trigger's grace period on the pure detect functions: over thousands of polls
 * with partial lists, churn and n8n 2.x restarts that go back to the state of the last emitting poll,
 * the state stays bounded and no event is ever repeated. Proxies left out of a list are read by name
 * as poll.ts reads them (`withReads`: found, listed; not found, gone; issue 36).
 */

import type { ProxyRecord } from '../../nodes/ProxyAccount/transport';
import { detectRemoved } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import type { RemovedState } from '../../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import type { TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import { sameJson, withoutMarks } from '../../nodes/ProxyAccount/trigger/state';
import { prng } from '../harness/prng';
import {
	MINUTE,
	HOUR,
	T0,
	iso,
	proxy,
	city,
	eventKey,
	type Item,
	type Adapter,
	ADAPTERS,
	movesAccount,
	partialLists,
	proxyFilters,
	withReads,
} from '../harness/grace-model';

// ----- randomized, still pure ----------------------------------------------------------------------------

/** Proxy Removed as `withReads` needs it: its stored names. */
const REMOVED = { label: 'proxyRemoved', stored: (state: TriggerState) => Object.keys((state as RemovedState).known), key: (item: Item) => (item as ProxyRecord).proxy_name } as Adapter;

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
		items: (drop: (i: number) => boolean) =>
			[...entries].filter(([i]) => !drop(i)).map(([i, e]) => make(i, e.version)),
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
			let state = adapter.detect(
				null,
				acc.items(() => false),
				now,
			).nextState;
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
				const read = withReads(adapter, state, acc.items(() => rnd.chance(0.3)), acc.items(() => false), now);
				const { items } = read;
				state = adapter.detect(state, items, now, read.gone).nextState;
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
		let state: TriggerState = adapter.detect(
			null,
			acc.items(() => false),
			now,
		).nextState;
		// The baseline emits nothing, so n8n 2.x has not saved it: a restart before the first event
		// would start a new baseline. Here it counts as saved, the harder case.
		let saved = state;
		// As poll.ts does: the marks are used as stored only when they are the ones stored last.
		const compared = (stored: TriggerState) =>
			!restartMarks || sameJson(stored.gone, state.gone) ? stored : withoutMarks(stored);
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
			const before = compared(previous);
			const read = withReads(adapter, before, acc.items(dropped), acc.items(() => false), now);
			const { events, nextState } = adapter.detect(before, read.items, now, read.gone);
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

	it.each(ADAPTERS.map((adapter) => [adapter.label, adapter] as const))(
		'%s: 2,000 polls, about 200 reverting restarts, no repeat',
		(_label, adapter) => {
			const result = simulate(adapter, true, 7);
			expect(result.reverts).toBeGreaterThan(150);
			expect(result.repeated).toEqual([]);
			if (adapter.label !== 'proxyStatusChanged' && adapter.label !== 'newProxy')
				expect(result.emitted).toBeGreaterThan(20);
		},
	);

	it('without restarting the marks, the same runs do repeat stock events (so the restart is needed); proxies, read by name, never', () => {
		// Stock Changed compares a forgotten city with a count of 0 when it returns.
		expect(ADAPTERS.slice(0, 3).some((adapter) => simulate(adapter, false, 7).repeated.length > 0)).toBe(true);
		// A proxy is forgotten only when the service answers not found by name (issue 36).
		for (const adapter of ADAPTERS.slice(3)) expect(simulate(adapter, false, 7).repeated).toEqual([]);
	});
});

/**
 * Proxy Removed with moves (Proxy > Change Location), against the reference model `movesAccount`:
 * over 2,000 polls with purchases, removals, moves (the service keeping `added_at` or not; the new
 * name shown at once: since issue 36 one shown later is a removal), partial lists (never more than 2 in a row) and n8n 2.x
 * reverting restarts, every removed proxy is reported exactly once (under one of its names) and a
 * proxy only moved never.
 */
describe('Proxy Removed with moves: every removal reported once, no move ever', () => {
	function simulate(seed: number, reverts: boolean) {
		const rnd = prng(seed);
		const model = movesAccount(rnd);
		const detect = (previous: TriggerState | null, list: ProxyRecord[], now: number) => {
			// Read by name as poll.ts does: the account answers every left-out name (issue 36).
			const read = withReads(REMOVED, previous, list, model.list(), now);
			const observation = { proxies: read.items as ProxyRecord[], now, gone: read.gone };
			return detectRemoved(previous as RemovedState | null, observation, { event: 'proxyRemoved', filters: proxyFilters });
		};
		let now = T0;
		let state = detect(null, model.list(), now).nextState;
		let saved = state;
		const lists = partialLists(rnd, model.list());
		const reported: string[] = [];
		/** Reports of a proxy (only moved) whose current name the poll's list left out (see below). */
		const leftOutMoves = new Set<string>();
		let maxSize = 0;
		const poll = (list: ProxyRecord[], revert: boolean) => {
			// As poll.ts does: back to the last emitting poll's state, its marks restarted.
			const previous = revert && saved !== state ? withoutMarks(saved) : state;
			const { events, nextState } = detect(previous, list, now);
			reported.push(...events.map((item) => String(item.proxy_name)));
			// A proxy the account still holds, under a name this poll's list left out.
			const shown = new Set(list.map((p) => model.identity(p.proxy_name)));
			const held = new Set(model.list().map((p) => model.identity(p.proxy_name)));
			for (const item of events) {
				const id = model.identity(String(item.proxy_name));
				if (held.has(id) && !shown.has(id)) leftOutMoves.add(String(item.proxy_name));
			}
			state = nextState;
			if (events.length > 0) saved = state;
			maxSize = Math.max(maxSize, Object.keys((state as RemovedState).known).length);
		};
		for (let i = 0; i < 2_000; i++) {
			now += rnd.int(5, 45) * MINUTE;
			model.step(now, lists.lastListed);
			// A move's new name shows at once: one that shows only after the poll that finds the old
			// name gone is a removal since issue 36 (docs/trigger.md, Moved proxies).
			model.showMoves();
			// A partial list hides names already shown, never from more than 2 lists in a row.
			const list = lists.of(model.list());
			poll(list, reverts && rnd.chance(0.1));
		}
		// Then the moves under way show, and full lists over more than the grace period: every
		// removal is due.
		model.showMoves();
		for (let i = 0; i < 4; i++) {
			now += 30 * MINUTE;
			poll(model.list(), false);
		}
		return { model, reported, proxies: reported.map(model.identity), maxSize, leftOutMoves };
	}

	it.each([1, 3, 16, 19, 22, 42])('seed %i: 2,000 polls, exactly the removed proxies, once each', (seed) => {
		const { model, proxies, maxSize } = simulate(seed, false);
		expect(model.moved.size).toBeGreaterThan(50);
		expect(model.removed.size).toBeGreaterThan(50);
		// Exactly the removed proxies, each once: none only moved.
		expect([...proxies].sort((a, b) => a - b)).toEqual([...model.removed].sort((a, b) => a - b));
		// Bounded: the account (about 20 to 120 proxies) plus those inside their grace period.
		expect(maxSize).toBeLessThan(model.list().length + 40);
	});

	it.each([1, 3, 16, 19, 22, 42])('seed %i: with n8n 2.x reverting restarts, never a moved proxy, never twice', (seed) => {
		const { model, reported, proxies, leftOutMoves } = simulate(seed, true);
		// A report names a removed proxy (by a name it had: a reverted trigger may know only an older
		// one), never one only moved, but for the residual issue 36 documents: a reverted trigger that
		// finds an old name gone at a poll whose partial list leaves out the proxy's current name
		// (docs/trigger.md, Moved proxies). A proxy bought and removed between two emitting polls can be
		// lost by a revert (the trigger never knew it), as before moves were recognized.
		expect(reported.filter((name, i) => !model.removed.has(proxies[i]) && !leftOutMoves.has(name))).toEqual([]);
		const once = proxies.filter((_id, i) => !leftOutMoves.has(reported[i]));
		expect(new Set(once).size).toBe(once.length);
		// That residual stays rare: under a tenth of the reports, with a revert at every tenth poll.
		expect(leftOutMoves.size).toBeLessThan(reported.length / 10);
		expect(proxies.length).toBeGreaterThan(model.removed.size * 0.9);
	});
});
