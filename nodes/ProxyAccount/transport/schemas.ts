import { z } from 'zod';

import { isRecord } from '../common/objects';

/**
 * Response schemas of the Proxy Account API (interface document, sections 2 and 4). Every object
 * keeps fields the document does not list (`passthrough`): the live service adds some (`country`,
 * `ipv4`) and users should see them. A documented field missing or mistyped fails, named.
 */

const timestamp = z.string();
const isInt = (value: unknown): value is number =>
	typeof value === 'number' && Number.isInteger(value);
const int = z.number().int();
const money = z.number();
/** An object with these documented fields, that keeps the others (`passthrough`). */
const object = <T extends z.ZodRawShape>(shape: T) => z.object(shape).passthrough();

export const proxyRecordSchema = object({
	proxy_name: z.string(),
	nickname: z.string().nullable(),
	isp: z.string(),
	period: z.string(),
	auto_renew: z.boolean(),
	auto_renew_interval: int,
	added_at: timestamp,
	expires_at: timestamp,
	network_status: z.string(),
	server_ip: z.string(),
	h_port: int,
	s_port: int,
	auth_method: z.string(),
	username: z.string(),
	password: z.string(),
	whitelist: z.unknown(),
	auto_change: z.boolean(),
	auto_change_time: int,
	last_ip_change: timestamp,
	last_reboot: timestamp,
	traffic: int,
	h_threads: int,
	s_threads: int,
	city: z.string(),
	state: z.string(),
});

export type ProxyRecord = z.infer<typeof proxyRecordSchema>;

const stockEntrySchema = object({
	city: z.string(),
	state: z.string(),
	status: z.string(),
	open: z.boolean(),
	visible: z.boolean(),
});

/** Fields of a stock entry that are not carrier counts. */
const STOCK_ENTRY_FIELDS = Object.keys(stockEntrySchema.shape);

/** A stock entry with its `carriers`: counts by carrier (see `carrierCounts`). */
export type StockEntry = z.infer<typeof stockEntrySchema> & { carriers: Record<string, number> };

/** Carrier counts: any integer field but the documented ones, so a new carrier needs no release. */
export function carrierCounts(entry: Record<string, unknown>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const [key, value] of Object.entries(entry)) {
		if (!STOCK_ENTRY_FIELDS.includes(key) && isInt(value)) counts[key] = value;
	}
	return counts;
}

const amounts = object({ standard: money, member: money, due: money });
const saving = object({ individual: money, total: money });

const quoteDataSchema = object({
	member: z.boolean(),
	periods: z.record(
		object({
			individual: z.record(object({ interval: int, standard: money, member: money, total: money })),
			bulk: object({ individual: int, price: money.nullable() }),
			total: amounts,
		}),
	),
	savings: object({
		member: z.record(saving),
		bulk: z.record(saving),
		interval: money,
		total: money,
	}),
	total: amounts,
});

export type QuoteData = z.infer<typeof quoteDataSchema>;

const envelope = <T extends z.ZodTypeAny>(data: T) =>
	object({ ok: z.literal(true), message: z.string().optional(), data });

const countAmount = object({ count: int, amount: money });

/** Every reply of the service, by the key an endpoint of the catalogue names (catalogue.ts). */
export const responseSchemas = {
	stock: envelope(z.array(stockEntrySchema)),
	proxyList: envelope(z.array(proxyRecordSchema)),
	proxy: envelope(proxyRecordSchema),
	quote: envelope(quoteDataSchema),
	allocate: envelope(
		object({
			proxies: object({
				time: z.array(
					object({
						proxy_name: z.string(),
						period: z.string(),
						interval: int,
						individual_total: money,
					}),
				),
			}),
			total: money,
		}),
	),
	/** `ipv4` is the new setting; its type is not documented. */
	ipv4: envelope(
		object({ proxy_name: z.string(), last_ipv4_update: timestamp, ipv4: z.unknown() }),
	),
	/** The reply carries the password, a secret. */
	basicAuth: envelope(
		object({
			proxy_name: z.string(),
			last_auth_change: timestamp,
			username: z.string(),
			password: z.string(),
		}),
	),
	/** `whitelist` a comma-separated string (a list accepted). */
	whitelist: envelope(
		object({ proxy_name: z.string(), last_auth_change: timestamp, whitelist: z.unknown() }),
	),
	/** What was charged; the new proxies' names are not in it. */
	deploy: envelope(object({ total: money, user_id: z.union([z.string(), z.number()]).optional() })),
	/** The IP change and the rotation link (202: sent to the device). */
	ipChange: envelope(object({ proxy_name: z.string(), last_ip_change: timestamp })),
	reboot: envelope(object({ proxy_name: z.string(), last_reboot: timestamp })),
	autoChange: envelope(
		object({
			proxy_name: z.string(),
			next_ip_change: timestamp.nullable().optional(),
			auto_change: z.boolean(),
			auto_change_time: int,
		}),
	),
	/** `proxy_name` may be the old name, the new one, or absent. */
	swap: envelope(object({ proxy_name: z.string().optional() })),
	/** `DELETE /v1/proxies/remove` (202): nothing but `ok` is documented. */
	remove: envelope(z.unknown().optional()),
	/** `funds` is typed integer by the reference; amounts elsewhere are numbers: both pass. */
	funds: envelope(
		object({
			funds: money,
			upcoming: object({
				renewing: countAmount,
				expiring: countAmount,
				total: object({ renewal_required: money, total_required: money, total_commitment: money }),
			}),
		}),
	),
	/** The auto-renew settings, echoed. */
	autoRenew: envelope(
		object({
			proxies: object({
				time: z.array(object({ proxy_name: z.string(), auto_renew: z.boolean(), interval: int })),
			}),
		}),
	),
};

