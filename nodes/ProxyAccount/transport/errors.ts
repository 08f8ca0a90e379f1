import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { quotedSentence } from '../helpers/wording';
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
			contentType: string;
			/** The parsed body when it was JSON. */
			body?: ErrorBody;
			/** Why the body could not be used: HTML page, invalid JSON, empty. */
			bodyProblem?: 'html' | 'malformed' | 'empty';
			/** Title of an HTML page, when there was one. */
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
	/** What a request that changes a proxy (and moves no money) changes; see `changeNote`. */
	change?: ChangeNote;
	/** The key the request carried: a refused key is told as the one that was sent. */
	key?: RequestKey;
	/** What the request would have paid for, when it is paid from the wallet. */
	walletUse?: WalletUse;
}

/**
 * The key a request carries. `master`: the credential's master key, as a bearer header.
 * `limited`: the Limited key in the path (the rotation link), without the master key (the
 * credential's `authenticate` leaves it out). `none`: no key (a probe of the Base URL, made for a
 * credential that has no master key).
 */
export type RequestKey = 'master' | 'limited' | 'none';

/** How a wallet that is short speaks of what the money was for. */
export interface WalletUse {
	/** What was to be paid, after "short for", e.g. "this purchase". */
	what: string;
	/** How to spend less, after "Top up the wallet, or", e.g. "buy fewer proxies or for a shorter time". */
	less?: string;
}

const DEFAULT_WALLET_USE: WalletUse = { what: 'this request' };

/** How a failed change names what it may have done, e.g. "The IPv4 setting". */
export interface ChangeNote {
	/** The change, as the subject of a sentence, e.g. "The authentication change". */
	what: string;
	/** How to see whether it was made, e.g. "Read the proxy (Proxy Account > Get)". */
	check: string;
	/** The change is paid from the wallet (a purchase): a refusal then says nothing was charged. */
	money?: boolean;
}

const HTTP_TIMEOUT_CODES = new Set([
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_BAD_RESPONSE', 'UND_ERR_SOCKET']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);
/** A TLS handshake that failed: nothing was sent (e.g. https:// to a plain-http port, a bad certificate). */
const TLS_CODE =
	/^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_)/;

function findCode(error: unknown): { code: string; message: string } {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z_]+$/.test(candidate.code)) {
			return {
				code: candidate.code,
				message: typeof candidate.message === 'string' ? candidate.message : '',
			};
		}
		current = candidate.cause;
	}
	const message = error instanceof Error ? error.message : '';
	return { code: '', message };
}

/** Classifies an exception thrown by the HTTP helper (no HTTP response was received). */
export function classifyThrown(error: unknown): RequestFailure {
	const { code, message } = findCode(error);
	let reason: Extract<RequestFailure, { kind: 'network' }>['reason'] = 'other';
	if (code === 'ECONNREFUSED') reason = 'refused';
	else if (HTTP_TIMEOUT_CODES.has(code) || /timeout/i.test(message)) reason = 'timeout';
	else if (RESET_CODES.has(code) || /socket hang up|aborted|reset/i.test(message)) reason = 'reset';
	else if (DNS_CODES.has(code)) reason = 'dns';
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

function redact(text: string, secrets: string[]): string {
	let out = text;
	for (const secret of secrets) {
		if (secret.length >= 4) out = out.split(secret).join('***');
	}
	return out;
}

function textOf(value: unknown, limit = 300): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') {
		const trimmed = value.trim();
		return trimmed.length > limit ? `${trimmed.slice(0, limit)}…` : trimmed;
	}
	return undefined;
}

function formatMoney(amount: number): string {
	return Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
}

