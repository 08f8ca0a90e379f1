import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { quotedSentence, sentences, textOf } from '../common/wording';
import type { ChangeNote, FailureKind, RequestFailure, RequestInfo } from './failures';
import { failureKind, mayHaveActed } from './failures';
import type { RateLimitFacts } from './rateLimit';

/** The text with each secret (of 4 characters or more) masked. */
const redact = (text: string, secrets: string[]) =>
	secrets.reduce((out, secret) => (secret.length >= 4 ? out.split(secret).join('***') : out), text);

const formatMoney = (amount: number) =>
	Number.isInteger(amount) ? String(amount) : amount.toFixed(2);

function seconds(ms: number): string {
	const s = ms / 1000;
	return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

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
	cause?: Failure['cause'] | ((f: Facts) => Failure['cause']);
}

const quoted = (said: string | undefined) =>
	said ? `The service said: ${quotedSentence(said)}` : undefined;
const http = (f: Facts) => f.failure as Extract<RequestFailure, { kind: 'http' }>;
const wallet = (f: Facts) => (http(f).body?.data ?? {}) as { diff?: unknown; funds?: unknown };
const CHECK_BASE_URL = 'Check the Base URL in the Proxy Account credential';
/** A fix that only a read gets: a charge or a change says what may have happened instead. */
const ifRead = (fix: string) => (f: Facts) =>
	f.info.chargesMoney || f.info.change ? '' : sentences(f.retried, fix);
const pasteMasterKey = (f: Facts) =>
	sentences(
		'Open the Proxy Account credential and paste the master API key again from the API section of the dashboard.',
		quoted(f.said),
	);

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
			`Nothing was sent. ${CHECK_BASE_URL}: an address that does not use HTTPS needs http://, and one with a certificate n8n does not trust needs a trusted certificate.`,
		cause: 'configuration-invalid',
	},
	timeout: {
		message: (f) =>
			`The Proxy Account service did not answer within ${seconds(f.info.timeoutMs)} (${f.info.endpoint})`,
		fix: ifRead(
			'The service is slow or unreachable right now; try again later, or raise Timeout (Seconds).',
		),
		cause: 'temporarily-unavailable',
	},
	'connection-closed': {
		message: (f) =>
			`The connection to the Proxy Account service closed before its answer arrived (${f.info.endpoint})`,
		fix: ifRead(
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
			const what = f.info.walletUse?.what ?? 'this request';
			return typeof diff === 'number'
				? `The wallet is ${formatMoney(diff)} short for ${what}`
				: `The wallet does not hold enough funds for ${what}`;
		},
		fix: (f) => {
			const { funds } = wallet(f);
			const less = f.info.walletUse?.less;
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
		fix: pasteMasterKey,
		cause: 'credential-invalid',
	},
	'key-not-allowed': {
		message: () => 'The Proxy Account API key is not allowed to do this',
		fix: pasteMasterKey,
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

/**
 * What a failed charge or change says it may have done, always and only from `mayHaveActed`: a
 * charge without a change note is the extension.
 */
function outcomeNote(failure: RequestFailure, charges: boolean, change?: ChangeNote): string {
	const nothing = charges ? 'nothing was charged' : 'nothing was changed';
	if (!mayHaveActed(failure)) {
		return failure.kind === 'network'
			? `Nothing was sent, so ${nothing}.`
			: `The service refused the request before acting on it, so ${nothing}.`;
	}
	return change
		? `${change.what} may have been made: the request may have reached the service, so it was not sent again. ${change.check} before you run it again.`
		: 'The extension may have been applied: the request may have reached the service, so it was not sent again. Check the proxies\u2019 expiry dates (Proxy Account > Get or Get Many) before you run the extension again, so nothing is paid twice.';
}

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

/** ` [item N]` when a single-proxy request failed on its item's input; empty otherwise. */
function ofItem(kind: FailureKind, info: RequestInfo): string {
	const itemInput = ['proxy-not-found', 'input-refused', 'client-refused'].includes(kind);
	return itemInput && info.proxyName !== undefined && info.itemIndex !== undefined
		? ` [item ${info.itemIndex}]`
		: '';
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
	const message = redact(`${entry.message(facts)}${ofItem(kind, info)}`, info.secrets);
	const description = redact(
		sentences(
			entry.fix(facts),
			(info.chargesMoney || info.change) && outcomeNote(failure, info.chargesMoney, info.change),
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
	const retryAfterSeconds = failure.kind === 'http' ? failure.retryAfterSeconds : undefined;
	if (cause === 'rate-limited' && retryAfterSeconds !== undefined) {
		options.failure = { cause, retryAfterMs: retryAfterSeconds * 1000 };
	} else if (cause) {
		options.failure = { cause };
	}
	const error = new NodeApiError(node, summary, options);
	factsOf.set(error, {
		kind,
		mayHaveActed: mayHaveActed(failure),
		retryAfterSeconds,
		rateLimit: failure.kind === 'http' ? failure.rateLimit : undefined,
		said: facts.said && redact(facts.said, info.secrets),
	});
	return error;
}
