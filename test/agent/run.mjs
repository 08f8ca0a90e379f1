#!/usr/bin/env node
/**
 * AI Agent end-to-end test (npm run test:agent): the Proxy Account node as tools of n8n 2.41.1's own
 * AI Agent (Tools Agent, typeVersion 3.1, and 2.2), driven by a scripted OpenAI-compatible model.
 *
 *   node test/agent/run.mjs [--no-build] [--only name,name]
 *
 * Packs the package, starts the simulator, the scripted model (test/agent/model-server.mjs) and one
 * n8n with the package installed; creates the Proxy Account and OpenAI credentials through REST,
 * builds two workflows in code (Webhook → Edit Fields → AI Agent with the OpenAI Chat Model and
 * Proxy Account tool nodes, test/agent/workflows.mjs), activates them and runs each scenario by
 * calling the webhook with `SCENARIO:<id>` in the prompt. The model's script makes the tool calls
 * (parallel calls in one turn, declared keys, undeclared keys, hostile values); the checks read the
 * simulator's ledger, request log and state, and what the model read back (the recorded `tool`
 * messages and the declared tools). Prints `agent: N passed, M failed`; exits 1 when a check fails.
 * Stops n8n, the model and the simulator in any case.
 */
import { createChecks, runSuite } from '../e2e/checks.mjs';
import { startN8n } from '../e2e/n8n-server.mjs';
import { buildAndPack, onCleanup, runCleanups, startSimulator } from '../e2e/support.mjs';
import { startModelServer } from './model-server.mjs';
import { startSmtpServer } from './smtp-server.mjs';
import { scenarios } from './scenarios.mjs';
import { simHelpers } from './sim.mjs';
import { agentWorkflow, toolParameters, V22_TOOLS } from './workflows.mjs';

const N8N_VERSION = '2.41.1';

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (line) => console.log(`[agent ${elapsed().padStart(5)}] ${line}`);

