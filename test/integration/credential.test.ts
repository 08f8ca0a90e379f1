/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
import axios from 'axios';
import type { INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { ProxyAccountApi } from '../../credentials/ProxyAccountApi.credentials';
import { apiRequests, createHarness, credentialsFor, HostileFront, visibleText } from '../harness';
import { resolve } from '../harness/credentials-helper';
import { ProxyAccountSimulator } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 11 });
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.resetLogs());

const stockNode = { type: 'proxyAccount', parameters: { resource: 'stock', operation: 'getAll', returnAll: true } };

describe('credential ProxyAccountApi', () => {
	it('sends the key as a bearer header, applied by the credential itself, through a real workflow execution', async () => {
		const result = await harness.runNode(stockNode, { credentials: credentialsFor(sim) });
		expect(result.status).toBe('success');
		expect(result.items.length).toBe(sim.stock.length);
		const [request] = apiRequests(sim, 'GET /v1/stock');
		expect(request.headers.authorization).toBe(`Bearer ${sim.demoApiKey}`);
		expect(request.apiKey).toBe(sim.demoApiKey);
	});

	it('ignores spaces and line breaks around a pasted key', async () => {
		const result = await harness.runNode(stockNode, { credentials: credentialsFor(sim, `  ${sim.demoApiKey}\n`) });
		expect(result.status).toBe('success');
		expect(apiRequests(sim)[0].headers.authorization).toBe(`Bearer ${sim.demoApiKey}`);
	});

	it('refuses a key with a line break inside, before anything is sent, without echoing it', async () => {
		const broken = `${sim.demoApiKey.slice(0, 10)}\n${sim.demoApiKey.slice(10)}`;
		const result = await harness.runNode(stockNode, { credentials: credentialsFor(sim, broken) });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/API key .* contains a space, a line break/);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(visibleText(result.items, result.error)).not.toContain(sim.demoApiKey.slice(10));
	});

	it('reports a wrong key as a key to check, once, without echoing the key', async () => {
		const wrongKey = 'pa_live_0000000000000000wrongwrongwrong';
		const result = await harness.runNode(stockNode, { credentials: credentialsFor(sim, wrongKey) });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account API key was not accepted');
		expect((result.error as { description?: string }).description).toMatch(/paste the master API key again/);
		expect(apiRequests(sim)).toHaveLength(1);
		expect(apiRequests(sim)[0].status).toBe(401);
		expect(visibleText(result.items, result.error)).not.toContain(wrongKey);
	});

	it.each([
		['a trailing slash', (url: string) => `${url}/`],
		['a trailing /v1', (url: string) => `${url}/v1/`],
		['spaces around it', (url: string) => ` ${url} `],
	])('accepts a Base URL with %s', async (_label, shape) => {
		const result = await harness.runNode(stockNode, { credentials: { baseUrl: shape(sim.url), apiKey: sim.demoApiKey } });
		expect(result.status).toBe('success');
		expect(apiRequests(sim)[0].path).toBe('/v1/stock');
	});

	it('refuses a Base URL without a scheme before anything is sent', async () => {
		const result = await harness.runNode(stockNode, {
			credentials: { baseUrl: sim.url.replace('http://', ''), apiKey: sim.demoApiKey },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Base URL .* must start with http:\/\/ or https:\/\//);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	describe('credential test (as n8n runs it when the credential is saved)', () => {
		const credentialType = new ProxyAccountApi();
		const node: INode = {
			id: 'cred-test',
			name: 'Credential Test',
			type: 'n8n-nodes-proxy-account.proxyAccount',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: harness.nodeTypes,
		});

		// The test request and the credential's authenticate block, both resolved by n8n's own
		// expression engine against the entered credential, then sent and judged by its rules.
		async function runCredentialTest(data: { baseUrl: string; apiKey: string }) {
			const request = credentialType.test.request;
			const baseURL = resolve(workflow, node, String(request.baseURL), data);
			const headers: Record<string, string> = {};
			const auth = credentialType.authenticate.properties.headers ?? {};
			for (const [key, value] of Object.entries(auth)) headers[key] = resolve(workflow, node, String(value), data);
			const response = await axios.request({
				baseURL,
				url: request.url,
				method: request.method,
				headers,
				validateStatus: () => true,
				proxy: false,
				// As n8n's HTTP client does with the request's disableFollowRedirect.
				maxRedirects: request.disableFollowRedirect === true ? 0 : 5,
			});
			const rule = credentialType.test.rules?.find(
				(r) => r.type === 'responseCode' && r.properties.value === response.status,
			);
			if (rule) return { status: 'Error', message: (rule.properties as { message: string }).message };
			return response.status < 300 ? { status: 'OK' } : { status: 'Error', message: `HTTP ${response.status}` };
		}

		it('passes with the right key, using a cheap read', async () => {
			await expect(runCredentialTest({ baseUrl: `${sim.url}/`, apiKey: ` ${sim.demoApiKey} ` })).resolves.toEqual({ status: 'OK' });
			expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/stock']);
		});

		it('does not follow a redirect: the key never reaches the other address', async () => {
			const front = await HostileFront.start(sim.url);
			try {
				for (const status of [301, 302, 307, 308] as const) front.add({ route: 'GET /v1/stock', kind: 'redirect', status });
				for (let i = 0; i < 4; i++) {
					const outcome = await runCredentialTest({ baseUrl: front.url, apiKey: sim.demoApiKey });
					expect(outcome.status).toBe('Error');
					expect(outcome.message).toMatch(/^The Base URL redirects to another address, which is not followed/);
				}
				expect(front.sink.requests).toHaveLength(0);
			} finally {
				await front.stop();
			}
		});

		it('fails with a wrong key with a message to check the key, not echoing it', async () => {
			const outcome = await runCredentialTest({ baseUrl: sim.url, apiKey: 'pa_live_not-a-real-key' });
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toMatch(/API key was not accepted/);
			expect(outcome.message).not.toContain('pa_live_not-a-real-key');
		});
	});
});
