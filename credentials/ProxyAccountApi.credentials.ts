import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** A credential field as text, spaces and line breaks around a pasted key removed. */
const keyOf = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** Whether a request is the rotation link of this credential's Limited key (in its path). */
function isRotationLink(url: string, limitedKey: string): boolean {
	if (limitedKey === '') return false;
	let path: string;
	try {
		path = new URL(url).pathname;
	} catch {
		return false;
	}
	return path.includes(`/v1/proxies/changeip/${encodeURIComponent(limitedKey)}/`);
}

export class ProxyAccountApi implements ICredentialType {
	name = 'proxyAccountApi';

	displayName = 'Proxy Account API';

	icon: Icon = {
		light: 'file:../icons/proxyAccount.svg',
		dark: 'file:../icons/proxyAccount.dark.svg',
	};

	documentationUrl = 'https://github.com/proxy-account/n8n-nodes-proxy-account#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com',
			required: true,
			description:
				'Address of the Proxy Account API, as given in the API section of your dashboard, without the /v1 part. For the bundled simulator: the URL it prints.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Master API key of your Proxy Account, from the API section of the dashboard. Every operation needs it, except Rotate IP with Use Rotation Link: a credential with only a Limited API Key can do nothing else. Spaces or line breaks around a pasted key are ignored.',
		},
		{
			displayName: 'Limited API Key',
			name: 'limitedApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				"Optional: a Limited key from the dashboard, which may only change IPs. Rotate IP uses it (the service's rotation link) when its Use Rotation Link option is on; that request goes without the master key, and the Limited key is never sent with any other request.",
		},
	];

	/**
	 * The master key, trimmed, as a bearer header on every request but the rotation link (which
	 * carries the Limited key in its path); none without a master key. A function: a generic block
	 * would add its header to every request.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const apiKey = keyOf(credentials.apiKey);
		if (apiKey === '' || isRotationLink(requestOptions.url, keyOf(credentials.limitedApiKey))) {
			return requestOptions;
		}
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` },
		};
	}

	// Tested by the nodes (testedBy: 'proxyAccountApiTest', methods/credentialTest.ts): the same request,
	// checks and messages as every operation, which a declarative test could not give.
}
