import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ErrorBody } from './schemas';
import { errorBodySchema } from './schemas';

/** What went wrong with one HTTP exchange, before it is turned into a node error. */
export type RequestFailure =
	| {
			kind: 'network';
			/** `refused`: nothing reached the service. The others may have reached it. */
			reason: 'refused' | 'reset' | 'timeout' | 'dns' | 'aborted' | 'other';
			code: string;
	  }
	| {
			kind: 'http';
			status: number;
			/** Seconds the service asked us to wait (`retry-after`), when it said so. */
			retryAfterSeconds?: number;
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
}

const HTTP_TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_BAD_RESPONSE', 'UND_ERR_SOCKET']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);

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

type ErrorCause =
	| 'rate-limited'
	| 'temporarily-unavailable'
	| 'credential-invalid'
	| 'configuration-invalid'
	| 'node-defect';

interface Mapped {
	message: string;
	description: string;
	httpCode?: string;
	cause?: ErrorCause;
}

/** Business error kinds the service reports with `ok: false`. */
export type BusinessErrorKind = 'not-found' | 'insufficient-funds' | 'invalid-input' | 'other';

export function businessErrorKind(status: number, body: ErrorBody): BusinessErrorKind {
	const message = typeof body.message === 'string' ? body.message : '';
	const data = body.data as { funds?: unknown; diff?: unknown } | undefined;
	if (status === 402 || /insufficient|not enough (funds|balance)|funds/i.test(message)) {
		return 'insufficient-funds';
	}
	if (data && typeof data === 'object' && ('diff' in data || 'funds' in data)) return 'insufficient-funds';
	if (status === 404 || /not found|unknown proxy|does not exist|no such/i.test(message)) return 'not-found';
	if (status === 400 || status === 422 || /invalid|must be|required|not allowed/i.test(message)) {
		return 'invalid-input';
	}
	return 'other';
}

/**
 * Whether the service may have acted on a request that failed this way. Only a refusal is certain:
 * a 4xx, or an `ok: false` body in a 2xx; and nothing reached the service when the connection was
 * refused or its address was not found. Anything else (a redirect, a 5xx, a timeout, a cut
 * connection, an answer that cannot be read or does not fit the document) may have come after the
 * service acted. Decided from the status class and the body's `ok` flag only, never from wording.
 */
export function mayHaveActed(failure: RequestFailure): boolean {
	if (failure.kind === 'network') return failure.reason !== 'refused' && failure.reason !== 'dns';
	if (failure.kind === 'schema') return true;
	if (failure.status >= 400 && failure.status < 500) return false;
	const isAnswer = failure.status >= 200 && failure.status < 300 && failure.bodyProblem === undefined;
	return !(isAnswer && failure.body?.ok === false);
}

/** What a failed request that moves money says about the money, always and only from `mayHaveActed`. */
function moneyNote(failure: RequestFailure): string {
	if (failure.kind === 'network' && !mayHaveActed(failure)) return 'Nothing was sent, so nothing was charged.';
	return mayHaveActed(failure)
		? 'The extension may have been applied: the request may have reached the service, so it was not sent again. Check the proxies\u2019 expiry dates (Proxy Account > Get or Get Many) before you run the extension again, so nothing is paid twice.'
		: 'The service refused the request before acting on it, so nothing was charged.';
}

function retriedNote(info: RequestInfo): string {
	return info.attempts > 1 ? ` It was tried ${info.attempts} times over ${seconds(info.elapsedMs)}.` : '';
}

function mapNetwork(failure: Extract<RequestFailure, { kind: 'network' }>, info: RequestInfo): Mapped {
	const retried = retriedNote(info).trim();
	switch (failure.reason) {
		case 'refused':
			return {
				message: `Could not connect to the Proxy Account service at ${info.baseUrl}`,
				description: `${info.chargesMoney ? '' : 'Nothing was sent. '}${retried} Check the Base URL in the Proxy Account credential and that n8n can reach that address.`,
				cause: 'temporarily-unavailable',
			};
		case 'dns':
			return {
				message: `The address of the Proxy Account service could not be resolved (${info.baseUrl})`,
				description: `Check the Base URL in the Proxy Account credential for typos. ${retried}`,
				cause: 'configuration-invalid',
			};
		case 'timeout':
			return {
				message: `The Proxy Account service did not answer within ${seconds(info.timeoutMs)} (${info.endpoint})`,
				description: info.chargesMoney ? '' : `${retried} The service is slow or unreachable right now; try again later, or raise Timeout (Seconds).`,
				cause: 'temporarily-unavailable',
			};
		case 'reset':
			return {
				message: `The connection to the Proxy Account service closed before its answer arrived (${info.endpoint})`,
				description: info.chargesMoney
					? ''
					: `${retried} Try again later; if it keeps happening, check proxies or firewalls between n8n and the service.`,
				cause: 'temporarily-unavailable',
			};
		case 'aborted':
			return {
				message: `The request to the Proxy Account service was cancelled (${info.endpoint})`,
				description: 'The execution was stopped while the request was under way.',
			};
		default:
			return {
				message: `The request to the Proxy Account service could not be completed (${info.endpoint}, ${failure.code})`,
				description: `${retried} Check the Base URL in the credential and the network between n8n and the service.`,
			};
	}
}

