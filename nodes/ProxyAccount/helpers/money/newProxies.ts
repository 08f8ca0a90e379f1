import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS, send } from '../../transport';
import { asNodeError } from '../framework/itemLoop';
import { sameName } from '../framework/filters';
import { countOf } from '../../common/wording';

/** One item of a purchase, as far as telling its new proxies apart goes. */
export interface OrderedProxies {
	item: number;
	carrier: string;
	city: string;
	quantity: number;
}

/** A proxy of the list that was not there before the order. */
type FreshProxy = { proxy_name: string; isp: unknown; city: unknown };

/** What the list tells about one item's new proxies. */
interface NewProxies {
	/** The new proxies of the item's carrier and city listed since the order (never named as its). */
	candidates: string[];
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
 * Groups the new proxies of the list by the orders of their carrier and city. The service's order
 * reply names none, and carrier and city prove nothing: none is named as the order's.
 */
export function matchNewProxies(orders: OrderedProxies[], fresh: FreshProxy[]) {
	const found = new Map<number, NewProxies>();
	for (const order of orders) {
		if (found.has(order.item)) continue;
		const group = orders.filter((other) => sameLocation(other, order));
		const bought = group.reduce((sum, other) => sum + other.quantity, 0);
		const listed = fresh
			.filter((proxy) => sameLocation({ carrier: proxy.isp, city: proxy.city }, order))
			.map((proxy) => proxy.proxy_name);
		const candidates = [...new Set(listed)];
		const items = group.map((other) => other.item);
		for (const other of group) {
			found.set(other.item, { candidates, items, bought, complete: candidates.length >= bought });
		}
	}
	return found;
}

const proxies = (count: number) => countOf(count, 'new proxy', 'new proxies');

/** What the list shows, and why it cannot tell which of them are this item's. */
function untold(order: OrderedProxies, found: NewProxies, seconds: number): string {
	const where = `${order.carrier} in ${order.city}`;
	const listed = found.candidates.length;
	const others = found.items.filter((item) => item !== order.item);
	if (others.length > 0)
		return `Items ${[order.item, ...others].sort((a, b) => a - b).join(', ')} of this run ordered ${where} (${found.bought} in all), and the proxy list shows ${proxies(listed)} of ${where} after ${seconds} s: which are this item's cannot be told`;
	if (listed > found.bought)
		return `The proxy list shows ${proxies(listed)} of ${where}, while this run bought ${found.bought}: someone else (the dashboard, another n8n) bought some meanwhile`;
	return `The proxy list shows ${proxies(listed)} of ${where} after ${seconds} s, and this run bought ${found.bought}`;
}

/** The output fields of an item whose new proxies were waited for: `candidates` and a note. */
export function newProxiesReport(
	order: OrderedProxies,
	found: NewProxies,
	wait: { waitedMs: number; error?: string },
): IDataObject {
	const seconds = Math.round(wait.waitedMs / 1000);
	const failed = wait.error ? ` (the last read of the list failed: ${wait.error})` : '';
	const shared = found.items.length > 1 || found.candidates.length > found.bought;
	const rest = found.complete
		? ''
		: ` The others should appear shortly: read the list (Proxy Account > Get Many) before buying again.`;
	return {
		status: !found.complete ? 'bought_not_yet_visible' : shared ? 'bought_unidentified' : 'bought',
		candidates: found.candidates,
		note: `${untold(order, found, seconds)}${failed}.${rest} The service does not say which proxies it deployed, so none is named as bought by this item: the candidates are the new proxies of ${order.carrier} in ${order.city}, and a purchase of the same carrier and city by someone else at the same time would be among them.`,
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
	/** The new name the service's reply gave, taken only once the list confirms it. */
	replied?: string;
}

const instant = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

/**
 * The new name of a moved proxy in a list read after the move: once the old name has left the list,
 * the one new proxy of the carrier and city with the old record's paid time (expires_at). When
 * several could be it (another item of the run moved one there, someone else bought one), none is.
 * A name the reply gave is taken when the list shows it new there; one the list shows otherwise
 * (listed before the run, or elsewhere) names nothing, and the new proxies there are candidates.
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
	const names = (paid.length > 0 ? paid : located).map((proxy) => proxy.proxy_name);
	if (lookup.replied !== undefined) {
		if (located.some((proxy) => proxy.proxy_name === lookup.replied))
			return { state: 'named', name: lookup.replied };
		// Listed, but not as a new proxy of the carrier and city: the reply is wrong.
		const refuted = list.some((proxy) => proxy.proxy_name === lookup.replied);
		if (refuted || names.length > 0) return { state: 'untold', candidates: names, final: refuted };
		return { state: 'pending' };
	}
	if (paid.length === 1) return { state: 'named', name: paid[0].proxy_name };
	if (names.length === 0) return { state: 'pending' };
	return { state: 'untold', candidates: names, final: paid.length > 1 };
}

/** The note of a moved proxy whose new name cannot be told (`replied`: the reply gave a name). */
export function movedUntoldNote(
	candidates: number,
	carrier: string,
	city: string,
	replied = false,
): string {
	const could = candidates === 1 && !replied ? 'could be it, without its paid time' : 'could be it';
	const reply = replied
		? 'The service\u2019s reply named a proxy that the list does not show as new in that carrier and city, so that name is not taken. '
		: '';
	if (candidates === 0)
		return `${reply}The proxy left the list, and no new proxy of ${carrier} in ${city} shows yet, so none is named. Read the proxy list (Proxy Account > Get Many) for it shortly.`;
	return `${reply}The proxy left the list, and ${proxies(candidates)} of ${carrier} in ${city} ${could} (another item of this run or someone else may have moved or bought one there), so none is named. The candidates may include proxies this run did not move: check them in the Proxy Account dashboard before using them.`;
}

/** Pause between reads of the list while waiting for the new proxies. */
const WAIT_PAUSE_MS = 3_000;

/** What the wait for the new proxies found: by item, after how long, and the last read's failure. */
export type Waited = Awaited<ReturnType<typeof waitForNewProxies>>;

/** Reads the list until the new proxies are all there, or time is up. */
export async function waitForNewProxies(
	ctx: IExecuteFunctions,
	ordered: OrderedProxies[],
	before: Set<string>,
	waitMs: number,
) {
	const itemIndex = ordered[0].item;
	const read = { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS };
	const started = Date.now();
	for (;;) {
		let fresh: FreshProxy[] = [];
		let error: string | undefined;
		try {
			const { result: proxies } = await send(ctx, 'listProxies', read);
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
