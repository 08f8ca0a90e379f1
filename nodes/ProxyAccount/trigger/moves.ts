/**
 * Change Location (`POST /v1/proxies/swap/{name}`) moves a proxy: the same proxy, with the same paid
 * time, comes back under a new name and port (its carrier, city and server IP may change). To the
 * trigger that looks like a proxy missing from the list while a new one appears. This module tells
 * such a move from a removal and a purchase, from what the two records carry.
 *
 * A move keeps the paid time, so the new record has the same `expires_at`. The simulator also keeps
 * `added_at`; whether the live service does is open, so two rules are tried in turn:
 * 1. strong: the same `expires_at` and the same `added_at`;
 * 2. fallback (the service gave the moved proxy a new `added_at`): the same `expires_at`, `period`
 *    and `auto_renew`.
 *
 * A pair is taken only when it is unambiguous under the rule: the vanished proxy is the only one
 * that matches the new proxy, and the new proxy the only one that matches the vanished proxy. When
 * two proxies vanish and two (or one) appear with the same paid time, nothing says which went where,
 * so none of them is paired: they are treated as before (the vanished ones are reported removed when
 * their grace period ends, the new ones are new). A missed move is reported as a removal, as it was
 * before moves were recognized; a wrong pairing would hide a real removal, which is worse.
 */

/** The fields of a record that say whose paid time it is. Missing or other types never match. */
export interface PaidTime {
	expires_at?: unknown;
	added_at?: unknown;
	period?: unknown;
	auto_renew?: unknown;
}

/** An instant as comparable text: its epoch milliseconds, or the text itself when unreadable. */
function instantKey(value: unknown): string | undefined {
	if (typeof value !== 'string' || value === '') return undefined;
	const at = Date.parse(value);
	return Number.isNaN(at) ? `text:${value}` : String(at);
}

function sameInstant(a: unknown, b: unknown): boolean {
	const key = instantKey(a);
	return key !== undefined && key === instantKey(b);
}

type Rule = (vanished: PaidTime, appeared: PaidTime) => boolean;

/** The rules, strongest first (the expiry is compared by the grouping in `pairMoves`). */
const RULES: readonly Rule[] = [
	(vanished, appeared) => sameInstant(vanished.added_at, appeared.added_at),
	(vanished, appeared) =>
		typeof vanished.period === 'string' &&
		vanished.period === appeared.period &&
		typeof vanished.auto_renew === 'boolean' &&
		vanished.auto_renew === appeared.auto_renew,
];

type Named<T> = [name: string, paid: T];

/** The entries with a readable `expires_at`, grouped by it. */
function byExpiry<T extends PaidTime>(entries: Iterable<Named<T>>): Map<string, Array<Named<T>>> {
	const groups = new Map<string, Array<Named<T>>>();
	for (const entry of entries) {
		const key = instantKey(entry[1].expires_at);
		if (key === undefined) continue;
		const group = groups.get(key);
		if (group) group.push(entry);
		else groups.set(key, [entry]);
	}
	return groups;
}

/** The unambiguous pairs of one expiry group under one rule, added to `moves` (new => old). */
function pairGroup<T extends PaidTime>(
	vanished: Array<Named<T>>,
	appeared: Array<Named<T>>,
	rule: Rule,
	moves: Map<string, string>,
	paired: Set<string>,
): void {
	const gone = vanished.filter(([name]) => !paired.has(name));
	const arrived = appeared.filter(([name]) => !moves.has(name));
	for (const [newName, paid] of arrived) {
		const candidates = gone.filter(([, old]) => rule(old, paid));
		if (candidates.length !== 1) continue;
		const [oldName, old] = candidates[0];
		if (arrived.filter(([, other]) => rule(old, other)).length !== 1) continue;
		moves.set(newName, oldName);
		paired.add(oldName);
	}
}

/**
 * The moves among `vanished` (stored proxies missing from this list, including those already in
 * their grace period) and `appeared` (listed proxies that were not stored), as new name => old name.
 * Only unambiguous pairs (see above); the rules are tried strongest first, each on what the
 * stronger ones left.
 */
export function pairMoves<T extends PaidTime>(
	vanished: Iterable<Named<T>>,
	appeared: Iterable<Named<T>>,
): Map<string, string> {
	const moves = new Map<string, string>();
	const arrivedGroups = byExpiry(appeared);
	if (arrivedGroups.size === 0) return moves;
	const paired = new Set<string>();
	for (const [expiry, gone] of byExpiry(vanished)) {
		const arrived = arrivedGroups.get(expiry);
		if (!arrived) continue;
		for (const rule of RULES) pairGroup(gone, arrived, rule, moves, paired);
	}
	return moves;
}
