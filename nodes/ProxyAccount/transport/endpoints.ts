import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { countOf } from '../helpers/wording';
import type { RequestKey } from './errors';
import type { RateLimitFacts } from './rateLimit';
import type { ProxyAccountContext } from './connection';
import type { ApiRequest, RetryPolicy } from './request';
import { apiRequest } from './request';
import type { AllocateData, ProxyRecord, QuoteData, RawStockEntry } from './schemas';
import { responseSchemas, STOCK_ENTRY_FIELDS } from './schemas';

/** Periods the service extends by (service facts); quotes are documented for weekly and monthly. */
export const PERIODS = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type Period = (typeof PERIODS)[number];

export interface CallOptions {
	itemIndex?: number;
	timeoutMs?: number;
	retry?: Partial<RetryPolicy>;
}

/** What the endpoints that act on something return. */
export interface ActionReply<T> {
	result: T;
	message?: string;
	/** The service's clock. */
	serverTime: number;
	/** The endpoint's rate-limit headers, when the reply carried them. */
	rateLimit?: RateLimitFacts;
}

/**
 * Sends one request and returns what the endpoints that act on something return: the reply's
 * `data`, its message, the service's clock and its rate-limit headers.
 */
export async function sendFor<T>(
	ctx: ProxyAccountContext,
	request: ApiRequest<z.ZodType<{ data: T; message?: string }>>,
): Promise<ActionReply<T>> {
	const response = await apiRequest(ctx, request);
	return {
		result: response.body.data,
		message: response.body.message,
		serverTime: response.serverTime,
		...(response.rateLimit && { rateLimit: response.rateLimit }),
	};
}

export interface QuoteLine {
	isp: string;
	location: string;
	interval: number;
	period: string;
}

export interface AllocateLine {
	proxy_name: string;
	interval: number;
	period: string;
}

export interface StockEntry extends RawStockEntry {
	/** Carrier counts found in the entry: every integer field that is not a documented one. */
	carriers: Record<string, number>;
}

/**
 * Carrier counts of a stock entry. Carriers are not hard-coded: any integer field other than
 * the documented ones is a count, so a new carrier needs no release.
 */
export function carrierCounts(entry: Record<string, unknown>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const [key, value] of Object.entries(entry)) {
		if ((STOCK_ENTRY_FIELDS as readonly string[]).includes(key)) continue;
		if (typeof value === 'number' && Number.isInteger(value)) counts[key] = value;
	}
	return counts;
}

/** Encodes a proxy name as one path segment; names are opaque and may hold any character. */
export function proxyPath(ctx: ProxyAccountContext, proxyName: string, itemIndex = 0): string {
	if (proxyName.trim() === '' || proxyName === '.' || proxyName === '..') {
		throw new NodeOperationError(
			ctx.getNode(),
			proxyName.trim() === ''
				? `The proxy name is empty [item ${itemIndex}]`
				: `\u201c${proxyName}\u201d cannot be a proxy name [item ${itemIndex}]`,
			{
				description:
					'Pick the proxy from the list, or enter its name as shown in the dashboard (e.g. PRX-US-AU1-0001).',
				itemIndex,
			},
		);
	}
	return `/v1/proxies/${encodeURIComponent(proxyName)}`;
}

/**
 * `GET /v1/stock`, the cheapest read. With `key: 'none'` it is sent without any key: a probe of the
 * Base URL for a credential that has no master key (the service then asks for one).
 */
export async function getStock(
	ctx: ProxyAccountContext,
	options: CallOptions & { key?: RequestKey } = {},
) {
	const response = await apiRequest(ctx, {
		method: 'GET',
		path: '/v1/stock',
		endpoint: 'GET /v1/stock',
		schema: responseSchemas.stock,
		idempotency: 'read',
		...options,
	});
	const entries: StockEntry[] = response.body.data.map((entry) => ({
		...entry,
		carriers: carrierCounts(entry),
	}));
	return { entries, serverTime: response.serverTime, dated: response.dated };
}

export async function listProxies(
	ctx: ProxyAccountContext,
	options: CallOptions = {},
): Promise<{ proxies: ProxyRecord[]; serverTime: number; dated: boolean }> {
	const response = await apiRequest(ctx, {
		method: 'GET',
		path: '/v1/proxies',
		endpoint: 'GET /v1/proxies',
		schema: responseSchemas.proxyList,
		idempotency: 'read',
		...options,
	});
	return { proxies: response.body.data, serverTime: response.serverTime, dated: response.dated };
}

export async function getProxy(
	ctx: ProxyAccountContext,
	proxyName: string,
	options: CallOptions = {},
): Promise<{ proxy: ProxyRecord; serverTime: number }> {
	const response = await apiRequest(ctx, {
		method: 'GET',
		path: proxyPath(ctx, proxyName, options.itemIndex),
		endpoint: 'GET /v1/proxies/{proxyName}',
		proxyName,
		schema: responseSchemas.proxy,
		idempotency: 'read',
		...options,
	});
	return { proxy: response.body.data, serverTime: response.serverTime };
}

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

/** `POST /v1/price`. A quote changes nothing, so it is retried like a read. Sent in the flat form. */
export async function quotePrices(
	ctx: ProxyAccountContext,
	lines: QuoteLine[],
	options: CallOptions = {},
): Promise<{ quote: QuoteData; message?: string; serverTime: number }> {
	const response = await apiRequest(ctx, {
		method: 'POST',
		path: '/v1/price',
		endpoint: 'POST /v1/price',
		body: { proxies: lines.map((line) => ({ ...line })) },
		schema: responseSchemas.quote,
		idempotency: 'read',
		check: (body) => quoteCoverage(lines, body.data),
		...options,
	});
	return {
		quote: response.body.data,
		message: response.body.message,
		serverTime: response.serverTime,
	};
}

/**
 * `POST /v1/proxies/allocate`: charges the wallet. Never repeated once it may have reached the
 * service; callers must not retry it either.
 */
export async function allocateTime(
	ctx: ProxyAccountContext,
	lines: AllocateLine[],
	options: CallOptions = {},
): Promise<{ result: AllocateData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'POST',
		path: '/v1/proxies/allocate',
		endpoint: 'POST /v1/proxies/allocate',
		body: { proxies: { time: lines.map((line) => ({ ...line })) } },
		schema: responseSchemas.allocate,
		idempotency: 'sent-once',
		walletUse: { what: 'this extension', less: 'extend fewer proxies or for a shorter time' },
		...options,
	});
}
