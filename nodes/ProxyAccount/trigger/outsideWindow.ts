import type { ProxyRecord } from '../transport';

/**
 * The listed proxies a settled poll found outside the window, in the list's order, with the text
 * and instant of their expiry. They are in no stored map, so without this each would be looked up
 * by name and its expiry read again at every poll (10,000 proxies: most of the detection's time).
 * Known only to the process that built the map it is kept for (`reported`), which never holds one
 * of these names (see listing.ts: a map is never changed once built).
 */
export interface Outside {
	names: string[];
	texts: unknown[];
	at: number[];
}

const outsideOf = new WeakMap<object, Outside>();

/** What the poll that built `reported` found outside the window (none after a restart). */
export const knownOutside = (reported: object): Outside | undefined => outsideOf.get(reported);

/** The list without the proxies still outside the window with the expiry text last seen. */
export interface Skip {
	rest: ProxyRecord[];
	/** Per listed proxy: 1 + its index in the memo when skipped, else 0. */
	skipped: Int32Array;
	/** Whether a name was skipped (a repeated name is then read in the whole list instead). */
	has(name: string): boolean;
}

/** The last skip made of a list (a poll makes the same one twice: to confirm, then to detect). */
const skips = new WeakMap<ProxyRecord[], [Outside, number, number, Skip]>();

export function skipOutside(
	memo: Outside,
	proxies: ProxyRecord[],
	now: number,
	windowMs: number,
): Skip {
	const made = skips.get(proxies);
	if (made && made[0] === memo && made[1] === now && made[2] === windowMs) return made[3];
	const { names, texts, at } = memo;
	const skipped = new Int32Array(proxies.length);
	const rest: ProxyRecord[] = [];
	let from = 0;
	for (let p = 0; p < proxies.length; p++) {
		const proxy = proxies[p];
		let i = -1;
		for (let k = from; i < 0 && k < from + 4 && k < names.length; k++)
			if (names[k] === proxy.proxy_name) i = k;
		if (i >= 0) from = i + 1;
		if (i >= 0 && texts[i] === proxy.expires_at && !(at[i] - now <= windowMs)) skipped[p] = i + 1;
		else rest.push(proxy);
	}
	let asked = 0;
	let set: Set<string> | undefined;
	const has = (name: string): boolean => {
		asked += 1;
		if (asked > 8 && set === undefined) {
			set = new Set();
			for (const i of skipped) if (i > 0) set.add(names[i - 1]);
		}
		if (set) return set.has(name);
		for (const i of skipped) if (i > 0 && names[i - 1] === name) return true;
		return false;
	};
	const skip = { rest, skipped, has };
	skips.set(proxies, [memo, now, windowMs, skip]);
	return skip;
}

/** Remembers for `reported` what this poll found outside the window (skipped, or `read`), in the list's order. */
export function rememberOutside(
	reported: object,
	proxies: ProxyRecord[],
	memo: Outside | undefined,
	skip: Skip | undefined,
	read: Map<ProxyRecord, number>,
): void {
	const next: Outside = { names: [], texts: [], at: [] };
	for (let p = 0; p < proxies.length; p++) {
		const i = (skip?.skipped[p] ?? 0) - 1;
		if (i >= 0 && memo) {
			next.names.push(memo.names[i]);
			next.texts.push(memo.texts[i]);
			next.at.push(memo.at[i]);
			continue;
		}
		const at = read.size > 0 ? read.get(proxies[p]) : undefined;
		if (at === undefined) continue;
		next.names.push(proxies[p].proxy_name);
		next.texts.push(proxies[p].expires_at);
		next.at.push(at);
	}
	outsideOf.set(reported, next);
}
