/*
 * Orders in doubt: a purchase whose answer was lost after it may have reached the service (a
 * dropped connection, a timeout, a 5xx) is remembered per credential in this n8n process. The same
 * order again within DOUBT_WINDOW_MS (an AI agent retrying "the purchase may have been made", a
 * workflow run again) first reads the wallet and the proxy list, and is refused when the earlier
 * order went through (or may have). The memory is this process's: another n8n process (a queue
 * mode worker) does not see it, and a restart forgets it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { countOf } from '../../common/wording';
import { DEFAULT_TIMEOUT_MS, send } from '../../transport';
import { carrierKey } from '../framework/carriers';
import { sameName } from '../framework/filters';
import { asNodeError } from '../framework/itemLoop';
import { credentialKey } from '../guards/oneAtATime';
import { cents } from './charges';

/** How long an order in doubt is remembered. */
export const DOUBT_WINDOW_MS = 30 * 60_000;
/** What to do before buying again. */
const CHECK = `Read the proxy list (Proxy Account > Get Many) and the wallet (Get Funds) before buying again. An identical order is checked this way for ${DOUBT_WINDOW_MS / 60_000} minutes after the one in doubt, in this n8n process; to buy more on purpose, order another quantity or wait.`;
/** Orders in doubt kept per credential (the oldest go first). */
const KEPT = 20;

/** One item's order, as far as telling a repeat goes. */
export interface OrderShape {
	carrier: string;
	city: string;
	quantity: number;
	line: { interval: number; period: string };
}

/** An order whose outcome is unknown, with the account as read just before it was sent. */
interface Doubt {
	order: string;
	text: string;
	at: number;
	quoted: number;
	walletBefore: number;
	namesBefore: Set<string>;
	places: Array<{ carrier: string; city: string }>;
}

/** Per credential (its id and Base URL, never its key): the orders in doubt. */
const doubts = new Map<string, Doubt[]>();

/** The same order whatever the order of its items: carriers by key, cities in lower case. */
function orderKey(orders: OrderShape[]): string {
	const parts = orders.map((o) =>
		[
			carrierKey(o.carrier),
			o.city.trim().toLowerCase(),
			o.quantity,
			o.line.interval,
			o.line.period,
		].join('|'),
	);
	return parts.sort().join('\n');
}

const orderText = (orders: OrderShape[]) =>
	orders
		.map((o) => `${o.quantity} ${o.carrier} in ${o.city} for ${o.line.interval} ${o.line.period}`)
		.join(', ');

/** The live orders in doubt of a credential, the expired ones dropped. */
function live(key: string, now: number): Doubt[] {
	const kept = (doubts.get(key) ?? []).filter((doubt) => now - doubt.at < DOUBT_WINDOW_MS);
	if (kept.length > 0) doubts.set(key, kept);
	else doubts.delete(key);
	return kept;
}

/** The account just before an order: what a later repeat compares with. */
export interface BeforeOrder {
	quoted: number;
	wallet: number;
	names: Set<string>;
}

/** Remembers an order that may have reached the service, its answer lost. */
export async function rememberOrderInDoubt(
	ctx: IExecuteFunctions,
	orders: OrderShape[],
	before: BeforeOrder,
): Promise<void> {
	const key = await credentialKey(ctx);
	if (key === undefined) return;
	const now = Date.now();
	const doubt: Doubt = {
		order: orderKey(orders),
		text: orderText(orders),
		at: now,
		quoted: before.quoted,
		walletBefore: before.wallet,
		namesBefore: before.names,
		places: orders.map(({ carrier, city }) => ({ carrier, city })),
	};
	doubts.set(key, [...live(key, now), doubt].slice(-KEPT));
}

/**
 * Why the same order may not be sent again: an identical order of this credential, sent within the
 * window, whose answer was lost, went through (the wallet fell by its quote, or new proxies of its
 * carrier and city are listed) or may have (the wallet fell by less). Undefined when there is none,
 * or when the account shows it did not go through (it is then forgotten). A failed read refuses.
 */
export async function orderInDoubtRefusal(
	ctx: IExecuteFunctions,
	orders: OrderShape[],
	itemIndex: number,
): Promise<NodeOperationError | undefined> {
	const key = await credentialKey(ctx);
	if (key === undefined) return undefined;
	const now = Date.now();
	const order = orderKey(orders);
	const doubt = live(key, now).find((earlier) => earlier.order === order);
	if (doubt === undefined) return undefined;
	const minutes = Math.round((now - doubt.at) / 60_000);
	const ago = minutes < 1 ? 'less than a minute' : `${minutes} min`;
	const same = `The same order (${doubt.text}) was sent ${ago} ago and its answer was lost`;
	const read = { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS };
	let wallet: number;
	let candidates: string[];
	try {
		wallet = (await send(ctx, 'getFunds', read)).result.funds;
		const listed = (await send(ctx, 'listProxies', read)).result;
		candidates = listed
			.filter((proxy) => !doubt.namesBefore.has(proxy.proxy_name))
			.filter((proxy) =>
				doubt.places.some((p) => sameName(p.carrier, proxy.isp) && sameName(p.city, proxy.city)),
			)
			.map((proxy) => proxy.proxy_name);
	} catch (error) {
		const why = asNodeError(ctx, error, itemIndex).message;
		return new NodeOperationError(
			ctx.getNode(),
			`${same}; whether it went through could not be checked (${why}), so it was not sent again`,
			{ description: `Nothing was sent or charged by this run. ${CHECK}`, itemIndex },
		);
	}
	const fell = cents(doubt.walletBefore - wallet);
	if (fell <= 0 && candidates.length === 0) {
		// The account shows no sign of it: it did not go through, and this order may be sent.
		doubts.set(
			key,
			live(key, now).filter((earlier) => earlier !== doubt),
		);
		return undefined;
	}
	const went =
		fell >= doubt.quoted || candidates.length > 0 ? 'went through' : 'may have gone through';
	const money = `the wallet holds ${wallet}, ${fell > 0 ? `${fell} less than` : 'not less than'} the ${doubt.walletBefore} before it (the order was quoted at ${doubt.quoted})`;
	const listed =
		candidates.length > 0
			? `; the proxy list shows ${countOf(candidates.length, 'new proxy', 'new proxies')} of its carrier and city since: ${candidates.join(', ')}`
			: '';
	return new NodeOperationError(
		ctx.getNode(),
		`${same}; it ${went}: ${money}${listed}. It was not sent again`,
		{
			description: `Nothing was sent or charged by this run. ${candidates.length > 0 ? 'The candidates are new proxies of the order\u2019s carrier and city (someone else\u2019s purchase there would be among them). ' : 'New proxies appear in the list shortly after an order. '}${CHECK}`,
			itemIndex,
		},
	);
}
