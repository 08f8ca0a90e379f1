import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
			required: true,
			description:
				'Master API key of your Proxy Account, from the API section of the dashboard. Spaces or line breaks around a pasted key are ignored.',
		},
	];

	// The key is trimmed so a key pasted with a trailing newline or spaces still authenticates.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{"Bearer " + String($credentials.apiKey).trim()}}',
			},
		},
	};

	// The stock list is the cheapest read the service offers: no proxy data, no charge.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/v1$/, "")}}',
			url: '/v1/stock',
			method: 'GET',
			// Never sent on to another address: the key would go with it.
			disableFollowRedirect: true,
		},
		rules: [
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message:
						'The Base URL redirects to another address, which is not followed so the API key stays with the Base URL. Enter the address the service redirects to (e.g. https:// instead of http://).',
				},
			})),
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was not accepted. Check that you copied the whole master API key from the Proxy Account dashboard.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key is not allowed to use the API. Check the key and that API access is enabled for your account.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Proxy Account API was found at this Base URL. Check the Base URL: the address of the API as given in your dashboard, without /v1.',
				},
			},
		],
	};
}