function parseArgs(argv) {
	const options = { build: true, only: undefined };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--no-build') options.build = false;
		else if (arg === '--only') options.only = argv[++i].split(',');
		else if (arg === '--help' || arg === '-h') {
			console.log('Usage: node test/agent/run.mjs [--no-build] [--only scenario,scenario]');
			process.exit(0);
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

const { check, assert, results } = createChecks(log);

async function importAndActivate(n8n, workflow) {
	const { json } = await n8n.rest.request('POST', '/rest/workflows', { ...workflow, active: false });
	const created = json?.data ?? json;
	if (!created?.id) throw new Error(`workflow creation returned no id: ${JSON.stringify(json).slice(0, 300)}`);
	await n8n.rest.request('POST', `/rest/workflows/${created.id}/activate`, { versionId: created.versionId });
	return created;
}

/** Waits until n8n has registered a workflow's POST webhook (a GET then asks for POST instead of 404 “not registered”). */
async function webhookReady(n8n, path, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(`${n8n.url}/webhook/${path}`);
		const text = await response.text();
		if (response.status !== 404 || /POST/.test(text.replace(/"POST [^"]*"/, ''))) return;
		if (Date.now() > deadline) throw new Error(`the webhook ${path} is not registered after ${timeoutMs / 1000} s: ${text.slice(0, 200)}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** Calls a workflow's webhook: runs the agent once; resolves when the agent answered (or failed). */
function runnerFor(n8n, path) {
	return async (scenario, { prompt = '', proxyName = '', timeoutMs = 90_000 } = {}) => {
		const response = await fetch(`${n8n.url}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chatInput: `SCENARIO:${scenario} ${prompt}`.trim(), proxy_name: proxyName }),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await response.text();
		return { status: response.status, text };
	};
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	log(`AI Agent: n8n ${N8N_VERSION}'s AI Agent (3.1 and 2.2) with Proxy Account tools and a scripted model`);
	const tgz = await buildAndPack({ log, skipBuild: !options.build });
	const sim = await startSimulator({ port: 0, args: ['--proxies', '60', '--balance', '5000'], log });
	onCleanup(() => sim.stop());
	const model = await startModelServer();
	onCleanup(() => model.stop());
	log(`scripted model at ${model.url}`);
	const smtp = await startSmtpServer();
	onCleanup(() => smtp.stop());
	const n8n = await startN8n({ version: N8N_VERSION, packageTgz: tgz, log, env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' } });
	onCleanup(() => n8n.stop());

	const s = simHelpers(sim);
	const credentials = {
		proxyAccount: await n8n.createCredential('Proxy Account (simulator)', 'proxyAccountApi', { baseUrl: sim.url, apiKey: sim.apiKey }),
		openAi: await n8n.createCredential('Scripted model', 'openAiApi', { apiKey: 'sk-scripted-model', url: model.url, header: false }),
		smtp: await n8n.createCredential('Reviewer mail', 'smtp', { user: '', password: '', host: '127.0.0.1', port: smtp.port, secure: false, disableStartTls: true }),
	};
	const shortRef = (c) => ({ id: c.id, name: c.name });
	credentials.proxyAccount = shortRef(credentials.proxyAccount);
	credentials.openAi = shortRef(credentials.openAi);
	credentials.smtp = shortRef(credentials.smtp);

	// Limits that depend on the simulator's prices, read before the workflows are built.
	const context = { n8n, sim, s, model, smtp, check, assert, log, limits: {} };
	const stockCity = (await s.api('GET', '/v1/stock')).find((c) => c.open && c.tmobile > 0)?.city ?? (await s.api('GET', '/v1/stock'))[0].city;
	context.buyLine = { isp: 'T-Mobile', location: stockCity, interval: 1, period: 'weekly' };
	const weekly = await s.price(context.buyLine);
	context.limits.buyCap = Math.ceil(weekly + 1);
	context.limits.buyFloor = 100;
	context.limits.weekly = weekly;
	await prepareRenewals(context);

	const tools = toolParameters(context.limits);
	const main31 = agentWorkflow({ name: 'Agent 3.1 with Proxy Account tools', path: 'agent-31', agentVersion: 3.1, tools, credentials });
	const main22 = agentWorkflow({ name: 'Agent 2.2 with Proxy Account tools', path: 'agent-22', agentVersion: 2.2, tools: Object.fromEntries(V22_TOOLS.map((t) => [t, tools[t]])), credentials });
	context.workflow31 = { ...(await importAndActivate(n8n, main31)), nodes: main31.nodes };
	context.workflow22 = { ...(await importAndActivate(n8n, main22)), nodes: main22.nodes };
	const reviewed = agentWorkflow({
		name: 'Agent 3.1 with a reviewed Extend',
		path: 'agent-review',
		agentVersion: 3.1,
		tools: { extend_reviewed: tools.extend_proxy, get_funds: tools.get_funds },
		reviewed: ['extend_reviewed'],
		responseMode: 'onReceived',
		credentials,
	});
	context.workflowReview = { ...(await importAndActivate(n8n, reviewed)), nodes: reviewed.nodes };
	context.runReview = runnerFor(n8n, 'agent-review');
	for (const path of ['agent-31', 'agent-22', 'agent-review']) await webhookReady(n8n, path);
	context.run31 = runnerFor(n8n, 'agent-31');
	context.run22 = runnerFor(n8n, 'agent-22');
	log(`workflows active: "${main31.name}" (${Object.keys(tools).length} tools), "${main22.name}" (${V22_TOOLS.length} tools)`);

	// A pool of proxies: each scenario takes its own, so no scenario sees another's changes.
	const all = (await s.proxies()).map((p) => p.proxy_name).sort();
	const taken = new Set([...context.renewalProxies]);
	context.take = (n) => {
		const picked = all.filter((name) => !taken.has(name)).slice(0, n);
		if (picked.length < n) throw new Error(`the simulator has no ${n} more proxies`);
		for (const name of picked) taken.add(name);
		return picked;
	};
	context.stockCity = stockCity;
	context.overlap = {};

	for (const [name, scenario] of Object.entries(scenarios)) {
		if (options.only && !options.only.includes(name)) continue;
		log(`— ${name}`);
		try {
			await scenario(context);
		} catch (error) {
			results.push({ what: `${name} (scenario)`, ok: false });
			log(`  FAIL ${name}: the scenario stopped: ${error.stack ?? error.message}`);
		}
		await s.clearFaults();
	}
	if (process.env.AGENT_DEBUG) {
		const { json } = await n8n.rest.request('GET', `/rest/executions?limit=20`);
		for (const e of (json?.data ?? json).results ?? []) log(`execution ${e.id}: workflow ${e.workflowId} ${e.status} ${e.mode}`);
		log(n8n.logTail().split('\n').slice(-25).join('\n'));
	}
	if (model.errors.length > 0) log(`model script errors: ${model.errors.join('; ')}`);
	for (const [what, overlap] of Object.entries(context.overlap)) log(`measured overlap, ${what}: ${overlap.text}`);
}

/**
 * Set Auto-Renew's scenario needs a known starting point: auto-renew off on every proxy (commitment
 * 0), and four proxies whose one renewal's price is measured through GET /v1/funds. The cap fits two
 * and a half of them.
 */
async function prepareRenewals(context) {
	const { s } = context;
	const records = await s.proxies();
	await s.setAutoRenew(records.map((p) => p.proxy_name), false);
	const chosen = records
		.filter((p) => p.period === 'monthly')
		.map((p) => p.proxy_name)
		.sort()
		.slice(0, 4);
	if (chosen.length < 4) throw new Error('fewer than four monthly proxies for the auto-renew scenario');
	const prices = [];
	for (const name of chosen) {
		await s.setAutoRenew([name], true);
		prices.push(await s.commitment());
		await s.setAutoRenew([name], false);
	}
	context.renewalProxies = chosen;
	context.renewalPrices = prices;
	context.limits.renewalCap = Math.round((prices[0] + prices[1] + prices[2] / 2) * 100) / 100;
}

await runSuite('agent', main, { results, log, cleanup: runCleanups, elapsed });
