/**
 * Change Location (`POST /v1/proxies/swap/{name}`) moves a proxy: the same proxy, with the same paid
 * time, comes back under a new name and port (its carrier, city and server IP may change). To the
 * trigger that looks like a proxy missing from the list while a new one appears. This module tells
 * such a move from a removal and a purchase, from what the two records carry.
 *
 * What a move keeps is only partly published: the service's reference (account-operations.md, #11)
 * says the name and port change, the server IP may, and `copy_settings` carries over the rotation,
 * authentication and whitelist settings; it says nothing of `added_at`, the expiry, the period or
 * auto-renew. A move that keeps the paid time keeps the expiry; the simulator also keeps `added_at`.
 * So two rules are tried in turn:
 * 1. strong: the same `added_at`, and an expiry no earlier than the one stored (the proxy may have
 *    been extended or auto-renewed since it was stored, also at polls that n8n 2.x did not save:
 *    after a restart the stored expiry can be older than the one the moved proxy carries);
 * 2. fallback (the service gave the moved proxy a new `added_at`): the same expiry, period and
 *    auto-renew.
 *
 * A pair is taken only when it is unambiguous under the rule: the vanished proxy is the only one
 * that matches the new proxy, and the new proxy the only one that matches the vanished proxy. When
 * two proxies vanish and two (or one) appear with the same paid time, nothing says which went where,
 * so none of them is paired: the vanished ones are reported removed when their grace period ends,
 * the new ones are new. A wrong pairing would hide a real removal, which is worse than a missed move.
 * One wrong pairing remains possible: a removal and a purchase within one grace period whose
 * expiries fall on the same second, with the same period and auto-renew, look exactly like a move
 * that got a new `added_at` (docs/trigger.md, "The residual ambiguity").
 */

/** What says whose paid time a proxy is: instants as epoch ms, `plan` its period and auto-renew. */
export interface Identity {
	added: number | null;
	expires: number | null;
	plan: string | null;
	/** When the trigger first listed it, when that was lately (undefined: long ago, or now). */
	seen?: number;
}

type Named = [name: string, id: Identity];

interface Rule {
	/** The group both must share (undefined: not comparable under the rule). */
	key(id: Identity): string | undefined;
	/** Whether `appeared` can be `vanished` moved, within a group. */
	fits(vanished: Identity, appeared: Identity): boolean;
}

export const SAME_ADDED: Rule = {
	// To the second: the same instant written with or without milliseconds.
	key: (id) => (id.added === null ? undefined : String(Math.floor(id.added / 1000))),
	fits: (vanished, appeared) =>
		vanished.expires !== null &&
		appeared.expires !== null &&
		Math.floor(appeared.expires / 1000) >= Math.floor(vanished.expires / 1000) &&
		// The new name was first listed after the old one (proxies bought together never pair).
		(appeared.seen ?? Infinity) > (vanished.seen ?? -Infinity),
};

const SAME_EXPIRY_AND_PLAN: Rule = {
	key: (id) =>
		id.expires === null || id.plan === null
			? undefined
			: `${Math.floor(id.expires / 1000)}|${id.plan}`,
	fits: () => true,
};

/** Both rules, strongest first. */
export const RULES: readonly Rule[] = [SAME_ADDED, SAME_EXPIRY_AND_PLAN];

function groups(entries: Iterable<Named>, rule: Rule): Map<string, Named[]> {
	const out = new Map<string, Named[]>();
	for (const entry of entries) {
		const key = rule.key(entry[1]);
		if (key === undefined) continue;
		const group = out.get(key);
		if (group) group.push(entry);
		else out.set(key, [entry]);
	}
	return out;
}

/**
 * The moves among `vanished` (stored proxies missing from this list, or, with SAME_ADDED only,
 * still listed) and `appeared` (proxies new to the trigger), as new name => old name, added to
 * `moves`. Only unambiguous pairs; the rules are tried in order, each on what the earlier ones left.
 */
export function pairMoves(
	vanished: Named[],
	appeared: Named[],
	rules: readonly Rule[] = RULES,
	moves: Map<string, string> = new Map(),
): Map<string, string> {
	if (vanished.length === 0 || appeared.length === 0) return moves;
	const paired = new Set(moves.values());
	for (const rule of rules) {
		const arrivedGroups = groups(
			appeared.filter(([name]) => !moves.has(name)),
			rule,
		);
		for (const [key, gone] of groups(
			vanished.filter(([name]) => !paired.has(name)),
			rule,
		)) {
			const arrived = arrivedGroups.get(key);
			if (!arrived) continue;
			for (const [newName, id] of arrived) {
				const candidates = gone.filter(([old, from]) => !paired.has(old) && rule.fits(from, id));
				if (candidates.length !== 1) continue;
				const [oldName, old] = candidates[0];
				if (arrived.filter(([, other]) => rule.fits(old, other)).length !== 1) continue;
				moves.set(newName, oldName);
				paired.add(oldName);
			}
		}
	}
	return moves;
}
