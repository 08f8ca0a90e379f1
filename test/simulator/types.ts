/**
 * Shared types of the Proxy Account simulator.
 *
 * The simulator is a stateful, seeded stand-in for the live Proxy Account service (see
 * /work/shared/spec/proxy-account-api.md and service-facts.md). Everything here is plain data so the
 * state can be inspected and mutated directly by tests.
 */
import type { RouteKey } from './routes';

export type Period = 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';

export const PERIODS: readonly Period[] = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'];

export type BusinessErrorStyle = 'http-status' | 'ok-false-200';

export interface RateLimitRule {
	limit: number;
	windowMs: number;
	/**
	 * Rate-limit headers on every reply of the endpoint (default: none). `draft`: `RateLimit-Limit`,
	 * `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the whole quota is back), as in the
	 * IETF draft; `x`: `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (the epoch
	 * second the quota is back, as several services send it).
	 */
	headers?: 'draft' | 'x';
	/**
	 * How a 429's Retry-After gives the wait: `ceil` (default) whole seconds rounded up, at least 1;
	 * `floor` rounded down, so 0 within the last second (as some services send it).
	 */
	retryAfter?: 'ceil' | 'floor';
	/**
	 * Header values sent instead of the true ones (a service whose headers lie), e.g.
	 * `{ limit: '0' }` or `{ remaining: '-1', reset: 'NaN' }`; the limit itself is still applied.
	 */
	claim?: { limit?: string; remaining?: string; reset?: string };
}

export interface SimulatorOptions {
	/** Default 1; same seed => same accounts, proxies, stock, keys (except API keys given explicitly). */
	seed?: number;
	/** Proxies of the demo account, default 12 (0..10000). */
	proxies?: number;
	/** Number of stock cities, default 8 (5..1000). */
	cities?: number;
	/** Demo account is a member, default true. */
	member?: boolean;
	/** Demo account wallet, default 5000. */
	balance?: number;
	/** Default: derived from the seed, 'pa_live_' + 32 hex chars. */
	demoApiKey?: string;
	/** Clock start (ms or ISO string); default Date.now() at start. */
	now?: number | string;
	/** Default false: clock = start + real elapsed + advances; true: only moves by advance()/set(). */
	frozenClock?: boolean;
	/** Offset used when formatting timestamps, default -360. */
	utcOffsetMinutes?: number;
	/** Default 0 (random free port); the host is always 127.0.0.1. */
	port?: number;
	/** Per API key per route; default: no limit. */
	rateLimit?: Partial<Record<RouteKey, RateLimitRule>>;
	/** How business errors are sent, default 'http-status'. */
	businessErrors?: BusinessErrorStyle;
	/**
	 * A network between n8n and the service: every API request's reply waits one round trip
	 * (`latencyMs`, plus or minus `jitterMs`). Default: none (loopback). See NETWORK_MODEL.
	 */
	network?: NetworkOptions;
}

export interface NetworkOptions {
	latencyMs: number;
	jitterMs?: number;
}

export interface UnitPrices {
	standard: number;
	member: number;
	bulk: number | null;
}

export interface SimCarrier {
	/** Stock field name: lowercase display name without punctuation, e.g. 'att'. */
	key: string;
	/** Display name used as `isp`, e.g. 'AT&T'. */
	name: string;
	/** Two-letter code used in quote item keys, e.g. 'AT'. */
	code: string;
}

export interface SimStockCity {
	city: string;
	state: string;
	/** Count per carrier key; a carrier without an entry counts 0. */
	counts: Record<string, number>;
	open: boolean;
	visible: boolean;
}

/**
 * A proxy record as the service returns it: the 25 documented fields in the documented order, then
 * the extra fields the live service sends. Any further field is passed through as is.
 */
