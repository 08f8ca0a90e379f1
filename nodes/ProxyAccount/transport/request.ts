import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import type { z } from 'zod';

import type { Catalogue, Endpoint, EndpointName, Idempotency } from './catalogue';
import { CATALOGUE } from './catalogue';
import type { ProxyAccountContext } from './connection';
import { CREDENTIAL_TYPE, getConnection } from './connection';
import { toNodeApiError } from './errors';
import type { RequestFailure, RequestInfo, RequestKey } from './failures';
import { classifyThrown, failureKind, parseErrorBody, parseRetryAfter } from './failures';
import type { RateLimitFacts } from './rateLimit';
import { parseRateLimit } from './rateLimit';
import type { ProxyRecord, ResponseData, StockEntry } from './schemas';
import { carrierCounts, describeIssue, fastAcceptance, responseSchemas } from './schemas';

const DEFAULT_RETRY = {
	/** Upper bound on the time spent retrying one request, waits included. */
	budgetMs: 30_000,
	/** Attempts at most, the first included. */
	maxAttempts: 5,
	/** First backoff step; it doubles each attempt, with jitter, up to `maxDelayMs`. */
	baseDelayMs: 500,
	maxDelayMs: 8_000,
};

type RetryPolicy = typeof DEFAULT_RETRY;

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface CallOptions {
	itemIndex?: number;
	timeoutMs?: number;
	retry?: Partial<RetryPolicy>;
}

type PathOf<N extends EndpointName> = Catalogue[N]['path'];
type BodyOf<N extends EndpointName> =
	NonNullable<Catalogue[N]['body']> extends (input: infer B) => IDataObject ? B : never;

/** What a call of an endpoint passes: the path's names, the body's input, and the call's options. */
export type SendArgs<N extends EndpointName> = CallOptions & {
	/** `none`: a probe of the Base URL without any key (the credential test, for a credential without one). */
	key?: Exclude<RequestKey, 'limited'>;
} & (PathOf<N> extends `${string}{proxyName}${string}` ? { proxyName: string } : unknown) &
	(PathOf<N> extends `${string}{limitedApiKey}${string}` ? { limitedKey: string } : unknown) &
	([BodyOf<N>] extends [never] ? unknown : { body: BodyOf<N> });

/** What every endpoint answers: its `data`, its message, the service's clock, its rate limit. */
export interface Reply<T> {
	result: T;
	message?: string;
	/** The service's clock, or this machine's when the reply had no `date` (`dated` false). */
	serverTime: number;
	dated: boolean;
	/** The endpoint's rate-limit headers, when the reply carried them. */
	rateLimit?: RateLimitFacts;
}

type AnyEndpoint = Endpoint<string, keyof typeof responseSchemas, unknown>;

type Call = CallOptions &
	Partial<{ proxyName: string; limitedKey: string; body: unknown; key: RequestKey }>;