/** The `data` of a reply, by its key in `responseSchemas`. */
export type ResponseData<K extends keyof typeof responseSchemas> = z.infer<
	(typeof responseSchemas)[K]
>['data'];

export type FundsData = ResponseData<'funds'>;

/** An error body: the service's `{ok:false, message, data}` or a gateway's RFC 7807 problem. */
export const errorBodySchema = object({
	ok: z.boolean().optional(),
	message: z.unknown().optional(),
	data: z.unknown().optional(),
	title: z.unknown().optional(),
	detail: z.unknown().optional(),
});

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The value at a zod issue's path in the parsed body. */
function valueAt(body: unknown, path: ReadonlyArray<PropertyKey>): unknown {
	let current: unknown = body;
	for (const part of path) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<PropertyKey, unknown>)[part];
	}
	return current;
}

function typeName(value: unknown, expected: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number' && Number.isNaN(value)) return 'nan';
	if (typeof value === 'number' && expected === 'integer' && !isInt(value)) return 'float';
	return typeof value;
}

/**
 * Where a body breaks its schema and how, from zod's first issue, e.g. `data[3].h_port` "should be
 * number but is string". The one place that reads a zod issue: it relies only on what zod 3 and 4
 * both give (`code`, `path`, `expected`, `message`) and reads the offending value from the body
 * itself, so n8n moving to zod 4 (which drops `received`) changes nothing here.
 */
export function describeIssue(
	issue: {
		code?: unknown;
		path?: ReadonlyArray<PropertyKey>;
		expected?: unknown;
		message?: unknown;
		values?: unknown;
	},
	body: unknown,
): { field: string; issue: string } {
	const path = (issue.path ?? []).filter(
		(part): part is string | number => typeof part === 'string' || typeof part === 'number',
	);
	const field = formatIssuePath(path);
	const actual = valueAt(body, path);
	if (issue.code === 'invalid_type' && actual === undefined) return { field, issue: 'is missing' };
	if (issue.code === 'invalid_type') {
		const actualType = typeName(actual, issue.expected);
		return { field, issue: `should be ${String(issue.expected)} but is ${actualType}` };
	}
	if (issue.code === 'invalid_literal') {
		return { field, issue: `should be ${JSON.stringify(issue.expected)}` };
	}
	// zod 4 names the one allowed value in `values`.
	const values = Array.isArray(issue.values) ? issue.values : [];
	if (issue.code === 'invalid_value' && values.length === 1 && values[0] !== undefined) {
		return { field, issue: `should be ${JSON.stringify(values[0])}` };
	}
	return { field, issue: `is invalid (${String(issue.message)})` };
}

function formatIssuePath(path: Array<string | number>): string {
	let out = '';
	for (const part of path) {
		if (typeof part === 'number') out += `[${part}]`;
		else out += out === '' ? part : `.${part}`;
	}
	return out === '' ? '(body)' : out;
}

/*
 * Fast acceptance of the proxy list. zod's passthrough parse copies every record, several times the
 * cost of the JSON parse at 10,000 proxies (zod 4 too: bench/breakdown.ts). The check below only
 * looks: a body it accepts is used as is; anything else goes through zod, which names the field.
 */
const isText = (value: unknown) => typeof value === 'string';

/**
 * Whether a value is a proxy record as `proxyRecordSchema` accepts it, without copying it. Written
 * out field by field: a loop costs several times more (test/unit/schemas-fast.test.ts checks it).
 */
export function isProxyRecord(value: unknown): boolean {
	if (!isRecord(value)) return false;
	const r = value;
	return (
		isText(r.proxy_name) &&
		(r.nickname === null || isText(r.nickname)) &&
		isText(r.isp) &&
		isText(r.period) &&
		typeof r.auto_renew === 'boolean' &&
		isInt(r.auto_renew_interval) &&
		isText(r.added_at) &&
		isText(r.expires_at) &&
		isText(r.network_status) &&
		isText(r.server_ip) &&
		isInt(r.h_port) &&
		isInt(r.s_port) &&
		isText(r.auth_method) &&
		isText(r.username) &&
		isText(r.password) &&
		typeof r.auto_change === 'boolean' &&
		isInt(r.auto_change_time) &&
		isText(r.last_ip_change) &&
		isText(r.last_reboot) &&
		isInt(r.traffic) &&
		isInt(r.h_threads) &&
		isInt(r.s_threads) &&
		isText(r.city) &&
		isText(r.state)
	);
}

function isEnvelope(value: unknown): value is Record<string, unknown> {
	return (
		isRecord(value) &&
		value.ok === true &&
		(value.message === undefined || typeof value.message === 'string')
	);
}

/** Schemas with a fast, non-copying acceptance check; what it does not accept, zod decides. */
export const fastAcceptance = new Map<z.ZodTypeAny, (json: unknown) => boolean>([
	[
		responseSchemas.proxyList,
		(json) => isEnvelope(json) && Array.isArray(json.data) && json.data.every(isProxyRecord),
	],
	[responseSchemas.proxy, (json) => isEnvelope(json) && isProxyRecord(json.data)],
]);
