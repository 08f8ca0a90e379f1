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
import { getStock } from '../transport';

/** How long the credential test waits for the service. */
export const CREDENTIAL_TEST_TIMEOUT_MS = 15_000;

/** The node the transport's messages are about: the credential test has none of its own. */
const TEST_NODE: INode = {
	id: 'proxy-account-credential-test',
	name: 'Proxy Account credential test',
	type: 'proxyAccount',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** The transport's request, as n8n's legacy request helper (the one a credential test has) takes it. */
function legacyRequest(options: IHttpRequestOptions, apiKey: string): IDataObject {
	const body = options.body;
	return {
		method: options.method ?? 'GET',
		uri: options.url,
		headers: { ...(options.headers ?? {}), Authorization: `Bearer ${apiKey}` },
		...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
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
 * Tests a Proxy Account credential with the same request, checks and messages as the nodes: the
 * Base URL is checked before anything is sent (scheme, no user:password@, no ? or #, `/v1` removed
 * whatever its case), then the stock list is read once (the cheapest read: no proxy data, no
 * charge) without following redirects, and every failure is told as the nodes tell it (refused
 * connection, unknown host, TLS, timeout, wrong path, wrong key) without the key.
 */
export async function testConnection(
	ctx: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
	timeoutMs = CREDENTIAL_TEST_TIMEOUT_MS,
): Promise<INodeCredentialTestResult> {
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	const transport: ProxyAccountContext = {
		getNode: () => TEST_NODE,
		getCredentials: async <T extends object>() => data as T,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				(await ctx.helpers.request(legacyRequest(options, apiKey))) as IN8nHttpFullResponse,
		},
		logger: ctx.logger,
	};
	try {
		await getStock(transport, { timeoutMs, retry: { maxAttempts: 1 } });
		return { status: 'OK', message: 'Connection successful' };
	} catch (error) {
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
