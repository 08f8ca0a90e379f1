#!/usr/bin/env node
/**
 * MCP end-to-end test (npm run test:mcp): the account as tools for any AI agent, served by a real
 * n8n 2.41.1's MCP Server Trigger and called by the official MCP TypeScript client
 * (@modelcontextprotocol/sdk) over streamable HTTP.
 *
 *   node test/mcp/run.mjs [--no-build] [--screenshots]
 *
 * Packs the package, starts the simulator (a child process) and one n8n with the package installed,
 * creates the Proxy Account credential and the MCP server's bearer token credential through the
 * owner's REST API, imports examples/proxy-account-mcp-server.json and activates it, then proves
 * from the simulator's ledger, request log and state:
 *   auth      no token and a wrong token are refused (HTTP 401/403) and reach nothing;
 *   list      tools/list shows each tool with its $fromAI keys as its input schema and a
 *             description that says what it costs (Extend: charges the wallet; the cap is in the instructions);
 *   calls     Get Funds, Quote, a capped Extend (charged once, within the cap), Rotate IP (one change);
 *   limits    an Extend over the cap, or with arguments that try to raise it, charges nothing;
 *   secrets   no result or error holds the API key or a proxy password;
 *   overlap   two clients extending at once pay at most once per call, each within the cap;
 *   floor     repeated capped Extends stop at Keep Wallet At Least; the wallet never goes below it.
 * With --screenshots (not in CI) it also saves the workflow's canvas and the MCP Server Trigger's panel
 * to docs/screenshots/mcp-server*.png (headless Chromium, as test:e2e).
 * Prints `mcp: N passed, M failed`; exits 1 when a check fails. Stops n8n and the simulator in any case.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { captureWorkflow } from '../e2e/browser.mjs';
import { createChecks, runSuite } from '../e2e/checks.mjs';
import { PACKAGE_NAME, startN8n } from '../e2e/n8n-server.mjs';
import { buildAndPack, ensureChromium, onCleanup, ROOT, runCleanups, startSimulator } from '../e2e/support.mjs';

const MCP_N8N_VERSION = '2.41.1';
const EXAMPLE = 'proxy-account-mcp-server.json';

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (line) => console.log(`[mcp ${elapsed().padStart(5)}] ${line}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
	const options = { build: true, screenshots: false };
	for (const arg of argv) {
		if (arg === '--no-build') options.build = false;
		else if (arg === '--screenshots') options.screenshots = true;
		else if (arg === '--help' || arg === '-h') {
			console.log('Usage: node test/mcp/run.mjs [--no-build] [--screenshots]');
			process.exit(0);
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

// ----- checks ------------------------------------------------------------------------------------

const { check, assert, results } = createChecks(log);

const cents = (n) => Math.round(n * 100) / 100;

// ----- the workflow ------------------------------------------------------------------------------

/** The example, pointed at this run's credentials. */
function exampleWorkflow(credential, bearer) {
	const data = JSON.parse(readFileSync(join(ROOT, 'examples', EXAMPLE), 'utf8'));
	for (const node of data.nodes) {
		if (node.credentials?.proxyAccountApi) node.credentials.proxyAccountApi = { id: credential.id, name: credential.name };
		if (node.credentials?.httpBearerAuth) node.credentials.httpBearerAuth = { id: bearer.id, name: bearer.name };
	}
	return data;
}

/** MCP tool name of a node, as n8n makes it: the node name with `_` for other characters. */
const toolName = (nodeName) => nodeName.replace(/[^A-Za-z0-9_-]/g, '_');

