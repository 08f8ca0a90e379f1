/** The credential's fields as the editor shows them (no engine). */
import { ProxyAccountApi } from '../../credentials/ProxyAccountApi.credentials';

const field = (name: string) => new ProxyAccountApi().properties.find((p) => p.name === name);

describe('Proxy Account API credential', () => {
	it('has no invented default Base URL: empty and required, with an e.g. placeholder', () => {
		const baseUrl = field('baseUrl');
		expect(baseUrl).toMatchObject({ type: 'string', default: '', required: true });
		expect(baseUrl?.placeholder).toMatch(/^e\.g\. https:\/\//);
	});

	it('keeps the API key a required password field', () => {
		expect(field('apiKey')).toMatchObject({ default: '', required: true, typeOptions: { password: true } });
	});
});
