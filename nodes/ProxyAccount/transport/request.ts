import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import type { z } from 'zod';

import type { ProxyAccountContext } from './connection';
import { CREDENTIAL_TYPE, getConnection } from './connection';
import { toNodeApiError } from './errors';
import type { ChangeNote, RequestFailure, RequestInfo, RequestKey, WalletUse } from './failures';
import { classifyThrown, parseErrorBody, parseRetryAfter } from './failures';
import type { RateLimitFacts } from './rateLimit';
import { parseRateLimit } from './rateLimit';
import { describeIssue, fastAcceptance } from './schemas';

export interface RetryPolicy {
	/** Upper bound on the time spent retrying one request, waits included. */
	budgetMs: number;
	/** Attempts at most, the first included. */
	maxAttempts: number;
	/** First backoff step; it doubles each attempt, with jitter, up to `maxDelayMs`. */
	baseDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	budgetMs: 30_000,
	maxAttempts: 5,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
};

export const DEFAULT_TIMEOUT_MS = 30_000;

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

export interface ApiRequest<S extends z.ZodTypeAny> {
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	/** Path below the base URL, already encoded, e.g. `/v1/proxies/PRX%2F1`. */
	path: string;
	/** Documented endpoint for messages, e.g. `GET /v1/proxies/{proxyName}`. */
	endpoint: string;
	body?: IDataObject;
	schema: S;
	idempotency: Idempotency;
	money: MoneyEffect;
	itemIndex?: number;
	/** The proxy a single-proxy request is about, for a not-found message. */
	proxyName?: string;
	timeoutMs?: number;
	retry?: Partial<RetryPolicy>;
	/**
	 * A check of the answer against the request, after the schema: where the answer does not
	 * answer what was asked (e.g. a quote without the requested lines). Such an answer fails like
	 * a schema mismatch and is not retried.
	 */
	check?: (body: z.infer<S>) => { field: string; issue: string } | undefined;
	/**
	 * A request that changes something (sent with `idempotency: 'sent-once'`): its failures say whether
	 * the change may have been made instead of speaking of a charge.
	 */
	change?: ChangeNote;
	/** Further strings that must never appear in a message (e.g. a Limited key in the path). */
	secrets?: string[];
	/**
	 * The key the request carries (see `RequestKey`): the master key unless said otherwise. Only a
	 * request with the master key needs one in the credential.
	 */
	key?: RequestKey;
	/** What a request paid from the wallet buys, for the message of a wallet that is short. */
	walletUse?: WalletUse;
}

export interface ApiResponse<T> {
	body: T;
	/** The service's clock (its `date` header), or this machine's when it sent none. */
	serverTime: number;
	/** Whether `serverTime` came from the reply's `date` header (false: this machine's clock). */
	dated: boolean;
	attempts: number;
	/** The endpoint's rate-limit headers, when the reply carried them. */
	rateLimit?: RateLimitFacts;
}

function headerValue(headers: IDataObject | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
	return typeof value === 'string' ? value : undefined;
}

function dateOf(headers: IDataObject | undefined): number {
	const date = headerValue(headers, 'date');
	return date ? Date.parse(date) : Number.NaN;
}

function serverTimeOf(headers: IDataObject | undefined): number {
	const parsed = dateOf(headers);
	return Number.isNaN(parsed) ? Date.now() : parsed;
}

/** The reply's rate-limit facts, as a field to spread into a result (none when it has none). */
function rateLimitOf(headers: IDataObject | undefined): { rateLimit?: RateLimitFacts } {
	const rateLimit = parseRateLimit((name) => headerValue(headers, name), serverTimeOf(headers));
	return rateLimit === undefined ? {} : { rateLimit };
}

/** The origin a `location` header points at (relative to the request), or null when unreadable. */
function redirectOrigin(
	location: string | undefined,
	requestUrl: string | undefined,
): string | null {
	if (location === undefined || location.trim() === '') return null;
	try {
		const origin = new URL(location.trim(), requestUrl).origin;
		return origin === 'null' ? null : origin;
	} catch {
		return null;
	}
}

