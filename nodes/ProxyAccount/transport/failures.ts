/* How a request failed, and what kind of failure that is for the user (its words: errors.ts). */
import { isRecord } from '../common/objects';
import { textOf } from '../common/wording';
import type { RateLimitFacts } from './rateLimit';
import type { ErrorBody } from './schemas';
import { errorBodySchema } from './schemas';

/** What went wrong with one HTTP exchange, before it is turned into a node error. */
export type RequestFailure =
	| {
			kind: 'network';
			/** `refused`: nothing reached the service. The others may have reached it. */
			reason: 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'aborted' | 'other';
			code: string;
	  }
	| {
			kind: 'http';
			status: number;
			/** Seconds the service asked us to wait (`retry-after`), when it said so. */
			retryAfterSeconds?: number;
			/** The endpoint's rate-limit headers, when the reply carried them. */
			rateLimit?: RateLimitFacts;
			/** The parsed body when it was JSON. */
			body?: ErrorBody;
			bodyProblem?: 'html' | 'malformed' | 'empty';
			pageTitle?: string;
			/** A redirect (3xx), not followed: the origin it pointed at, null when unreadable. */
			redirectTo?: string | null;
	  }
	| {
			kind: 'schema';
			status: number;
			/** Where the body differs from the document, e.g. `data[3].expires_at`. */
			field: string;
			issue: string;
	  };

export interface RequestInfo {
	/** e.g. `POST /v1/proxies/allocate`, for messages. */
	endpoint: string;
	/** Whether the request moves money: its failures must say whether a charge may have happened. */
	chargesMoney: boolean;
	/** The proxy a single-proxy request is about, for a not-found message. */
	proxyName?: string;
	itemIndex?: number;
	baseUrl: string;
	attempts: number;
	elapsedMs: number;
	timeoutMs: number;
	/** Strings that must never appear in a message (the API key). */
	secrets: string[];
	/** What a request that changes something changes; see `outcomeNote` (errors.ts). */
	change?: ChangeNote;
	/** The key the request carried: a refused key is told as the one that was sent. */
	key?: RequestKey;
	/** What the request would have paid for, when it is paid from the wallet. */
	walletUse?: WalletUse;
}

/**
 * The key a request carries: `master` as a bearer header; `limited` in the path (the rotation link,
 * sent without the master key); `none` (a probe of the Base URL for a credential without a master key).
 */
export type RequestKey = 'master' | 'limited' | 'none';

/** What a short wallet was to pay for ("short for this purchase") and how to spend `less`. */
export type WalletUse = { what: string; less?: string };

/** A change as the subject of a sentence ("The IPv4 setting") and how to `check` it was made. */
export type ChangeNote = { what: string; check: string };

const HTTP_TIMEOUT_CODES = [
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'UND_ERR_CONNECT_TIMEOUT',
];
const RESET_CODES = ['ECONNRESET', 'EPIPE', 'ERR_BAD_RESPONSE', 'UND_ERR_SOCKET'];
/** A TLS handshake that failed: nothing was sent (e.g. https:// to a plain-http port, a bad certificate). */
const TLS_CODE =
	/^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_)/;

function findCode(error: unknown): { code: string; message: string } {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z_]+$/.test(candidate.code)) {
			const message = typeof candidate.message === 'string' ? candidate.message : '';
			return { code: candidate.code, message };
		}
		current = candidate.cause;
	}
	return { code: '', message: error instanceof Error ? error.message : '' };
}

/** Classifies an exception thrown by the HTTP helper (no HTTP response was received). */
export function classifyThrown(error: unknown): RequestFailure {
	const { code, message } = findCode(error);
	let reason: Extract<RequestFailure, { kind: 'network' }>['reason'] = 'other';
	if (code === 'ECONNREFUSED') reason = 'refused';
	else if (HTTP_TIMEOUT_CODES.includes(code) || /timeout/i.test(message)) reason = 'timeout';
	else if (RESET_CODES.includes(code) || /socket hang up|aborted|reset/i.test(message))
		reason = 'reset';
	else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = 'dns';
	else if (TLS_CODE.test(code)) reason = 'tls';
	else if (code === 'ERR_CANCELED') reason = 'aborted';
	return { kind: 'network', reason, code: code || 'UNKNOWN' };
}

