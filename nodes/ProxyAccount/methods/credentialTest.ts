import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ProxyAccountContext } from '../transport';
import { getStock, requestErrorFacts } from '../transport';

/** The node the transport's messages are about: the credential test has none of its own. */
const TEST_NODE: INode = {
	id: 'proxy-account-credential-test',
	name: 'Proxy Account credential test',
	type: 'proxyAccount',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** What the test of a credential with only a Limited key says when the Base URL answers. */
export const LIMITED_ONLY_MESSAGE =
	'The service at the Base URL answers. This credential has only a Limited API Key, which is not tried here: the only request it allows, the rotation link, rotates an IP. Rotate IP uses it when Use Rotation Link is on; every other operation needs the master API key.';

/** The stock read (it has no body) for n8n's legacy helper, all a credential test has. */
function legacyRequest(options: IHttpRequestOptions, apiKey: string): IDataObject {
	const headers = { ...(options.headers ?? {}) };
	if (apiKey !== '') headers.Authorization = `Bearer ${apiKey}`;
	return {
		method: options.method ?? 'GET',
		uri: options.url,
		headers,
		json: false,
		resolveWithFullResponse: true,
		// The status and the body are the transport's to judge, as for every request.
		simple: false,
		// Never sent on to another address: the key would go with it.
		followRedirect: false,
		followAllRedirects: false,
		timeout: options.timeout,
	};
}

/**
 * Tests a credential with the same checks, request and messages as the nodes: the stock list, the
 * cheapest read (no proxy data, no charge), read once within 15 s by default.
 *
 * A Limited key cannot be tried without rotating an IP (the only request it allows), which a test
 * never does: for a credential with only that key, the stock list is asked for without any key, and
 * a service that answers, even to ask for a key, passes with a message that the key was not tried.
 */
export async function testConnection(
	ctx: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
	timeoutMs = 15_000,
): Promise<INodeCredentialTestResult> {
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	const limitedOnly =
		apiKey === '' && typeof data.limitedApiKey === 'string' && data.limitedApiKey.trim() !== '';
	const transport: ProxyAccountContext = {
		getNode: () => TEST_NODE,
		getCredentials: async <T extends object>() => data as T,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				(await ctx.helpers.request(legacyRequest(options, apiKey))) as IN8nHttpFullResponse,
		},
		logger: ctx.logger,
	};
	const answered = {
		status: 'OK',
		message: limitedOnly ? LIMITED_ONLY_MESSAGE : 'Connection successful',
	} as const;
	try {
		await getStock(transport, {
			timeoutMs,
			retry: { maxAttempts: 1 },
			key: limitedOnly ? 'none' : 'master',
		});
		return answered;
	} catch (error) {
		const kind = requestErrorFacts(error)?.kind;
		if (limitedOnly && (kind === 'key-refused' || kind === 'key-not-allowed')) return answered;
		if (error instanceof NodeApiError || error instanceof NodeOperationError) {
			const message = error.message.replace(/\.$/, '');
			return {
				status: 'Error',
				message: error.description ? `${message}. ${error.description}` : `${message}.`,
			};
		}
		return { status: 'Error', message: 'The connection test failed for an unknown reason.' };
	}
}

/** The credential test n8n runs when the credential is saved (`testedBy` on both nodes). */
export async function proxyAccountApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return await testConnection(this, credential.data ?? {});
}