type Classified<T> = { ok: true; body: T } | { ok: false; failure: RequestFailure };

/** Turns one HTTP response into validated data or a failure. */
export function classifyResponse<S extends z.ZodTypeAny>(
	response: IN8nHttpFullResponse,
	schema: S,
	requestUrl?: string,
): Classified<z.infer<S>> {
	const status = response.statusCode;
	const headers = response.headers as IDataObject | undefined;
	const contentType = (headerValue(headers, 'content-type') ?? '').toLowerCase();
	const raw = response.body;
	const text =
		typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : JSON.stringify(raw);
	const retryAfterSeconds = parseRetryAfter(
		headerValue(headers, 'retry-after'),
		serverTimeOf(headers),
	);
	const base = {
		kind: 'http' as const,
		status,
		contentType,
		retryAfterSeconds,
		...rateLimitOf(headers),
	};

	// A redirect is never followed (the API key and the body would go to another address): it is
	// a failure that names where it pointed, by origin only.
	if (status >= 300 && status < 400) {
		return {
			ok: false,
			failure: {
				...base,
				redirectTo: redirectOrigin(headerValue(headers, 'location'), requestUrl),
			},
		};
	}

	const trimmed = text.trimStart();
	if (contentType.includes('text/html') || /^<(!doctype|html|head|body)/i.test(trimmed)) {
		const title = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim();
		return { ok: false, failure: { ...base, bodyProblem: 'html', pageTitle: title } };
	}
	if (trimmed === '') {
		return { ok: false, failure: { ...base, bodyProblem: 'empty' } };
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		return { ok: false, failure: { ...base, bodyProblem: 'malformed' } };
	}
	const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
	const okFlag = isObject ? (json as { ok?: unknown }).ok : undefined;
	if (status < 200 || status >= 300 || okFlag === false) {
		return { ok: false, failure: { ...base, body: isObject ? parseErrorBody(text) : undefined } };
	}
	if (fastAcceptance.get(schema)?.(json)) return { ok: true, body: json as z.infer<S> };
	const parsed = schema.safeParse(json);
	if (!parsed.success) {
		return {
			ok: false,
			failure: { kind: 'schema', status, ...describeIssue(parsed.error.issues[0], json) },
		};
	}
	return { ok: true, body: parsed.data };
}

/** Whether trying again could help, and is safe for the money. */
function isRetriable(failure: RequestFailure, idempotency: Idempotency): boolean {
	if (failure.kind === 'network') {
		if (failure.reason === 'refused') return true;
		if (idempotency === 'sent-once') return false;
		return failure.reason === 'reset' || failure.reason === 'timeout' || failure.reason === 'dns';
	}
	if (failure.kind === 'http') {
		if (failure.status === 429) return true;
		if (idempotency === 'sent-once') return false;
		if (failure.body?.ok === false && failure.status < 500) return false;
		return failure.status === 502 || failure.status === 503 || failure.status === 504;
	}
	return false;
}

function backoffMs(attempt: number, policy: RetryPolicy): number {
	const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(step * (0.5 + Math.random() / 2));
}

/**
 * Sends one API request through n8n's authenticated HTTP helper, validates the answer against
 * its schema and maps every failure to a NodeApiError. Reads are retried within a bounded time;
 * a request that charges money is never repeated once it may have reached the service.
 */
