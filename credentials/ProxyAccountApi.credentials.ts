import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

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
		{
			displayName: 'Limited API Key',
			name: 'limitedApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				"Optional: a Limited key from the dashboard, which may only change IPs. Rotate IP uses it (the service's rotation link) when its Use Rotation Link option is on. It is never sent with any other request.",
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

	// Tested by the nodes (testedBy: 'proxyAccountApiTest', methods/credentialTest.ts): the same request,
	// checks and messages as every operation, which a declarative test could not give.
}