function mapHttp(failure: Extract<RequestFailure, { kind: 'http' }>, info: RequestInfo): Mapped {
	const { status, body } = failure;
	const httpCode = String(status);
	const serviceMessage = textOf(body?.message) ?? textOf(body?.detail) ?? textOf(body?.title);
	const said = serviceMessage ? ` The service said: \u201c${serviceMessage}\u201d.` : '';

	if (failure.bodyProblem === 'html') {
		return {
			message: `The Proxy Account service answered with a web page instead of data (HTTP ${status}, ${info.endpoint})`,
			description: `${failure.pageTitle ? `The page was titled \u201c${failure.pageTitle}\u201d. ` : ''}A gateway in front of the service is failing, or the Base URL points at a website rather than the API (it should be the address before /v1).${retriedNote(info)}`,
			httpCode,
			cause: status >= 500 ? 'temporarily-unavailable' : 'configuration-invalid',
		};
	}

	// A redirect is reported, never followed: the API key and the body stay with the Base URL.
	if (failure.redirectTo !== undefined) {
		return {
			message: `The Proxy Account service answered with a redirect (HTTP ${status}) to ${failure.redirectTo ?? 'an address that could not be read'}, which was not followed (${info.endpoint})`,
			description:
				'Requests are never sent on to another address, so the API key and the request stay with the Base URL. Check the Base URL in the Proxy Account credential: if the service has moved (e.g. from http:// to https://), enter its new address.',
			httpCode,
			cause: 'configuration-invalid',
		};
	}

	// A business answer (`ok: false`) is an error whatever the 2xx or 4xx status; with a 5xx it is
	// server-side trouble like any other 5xx, answered below.
	if (body && body.ok === false && status < 500) {
		const kind = businessErrorKind(status, body);
		// A 404 about no proxy, from an endpoint without one in its path: the address is wrong,
		// answered below as such.
		const missingEndpoint = kind === 'not-found' && status === 404 && !info.proxyName && !/prox/i.test(serviceMessage ?? '');
		if (kind === 'not-found' && !missingEndpoint) {
			return {
				message: info.proxyName
					? `Proxy \u201c${info.proxyName}\u201d was not found in this Proxy Account`
					: `The Proxy Account service did not find what was asked for (${info.endpoint})`,
				description: `Check the proxy name (names are case-sensitive), or pick the proxy from the list.${said}`,
				httpCode,
				cause: 'configuration-invalid',
			};
		}
		if (kind === 'insufficient-funds') {
			const data = body.data as { diff?: unknown; funds?: unknown } | undefined;
			const diff = typeof data?.diff === 'number' ? data.diff : undefined;
			const funds = typeof data?.funds === 'number' ? data.funds : undefined;
			return {
				message:
					diff !== undefined
						? `The wallet is ${formatMoney(diff)} short for this extension`
						: 'The wallet does not hold enough funds for this extension',
				description: `${funds !== undefined ? `The wallet holds ${formatMoney(funds)}. ` : ''}Top up the wallet in the Proxy Account dashboard, or extend fewer proxies or for a shorter time.`,
				httpCode,
			};
		}
		if (kind === 'invalid-input') {
			return {
				message: `The Proxy Account service rejected the request: ${serviceMessage ?? 'invalid input'}`,
				description: `Check the parameters named in the message (${info.endpoint}).`,
				httpCode,
				cause: 'configuration-invalid',
			};
		}
		if (!missingEndpoint) {
			return {
				message: `The Proxy Account service could not process the request: ${serviceMessage ?? 'no reason given'}`,
				description: `HTTP ${status} from ${info.endpoint}. Check the parameters and try again.${retriedNote(info)}`,
				httpCode,
			};
		}
	}

	if (status === 401 || status === 403) {
		return {
			message:
				status === 401
					? 'The Proxy Account API key was not accepted'
					: 'The Proxy Account API key is not allowed to do this',
			description: `Open the Proxy Account credential and paste the master API key again from the API section of the dashboard.${said}`,
			httpCode,
			cause: 'credential-invalid',
		};
	}
	if (status === 429) {
		const wait = failure.retryAfterSeconds;
		return {
			message: 'The Proxy Account service is limiting how often it can be called',
			description: `${wait !== undefined ? `It asked to wait ${formatMoney(wait)} s before the next request. ` : ''}${retriedNote(info).trim()} Run the workflow again later or space its runs further apart.`.replace(/\s+/g, ' ').trim(),
			httpCode,
			cause: 'rate-limited',
		};
	}
	if (failure.bodyProblem === 'malformed' || failure.bodyProblem === 'empty') {
		return {
			message: `The Proxy Account service sent a reply that is not valid JSON (HTTP ${status}, ${info.endpoint})`,
			description: `${failure.bodyProblem === 'empty' ? 'The reply was empty. ' : 'The reply was cut off or garbled. '}Try again later.${retriedNote(info)}`,
			httpCode,
			cause: 'temporarily-unavailable',
		};
	}
	if (status >= 500) {
		return {
			message: `The Proxy Account service could not handle the request (HTTP ${status}, ${info.endpoint})`,
			description: `${said.trim()}${retriedNote(info)} Try again later.`.trim(),
			httpCode,
			cause: 'temporarily-unavailable',
		};
	}
	if (status === 404) {
		return {
			message: `The Proxy Account service has no ${info.endpoint} at this Base URL (HTTP 404)`,
			description: `Check the Base URL in the Proxy Account credential: it should be the address before /v1.${said}`,
			httpCode,
			cause: 'configuration-invalid',
		};
	}
	return {
		message: `The Proxy Account service refused the request (HTTP ${status}, ${info.endpoint})`,
		description: `${said.trim()} Check the node's parameters.`.trim(),
		httpCode,
	};
}