/** The path below the base URL, each name encoded as a segment; an empty, . or .. name refused. */
function filledPath(ctx: ProxyAccountContext, path: string, call: Call): string {
	const { proxyName = '', itemIndex = 0 } = call;
	const refused = proxyName.trim() === '' || proxyName === '.' || proxyName === '..';
	if (path.includes('{proxyName}') && refused) {
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
	return path.replace(/\{(proxyName|limitedApiKey)\}/g, (_, part: string) =>
		encodeURIComponent(part === 'proxyName' ? proxyName : (call.limitedKey ?? '')),
	);
}

/** A header by its lower-case name (n8n gives them lower-cased). */
function headerValue(headers: IDataObject | undefined, name: string): string | undefined {
	const value = headers?.[name];
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
	return typeof value === 'string' ? value : undefined;
}

/** The service's clock (the reply's `date`, else this machine's) and the reply's rate limit. */
function headerFacts(headers: IDataObject | undefined): Omit<Reply<unknown>, 'result' | 'message'> {
	const date = Date.parse(headerValue(headers, 'date') ?? '');
	const dated = !Number.isNaN(date);
	const serverTime = dated ? date : Date.now();
	const rateLimit = parseRateLimit((name) => headerValue(headers, name), serverTime);
	return rateLimit === undefined ? { serverTime, dated } : { serverTime, dated, rateLimit };
}

/** The origin a `location` header points at (relative to the request), or null when unreadable. */
function redirectOrigin(location: string | undefined, requestUrl: string): string | null {
	if (location === undefined || location.trim() === '') return null;
	try {
		const origin = new URL(location.trim(), requestUrl).origin;
		return origin === 'null' ? null : origin;
	} catch {
		return null;
	}
}

/** Turns one HTTP response into validated data or a failure. */
function classifyResponse(
	response: IN8nHttpFullResponse,
	schema: z.ZodTypeAny,
	requestUrl: string,
): { body: unknown } | { failure: RequestFailure } {
	const status = response.statusCode;
	const headers = response.headers as IDataObject | undefined;
	const contentType = (headerValue(headers, 'content-type') ?? '').toLowerCase();
	const raw = response.body;
	const text =
		typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : JSON.stringify(raw);
	const { serverTime, rateLimit } = headerFacts(headers);
	const retryAfterSeconds = parseRetryAfter(headerValue(headers, 'retry-after'), serverTime);
	const base = { kind: 'http' as const, status, retryAfterSeconds, rateLimit };

	// A redirect is never followed (the API key and the body would go to another address): it is
	// a failure that names where it pointed, by origin only.
	if (status >= 300 && status < 400) {
		const redirectTo = redirectOrigin(headerValue(headers, 'location'), requestUrl);
		return { failure: { ...base, redirectTo } };
	}

	const trimmed = text.trimStart();
	if (contentType.includes('text/html') || /^<(!doctype|html|head|body)/i.test(trimmed)) {
		const title = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim();
		return { failure: { ...base, bodyProblem: 'html', pageTitle: title } };
	}
	if (trimmed === '') {
		return { failure: { ...base, bodyProblem: 'empty' } };
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		return { failure: { ...base, bodyProblem: 'malformed' } };
	}
	const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
	const okFlag = isObject ? (json as { ok?: unknown }).ok : undefined;
	if (status < 200 || status >= 300 || okFlag === false) {
		return { failure: { ...base, body: isObject ? parseErrorBody(text) : undefined } };
	}
	if (fastAcceptance.get(schema)?.(json)) return { body: json };
	const parsed = schema.safeParse(json);
	if (!parsed.success) {
		return { failure: { kind: 'schema', status, ...describeIssue(parsed.error.issues[0], json) } };
	}
	return { body: parsed.data };
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

/** How a call ended: the reply, or the last failure with what an error about it must say. */
type Outcome = { reply: Reply<unknown> } | { failure: RequestFailure; info: RequestInfo };

/**
 * Sends one endpoint of the catalogue as its entry says, holds the answer to its schema and turns
 * every failure into a NodeApiError. Reads are retried within a bounded time; anything else is
 * never repeated once it may have reached the service.
 */
export async function send<N extends EndpointName>(
	ctx: ProxyAccountContext,
	name: N,
	...[args]: object extends SendArgs<N> ? [SendArgs<N>?] : [SendArgs<N>]
): Promise<Reply<ResponseData<Catalogue[N]['schema']>>> {
	const outcome = await exchange(ctx, name, (args ?? {}) as Call);
	if ('reply' in outcome) return outcome.reply as Reply<ResponseData<Catalogue[N]['schema']>>;
	throw toNodeApiError(ctx.getNode(), outcome.failure, outcome.info);
}

/**
 * `GET /v1/proxies/{name}` asked whether a proxy still exists: its record, or `undefined` when the
 * service answers that it has no such proxy. That answer is expected here, so no error is built for
 * it (the trigger asks this of every remembered proxy a reply left out); any other failure throws
 * as `send` does.
 */
export async function findProxy(
	ctx: ProxyAccountContext,
	args: SendArgs<'getProxy'>,
): Promise<ProxyRecord | undefined> {
	const outcome = await exchange(ctx, 'getProxy', args as Call);
	if ('reply' in outcome) return outcome.reply.result as ProxyRecord;
	if (failureKind(outcome.failure, outcome.info) === 'proxy-not-found') return undefined;
	throw toNodeApiError(ctx.getNode(), outcome.failure, outcome.info);
}

/** The attempts of one call (see `send`), ended by a reply or by a failure not tried again. */
async function exchange(
	ctx: ProxyAccountContext,
	name: EndpointName,
	call: Call,
): Promise<Outcome> {
	const entry = CATALOGUE[name] as AnyEndpoint;
	const endpoint = `${entry.method} ${entry.path}`;
	const path = filledPath(ctx, entry.path, call);
	const key = call.key ?? entry.key ?? 'master';
	const connection = await getConnection(ctx, call.itemIndex ?? 0, key === 'master');
	const policy: RetryPolicy = { ...DEFAULT_RETRY, ...call.retry };
	const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	// A read may take its whole timeout at least once, and never more than its budget in all.
	const budgetMs = Math.max(policy.budgetMs, timeoutMs);
	const started = Date.now();
	const options: IHttpRequestOptions = {
		method: entry.method,
		url: `${connection.baseUrl}${path}`,
		headers: { Accept: 'application/json' },
		// The body is read as text so an HTML page or a cut-off reply can be told apart from JSON.
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Never sent on to another address: a redirect is reported, not followed.
		disableFollowRedirect: true,
	};
	if (entry.body) {
		options.body = entry.body(call.body);
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}

	for (let attempt = 1; ; attempt++) {
		// Each attempt ends by its deadline, a reply trickled byte by byte included. A request sent
		// once gets its whole timeout; a read what is left of its budget.
		const attemptMs =
			entry.idempotency === 'sent-once'
				? timeoutMs
				: Math.max(1, Math.min(timeoutMs, budgetMs - (Date.now() - started)));
		const outcome = await attemptOnce(ctx, options, attemptMs, entry, call.body);
		if ('reply' in outcome) return outcome;
		const { failure } = outcome;
		const elapsed = Date.now() - started;
		if (attempt < policy.maxAttempts && isRetriable(failure, entry.idempotency)) {
			const asked = failure.kind === 'http' ? failure.retryAfterSeconds : undefined;
			const wait = asked !== undefined ? Math.ceil(asked * 1000) : backoffMs(attempt, policy);
			if (elapsed + wait < budgetMs) {
				ctx.logger.debug('Proxy Account request will be retried', {
					endpoint,
					attempt,
					waitMs: wait,
					status: failure.kind === 'network' ? failure.code : failure.status,
				});
				await sleep(wait);
				continue;
			}
		}
		const info: RequestInfo = {
			endpoint,
			chargesMoney: entry.idempotency === 'sent-once' && entry.money === 'charges',
			change: entry.change,
			proxyName: call.proxyName,
			itemIndex: call.itemIndex,
			baseUrl: connection.baseUrl,
			attempts: attempt,
			elapsedMs: elapsed,
			timeoutMs,
			key,
			walletUse: entry.walletUse,
			// The Limited keys as typed and as encoded in the path; an empty one is never looked for.
			secrets: [
				connection.apiKey,
				...[connection.limitedKey, call.limitedKey ?? ''].flatMap((k) => [
					k,
					encodeURIComponent(k),
				]),
			],
		};
		return { failure, info };
	}
}

const DEADLINE = Symbol('deadline');

/** One attempt, ended by its deadline: the reply, held to its schema and its check, or the failure. */
async function attemptOnce(
	ctx: ProxyAccountContext,
	options: IHttpRequestOptions,
	attemptMs: number,
	entry: AnyEndpoint,
	input: unknown,
): Promise<{ reply: Reply<unknown> } | { failure: RequestFailure }> {
	try {
		const answer = await withDeadline(
			ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...options,
				headers: { ...options.headers },
				timeout: attemptMs,
			}) as Promise<IN8nHttpFullResponse>,
			attemptMs,
		);
		if (answer === DEADLINE)
			return { failure: { kind: 'network', reason: 'timeout', code: 'DEADLINE' } };
		const classified = classifyResponse(answer, responseSchemas[entry.schema], options.url);
		if ('failure' in classified) return classified;
		const body = classified.body as { data?: unknown; message?: string };
		const mismatch = entry.check?.(body.data as never, input);
		if (mismatch) return { failure: { kind: 'schema', status: answer.statusCode, ...mismatch } };
		const facts = headerFacts(answer.headers as IDataObject);
		return { reply: { result: body.data, message: body.message, ...facts } };
	} catch (error) {
		return { failure: classifyThrown(error) };
	}
}

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

/** `GET /v1/stock`, the cheapest read, with each entry's carrier counts (`key: 'none'`: no key). */
export async function getStock(ctx: ProxyAccountContext, args: SendArgs<'getStock'> = {}) {
	const { result, serverTime, dated } = await send(ctx, 'getStock', args);
	const entries: StockEntry[] = result.map((entry) => ({
		...entry,
		carriers: carrierCounts(entry),
	}));
	return { entries, serverTime, dated };
}