export interface ProxyRecord {
	proxy_name: string;
	nickname: string | null;
	isp: string;
	period: string;
	auto_renew: boolean;
	auto_renew_interval: number;
	added_at: string;
	expires_at: string;
	network_status: string;
	server_ip: string;
	h_port: number;
	s_port: number;
	auth_method: string;
	username: string;
	password: string;
	/** Seeded records hold a list; the whitelist endpoint stores the comma-separated string it sends back. */
	whitelist: string[] | string | null;
	auto_change: boolean;
	auto_change_time: number;
	last_ip_change: string;
	last_reboot: string;
	traffic: number;
	h_threads: number;
	s_threads: number;
	city: string;
	state: string;
	country?: string;
	/** The proxy's IPv4 address; null once IPv4 is turned off (IPv6 only). */
	ipv4?: string | null;
	next_ip_change?: string | null;
	product?: string;
	[extra: string]: unknown;
}

/** The 25 documented proxy record fields, in the documented order. */
export const PROXY_FIELDS = [
	'proxy_name',
	'nickname',
	'isp',
	'period',
	'auto_renew',
	'auto_renew_interval',
	'added_at',
	'expires_at',
	'network_status',
	'server_ip',
	'h_port',
	's_port',
	'auth_method',
	'username',
	'password',
	'whitelist',
	'auto_change',
	'auto_change_time',
	'last_ip_change',
	'last_reboot',
	'traffic',
	'h_threads',
	's_threads',
	'city',
	'state',
] as const;

/** Extra fields the live service sends after the documented ones. */
export const PROXY_EXTRA_FIELDS = ['country', 'ipv4', 'next_ip_change', 'product'] as const;

export interface SimAccount {
	apiKey: string;
	/** The account's Limited key: it may only change IPs (`proxies.change_ip`). */
	limitedKey: string;
	balance: number;
	member: boolean;
	proxies: Map<string, ProxyRecord>;
}

export interface RequestLogEntry {
	seq: number;
	/** Simulator clock (ms) when the request arrived. */
	at: number;
	method: string;
	/** Raw path as received, still percent-encoded (query string included when sent). */
	path: string;
	route: RouteKey | null;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON, the raw string when it is not JSON, null when there was no body. */
	body: unknown;
	/** Null while in flight and when the socket was reset. */
	status: number | null;
	/** The key when it was valid. */
	apiKey: string | null;
	/** Kind of the fault applied (e.g. 'reset:after', 'latency:before'). */
	fault?: string;
}

export interface ChargeEntry {
	/** Request seq. */
	seq: number;
	at: number;
	apiKey: string;
	proxy_name: string;
	interval: number;
	period: Period;
	amount: number;
	previous_expires_at: string;
	new_expires_at: string;
	/** What was paid for; absent for an extension (allocate). */
	kind?: 'deploy' | 'swap';
}

export type FaultSpec = {
	route: RouteKey | '*';
	/** Default 1; Infinity = until cleared. */
	times?: number;
} & (
	| { kind: 'status'; status: number; body?: unknown; contentType?: string; headers?: Record<string, string> }
	| { kind: 'rateLimit'; retryAfter?: number }
	| { kind: 'latency'; delayMs: number; when?: 'before' | 'after' }
	| { kind: 'reset'; when?: 'before' | 'after' | 'mid-body' }
	| { kind: 'html'; status?: number }
	| { kind: 'malformed' }
	| { kind: 'okFalse'; status?: number; message?: string; data?: unknown }
	| { kind: 'drift'; remove?: string[]; set?: Record<string, unknown> }
	| { kind: 'emptyList' }
	| { kind: 'hugeBody'; bytes?: number }
);

export type FaultKind = FaultSpec['kind'];

export const FAULT_KINDS: readonly FaultKind[] = [
	'status',
	'rateLimit',
	'latency',
	'reset',
	'html',
	'malformed',
	'okFalse',
	'drift',
	'emptyList',
	'hugeBody',
];

export interface SimClock {
	now(): number;
	advance(ms: number): void;
	set(ms: number): void;
}
