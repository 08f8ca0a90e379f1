import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS, listProxies } from '../transport';
import { asNodeError } from './itemLoop';
import { sameName } from './filters';
import { countOf } from './wording';

/** One item of a purchase, as far as telling its new proxies apart goes. */
export interface OrderedProxies {
	item: number;
	carrier: string;
	city: string;
	quantity: number;
}

/** A proxy of the list that was not there before the order. */
export interface FreshProxy {
	proxy_name: string;
	isp: unknown;
	city: unknown;
}

/** What the list tells about one item's new proxies. */
export interface NewProxies {
	/** The item's new proxies, named only when nothing else could be them. */
	names: string[];
	/**
	 * When the new proxies of the carrier and city cannot be told apart (more than the run bought, or
	 * several items ordered them): all of them, none named as the item's.
	 */
	candidates?: string[];
	/** The items of the run that ordered the same carrier and city (this one included). */
	items: number[];
	/** How many proxies of the carrier and city the run bought. */
	bought: number;
	/** Whether as many new proxies of the carrier and city are listed as the run bought (or more). */
	complete: boolean;
}

const sameLocation = (
	a: { carrier: unknown; city: unknown },
	b: { carrier: unknown; city: unknown },
) => sameName(a.carrier, b.carrier) && sameName(a.city, b.city);

/**
 * Tells which new proxies of the list are each item's. The service's order reply names none, so
 * the only clue is carrier and city: a new proxy is named as an item's only when the item is the
 * run's one order of its carrier and city and the list holds no more new proxies of them than it
 * bought. Otherwise (someone else bought some meanwhile, or several items ordered the same carrier
 * and city) none is named, and all are given as candidates.
 */
export function matchNewProxies(
	orders: OrderedProxies[],
	fresh: FreshProxy[],
): Map<number, NewProxies> {
	const found = new Map<number, NewProxies>();
	for (const order of orders) {
		if (found.has(order.item)) continue;
		const group = orders.filter((other) => sameLocation(other, order));
		const bought = group.reduce((sum, other) => sum + other.quantity, 0);
		const listed = fresh
			.filter((proxy) => sameLocation({ carrier: proxy.isp, city: proxy.city }, order))
			.map((proxy) => proxy.proxy_name);
		const unique = [...new Set(listed)];
		const told = group.length === 1 && unique.length <= bought;
		const items = group.map((other) => other.item);
		for (const other of group) {
			found.set(other.item, {
				names: told ? unique : [],
				...(told ? {} : { candidates: unique }),
				items,
				bought,
				complete: unique.length >= bought,
			});
		}
	}
	return found;
}

const proxies = (count: number) => countOf(count, 'new proxy', 'new proxies');

/** Why the new proxies of an item cannot be named. */
function untold(order: OrderedProxies, found: NewProxies): string {
	const where = `${order.carrier} in ${order.city}`;
	const others = found.items.filter((item) => item !== order.item);
	const listed = found.candidates?.length ?? 0;
	if (listed > found.bought)
		return `The proxy list shows ${proxies(listed)} of ${where}, while this run bought ${found.bought}: someone else (the dashboard, another run) bought some meanwhile, so which are this run's cannot be told.`;
	return `Items ${[order.item, ...others].sort((a, b) => a - b).join(', ')} of this run ordered ${where}, so which new proxies are this item's cannot be told (${listed} of ${found.bought} listed).`;
}

/**
 * The output fields of an item whose new proxies were waited for: the names when they are known to
 * be the item's, candidates (labelled as such) when they cannot be told apart, and a note.
 */
export function newProxiesReport(
	order: OrderedProxies,
	found: NewProxies,
	wait: { waitedMs: number; error?: string },
): IDataObject {
	if (found.candidates !== undefined) {
		return {
			status: found.complete ? 'bought_unidentified' : 'bought_not_yet_visible',
			new_proxies: [],
			candidates: found.candidates,
			note: `${untold(order, found)} None is named as bought by this item; the candidates may include proxies this run did not buy. Check them in the Proxy Account dashboard before using them.`,
		};
	}
	if (found.names.length >= order.quantity) return { status: 'bought', new_proxies: found.names };
	const seconds = Math.round(wait.waitedMs / 1000);
	return {
		status: 'bought_not_yet_visible',
		new_proxies: found.names,
		note: `${found.names.length} of ${order.quantity} new ${order.quantity === 1 ? 'proxy was' : 'proxies were'} in the proxy list after ${seconds} s${wait.error ? ` (the last read failed: ${wait.error})` : ''}. The others should appear shortly: read the list (Proxy Account > Get Many) before buying again.`,
	};
}

