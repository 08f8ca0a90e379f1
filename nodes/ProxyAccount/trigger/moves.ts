/**
 * Change Location moves a proxy, with its paid time, to a new name: two rules, tried in turn
 * (docs/trigger.md, "Moved proxies"). A pair is taken only when each is the other's only match: a
 * wrong pairing would hide a real removal, worse than a missed move ("The residual ambiguity").
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
 * The unambiguous moves from `vanished` to `appeared`, as new name => old name, added to `moves`;
 * the rules are tried in order, each on what the earlier ones left.
 */
export function pairMoves(
	vanished: Named[],
	appeared: Named[],
	rules: readonly Rule[] = [SAME_ADDED, SAME_EXPIRY_AND_PLAN],
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
