/*
 * Every endpoint of the service, declared once: the 5 of proxy-account-api.md and the 12 of
 * account-operations.md. `send` (request.ts) reads an entry and makes the request.
 */
import type { IDataObject } from 'n8n-workflow';

import { countOf } from '../common/wording';
import type { ChangeNote, RequestKey, WalletUse } from './failures';
import type { QuoteData, ResponseData, responseSchemas } from './schemas';

/** Periods the service extends by (service facts); quotes are documented for weekly and monthly. */
export const PERIODS = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type Period = (typeof PERIODS)[number];

/** The lines of a quote or a purchase, of an extension, of auto-renew settings, as sent. */
export type QuoteLine = { isp: string; location: string; interval: number; period: string };
export type AllocateLine = { proxy_name: string; interval: number; period: string };
export type AutoRenewLine = { proxy_name: string; auto_renew: boolean; interval: number };

type SchemaKey = keyof typeof responseSchemas;

/**
 * How a request may be repeated.
 * - `read`: safe to repeat (GET, and the quote, which changes nothing).
 * - `sent-once`: acts on the account (a charge, a removal, a change of a proxy's settings or a
 *   device command); repeated only when the service provably did not receive it (connection
 *   refused, or a 429 from its gateway).
 */
export type Idempotency = 'read' | 'sent-once';

/**
 * What a request does to money or paid time. Only `charges` is a charge its failures must speak of
 * (whether it may have happened); the others speak of what may have changed.
 * - `none`: reads, the quote, and changes that cost nothing (settings, device commands).
 * - `charges`: paid from the wallet (adding time, buying proxies).
 * - `may charge`: whether it costs money is not documented (a change of location).
 * - `destroys paid time`: removes proxies, their paid time included.
 * - `commits`: sets whether the wallet pays future renewals.
 */
export type MoneyEffect = 'none' | 'charges' | 'may charge' | 'destroys paid time' | 'commits';

/** One endpoint: how it is sent, what it answers, and what it may do to the account. */
export interface Endpoint<P extends string, K extends SchemaKey, B> {
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	/** Below the base URL; `{proxyName}` (and `{limitedApiKey}`) are filled in, each encoded. */
	path: P;
	schema: K;
	idempotency: Idempotency;
	money: MoneyEffect;
	/** The JSON body, built from what the caller passes as `body`. */
	body?: (input: B) => IDataObject;
	/** A check of the reply against what was asked: a mismatch fails like a schema mismatch. */
	check?: (data: ResponseData<K>, input: B) => { field: string; issue: string } | undefined;
	/** A change: its failures say whether it may have been made, and how to look. */
	change?: ChangeNote;
	/** Paid from the wallet: what a wallet that is short is short for. */
	walletUse?: WalletUse;
	key?: RequestKey;
}

const endpoint = <P extends string, K extends SchemaKey, B = never>(entry: Endpoint<P, K, B>) =>
	entry;

const CHECK_PROXY = 'Read the proxy (Proxy Account > Get) to see whether it was';
const CHECK_LIST = 'Read the proxy list (Proxy Account > Get Many)';
/** Copies of the caller's lines, so that what is sent is what was asked at the time. */
const copies = <T extends object>(lines: T[]) => lines.map((line) => ({ ...line }));

