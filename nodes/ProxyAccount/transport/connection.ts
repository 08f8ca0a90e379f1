/* The context a request needs, and the credential read and checked before anything is sent. */
import type { IHttpRequestOptions, INode, Logger } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * What a request needs of its n8n context: every context of the nodes has it (an execution, a poll,
 * a dropdown); the credential test builds its own (methods/credentialTest.ts).
 */
export interface ProxyAccountContext {
	getNode(): INode;
	getCredentials<T extends object>(type: string, itemIndex?: number): Promise<T>;
	helpers: {
		httpRequestWithAuthentication(
			credentialsType: string,
			requestOptions: IHttpRequestOptions,
		): Promise<unknown>;
	};
	logger: Pick<Logger, 'debug'>;
}

export const CREDENTIAL_TYPE = 'proxyAccountApi';

/** The credential's fields; a key is empty when there is none. Neither key is ever shown. */
interface Connection {
	baseUrl: string;
	apiKey: string;
	limitedKey: string;
}

const EXAMPLE_URL = 'e.g. https://api.example.com';

/**
 * How a Base URL that cannot be used is shown in a message: never a value that holds or looks like
 * the API key, nor a long or multi-line one. Only plain host-like text is repeated.
 */
function shownBaseUrl(raw: string, keys: string[]): string {
	if (keys.some((key) => key.length >= 4 && raw.includes(key)))
		return 'a value that looks like the API key, so it is not shown';
	if (raw.length > 100 || /\s/.test(raw)) return `a value of ${raw.length} characters, not shown`;
	// A long run of letters and digits without dots or slashes is a token, not an address.
	if (/^[A-Za-z0-9_~+=-]{16,}$/.test(raw))
		return 'a value that looks like a key, so it is not shown';
	if (raw.includes('@')) return 'a value with an @, not shown';
	return `\u201c${raw}\u201d`;
}

const trimmedText = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The credential's fields, trimmed (spaces and line breaks around a pasted value); empty when absent. */
export async function readCredential(ctx: ProxyAccountContext, itemIndex = 0): Promise<Connection> {
	const credentials = await ctx.getCredentials<Record<string, unknown>>(CREDENTIAL_TYPE, itemIndex);
	return {
		baseUrl: trimmedText(credentials.baseUrl),
		apiKey: trimmedText(credentials.apiKey),
		limitedKey: trimmedText(credentials.limitedApiKey),
	};
}

/**
 * Reads and checks the credential before anything is sent. The master key is required unless
 * `needsMasterKey` is false (the rotation link, which carries the Limited key in its path).
 */
export async function getConnection(
	ctx: ProxyAccountContext,
	itemIndex = 0,
	needsMasterKey = true,
): Promise<Connection> {
	const { baseUrl: rawUrl, apiKey, limitedKey } = await readCredential(ctx, itemIndex);
	const node = ctx.getNode();
	const refuse = (message: string, fix: string) =>
		new NodeOperationError(node, message, { description: fix, itemIndex });
	if (rawUrl === '') {
		throw refuse(
			'The Proxy Account credential has no Base URL',
			`Open the credential and enter the Base URL, ${EXAMPLE_URL}.`,
		);
	}
	const hasScheme = /^https?:\/\//i.test(rawUrl);
	if (!hasScheme || !URL.canParse(rawUrl)) {
		const problem = hasScheme ? 'is not a valid address' : 'must start with http:// or https://';
		throw refuse(
			`The Base URL in the Proxy Account credential ${problem} (it is ${shownBaseUrl(rawUrl, [apiKey, limitedKey])})`,
			`Open the credential and enter the full address, ${EXAMPLE_URL}.`,
		);
	}
	const parsed = new URL(rawUrl);
	if (parsed.username !== '' || parsed.password !== '') {
		// Never repeated: the part before the @ is a password.
		throw refuse(
			'The Base URL in the Proxy Account credential must not contain a user name or password',
			`Remove the user:password@ part and enter only the address of the API, ${EXAMPLE_URL}. The API key goes in the API Key field.`,
		);
	}
	if (parsed.search !== '' || parsed.hash !== '' || rawUrl.includes('?') || rawUrl.includes('#')) {
		throw refuse(
			'The Base URL in the Proxy Account credential must not contain ? or #',
			`Enter only the address of the API, ${EXAMPLE_URL}.`,
		);
	}
	// A path is kept (a service behind a prefix); a trailing slash or a trailing /v1 is not,
	// because every endpoint path starts with /v1. Built from the parsed URL: origin and path only.
	const baseUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '').replace(/\/v1$/i, '');
	if (apiKey === '' && needsMasterKey) {
		if (limitedKey !== '') {
			throw refuse(
				'This operation needs the master API key; this credential has only a Limited key, which can only rotate IPs through the rotation link',
				'Open the Proxy Account credential and paste the master API key from the API section of the dashboard, or use Rotate IP with Use Rotation Link on.',
			);
		}
		throw refuse(
			'The Proxy Account credential has no API key',
			'Open the credential and paste the master API key from the dashboard.',
		);
	}
	if (needsMasterKey && hasInvisibleCharacter(apiKey)) {
		throw refuse(
			'The API key in the Proxy Account credential contains a space, a line break or another invisible character',
			'Open the credential and paste the master API key again as one unbroken piece of text.',
		);
	}
	return { baseUrl, apiKey, limitedKey };
}

/** Whitespace or a control character: a header carrying either would be refused or mangled. */
function hasInvisibleCharacter(text: string): boolean {
	for (const char of text) {
		const code = char.codePointAt(0) ?? 0;
		if (code <= 0x20 || code === 0x7f || /\s/.test(char)) return true;
	}
	return false;
}