function mapSchema(failure: Extract<RequestFailure, { kind: 'schema' }>, info: RequestInfo): Mapped {
	return {
		message: `The Proxy Account service sent data in an unexpected shape: ${failure.field} ${failure.issue} (${info.endpoint})`,
		description: `The service may have changed its API. Update n8n-nodes-proxy-account; if it is already current, report this message.`,
		httpCode: String(failure.status),
		cause: 'node-defect',
	};
}

export function describeFailure(failure: RequestFailure, info: RequestInfo): Mapped {
	if (failure.kind === 'network') return mapNetwork(failure, info);
	if (failure.kind === 'schema') return mapSchema(failure, info);
	return mapHttp(failure, info);
}

/**
 * What a request error says about the service having acted: `refused` (certainly not), `uncertain`
 * (it may have), or undefined for an error that did not come from a request.
 */
export function requestOutcome(error: unknown): 'refused' | 'uncertain' | undefined {
	if (!(error instanceof NodeApiError)) return undefined;
	const outcome = (error.errorResponse as JsonObject | undefined)?.outcome;
	return outcome === 'refused' || outcome === 'uncertain' ? outcome : undefined;
}

/** Builds the node error for a failed request: message, how to fix it, never a secret. */
export function toNodeApiError(node: INode, failure: RequestFailure, info: RequestInfo): NodeApiError {
	const mapped = describeFailure(failure, info);
	const message = redact(mapped.message, info.secrets);
	const text = info.chargesMoney ? `${mapped.description} ${moneyNote(failure)}` : mapped.description;
	const description = redact(text.replace(/\s+/g, ' ').trim(), info.secrets);
	const summary: JsonObject = {
		message,
		endpoint: info.endpoint,
		attempts: info.attempts,
	};
	if (failure.kind === 'http' || failure.kind === 'schema') summary.httpCode = String(failure.status);
	// What the service said in a business refusal, for an operation that can tell the user which
	// of its fields it was about.
	// Whether the service may have acted: what an operation tells its user about the money.
	summary.outcome = mayHaveActed(failure) ? 'uncertain' : 'refused';
	if (failure.kind === 'http' && failure.body?.ok === false && failure.status < 500) {
		summary.refusal = businessErrorKind(failure.status, failure.body);
		const said = textOf(failure.body.message);
		if (said) summary.serviceMessage = redact(said, info.secrets);
	}
	if (failure.kind === 'network') summary.networkCode = failure.code;
	const options: ConstructorParameters<typeof NodeApiError>[2] = {
		message,
		description,
		httpCode: mapped.httpCode,
		itemIndex: info.itemIndex,
	};
	if (mapped.cause === 'rate-limited') {
		const wait = failure.kind === 'http' ? failure.retryAfterSeconds : undefined;
		options.failure = wait !== undefined ? { cause: 'rate-limited', retryAfterMs: wait * 1000 } : { cause: 'rate-limited' };
	} else if (mapped.cause) {
		options.failure = { cause: mapped.cause };
	}
	return new NodeApiError(node, summary, options);
}