export const CATALOGUE = {
	getStock: endpoint({
		method: 'GET',
		path: '/v1/stock',
		schema: 'stock',
		idempotency: 'read',
		money: 'none',
	}),
	listProxies: endpoint({
		method: 'GET',
		path: '/v1/proxies',
		schema: 'proxyList',
		idempotency: 'read',
		money: 'none',
	}),
	getProxy: endpoint({
		method: 'GET',
		path: '/v1/proxies/{proxyName}',
		schema: 'proxy',
		idempotency: 'read',
		money: 'none',
	}),
	/** A quote changes nothing, so it is retried like a read. Sent in the flat form. */
	quotePrices: endpoint({
		method: 'POST',
		path: '/v1/price',
		schema: 'quote',
		idempotency: 'read',
		money: 'none',
		body: (lines: QuoteLine[]) => ({ proxies: copies(lines) }),
		check: (quote, lines) => quoteCoverage(lines, quote),
	}),
	/** Adds time to proxies, charged to the wallet; callers must not retry it either. */
	allocateTime: endpoint({
		method: 'POST',
		path: '/v1/proxies/allocate',
		schema: 'allocate',
		idempotency: 'sent-once',
		money: 'charges',
		body: (lines: AllocateLine[]) => ({ proxies: { time: copies(lines) } }),
		walletUse: { what: 'this extension', less: 'extend fewer proxies or for a shorter time' },
	}),
	/** The wallet balance and the upcoming renewals and expiries. */
	getFunds: endpoint({
		method: 'GET',
		path: '/v1/funds',
		schema: 'funds',
		idempotency: 'read',
		money: 'none',
	}),
	/** 202: sent to the device. At most once a minute per proxy: a 429 says how long to wait. */
	rotateIp: endpoint({
		method: 'POST',
		path: '/v1/proxies/changeip/{proxyName}',
		schema: 'ipChange',
		idempotency: 'sent-once',
		money: 'none',
		change: { what: 'The IP change', check: CHECK_PROXY },
	}),
	/**
	 * The rotation link of a Limited key: the key is in the path, so it is a secret of the URL, kept
	 * out of every message. Sent without the master key (the credential's authenticate leaves it out).
	 */
	rotateIpWithLink: endpoint({
		method: 'GET',
		path: '/v1/proxies/changeip/{limitedApiKey}/{proxyName}',
		schema: 'ipChange',
		idempotency: 'sent-once',
		money: 'none',
		change: { what: 'The IP change', check: CHECK_PROXY },
		key: 'limited',
	}),
	/** 202: at most once every 5 minutes per proxy. */
	rebootProxy: endpoint({
		method: 'POST',
		path: '/v1/proxies/reboot/{proxyName}',
		schema: 'reboot',
		idempotency: 'sent-once',
		money: 'none',
		change: { what: 'The reboot', check: CHECK_PROXY },
	}),
	/** `rate` in minutes, 1 to 1440. */
	setAutoRotation: endpoint({
		method: 'POST',
		path: '/v1/proxies/autochangeip/{proxyName}',
		schema: 'autoChange',
		idempotency: 'sent-once',
		money: 'none',
		body: (input: { enable: boolean; rate: number }) => ({
			enable: input.enable,
			rate: input.rate,
		}),
		change: { what: 'The automatic rotation setting', check: CHECK_PROXY },
	}),
	/** 202: sent to the device, applied shortly after. Sends a real boolean. */
	setIpv4: endpoint({
		method: 'POST',
		path: '/v1/proxies/ipv4/{proxyName}',
		schema: 'ipv4',
		idempotency: 'sent-once',
		money: 'none',
		body: (enable: boolean) => ({ enable }),
		change: { what: 'The IPv4 setting', check: CHECK_PROXY },
	}),
	/** Username/password authentication (whitelist off); a null field lets the service make it. */
	setBasicAuth: endpoint({
		method: 'PATCH',
		path: '/v1/proxies/auth/basic/{proxyName}',
		schema: 'basicAuth',
		idempotency: 'sent-once',
		money: 'none',
		body: (input: { username: string | null; password: string | null }) => ({
			username: input.username,
			password: input.password,
		}),
		change: { what: 'The authentication change', check: CHECK_PROXY },
	}),
	/** IP-whitelist authentication (username/password off). */
	setWhitelist: endpoint({
		method: 'PATCH',
		path: '/v1/proxies/auth/whitelist/{proxyName}',
		schema: 'whitelist',
		idempotency: 'sent-once',
		money: 'none',
		body: (entries: string[]) => ({ authorize_ip: entries.join(',') }),
		change: { what: 'The authentication change', check: CHECK_PROXY },
	}),
	/** Auto-renew off means the proxy is removed at expiry; on, the wallet pays each renewal. */
	setAutoRenew: endpoint({
		method: 'PATCH',
		path: '/v1/proxies/allocate/renew',
		schema: 'autoRenew',
		idempotency: 'sent-once',
		money: 'commits',
		body: (lines: AutoRenewLine[]) => ({ proxies: { time: copies(lines) } }),
		change: {
			what: 'The auto-renew change',
			check: 'Read the proxies (Proxy Account > Get or Get Many: auto_renew, auto_renew_interval)',
		},
	}),
	/**
	 * 202: buys proxies, charged to the wallet. No idempotency key and no dry run on the service:
	 * callers must not retry it either. The reply does not name the new proxies.
	 */
	deployProxies: endpoint({
		method: 'POST',
		path: '/v1/proxies/deploy',
		schema: 'deploy',
		idempotency: 'sent-once',
		money: 'charges',
		body: (lines: QuoteLine[]) => ({ proxies: copies(lines) }),
		change: {
			what: 'The purchase',
			check: `${CHECK_LIST} and the wallet to see whether new proxies were bought`,
		},
		walletUse: { what: 'this purchase', less: 'buy fewer proxies or for a shorter time' },
	}),
	/** 202: another carrier and/or city; the name and port change shortly after. */
	swapProxy: endpoint({
		method: 'POST',
		path: '/v1/proxies/swap/{proxyName}',
		schema: 'swap',
		idempotency: 'sent-once',
		money: 'may charge',
		body: (target: { isp: string; location: string; copy_settings: boolean }) => ({ ...target }),
		change: {
			what: 'The change of location',
			check: `${CHECK_LIST} to see whether the proxy moved`,
		},
		walletUse: { what: 'this change of location' },
	}),
	/** 202: irreversible, the proxies' paid time included. */
	removeProxies: endpoint({
		method: 'DELETE',
		path: '/v1/proxies/remove',
		schema: 'remove',
		idempotency: 'sent-once',
		money: 'destroys paid time',
		body: (names: string[]) => ({ proxies: [...names] }),
		change: { what: 'The removal', check: `${CHECK_LIST} to see which proxies are gone` },
	}),
};

export type Catalogue = typeof CATALOGUE;
export type EndpointName = keyof Catalogue;

/**
 * Where a quote does not price every line it was asked for: each requested period must be there
 * with at least one item per line of that period. A total computed from such a quote would be too
 * low (a Maximum Total Cost check would pass), so it is refused rather than used.
 */
export function quoteCoverage(
	lines: QuoteLine[],
	quote: QuoteData,
): { field: string; issue: string } | undefined {
	const wanted = new Map<string, number>();
	for (const line of lines) wanted.set(line.period, (wanted.get(line.period) ?? 0) + 1);
	for (const [period, count] of wanted) {
		const priced = Object.prototype.hasOwnProperty.call(quote.periods, period)
			? quote.periods[period]
			: undefined;
		if (!priced) return { field: `data.periods.${period}`, issue: 'is missing' };
		const items = Object.keys(priced.individual).length;
		if (items < count) {
			return {
				field: `data.periods.${period}.individual`,
				issue: `has ${countOf(items, 'item')} for ${countOf(count, 'line')}`,
			};
		}
	}
	return undefined;
}
