/**
 * Proxy Expiring with moves (Proxy > Change Location), randomized on the pure detect function,
 * against the reference model `movesAccount` (test/harness/grace-model.ts): over 2,000 polls with
 * purchases, removals, moves (the service keeping `added_at` or not, the new name shown one or two
 * polls later), partial lists (never more than 2 in a row) and n8n 2.x reverting restarts, with a
 * window that holds every proxy, each purchase's expiry is reported at most once whatever name the
 * proxy has by then (0 duplicated), a proxy of the baseline never, and the state stays bounded.
 */
import type { ProxyRecord } from '../../nodes/ProxyAccount/transport';
import type { ExpiringState } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectExpiring } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { withoutMarks } from '../../nodes/ProxyAccount/trigger/state';
import { MINUTE, T0, movesAccount, nameOf, partialLists, proxyFilters, proxyOutput } from '../harness/grace-model';
import { prng } from '../harness/prng';

function simulate(seed: number, reverts: boolean) {
	const rnd = prng(seed);
	const model = movesAccount(rnd);
	const detect = (previous: ExpiringState | null, proxies: ProxyRecord[], now: number) =>
		detectExpiring(previous, { proxies, now }, { event: 'proxyExpiring', withinHours: 100_000, filters: proxyFilters, output: proxyOutput });
	let now = T0;
	let state = detect(null, model.list(), now).nextState;
	let saved = state;
	const baseline = new Set(model.list().map((record) => model.identity(nameOf(record))));
	const lists = partialLists(rnd, model.list());
	const reported = new Map<string, number>();
	const duplicated: string[] = [];
	let maxBytes = 0;
	const poll = (list: ProxyRecord[], revert: boolean) => {
		// As poll.ts does after an n8n 2.x restart: back to the last emitting poll's state, marks restarted.
		const previous = revert && saved !== state ? withoutMarks(saved) : state;
		const { events, nextState } = detect(previous, list, now);
		for (const item of events) {
			const key = `${model.identity(String(item.proxy_name))}|${Date.parse(String(item.expires_at))}`;
			if (reported.has(key)) duplicated.push(`${String(item.proxy_name)} ${key}`);
			reported.set(key, (reported.get(key) ?? 0) + 1);
		}
		state = nextState;
		if (events.length > 0) saved = state;
		maxBytes = Math.max(maxBytes, JSON.stringify(state).length / Math.max(1, Object.keys(state.reported).length));
	};
	for (let i = 0; i < 2_000; i++) {
		now += rnd.int(5, 45) * MINUTE;
		model.step(now, lists.lastListed);
		// A partial list hides names already shown, never from more than 2 lists in a row.
		const list = lists.of(model.list());
		poll(list, reverts && rnd.chance(0.1));
	}
	return { model, reported, duplicated, baseline, maxBytes };
}

describe('Proxy Expiring with moves: each expiry once, under whatever name the proxy has', () => {
	it.each([1, 3, 16, 19, 22, 42])('seed %i: 2,000 polls, with and without n8n 2.x reverting restarts, 0 duplicated', (seed) => {
		for (const reverts of [false, true]) {
			const { model, reported, duplicated, baseline, maxBytes } = simulate(seed, reverts);
			expect(model.moved.size).toBeGreaterThan(50);
			expect(duplicated).toEqual([]);
			// The proxies of the baseline were inside the window from the start: never reported, moved or not.
			const identities = [...reported.keys()].map((key) => Number(key.split('|')[0]));
			expect(identities.filter((identity) => baseline.has(identity))).toEqual([]);
			// Every purchase was inside the window when it showed: reported (once).
			expect(reported.size).toBeGreaterThan(50);
			// Every proxy inside the window (the largest state): under the bench's 100 bytes a proxy
			// stored, its paid time and its missing mark included.
			expect(maxBytes).toBeLessThan(100);
		}
	});
});