/** Parses `retry-after`: delay in seconds or an HTTP date (relative to the service's `date`). */
export function parseRetryAfter(value: unknown, serverNow: number): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
	const at = Date.parse(text);
	if (Number.isNaN(at)) return undefined;
	return Math.max(0, (at - serverNow) / 1000);
}

export function parseErrorBody(text: string): ErrorBody | undefined {
	try {
		const parsed = errorBodySchema.safeParse(JSON.parse(text));
		return parsed.success ? parsed.data : undefined;
	} catch {
		return undefined;
	}
}

/**
 * What a business refusal (`ok: false`, status below 500) is about. Decided from the status and
 * from structured `data` first. The service's wording is only a last hint, and never for a request
 * that moves money: there an unrecognised refusal stays a plain refusal, quoted as the service
 * worded it.
 */
function refusalKind(status: number, body: ErrorBody, info: RequestInfo) {
	const { data } = body;
	if ((isRecord(data) && ('diff' in data || 'funds' in data)) || status === 402)
		return 'wallet-short';
	if (status === 404)
		return info.proxyName || /prox/i.test(textOf(body.message) ?? '')
			? 'proxy-not-found'
			: 'no-endpoint';
	if (status === 400 || status === 422) return 'input-refused';
	if (info.chargesMoney) return 'refused';
	const said = typeof body.message === 'string' ? body.message : '';
	if (/insufficient|not enough (funds|balance)|funds/i.test(said)) return 'wallet-short';
	if (/not found|unknown proxy|does not exist|no such/i.test(said)) return 'proxy-not-found';
	if (/invalid|must be|required|not allowed/i.test(said)) return 'input-refused';
	return 'refused';
}

/** What kind of failure this is for the user: each kind has its message and fix in errors.ts. */
export function failureKind(failure: RequestFailure, info: RequestInfo) {
	if (failure.kind === 'schema') return 'unexpected-shape';
	if (failure.kind === 'network') {
		const byReason = {
			refused: 'connection-refused',
			dns: 'address-unknown',
			tls: 'tls-failed',
			timeout: 'timeout',
			reset: 'connection-closed',
			aborted: 'cancelled',
			other: 'network',
		} as const;
		return byReason[failure.reason];
	}
	const { status, body } = failure;
	if (failure.redirectTo !== undefined) return 'redirect';
	if (failure.bodyProblem === 'html') return 'web-page';
	// On the rotation link a refusal of the key is the Limited key's, whatever the body says.
	if (info.key === 'limited' && (status === 401 || status === 403)) return 'limited-key-refused';
	if (body && body.ok === false && status < 500) return refusalKind(status, body, info);
	if (status === 401) return 'key-refused';
	if (status === 403) return 'key-not-allowed';
	if (status === 429) return 'rate-limited';
	if (failure.bodyProblem === 'malformed' || failure.bodyProblem === 'empty') return 'unreadable';
	if (status >= 500) return 'server-trouble';
	if (status === 404) return 'no-endpoint';
	return 'client-refused';
}

/** Every way a request can fail, as the user is told about it. */
export type FailureKind = ReturnType<typeof failureKind>;

/**
 * Whether the service may have acted on a request that failed this way. Only a refusal is certain:
 * a 4xx, or an `ok: false` body in a 2xx; and nothing reached the service when the connection was
 * refused or its address was not found. Anything else (a redirect, a 5xx, a timeout, a cut
 * connection, an answer that cannot be read or does not fit the document) may have come after the
 * service acted. Decided from the status class and the body's `ok` flag only, never from wording.
 */
export function mayHaveActed(failure: RequestFailure): boolean {
	if (failure.kind === 'network')
		return failure.reason !== 'refused' && failure.reason !== 'dns' && failure.reason !== 'tls';
	if (failure.kind === 'schema') return true;
	if (failure.status >= 400 && failure.status < 500) return false;
	const isAnswer =
		failure.status >= 200 && failure.status < 300 && failure.bodyProblem === undefined;
	return !(isAnswer && failure.body?.ok === false);
}
