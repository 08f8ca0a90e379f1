/** The credential's fields as the editor shows them (no engine). */
import { ProxyAccountApi } from '../../credentials/ProxyAccountApi.credentials';

const field = (name: string) => new ProxyAccountApi().properties.find((p) => p.name === name);

describe('Proxy Account API credential', () => {
	it('has no invented default Base URL: empty and required, with an e.g. placeholder', () => {
		const baseUrl = field('baseUrl');
		expect(baseUrl).toMatchObject({ type: 'string', default: '', required: true });
		expect(baseUrl?.placeholder).toMatch(/^e\.g\. https:\/\//);
	});

	it('keeps the API key a password field, optional: a credential with only a Limited key can rotate IPs', () => {
		expect(field('apiKey')).toMatchObject({ default: '', typeOptions: { password: true } });
		expect(field('apiKey')?.required).toBeFalsy();
		expect(field('limitedApiKey')).toMatchObject({ default: '', typeOptions: { password: true } });
	});
});