/** The `$fromAI` keys of a node's parameters: the input schema's properties. */
const agentKeys = (node) => [...new Set([...JSON.stringify(node.parameters).matchAll(/\$fromAI\('([^']+)'/g)].map((m) => m[1]))].sort();

async function importAndActivate(n8n, workflow) {
	const { json } = await n8n.rest.request('POST', '/rest/workflows', { name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings: workflow.settings, active: false });
	const created = json?.data ?? json;
	if (!created?.id) throw new Error(`workflow creation returned no id: ${JSON.stringify(json).slice(0, 300)}`);
	await n8n.rest.request('POST', `/rest/workflows/${created.id}/activate`, { versionId: created.versionId });
	return created;
}

/** Waits until n8n answers on the MCP path with something else than 404 (the webhook is registered). */
async function mcpEndpointReady(url, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
		await response.text();
		if (response.status !== 404) return response.status;
		if (Date.now() > deadline) throw new Error(`${url} still answers 404 after ${timeoutMs / 1000} s`);
		await sleep(250);
	}
}

// ----- the MCP client ----------------------------------------------------------------------------

/** An MCP client connected over streamable HTTP; `token` undefined sends no Authorization header. */
async function connect(url, token) {
	const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
	const client = new Client({ name: 'proxy-account-mcp-e2e', version: '1.0.0' });
	const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
	await client.connect(transport);
	onCleanup(() => client.close().catch(() => undefined));
	return client;
}

/** Calls a tool; returns { ok, text } whether n8n answers with a result, an error result or a JSON-RPC error. */
async function call(client, name, args) {
	try {
		const result = await client.callTool({ name, arguments: args });
		const text = (result.content ?? []).map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('\n');
		return { ok: result.isError !== true, text, result };
	} catch (error) {
		return { ok: false, text: error.message, error };
	}
}

/** Everything the client saw, to look for secrets in. */
const seen = [];
function remember(outcome) {
	seen.push(outcome.text);
	return outcome;
}

// ----- the simulator -----------------------------------------------------------------------------

async function simApi(sim, path) {
	const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
	const body = await response.json();
	if (!response.ok) throw new Error(`simulator GET ${path} → ${response.status}`);
	return body.data;
}
const balance = async (sim) => (await sim.control('GET', '/__sim/state')).accounts.find((a) => a.demo).balance;
const ledger = (sim) => sim.control('GET', '/__sim/ledger');
const requests = async (sim, method, prefix) => (await sim.control('GET', '/__sim/requests')).filter((r) => r.method === method && r.path.startsWith(prefix));
/** Sets a proxy to expire in `hours` (inside Extend Proxy's Only If Expiring Within of 24 hours). */
const expireIn = (sim, name, hours) => sim.control('POST', '/__sim/proxy', { name, expiresInHours: hours });

// ----- the scenarios -----------------------------------------------------------------------------

async function authScenario({ url, sim }) {
	const before = (await sim.control('GET', '/__sim/requests')).length;
	for (const [label, token] of [
		['no token', undefined],
		['a wrong token', 'not-the-token'],
	]) {
		await check(`with ${label} the MCP client is refused (HTTP 401/403)`, async () => {
			let refused;
			try {
				const client = await connect(url, token);
				await client.listTools();
			} catch (error) {
				refused = error;
			}
			assert(refused, 'the client connected and listed the tools');
			const status = refused.code ?? Number(/\b(40[13])\b/.exec(refused.message)?.[1]);
			assert([401, 403].includes(status), `refused with ${refused.message}`);
			return `HTTP ${status}`;
		});
	}
	await check('a refused client reached nothing of the service', async () => {
		const after = (await sim.control('GET', '/__sim/requests')).length;
		assert(after === before, `${after - before} requests reached the simulator`);
	});
}

async function listScenario({ client, workflow }) {
	const nodes = workflow.nodes.filter((n) => n.type === `${PACKAGE_NAME}.proxyAccountTool`);
	let tools = [];
	await check('tools/list shows every Proxy Account tool of the workflow, and no Remove', async () => {
		({ tools } = await client.listTools());
		const names = tools.map((t) => t.name).sort();
		const expected = nodes.map((n) => toolName(n.name)).sort();
		assert(JSON.stringify(names) === JSON.stringify(expected), `listed ${names.join(', ')}; expected ${expected.join(', ')}`);
		assert(!names.some((n) => /remove/i.test(n)), 'a Remove tool is listed');
		return names.join(', ');
	});
	await check("each tool's input schema is its $fromAI keys, all required and typed", async () => {
		for (const node of nodes) {
			const tool = tools.find((t) => t.name === toolName(node.name));
			assert(tool, `${node.name} is not listed`);
			const keys = Object.keys(tool.inputSchema?.properties ?? {}).sort();
			assert(JSON.stringify(keys) === JSON.stringify(agentKeys(node)), `${tool.name}: properties ${keys.join(', ') || 'none'}, $fromAI keys ${agentKeys(node).join(', ') || 'none'}`);
			const required = [...(tool.inputSchema.required ?? [])].sort();
			assert(JSON.stringify(required) === JSON.stringify(keys), `${tool.name}: required ${required.join(', ')}`);
		}
		const extend = tools.find((t) => t.name === 'Extend_Proxy');
		assert(extend.inputSchema.properties.days.type === 'number', `Extend_Proxy.days is ${extend.inputSchema.properties.days.type}`);
		return tools.map((t) => `${t.name}(${Object.keys(t.inputSchema?.properties ?? {}).join(', ')})`).join(' ');
	});
	await check("the server's instructions tell the agent the limits of Extend", async () => {
		const instructions = client.getInstructions() ?? '';
		for (const word of [/charges/, /wallet/, /at most 50/, /below 100/, /within 12 hours/, /same moment/, /may have been made/]) assert(word.test(instructions), `no ${word} in “${instructions}”`);
	});
	const describe = (name) => tools.find((t) => t.name === name)?.description ?? '';
	await check("Extend's description (generated by n8n from the operation) says it charges the wallet", async () => {
		const text = describe('Extend_Proxy');
		for (const word of [/charges the wallet/i, /Proxy Account/]) assert(word.test(text), `no ${word} in “${text}”`);
		return `“${text}”`;
	});
	await check('the other tools say what they cost: Rotate IP free, the purchase only priced', async () => {
		const rotate = describe('Rotate_IP');
		assert(/free/i.test(rotate), `no “free” in “${rotate}”`);
		const purchase = describe('Price_A_Purchase');
		assert(/dry run|nothing is bought|buys nothing/i.test(purchase) && !/^Buy proxies \(charges the wallet\)/.test(purchase), `“${purchase}”`);
		return `“${rotate}”; “${purchase}”`;
	});
}

async function callsScenario({ client, sim, proxies }) {
	await check('Get Funds answers the wallet the simulator holds', async () => {
		const outcome = remember(await call(client, 'Get_Funds', {}));
		assert(outcome.ok, outcome.text);
		const funds = await balance(sim);
		assert(outcome.text.includes(String(funds)), `“${outcome.text.slice(0, 200)}” does not show ${funds}`);
		return outcome.text.slice(0, 120);
	});
	await check('Get Proxies and Get Stock answer what the service lists', async () => {
		const listed = remember(await call(client, 'Get_Proxies', {}));
		assert(listed.ok && proxies.every((p) => listed.text.includes(p.proxy_name)), listed.text.slice(0, 200));
		const stock = remember(await call(client, 'Get_Stock', {}));
		const city = (await simApi(sim, '/v1/stock')).find((c) => c.status === 'available')?.city;
		assert(stock.ok && stock.text.includes(city), stock.text.slice(0, 200));
		return `${proxies.length} proxies, ${city} in stock`;
	});
	await check('Quote Price prices what the agent asks, charging nothing', async () => {
		const city = (await simApi(sim, '/v1/stock')).find((c) => c.open && c.tmobile > 0)?.city;
		assert(city, 'no city with T-Mobile in stock');
		const outcome = remember(await call(client, 'Quote_Price', { carrier: 'T-Mobile', city, weeks: 2 }));
		assert(outcome.ok, outcome.text);
		assert(/line_total|total/.test(outcome.text), outcome.text.slice(0, 200));
		assert((await ledger(sim)).length === 0, 'something was charged');
		return outcome.text.slice(0, 120);
	});
	await check('a capped Extend is charged once, within the cap, and the wallet moves by the charge', async () => {
		const name = proxies[0].proxy_name;
		await expireIn(sim, name, 5);
		const before = await balance(sim);
		const outcome = remember(await call(client, 'Extend_Proxy', { proxy_name: name, days: 1 }));
		assert(outcome.ok && /"status":\s*"extended"/.test(outcome.text), outcome.text.slice(0, 300));
		const charges = await ledger(sim);
		assert(charges.length === 1 && charges[0].proxy_name === name, `ledger: ${JSON.stringify(charges)}`);
		assert(charges[0].amount <= 50, `charged ${charges[0].amount}, cap 50`);
		assert(cents(before - (await balance(sim))) === charges[0].amount, 'the wallet did not move by the charge');
		return `${name} charged ${charges[0].amount} (cap 50)`;
	});
	await check('the same Extend again pays nothing (the proxy is no longer expiring within 12 hours)', async () => {
		const outcome = remember(await call(client, 'Extend_Proxy', { proxy_name: proxies[0].proxy_name, days: 1 }));
		assert(/skipped/.test(outcome.text), outcome.text.slice(0, 300));
		assert((await ledger(sim)).length === 1, 'charged again');
	});
	await check('Rotate IP sends one change for the proxy', async () => {
		const target = (await simApi(sim, '/v1/proxies')).find((p) => p.auto_change !== true);
		assert(target, 'no proxy without automatic rotation');
		// The service allows one change a minute: move its clock past the last one.
		await sim.control('POST', '/__sim/clock', { advanceMs: 120_000 });
		const outcome = remember(await call(client, 'Rotate_IP', { proxy_name: target.proxy_name }));
		assert(outcome.ok && /"status":\s*"sent"/.test(outcome.text), outcome.text.slice(0, 300));
		const sent = await requests(sim, 'POST', '/v1/proxies/changeip/');
		assert(sent.length === 1 && decodeURIComponent(sent[0].path).includes(target.proxy_name), `changeip requests: ${sent.map((r) => r.path).join(', ')}`);
		return `POST ${sent[0].path}`;
	});
}

async function expiredScenario({ client, sim, proxies }) {
	await check('an expired proxy extended once (1 day) is not charged again by later calls', async () => {
		const name = proxies[9].proxy_name;
		await expireIn(sim, name, -72);
		const before = (await ledger(sim)).length;
		const outcomes = [];
		for (let attempt = 0; attempt < 4; attempt++) outcomes.push(remember(await call(client, 'Extend_Proxy', { proxy_name: name, days: 1 })));
		const charges = (await ledger(sim)).slice(before);
		assert(charges.length === 1 && charges[0].proxy_name === name, `${charges.length} charges: ${JSON.stringify(charges)}`);
		assert(outcomes.slice(1).every((o) => /skipped/.test(o.text)), outcomes.map((o) => o.text.slice(0, 120)).join(' | '));
		return `1 charge of ${charges[0].amount}, then ${outcomes.length - 1} calls skipped`;
	});
}

async function limitsScenario({ client, sim, proxies }) {
	const name = proxies[1].proxy_name;
	await expireIn(sim, name, 5);
	const allocates = async () => (await requests(sim, 'POST', '/v1/proxies/allocate')).length;
	const attempts = [
		['an Extend that asks for more than the cap (30 days) is refused', { proxy_name: name, days: 30 }],
		['an extra argument maxTotalCost: 100000 does not raise the cap', { proxy_name: name, days: 30, maxTotalCost: 100_000 }],
		['a key the schema does not have (options.maxTotalCost) does not raise the cap', { proxy_name: name, days: 30, options: { maxTotalCost: 100_000, keepWalletAtLeast: 0 } }],
	];
	for (const [what, args] of attempts) {
		await check(`${what}, with nothing charged`, async () => {
			const charged = (await ledger(sim)).length;
			const sent = await allocates();
			const wallet = await balance(sim);
			const outcome = remember(await call(client, 'Extend_Proxy', args));
			assert(!/"status":\s*"extended"/.test(outcome.text), `extended: ${outcome.text.slice(0, 300)}`);
			assert((await ledger(sim)).length === charged, 'something was charged');
			assert((await allocates()) === sent, 'an extension request was sent');
			assert((await balance(sim)) === wallet, 'the wallet moved');
			return outcome.text.replace(/\s+/g, ' ').slice(0, 160);
		});
	}
}

const SESSIONS = 6;
const CAP = 50;

async function overlapScenario({ url, token, sim, proxies }) {
	const clients = await Promise.all(Array.from({ length: SESSIONS }, () => connect(url, token)));
	const name = proxies[2].proxy_name;
	await expireIn(sim, name, 5);
	await check(`${SESSIONS} client sessions extending one proxy at once: one n8n runs them one at a time, so it is charged once, within the cap of ${CAP}`, async () => {
		const before = (await ledger(sim)).length;
		const outcomes = await Promise.all(clients.map((client) => call(client, 'Extend_Proxy', { proxy_name: name, days: 1 })));
		outcomes.forEach(remember);
		const charges = (await ledger(sim)).slice(before);
		assert(charges.every((c) => c.proxy_name === name), `charged other proxies: ${JSON.stringify(charges)}`);
		// One n8n process runs one credential's Extends one at a time: each later call finds the proxy extended.
		assert(charges.length === 1, `${charges.length} charges for ${SESSIONS} calls`);
		assert(charges.every((c) => c.amount <= CAP), `a charge above the cap: ${charges.map((c) => c.amount).join(', ')}`);
		const statuses = outcomes.map((o) => /"status":\s*"(\w+)"/.exec(o.text)?.[1] ?? 'refused');
		return `${charges.length} charge(s) of ${charges.map((c) => c.amount).join(' + ') || 0}; calls: ${statuses.join(', ')}`;
	});
	await check('a later Extend of that proxy pays nothing (extended in the last 12 hours)', async () => {
		const before = (await ledger(sim)).length;
		const outcome = remember(await call(clients[0], 'Extend_Proxy', { proxy_name: name, days: 1 }));
		assert(/skipped/.test(outcome.text), outcome.text.slice(0, 300));
		assert((await ledger(sim)).length === before, 'charged');
	});
	const FLOOR = 100;
	const names = proxies.slice(3, 3 + SESSIONS).map((p) => p.proxy_name);
	await check(`${SESSIONS} sessions extending ${SESSIONS} proxies at once, room for one charge above the floor: one charge, the wallet never below the floor`, async () => {
		for (const proxy of names) await expireIn(sim, proxy, 5);
		await sim.control('POST', '/__sim/account', { balance: FLOOR + 20 });
		const before = (await ledger(sim)).length;
		const outcomes = await Promise.all(clients.map((client, i) => call(client, 'Extend_Proxy', { proxy_name: names[i], days: 1 })));
		outcomes.forEach(remember);
		const charges = (await ledger(sim)).slice(before);
		const wallet = await balance(sim);
		assert(charges.every((c) => c.amount <= CAP), `a charge above the cap: ${charges.map((c) => c.amount).join(', ')}`);
		assert(wallet >= FLOOR, `the wallet went to ${wallet}, below the floor of ${FLOOR}`);
		assert(charges.length === 1, `${charges.length} charges`);
		const refused = outcomes.filter((o) => /Keep Wallet At Least/.test(o.text));
		assert(refused.length + charges.length === SESSIONS, `${refused.length} refused, ${charges.length} charged of ${SESSIONS}`);
		assert(refused.every((o) => /nothing was charged/i.test(o.text)), refused.map((o) => o.text.slice(0, 200)).join(' | '));
		return `${charges.length} charged, ${refused.length} refused; wallet ${FLOOR + 20} → ${wallet} (floor ${FLOOR})`;
	});
	// Restore expiries for the floor scenario that follows.
	for (const proxy of names) await expireIn(sim, proxy, 5);
}

async function floorScenario({ client, sim, proxies }) {
	const FLOOR = 100;
	const candidates = proxies.slice(3, 9).map((p) => p.proxy_name);
	for (const name of candidates) await expireIn(sim, name, 5);
	// Room for three one-day extensions (17 each at member prices) above the floor, not four.
	await sim.control('POST', '/__sim/account', { balance: FLOOR + 3 * 17 + 5 });
	await check('repeated capped Extends stop at Keep Wallet At Least; the wallet never goes below it', async () => {
		const before = (await ledger(sim)).length;
		const log = [];
		let refusal;
		for (const name of candidates) {
			const outcome = remember(await call(client, 'Extend_Proxy', { proxy_name: name, days: 1 }));
			const wallet = await balance(sim);
			log.push(`${/"status":\s*"extended"/.test(outcome.text) ? 'extended' : 'refused'} → ${wallet}`);
			assert(wallet >= FLOOR, `the wallet went to ${wallet}, below the floor of ${FLOOR}`);
			if (/Keep Wallet At Least/.test(outcome.text)) {
				refusal = outcome;
				break;
			}
		}
		assert(refusal, `never refused: ${log.join('; ')}`);
		const charges = (await ledger(sim)).slice(before);
		assert(charges.length === 3, `${charges.length} charges before the refusal: ${log.join('; ')}`);
		return `${log.join('; ')}; “${refusal.text.replace(/\s+/g, ' ').slice(0, 140)}”`;
	});
}

async function secretsScenario({ sim }) {
	await check('no result or error the client saw holds the API key or a proxy password', async () => {
		const proxies = await simApi(sim, '/v1/proxies');
		const secrets = [sim.apiKey, ...proxies.map((p) => p.password).filter((p) => typeof p === 'string' && p.length >= 6)];
		assert(secrets.length > 1, 'no proxy passwords to look for');
		const all = seen.join('\n');
		const leaked = secrets.filter((secret) => all.includes(secret));
		assert(leaked.length === 0, `${leaked.length} secret(s) in what the client saw`);
		return `${seen.length} answers, ${all.length} characters, ${secrets.length} secrets looked for`;
	});
}

async function executionsScenario({ n8n, workflow }) {
	await check('each tool call is stored as a webhook execution of the workflow', async () => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
		const { json } = await n8n.rest.request('GET', `/rest/executions?filter=${filter}&limit=100`);
		const list = (json?.data ?? json).results ?? [];
		assert(list.length > 0, 'no executions');
		const modes = [...new Set(list.map((e) => e.mode))];
		assert(modes.length === 1 && modes[0] === 'webhook', `modes: ${modes.join(', ')}`);
		return `${list.length} executions`;
	});
}

// ----- main --------------------------------------------------------------------------------------

async function main() {
	const options = parseArgs(process.argv.slice(2));
	log(`MCP: n8n ${MCP_N8N_VERSION}'s MCP Server Trigger, the official MCP client over streamable HTTP`);
	const tgz = await buildAndPack({ log, skipBuild: !options.build });
	const sim = await startSimulator({ port: 0, args: ['--proxies', '12', '--balance', '5000'], log });
	onCleanup(() => sim.stop());
	const n8n = await startN8n({ version: MCP_N8N_VERSION, packageTgz: tgz, log, env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' } });
	onCleanup(() => n8n.stop());

	const credential = await n8n.createCredential('Proxy Account (simulator)', 'proxyAccountApi', { baseUrl: sim.url, apiKey: sim.apiKey });
	const token = randomBytes(24).toString('base64url');
	const bearer = await n8n.createCredential('Proxy Account MCP token', 'httpBearerAuth', { token });
	const data = exampleWorkflow(credential, bearer);
	const path = data.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger').parameters.path;
	const workflow = { ...(await importAndActivate(n8n, data)), nodes: data.nodes };
	const url = `${n8n.url}/mcp/${path}`;
	log(`"${data.name}" imported and active; MCP server at ${url} (${await mcpEndpointReady(url)} without a token)`);

	const proxies = (await simApi(sim, '/v1/proxies')).sort((a, b) => a.proxy_name.localeCompare(b.proxy_name));
	const context = { n8n, sim, url, token, workflow, proxies };
	await authScenario(context);
	context.client = await connect(url, token);
	await listScenario(context);
	await callsScenario(context);
	await expiredScenario(context);
	await limitsScenario(context);
	await overlapScenario(context);
	await floorScenario(context);
	await secretsScenario(context);
	await executionsScenario(context);
	if (options.screenshots) {
		const dir = join(ROOT, 'docs', 'screenshots');
		const files = await captureWorkflow({
			baseUrl: n8n.url,
			owner: n8n.owner,
			executablePath: await ensureChromium({ log }),
			workflowId: workflow.id,
			canvasFile: join(dir, 'mcp-server-canvas.png'),
			node: 'MCP Server',
			nodeFile: join(dir, 'mcp-server-trigger.png'),
			log,
		});
		log(`screenshots: ${files.join(', ')}`);
	}
}

await runSuite('mcp', main, { results, log, cleanup: runCleanups, elapsed });
