/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
import type { INode, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { CredentialTestContext } from 'n8n-core';
import { createServer } from 'node:net';

import { ProxyAccountApi } from '../../credentials/ProxyAccountApi.credentials';
import { LIMITED_ONLY_MESSAGE, proxyAccountApiTest, testConnection } from '../../nodes/ProxyAccount/methods/credentialTest';
import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, createHarness, credentialsFor, HostileFront, visibleText } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 11 });
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.resetLogs());

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
	const { port } = server.address() as { port: number };
	await new Promise((done) => server.close(done));
	return port;
}

const stockNode = { type: 'proxyAccount', parameters: { resource: 'stock', operation: 'getAll', returnAll: true, filters: { onlyAvailable: false } } };

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

		// n8n's own credential-test context (its legacy request helper), as n8n's credentials tester
		// builds it, running the nodes' programmatic test (testedBy) through the transport.
		async function runCredentialTest(data: { baseUrl: string; apiKey: string; limitedApiKey?: string }, timeoutMs?: number) {
			const context = new CredentialTestContext({} as IWorkflowExecuteAdditionalData);
			return await testConnection(context, data, timeoutMs);
		}

		it('is the test both nodes name (testedBy), and the credential declares none of its own', () => {
			const action = new ProxyAccount();
			const trigger = new ProxyAccountTrigger();
			for (const node of [action, trigger]) {
				expect(node.description.credentials).toEqual([{ name: 'proxyAccountApi', required: true, testedBy: 'proxyAccountApiTest' }]);
				expect(node.methods.credentialTest.proxyAccountApiTest).toBe(proxyAccountApiTest);
			}
			expect((credentialType as { test?: unknown }).test).toBeUndefined();
			expect(workflow.nodes[node.name]).toBeDefined();
		});

		it('passes with the right key, using a cheap read', async () => {
			await expect(runCredentialTest({ baseUrl: `${sim.url}/`, apiKey: ` ${sim.demoApiKey} ` })).resolves.toEqual({ status: 'OK', message: 'Connection successful' });
			expect(apiRequests(sim)[0].headers.authorization).toBe(`Bearer ${sim.demoApiKey}`);
			expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/stock']);
		});

		it('does not follow a redirect: the key never reaches the other address', async () => {
			const front = await HostileFront.start(sim.url);
			try {
				for (const status of [301, 302, 307, 308] as const) front.add({ route: 'GET /v1/stock', kind: 'redirect', status });
				for (let i = 0; i < 4; i++) {
					const outcome = await runCredentialTest({ baseUrl: front.url, apiKey: sim.demoApiKey });
					expect(outcome.status).toBe('Error');
					expect(outcome.message).toMatch(/redirect/i);
					expect(outcome.message).toContain('127.0.0.2');
				}
				expect(front.sink.requests).toHaveLength(0);
			} finally {
				await front.stop();
			}
		});

		it.each([
			['a refused connection (wrong port)', async () => `http://127.0.0.1:${await closedPort()}`, /^Could not connect to the Proxy Account service at http:\/\/127\.0\.0\.1:\d+\. .*Check the Base URL/],
			['an unknown host', async () => 'http://proxy-account.invalid', /^The address of the Proxy Account service could not be resolved \(http:\/\/proxy-account\.invalid\)\. Check the Base URL/],
			['TLS to a plain-http port', async () => sim.url.replace('http://', 'https://'), /^Could not open a secure \(TLS\) connection to https:\/\/127\.0\.0\.1:\d+\. Nothing was sent\. .*needs http:\/\//],
			['a missing scheme', async () => sim.url.replace('http://', ''), /must start with http:\/\/ or https:\/\/.*\. Open the credential and enter the full address, e\.g\. https:\/\/api\.example\.com/],
			['a wrong path', async () => `${sim.url}/api`, /^The Proxy Account service .*404|no Proxy Account API|not found/i],
			['a query string', async () => `${sim.url}?x=1`, /must not contain \? or #/],
			['a fragment', async () => `${sim.url}#top`, /must not contain \? or #/],
			['user:password@', async () => sim.url.replace('http://', 'http://me:secret@'), /must not contain a user name or password/],
		])('fails with the nodes\' own message for %s, nothing raw, the key never shown', async (_label, url, expected) => {
			const outcome = await runCredentialTest({ baseUrl: await url(), apiKey: sim.demoApiKey });
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toMatch(expected);
			expect(outcome.message).not.toMatch(/ECONNREFUSED|ENOTFOUND|ERR_INVALID_URL|EPROTO|ERR_SSL/);
			expect(outcome.message).not.toContain(sim.demoApiKey);
			expect(outcome.message).not.toContain('secret');
		});

		it('accepts /v1 in any case and a trailing slash, as the nodes do', async () => {
			for (const suffix of ['/v1', '/V1/', '/']) {
				await expect(runCredentialTest({ baseUrl: `${sim.url}${suffix}`, apiKey: sim.demoApiKey })).resolves.toMatchObject({ status: 'OK' });
			}
			expect(apiRequests(sim).map((r) => r.path)).toEqual(['/v1/stock', '/v1/stock', '/v1/stock']);
		});

		it('gives up at its timeout with the nodes\' timeout message', async () => {
			sim.injectFault({ route: 'GET /v1/stock', kind: 'latency', delayMs: 1_500 });
			const outcome = await runCredentialTest({ baseUrl: sim.url, apiKey: sim.demoApiKey }, 300);
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toMatch(/did not answer within 0\.3 s/);
		});

		it('with only a Limited key: checks the Base URL with no key at all, never the rotation link (it would rotate an IP)', async () => {
			const limited = sim.account().limitedKey;
			const outcome = await runCredentialTest({ baseUrl: `${sim.url}/v1`, apiKey: ' ', limitedApiKey: ` ${limited} ` });
			expect(outcome).toEqual({ status: 'OK', message: LIMITED_ONLY_MESSAGE });
			expect(outcome.message).toMatch(/only a Limited API Key, which is not tried here/);
			expect(apiRequests(sim).map((r) => r.route)).toEqual(['GET /v1/stock']);
			expect(apiRequests(sim)[0].headers.authorization).toBeUndefined();
			expect(JSON.stringify(apiRequests(sim)[0])).not.toContain(limited);
			// A Base URL that does not lead to the service still fails, with the nodes' message.
			const wrong = await runCredentialTest({ baseUrl: `${sim.url}/api`, apiKey: '', limitedApiKey: limited });
			expect(wrong.status).toBe('Error');
			expect(wrong.message).toMatch(/404/);
			expect(wrong.message).not.toContain(limited);
			const none = await runCredentialTest({ baseUrl: sim.url, apiKey: '', limitedApiKey: '' });
			expect(none).toEqual({ status: 'Error', message: 'The Proxy Account credential has no API key. Open the credential and paste the master API key from the dashboard.' });
			expect(apiRequests(sim, 'GET /v1/proxies/changeip/:key/:name')).toHaveLength(0);
		});

		it('fails with a wrong key with a message to check the key, not echoing it', async () => {
			const outcome = await runCredentialTest({ baseUrl: sim.url, apiKey: 'pa_live_not-a-real-key' });
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toMatch(/API key was not accepted/);
			expect(outcome.message).not.toContain('pa_live_not-a-real-key');
		});
	});
});