export async function apiRequest<S extends z.ZodTypeAny>(
	ctx: ProxyAccountContext,
	request: ApiRequest<S>,
): Promise<ApiResponse<z.infer<S>>> {
	const key = request.key ?? 'master';
	const connection = await getConnection(ctx, request.itemIndex ?? 0, key === 'master');
	const policy: RetryPolicy = { ...DEFAULT_RETRY, ...request.retry };
	const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	// A read may take its whole timeout at least once, and never more than its budget in all.
	const budgetMs = Math.max(policy.budgetMs, timeoutMs);
	const started = Date.now();
	const url = `${connection.baseUrl}${request.path}`;
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { Accept: 'application/json' },
		// The body is read as text so an HTML page or a cut-off reply can be told apart from JSON.
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Never sent on to another address: a redirect is reported, not followed.
		disableFollowRedirect: true,
	};
	if (request.body !== undefined) {
		options.body = request.body;
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}

	for (let attempt = 1; ; attempt++) {
		let failure: RequestFailure;
		// Each attempt ends by its deadline, a reply trickled byte by byte included. A charge gets
		// its whole timeout; a read what is left of its budget.
		const attemptMs =
			request.idempotency === 'sent-once'
				? timeoutMs
				: Math.max(1, Math.min(timeoutMs, budgetMs - (Date.now() - started)));
		try {
			const answer = await withDeadline(
				ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
					...options,
					headers: { ...options.headers },
					timeout: attemptMs,
				}) as Promise<IN8nHttpFullResponse>,
				attemptMs,
			);
			if (answer === DEADLINE) {
				failure = { kind: 'network', reason: 'timeout', code: 'DEADLINE' };
			} else {
				const classified = classifyResponse(answer, request.schema, url);
				if (classified.ok) {
					const mismatch = request.check?.(classified.body);
					if (!mismatch) {
						return {
							body: classified.body,
							serverTime: serverTimeOf(answer.headers as IDataObject),
							dated: !Number.isNaN(dateOf(answer.headers as IDataObject)),
							attempts: attempt,
							...rateLimitOf(answer.headers as IDataObject),
						};
					}
					failure = { kind: 'schema', status: answer.statusCode, ...mismatch };
				} else {
					failure = classified.failure;
				}
			}
		} catch (error) {
			failure = classifyThrown(error);
		}

		const elapsed = Date.now() - started;
		const info: RequestInfo = {
			endpoint: request.endpoint,
			chargesMoney: request.idempotency === 'sent-once' && request.money === 'charges',
			change: request.change,
			proxyName: request.proxyName,
			itemIndex: request.itemIndex,
			baseUrl: connection.baseUrl,
			attempts: attempt,
			elapsedMs: elapsed,
			timeoutMs,
			key,
			walletUse: request.walletUse,
			secrets: [
				connection.apiKey,
				connection.limitedKey,
				encodeURIComponent(connection.limitedKey),
				...(request.secrets ?? []),
			],
		};
		if (attempt < policy.maxAttempts && isRetriable(failure, request.idempotency)) {
			const asked = failure.kind === 'http' ? failure.retryAfterSeconds : undefined;
			const wait = asked !== undefined ? Math.ceil(asked * 1000) : backoffMs(attempt, policy);
			if (elapsed + wait < budgetMs) {
				ctx.logger.debug('Proxy Account request will be retried', {
					endpoint: request.endpoint,
					attempt,
					waitMs: wait,
					status: failure.kind === 'network' ? failure.code : failure.status,
				});
				await sleep(wait);
				continue;
			}
		}
		throw toNodeApiError(ctx.getNode(), failure, info);
	}
}

const DEADLINE = Symbol('deadline');

/**
 * Waits for `work` at most `ms` milliseconds of wall-clock time. n8n's own timeout only notices a
 * silent connection, not one that trickles its reply; past the deadline the answer is dropped.
 */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | typeof DEADLINE> {
	const settled = new AbortController();
	// A late answer or failure is of no interest any more, but must not go unhandled.
	work.catch(() => undefined);
	const expired = (): typeof DEADLINE => DEADLINE;
	const deadline = sleep(ms, settled.signal).then(expired, expired);
	try {
		return await Promise.race([work, deadline]);
	} finally {
		settled.abort();
	}
}