function seconds(ms: number): string {
	const s = ms / 1000;
	return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * Sentences joined into one text: empty parts are left out, the rest separated by one space.
 * Every message and fix of the table below is built with it.
 */
export function sentences(...parts: Array<string | false | undefined | null>): string {
	return parts
		.filter((part): part is string => typeof part === 'string')
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.join(' ');
}

// ----- what kind of failure ---------------------------------------------------------------------------

/** Every way a request can fail, as the user is told about it. */
export type FailureKind =
	| 'connection-refused'
	| 'address-unknown'
	| 'tls-failed'
	| 'timeout'
	| 'connection-closed'
	| 'cancelled'
	| 'network'
	| 'redirect'
	| 'web-page'
	| 'proxy-not-found'
	| 'wallet-short'
	| 'input-refused'
	| 'refused'
	| 'key-refused'
	| 'key-not-allowed'
	| 'limited-key-refused'
	| 'rate-limited'
	| 'unreadable'
	| 'server-trouble'
	| 'no-endpoint'
	| 'client-refused'
	| 'unexpected-shape';

/**
 * What a business refusal (`ok: false`, status below 500) is about. Decided from the status and
 * from structured `data` first. The service's wording is only a last hint, and never for a request
 * that moves money: there an unrecognised refusal stays a plain refusal, quoted as the service
 * worded it.
 */
function refusalKind(status: number, body: ErrorBody, info: RequestInfo): FailureKind {
	const data = body.data as { funds?: unknown; diff?: unknown } | undefined;
	if (data !== null && typeof data === 'object' && ('diff' in data || 'funds' in data))
		return 'wallet-short';
	if (status === 402) return 'wallet-short';
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

export function failureKind(failure: RequestFailure, info: RequestInfo): FailureKind {
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

// ----- the table: what each kind says, and how to fix it ---------------------------------------------

type ErrorCause =
	| 'rate-limited'
	| 'temporarily-unavailable'
	| 'credential-invalid'
	| 'configuration-invalid'
	| 'node-defect';

/** What a message and its fix can draw on. */
interface Facts {
	failure: RequestFailure;
	info: RequestInfo;
	status?: number;
	/** What the service said (its message, detail or title), when it said something. */
	said?: string;
	/** "It was tried N times over S s." after a retry. */
	retried?: string;
}

interface Entry {
	message: (f: Facts) => string;
	fix: (f: Facts) => string;
	cause?: ErrorCause | ((f: Facts) => ErrorCause | undefined);
}

const quoted = (said: string | undefined) =>
	said ? `The service said: ${quotedSentence(said)}` : undefined;
const http = (f: Facts) => f.failure as Extract<RequestFailure, { kind: 'http' }>;
const wallet = (f: Facts) => (http(f).body?.data ?? {}) as { diff?: unknown; funds?: unknown };
const walletUse = (f: Facts) => f.info.walletUse ?? DEFAULT_WALLET_USE;
const CHECK_BASE_URL = 'Check the Base URL in the Proxy Account credential';

const TABLE: Record<FailureKind, Entry> = {
	'connection-refused': {
		message: (f) => `Could not connect to the Proxy Account service at ${f.info.baseUrl}`,
		fix: (f) =>
			sentences(
				!f.info.chargesMoney && 'Nothing was sent.',
				f.retried,
				`${CHECK_BASE_URL} and that n8n can reach that address.`,
			),
		cause: 'temporarily-unavailable',
	},
	'address-unknown': {
		message: (f) =>
			`The address of the Proxy Account service could not be resolved (${f.info.baseUrl})`,
		fix: (f) => sentences(`${CHECK_BASE_URL} for typos.`, f.retried),
		cause: 'configuration-invalid',
	},
	'tls-failed': {
		message: (f) => `Could not open a secure (TLS) connection to ${f.info.baseUrl}`,
		fix: () =>
			sentences(
				'Nothing was sent.',
				`${CHECK_BASE_URL}: an address that does not use HTTPS needs http://, and one with a certificate n8n does not trust needs a trusted certificate.`,
			),
		cause: 'configuration-invalid',
	},
	timeout: {
		message: (f) =>
			`The Proxy Account service did not answer within ${seconds(f.info.timeoutMs)} (${f.info.endpoint})`,
		fix: (f) =>
			f.info.chargesMoney || f.info.change
				? ''
				: sentences(
						f.retried,
						'The service is slow or unreachable right now; try again later, or raise Timeout (Seconds).',
					),
		cause: 'temporarily-unavailable',
	},
	'connection-closed': {
		message: (f) =>
			`The connection to the Proxy Account service closed before its answer arrived (${f.info.endpoint})`,
		fix: (f) =>
			f.info.chargesMoney || f.info.change
				? ''
				: sentences(
						f.retried,
						'Try again later; if it keeps happening, check proxies or firewalls between n8n and the service.',
					),
		cause: 'temporarily-unavailable',
	},
	cancelled: {
		message: (f) => `The request to the Proxy Account service was cancelled (${f.info.endpoint})`,
		fix: () => 'The execution was stopped while the request was under way.',
	},
	network: {
		message: (f) =>
			`The request to the Proxy Account service could not be completed (${f.info.endpoint}, ${(f.failure as { code: string }).code})`,
		fix: (f) =>
			sentences(
				f.retried,
				'Check the Base URL in the credential and the network between n8n and the service.',
			),
	},
	redirect: {
		message: (f) =>
			`The Proxy Account service answered with a redirect (HTTP ${f.status}) to ${http(f).redirectTo ?? 'an address that could not be read'}, which was not followed (${f.info.endpoint})`,
		fix: () =>
			`Requests are never sent on to another address, so the API key and the request stay with the Base URL. ${CHECK_BASE_URL}: if the service has moved (e.g. from http:// to https://), enter its new address.`,
		cause: 'configuration-invalid',
	},
	'web-page': {
		message: (f) =>
			`The Proxy Account service answered with a web page instead of data (HTTP ${f.status}, ${f.info.endpoint})`,
		fix: (f) =>
			sentences(
				http(f).pageTitle && `The page was titled ${quotedSentence(http(f).pageTitle ?? '')}`,
				'A gateway in front of the service is failing, or the Base URL points at a website rather than the API (it should be the address before /v1).',
				f.retried,
			),
		cause: (f) => ((f.status ?? 0) >= 500 ? 'temporarily-unavailable' : 'configuration-invalid'),
	},
	'proxy-not-found': {
		message: (f) =>
			f.info.proxyName
				? `Proxy \u201c${f.info.proxyName}\u201d was not found in this Proxy Account`
				: `The Proxy Account service did not find what was asked for (${f.info.endpoint})`,
		fix: (f) =>
			sentences(
				'Check the proxy name (names are case-sensitive), or pick the proxy from the list.',
				quoted(f.said),
			),
		cause: 'configuration-invalid',
	},
	'wallet-short': {
		message: (f) => {
			const { diff } = wallet(f);
			const { what } = walletUse(f);
			return typeof diff === 'number'
				? `The wallet is ${formatMoney(diff)} short for ${what}`
				: `The wallet does not hold enough funds for ${what}`;
		},
		fix: (f) => {
			const { funds } = wallet(f);
			const { less } = walletUse(f);
			return sentences(
				typeof funds === 'number' && `The wallet holds ${formatMoney(funds)}.`,
				`Top up the wallet in the Proxy Account dashboard${less === undefined ? '' : `, or ${less}`}.`,
			);
		},
	},
	'input-refused': {
		message: (f) => `The Proxy Account service rejected the request: ${f.said ?? 'invalid input'}`,
		fix: (f) => `Check the parameters named in the message (${f.info.endpoint}).`,
		cause: 'configuration-invalid',
	},
	refused: {
		message: (f) =>
			`The Proxy Account service could not process the request: ${f.said ?? 'no reason given'}`,
		fix: (f) =>
			sentences(
				`HTTP ${f.status} from ${f.info.endpoint}. Check the parameters and try again.`,
				f.retried,
			),
	},
	'key-refused': {
		message: () => 'The Proxy Account API key was not accepted',
		fix: (f) =>
			sentences(
				'Open the Proxy Account credential and paste the master API key again from the API section of the dashboard.',
				quoted(f.said),
			),
		cause: 'credential-invalid',
	},
	'key-not-allowed': {
		message: () => 'The Proxy Account API key is not allowed to do this',
		fix: (f) =>
			sentences(
				'Open the Proxy Account credential and paste the master API key again from the API section of the dashboard.',
				quoted(f.said),
			),
		cause: 'credential-invalid',
	},
	'limited-key-refused': {
		message: (f) =>
			`The Limited API Key was refused by the Proxy Account service (HTTP ${f.status}, ${f.info.endpoint})`,
		fix: (f) =>
			sentences(
				'Check the Limited API Key in the Proxy Account credential: paste it again from the API section of the dashboard (it is not the master API key).',
				quoted(f.said),
			),
		cause: 'credential-invalid',
	},
	'rate-limited': {
		message: () => 'The Proxy Account service is limiting how often it can be called',
		fix: (f) => {
			const wait = http(f).retryAfterSeconds;
			return sentences(
				wait !== undefined && `It asked to wait ${formatMoney(wait)} s before the next request.`,
				f.retried,
				'Run the workflow again later or space its runs further apart.',
			);
		},
		cause: 'rate-limited',
	},
	unreadable: {
		message: (f) =>
			`The Proxy Account service sent a reply that is not valid JSON (HTTP ${f.status}, ${f.info.endpoint})`,
		fix: (f) =>
			sentences(
				http(f).bodyProblem === 'empty'
					? 'The reply was empty.'
					: 'The reply was cut off or garbled.',
				'Try again later.',
				f.retried,
			),
		cause: 'temporarily-unavailable',
	},
	'server-trouble': {
		message: (f) =>
			`The Proxy Account service could not handle the request (HTTP ${f.status}, ${f.info.endpoint})`,
		fix: (f) => sentences(quoted(f.said), f.retried, 'Try again later.'),
		cause: 'temporarily-unavailable',
	},
	'no-endpoint': {
		message: (f) =>
			`The Proxy Account service has no ${f.info.endpoint} at this Base URL (HTTP 404)`,
		fix: (f) =>
			sentences(`${CHECK_BASE_URL}: it should be the address before /v1.`, quoted(f.said)),
		cause: 'configuration-invalid',
	},
	'client-refused': {
		message: (f) =>
			`The Proxy Account service refused the request (HTTP ${f.status}, ${f.info.endpoint})`,
		fix: (f) => sentences(quoted(f.said), "Check the node's parameters."),
	},
	'unexpected-shape': {
		message: (f) => {
			const failure = f.failure as Extract<RequestFailure, { kind: 'schema' }>;
			return `The Proxy Account service sent data in an unexpected shape: ${failure.field} ${failure.issue} (${f.info.endpoint})`;
		},
		fix: () =>
			'The service may have changed its API. Update n8n-nodes-proxy-account; if it is already current, report this message.',
		cause: 'node-defect',
	},
};

/** What a failed request that moves money says about the money, always and only from `mayHaveActed`. */
function moneyNote(failure: RequestFailure): string {
	if (failure.kind === 'network' && !mayHaveActed(failure))
		return 'Nothing was sent, so nothing was charged.';
	return mayHaveActed(failure)
		? 'The extension may have been applied: the request may have reached the service, so it was not sent again. Check the proxies\u2019 expiry dates (Proxy Account > Get or Get Many) before you run the extension again, so nothing is paid twice.'
		: 'The service refused the request before acting on it, so nothing was charged.';
}

/** What a failed change says about the proxy, always and only from `mayHaveActed` (as `moneyNote`). */
function changeNote(failure: RequestFailure, change: ChangeNote): string {
	const nothing = change.money === true ? 'nothing was charged' : 'nothing was changed';
	if (failure.kind === 'network' && !mayHaveActed(failure))
		return `Nothing was sent, so ${nothing}.`;
	return mayHaveActed(failure)
		? `${change.what} may have been made: the request may have reached the service, so it was not sent again. ${change.check} before you run it again.`
		: `The service refused the request before acting on it, so ${nothing}.`;
}

// ----- the node error --------------------------------------------------------------------------------

/** What an operation may ask of a request error it caught: never by parsing its text. */
export interface RequestErrorFacts {
	kind: FailureKind;
	/** Whether the service may have acted on the request (see `mayHaveActed`). */
	mayHaveActed: boolean;
	/** What the service said, secrets masked. */
	said?: string;
	/** Seconds the service asked to wait (`retry-after`), e.g. for a 429. */
	retryAfterSeconds?: number;
	/** The endpoint's rate-limit headers on the failed reply, when it carried them. */
	rateLimit?: RateLimitFacts;
}

const factsOf = new WeakMap<NodeApiError, RequestErrorFacts>();

/** The facts of an error the transport made; undefined for any other error. */
export function requestErrorFacts(error: unknown): RequestErrorFacts | undefined {
	return error instanceof NodeApiError ? factsOf.get(error) : undefined;
}

/** Builds the node error for a failed request: message, how to fix it, never a secret. */
export function toNodeApiError(
	node: INode,
	failure: RequestFailure,
	info: RequestInfo,
): NodeApiError {
	const body = failure.kind === 'http' ? failure.body : undefined;
	const facts: Facts = {
		failure,
		info,
		status: failure.kind === 'network' ? undefined : failure.status,
		said: textOf(body?.message) ?? textOf(body?.detail) ?? textOf(body?.title),
		retried:
			info.attempts > 1
				? `It was tried ${info.attempts} times over ${seconds(info.elapsedMs)}.`
				: undefined,
	};
	const kind = failureKind(failure, info);
	const entry = TABLE[kind];
	const message = redact(entry.message(facts), info.secrets);
	const description = redact(
		sentences(
			entry.fix(facts),
			info.chargesMoney && !info.change && moneyNote(failure),
			info.change && changeNote(failure, info.change),
		),
		info.secrets,
	);
	const summary: JsonObject = { message, endpoint: info.endpoint, attempts: info.attempts };
	if (failure.kind !== 'network') summary.httpCode = String(failure.status);
	else summary.networkCode = failure.code;
	const options: ConstructorParameters<typeof NodeApiError>[2] = {
		message,
		description,
		httpCode: failure.kind === 'network' ? undefined : String(failure.status),
		itemIndex: info.itemIndex,
	};
	const cause = typeof entry.cause === 'function' ? entry.cause(facts) : entry.cause;
	if (cause === 'rate-limited') {
		const wait = failure.kind === 'http' ? failure.retryAfterSeconds : undefined;
		options.failure =
			wait !== undefined
				? { cause: 'rate-limited', retryAfterMs: wait * 1000 }
				: { cause: 'rate-limited' };
	} else if (cause) {
		options.failure = { cause };
	}
	const error = new NodeApiError(node, summary, options);
	factsOf.set(error, {
		kind,
		mayHaveActed: mayHaveActed(failure),
		retryAfterSeconds: failure.kind === 'http' ? failure.retryAfterSeconds : undefined,
		rateLimit: failure.kind === 'http' ? failure.rateLimit : undefined,
		said: facts.said && redact(facts.said, info.secrets),
	});
	return error;
}
