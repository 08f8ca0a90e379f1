/*
 * The batch pipeline of the operations that send many proxies per request (Extend, Set Auto-Renew):
 * items naming the same proxy grouped into one line, the lines cut into batches, and the words a
 * failed batch uses for the proxies and batches around it. Pure: no request is sent here.
 */

/** Proxies named in a message before the rest is only counted. */
export const NAMES_SHOWN = 20;

/** `list` cut into runs of at most `size`, in order. */
export function chunk<T>(list: T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

/** Up to NAMES_SHOWN names, then how many more: "A, B and 3 more". */
export function joinNames(names: string[]): string {
	const shown = names.slice(0, NAMES_SHOWN).join(', ');
	return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

/** Item numbers as a sentence lists them: "0 and 2", "0, 2 and 5". */
export function itemList(items: number[]): string {
	return items.length === 2
		? `${items[0]} and ${items[1]}`
		: `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** What one item asks for one proxy. */
export interface ProxyRequest {
	item: number;
	name: string;
}

/** The items of one proxy that ask the same of it: the first stands for all. */
export interface ProxyGroup<W extends ProxyRequest> {
	first: W;
	all: W[];
}

/**
 * The items grouped by the proxy they name, in the order each proxy is first named. Items that ask
 * the same of a proxy (`same`) form one group; a proxy whose items ask different things is a
 * conflict, all of its items together, for the operation to refuse before anything is sent.
 */
export function groupByProxy<W extends ProxyRequest>(
	wanted: W[],
	same: (a: W, b: W) => boolean,
): { groups: Array<ProxyGroup<W>>; conflicts: W[][] } {
	const byName = new Map<string, W[]>();
	for (const w of wanted) byName.set(w.name, [...(byName.get(w.name) ?? []), w]);
	const groups: Array<ProxyGroup<W>> = [];
	const conflicts: W[][] = [];
	for (const all of byName.values()) {
		const [first] = all;
		if (all.every((w) => same(first, w))) groups.push({ first, all });
		else conflicts.push(all);
	}
	return { groups, conflicts };
}

/** The repeats of each group (every item after the first), as `finishRepeats` takes them. */
export function repeatsOf<W extends ProxyRequest>(groups: Array<ProxyGroup<W>>) {
	return groups.flatMap(({ first, all }) =>
		all.slice(1).map((w) => ({ item: w.item, name: w.name, first: first.item, wanted: w })),
	);
}

/** "This was batch 2 of 3 (10 proxies)." style context, added to a failed batch's description. */
export function addToDescription(error: { description?: string | null }, text: string): void {
	error.description = [error.description, text].filter(Boolean).join(' ');
}
