/** What changes in the simulated account between two trigger polls (bench and smoke test). */
import type { ProxyAccountSimulator } from '../test/simulator';
import { formatTimestamp } from '../test/simulator';

/** A small deterministic generator, so every event and every run sees the same changes. */
export function lcg(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
		return state / 2 ** 32;
	};
}

const STATUSES = ['online', 'offline', 'rebooting'];
export const POLL_INTERVAL_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * Five minutes pass; five stock counts change; five proxies change network status; one proxy is
 * removed and another added (the account keeps its size); of five proxies picked at random, those
 * within a day of expiry are extended by a week, as an auto-extend workflow would.
 */
export function changeBetweenPolls(sim: ProxyAccountSimulator, random: () => number): void {
	const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
	sim.clock.advance(POLL_INTERVAL_MS);
	for (let i = 0; i < 5; i++) sim.setStockCount(pick(sim.stock).city, pick(sim.carriers).key, Math.floor(random() * 11));
	const proxies = sim.account().proxies;
	const records = [...proxies.values()];
	for (let i = 0; i < 5; i++) {
		const proxy = pick(records);
		proxy.network_status = pick(STATUSES.filter((status) => status !== proxy.network_status));
	}
	proxies.delete(pick(records).proxy_name);
	sim.addProxy(null, {});
	const now = sim.clock.now();
	for (let i = 0; i < 5; i++) {
		const proxy = pick(records);
		const at = Date.parse(proxy.expires_at);
		if (proxies.has(proxy.proxy_name) && at - now <= DAY_MS) proxy.expires_at = formatTimestamp(Math.max(at, now) + WEEK_MS, sim.utcOffsetMinutes);
	}
}