/** What a read of the list tells about a proxy moved to another carrier and/or city. */
export type MovedProxy =
	| { state: 'pending' }
	| { state: 'named'; name: string }
	/** New proxies that could be the moved one; `final` when more reads cannot tell them apart. */
	| { state: 'untold'; candidates: string[]; final: boolean };

/** A proxy moved by this run, as the list showed it before the move. */
export interface MoveLookup {
	oldName: string;
	/** The old record's paid time: a move keeps it. */
	expiresAt: unknown;
	carrier: string;
	city: string;
	/** Names not to take for the moved proxy: listed before the run, or named for another item. */
	known: (name: string) => boolean;
}

const instant = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

/**
 * Finds the new name of a moved proxy in a list read after the move: once the old name has left
 * the list, the one new proxy of the carrier and city with the old record's paid time (expires_at).
 * When several could be it (another item of the run moved one there, or someone else bought one),
 * none is named.
 */
export function findMovedProxy(
	list: Array<FreshProxy & { expires_at?: unknown }>,
	lookup: MoveLookup,
): MovedProxy {
	if (list.length === 0 || list.some((proxy) => proxy.proxy_name === lookup.oldName))
		return { state: 'pending' };
	const located = list.filter(
		(proxy) =>
			!lookup.known(proxy.proxy_name) &&
			sameLocation({ carrier: proxy.isp, city: proxy.city }, lookup),
	);
	const paidAt = instant(lookup.expiresAt);
	const paid = Number.isNaN(paidAt)
		? located
		: located.filter((proxy) => instant(proxy.expires_at) === paidAt);
	if (paid.length === 1) return { state: 'named', name: paid[0].proxy_name };
	const names = (paid.length > 1 ? paid : located).map((proxy) => proxy.proxy_name);
	if (names.length === 0) return { state: 'pending' };
	return { state: 'untold', candidates: names, final: paid.length > 1 };
}

/** The note of a moved proxy whose new name cannot be told. */
export function movedUntoldNote(candidates: number, carrier: string, city: string): string {
	const could = candidates === 1 ? 'could be it, without its paid time' : 'could be it';
	return `The proxy left the list, and ${proxies(candidates)} of ${carrier} in ${city} ${could} (another item of this run or someone else may have moved or bought one there), so none is named. The candidates may include proxies this run did not move: check them in the Proxy Account dashboard before using them.`;
}

/** Pause between reads of the list while waiting for the new proxies. */
const WAIT_PAUSE_MS = 3_000;

/** What the wait for the new proxies found: by item, after how long, and the last read's failure. */
export interface Waited {
	found: Map<number, NewProxies>;
	waitedMs: number;
	error?: string;
}

/**
 * Reads the list until the new proxies are all there, or time is up. A proxy is named as an
 * item's only when nothing else could be it (see matchNewProxies).
 */
export async function waitForNewProxies(
	ctx: IExecuteFunctions,
	ordered: OrderedProxies[],
	before: Set<string>,
	waitMs: number,
): Promise<Waited> {
	const itemIndex = ordered[0].item;
	const started = Date.now();
	for (;;) {
		let fresh: Array<{ proxy_name: string; isp: unknown; city: unknown }> = [];
		let error: string | undefined;
		try {
			const { proxies } = await listProxies(ctx, { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS });
			fresh = proxies.filter((proxy) => !before.has(proxy.proxy_name));
		} catch (failure) {
			error = asNodeError(ctx, failure, itemIndex).message;
		}
		const found = matchNewProxies(ordered, fresh);
		const waitedMs = Date.now() - started;
		const complete = [...found.values()].every((news) => news.complete);
		if (complete || waitedMs + WAIT_PAUSE_MS > waitMs) return { found, waitedMs, error };
		await sleep(WAIT_PAUSE_MS);
	}
}
