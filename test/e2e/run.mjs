#!/usr/bin/env node
/**
 * End-to-end test against a real n8n (npm run test:e2e).
 *
 *   node test/e2e/run.mjs [--version 2.41.1|1.123.81|2|1|all] [--no-browser] [--no-build]
 *                         [--keep] [--screenshots DIR]
 *
 * For each n8n version (default: 2.41.1, then 1.123.81): installs it into the cache if needed
 * (test/e2e/n8n-install.mjs), builds and packs this package, installs the tarball into a fresh
 * n8n user folder with the README's install commands, run verbatim with the Node that n8n runs on
 * (Node 24 for 2.41.1, Node 20 with npm 10 for 1.123.81; test/e2e/readme-install.mjs), starts the
 * simulator and n8n on that folder, checks that the package's node and credential
 * types are loaded, creates a credential for the simulator, imports the workflows of
 * test/e2e/workflows/ and examples/ with `n8n import:workflow`, runs every one that starts with a
 * Manual Trigger with `n8n execute` and checks its result, then drives the editor with headless
 * Chromium and saves screenshots into docs/screenshots/ (suffix -n8n1 for n8n 1.x).
 * Exits 1 when any check fails.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { captureEditor } from './browser.mjs';
import { DEFAULT_VERSIONS, ensureN8n, resolveTarget } from './n8n-install.mjs';
import { installPackage, nodeItems, PACKAGE_NAME, runError, startN8n } from './n8n-server.mjs';
import { subWorkflowRetry } from './subworkflow-retry.mjs';
import { buildAndPack, ensureChromium, onCleanup, ROOT, runCleanups, startSimulator } from './support.mjs';

export const CREDENTIAL_NAME = 'Proxy Account (simulator)';
const ACTION_TYPE = `${PACKAGE_NAME}.proxyAccount`;
const TRIGGER_TYPE = `${PACKAGE_NAME}.proxyAccountTrigger`;
/** The action node as an AI agent's tool: n8n derives it from the node's usableAsTool. */
const TOOL_TYPE = `${PACKAGE_NAME}.proxyAccountTool`;
const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
/** Triggers that only fire on a timer: for the CLI run, a copy of the workflow starts with a Manual Trigger instead. */
const TIMER_TRIGGERS = ['n8n-nodes-base.scheduleTrigger', 'n8n-nodes-base.cron', 'n8n-nodes-base.interval'];

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (line) => console.log(`[e2e ${elapsed().padStart(5)}] ${line}`);

function parseArgs(argv) {
	const options = { versions: [...DEFAULT_VERSIONS], browser: true, build: true, keep: false, screenshots: join(ROOT, 'docs', 'screenshots') };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const value = () => (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i]);
		if (arg === '--version' || arg.startsWith('--version=')) {
			const v = value();
			if (!v) throw new Error('--version needs a value');
			options.versions = v === 'all' ? [...DEFAULT_VERSIONS] : v.split(',').map((s) => resolveTarget(s.trim()).version);
		} else if (arg === '--no-browser') options.browser = false;
		else if (arg === '--no-build') options.build = false;
		else if (arg === '--keep') options.keep = true;
		else if (arg === '--screenshots' || arg.startsWith('--screenshots=')) options.screenshots = resolve(value());
		else if (arg === '--help' || arg === '-h') {
			console.log('Usage: node test/e2e/run.mjs [--version 2.41.1|1.123.81|all] [--no-browser] [--no-build] [--keep] [--screenshots DIR]');
			process.exit(0);
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

// ----- workflows ------------------------------------------------------------------------------

function jsonFiles(dir) {
	if (!existsSync(dir)) return [];
	const out = [];
	for (const entry of readdirSync(dir).sort()) {
		const path = join(dir, entry);
		if (statSync(path).isDirectory()) out.push(...jsonFiles(path));
		else if (entry.endsWith('.json')) out.push(path);
	}
	return out;
}

/** A workflow id n8n accepts (16 alphanumerics), stable for a file. */
function idFor(file) {
	const base = relative(ROOT, file).replace(/[^A-Za-z0-9]/g, '');
	let hash = 2166136261;
	for (const ch of file) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
	return `Pa${hash.toString(36)}${base}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 16).padEnd(16, '0');
}

/**
 * Reads the workflows to test: test/e2e/workflows/*.json (trigger.json only when the trigger node
 * is built) and examples/**.json. Each gets its credential pointed at `credential`, node types
 * with the production package name and an id; `proxyName` values that the simulator does not know
 * are replaced by a proxy it has (only for the built-in workflows).
 */
function loadWorkflows({ credential, hasTrigger, proxyNames }) {
	const builtIn = jsonFiles(join(ROOT, 'test', 'e2e', 'workflows')).filter((f) => hasTrigger || basename(f) !== 'trigger.json');
	const examples = jsonFiles(join(ROOT, 'examples'));
	const workflows = [];
	const usedIds = new Set();
	for (const file of [...builtIn, ...examples]) {
		let data;
		try {
			data = JSON.parse(readFileSync(file, 'utf8'));
		} catch (error) {
			workflows.push({ file, invalid: `not valid JSON: ${error.message}` });
			continue;
		}
		if (!Array.isArray(data.nodes) || typeof data.connections !== 'object') {
			workflows.push({ file, invalid: 'not an n8n workflow (no nodes/connections)' });
			continue;
		}
		const isBuiltIn = builtIn.includes(file);
		data.id = typeof data.id === 'string' && /^[A-Za-z0-9]{1,36}$/.test(data.id) && !usedIds.has(data.id) ? data.id : idFor(file);
		usedIds.add(data.id);
		data.active = false;
		data.name = data.name ?? basename(file, '.json');
		for (const node of data.nodes) {
			const short = typeof node.type === 'string' ? node.type.split('.').pop() : '';
			if (short === 'proxyAccount' || short === 'proxyAccountTrigger') node.type = `${PACKAGE_NAME}.${short}`;
			if (node.credentials?.proxyAccountApi) node.credentials.proxyAccountApi = { id: credential.id, name: credential.name };
			const locator = node.parameters?.proxyName;
			// A literal name the simulator does not know is replaced; an expression is left to n8n.
			const literal = typeof locator?.value === 'string' && !locator.value.startsWith('=');
			if (isBuiltIn && literal && proxyNames.length > 0 && !proxyNames.includes(locator.value)) {
				locator.value = proxyNames[0];
			}
		}
		const hasManualTrigger = data.nodes.some((n) => n.type === MANUAL_TRIGGER);
		workflows.push({ file, data, id: data.id, name: data.name, builtIn: isBuiltIn, hasManualTrigger });
		// n8n's CLI runs only workflows that start with a Manual Trigger: a timer-triggered workflow is
		// also run as a copy whose timer trigger is a Manual Trigger of the same name.
		if (!hasManualTrigger && data.nodes.some((n) => TIMER_TRIGGERS.includes(n.type))) {
			const copy = JSON.parse(JSON.stringify(data));
			copy.id = `${data.id.slice(0, 14)}Cl`;
			copy.name = `${data.name} (CLI run)`;
			for (const node of copy.nodes) {
				if (!TIMER_TRIGGERS.includes(node.type)) continue;
				node.type = MANUAL_TRIGGER;
				node.typeVersion = 1;
				node.parameters = {};
			}
			workflows.push({ file, data: copy, id: copy.id, name: copy.name, builtIn: isBuiltIn, hasManualTrigger: true, timerReplaced: true });
		}
	}
	return workflows;
}

// ----- checks -----------------------------------------------------------------------------------

class Checks {
	constructor() {
		this.results = [];
	}

	pass(version, what, detail = '') {
		this.results.push({ version, what, ok: true, detail });
		log(`  ok   ${what}${detail ? `: ${detail}` : ''}`);
	}

	fail(version, what, detail) {
		this.results.push({ version, what, ok: false, detail });
		log(`  FAIL ${what}: ${detail}`);
	}

	get failed() {
		return this.results.filter((r) => !r.ok);
	}
}

async function check(checks, version, what, fn) {
	try {
		const detail = await fn();
		checks.pass(version, what, detail ?? '');
		return true;
	} catch (error) {
		checks.fail(version, what, error.message);
		return false;
	}
}

/** Runs one workflow with the CLI and checks the Proxy Account nodes' output. */
async function executeAndCheck(n8n, sim, workflow) {
	const ledgerBefore = (await sim.control('GET', '/__sim/ledger')).length;
	const requestsBefore = (await sim.control('GET', '/__sim/requests')).length;
	const result = await n8n.executeWorkflow(workflow.id);
	const tailOf = () => result.output.trim().split('\n').slice(-25).join('\n');
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.code}):\n${tailOf()}`);
	const error = runError(result.run);
	if (error) throw new Error(`the run failed: ${error.message ?? JSON.stringify(error).slice(0, 300)}${error.description ? ` (${error.description})` : ''}`);
	const details = [];
	if (result.code !== 0) {
		const complete = result.run.status === 'success' && result.run.finished === true;
		if (!(result.crashedOnExit && complete)) throw new Error(`n8n execute exited with ${result.signal ?? result.code}:\n${tailOf()}`);
		details.push(`(n8n's CLI died of ${result.signal} while exiting, after the run had finished and was stored: a known n8n ${n8n.version} exit crash, not this package's)`);
	}
	const proxyNodes = workflow.data.nodes.filter((n) => n.type === ACTION_TYPE || n.type === TRIGGER_TYPE);
	for (const node of proxyNodes) {
		const items = nodeItems(result.run, node.name);
		if (items === undefined) {
			if (workflow.builtIn) throw new Error(`node "${node.name}" did not run`);
			details.push(`${node.name}: not reached`);
			continue;
		}
		if (node.onError === 'continueErrorOutput') {
			// Failed items must leave on the error output (1), the success output (0) holds only successes.
			// A built-in workflow is made to fail; an example (e.g. the auto-extend, its error output wired
			// to an alert) may well have nothing on its error output.
			const failed = nodeItems(result.run, node.name, 1) ?? [];
			if (items.some((item) => item && typeof item.error !== 'undefined')) throw new Error(`node "${node.name}" put an error item on its success output: ${JSON.stringify(items).slice(0, 300)}`);
			if ((workflow.builtIn && failed.length === 0) || !failed.every((item) => typeof item.error === 'string')) throw new Error(`node "${node.name}" has no error item on its error output: ${JSON.stringify(failed).slice(0, 300)}`);
			details.push(`${node.name}: ${items.length} item(s) on the success output, ${failed.length} on the error output${failed.length > 0 ? ` (\u201c${String(failed[0].error).slice(0, 80)}\u201d)` : ''}`);
			continue;
		}
		const errored = items.find((item) => item && typeof item.error !== 'undefined');
		if (errored) throw new Error(`node "${node.name}" returned an error item: ${JSON.stringify(errored.error).slice(0, 300)}`);
		if (workflow.builtIn && items.length === 0) throw new Error(`node "${node.name}" returned no items`);
		details.push(`${node.name}: ${items.length} item(s)`);
		const isDryRun = node.parameters?.operation === 'extend' && node.parameters?.options?.dryRun === true;
		if (isDryRun) {
			const charged = (await sim.control('GET', '/__sim/ledger')).slice(ledgerBefore);
			if (charged.length > 0) throw new Error(`the dry run charged the account: ${JSON.stringify(charged).slice(0, 300)}`);
			if (items.some((item) => typeof item.charged === 'number' && item.charged !== 0)) throw new Error(`the dry run reports a charge: ${JSON.stringify(items).slice(0, 300)}`);
			if (workflow.builtIn && !items.every((item) => item.status === 'dry_run')) throw new Error(`expected status dry_run on every item: ${JSON.stringify(items).slice(0, 300)}`);
			details.push(`dry run, estimated total ${items[0]?.estimated_total ?? '?'}, ledger unchanged`);
		}
	}
	const requests = (await sim.control('GET', '/__sim/requests')).length - requestsBefore;
	if (proxyNodes.some((n) => n.type === ACTION_TYPE) && requests === 0) throw new Error('the simulator received no request');
	const charges = (await sim.control('GET', '/__sim/ledger')).length - ledgerBefore;
	details.push(`${requests} request(s) to the simulator, ${charges} charge(s)`);
	return details.join('; ');
}

// ----- one n8n version --------------------------------------------------------------------------

async function testVersion(version, tgz, options, checks) {
	const major = Number(version.split('.')[0]);
	log(`=== n8n ${version} ===`);
	const cleanupsHere = [];
	const cleanup = async () => {
		while (cleanupsHere.length) await cleanupsHere.pop()().catch((e) => log(`cleanup: ${e.message}`));
	};
	onCleanup(cleanup);
	try {
		const installStart = Date.now();
		const install = await ensureN8n(version, { log: (line) => log(`install: ${line}`) });
		log(`n8n ${version} available (${((Date.now() - installStart) / 1000).toFixed(0)} s)`);

		// The package goes into a fresh user folder with the README's install commands, run verbatim
		// with HOME at that folder and the Node this n8n runs on first on PATH (readme-install.mjs).
		const userFolder = mkdtempSync(join(tmpdir(), 'proxy-account-n8n-'));
		cleanupsHere.push(async () => {
			if (options.keep) log(`keeping the user folder ${userFolder}`);
			else rmSync(userFolder, { recursive: true, force: true });
		});
		let installed;
		await check(checks, version, `the README's install commands on Node ${install.nodeMajor}, into an empty ~/.n8n/nodes`, async () => {
			installed = await installPackage(userFolder, tgz, { log, install });
			const nodeModules = `~/${relative(userFolder, join(installed.nodesDir, 'node_modules'))}`;
			return `Node ${installed.node}, npm ${installed.npm}: exit 0 in ${installed.seconds.toFixed(1)} s; ${nodeModules} holds ${PACKAGE_NAME} only (no n8n-workflow, no isolated-vm), with ${installed.files.join(', ')}`;
		});
		if (!installed) return;

		const sim = await startSimulator({ port: 0, log });
		cleanupsHere.push(() => sim.stop());
		log(`simulator at ${sim.url}`);

		const n8n = await startN8n({ version, userFolder, log });
		cleanupsHere.push(() => n8n.stop());

		const hasTrigger = existsSync(join(ROOT, 'dist', 'nodes', 'ProxyAccount', 'ProxyAccountTrigger.node.js'));
		await check(checks, version, 'node and credential types loaded', async () => {
			const types = await n8n.loadedTypes();
			const wanted = [ACTION_TYPE, TOOL_TYPE, ...(hasTrigger ? [TRIGGER_TYPE] : [])];
			const missing = wanted.filter((t) => !types.nodes.includes(t));
			if (!types.credentials.includes('proxyAccountApi')) missing.push('credential proxyAccountApi');
			if (missing.length > 0) {
				const ours = types.nodes.filter((t) => t.includes('proxyAccount'));
				throw new Error(`missing: ${missing.join(', ')} (loaded of ours: ${ours.join(', ') || 'none'}). n8n log:\n${n8n.logTail()}`);
			}
			return `${wanted.join(', ')}, proxyAccountApi (of ${types.nodes.length} node types)`;
		});

		const credential = await n8n.createCredential(CREDENTIAL_NAME, 'proxyAccountApi', { baseUrl: sim.url, apiKey: sim.apiKey });
		checks.pass(version, 'credential created through the REST API', `${credential.name} (${credential.id})`);

		await check(checks, version, 'credential test (REST)', async () => {
			const response = await n8n.rest.request(
				'POST',
				'/rest/credentials/test',
				{ credentials: { id: credential.id, name: credential.name, type: 'proxyAccountApi', data: { baseUrl: sim.url, apiKey: sim.apiKey } } },
				{ allowStatus: [400, 404] },
			);
			const status = response.json?.data?.status;
			if (status !== 'OK') throw new Error(`status ${response.status}: ${response.text.slice(0, 300)}`);
			// The nodes' programmatic test (testedBy) runs in n8n itself: a wrong port gets their message.
			const refused = await n8n.rest.request(
				'POST',
				'/rest/credentials/test',
				{ credentials: { id: credential.id, name: credential.name, type: 'proxyAccountApi', data: { baseUrl: 'http://127.0.0.1:9', apiKey: sim.apiKey } } },
				{ allowStatus: [400, 404] },
			);
			const message = String(refused.json?.data?.message ?? '');
			if (refused.json?.data?.status !== 'Error' || !message.startsWith('Could not connect to the Proxy Account service at http://127.0.0.1:9')) {
				throw new Error(`a refused connection gave: ${refused.text.slice(0, 300)}`);
			}
			if (message.includes(sim.apiKey)) throw new Error('the credential test message shows the API key');
			return `OK; a wrong port: \u201c${message.slice(0, 80)}\u2026\u201d`;
		});

		const proxies = await fetch(`${sim.url}/v1/proxies`, { headers: { authorization: `Bearer ${sim.apiKey}` } }).then((r) => r.json());
		const proxyNames = (proxies.data ?? []).map((p) => p.proxy_name);
		const workflows = loadWorkflows({ credential, hasTrigger, proxyNames });
		for (const w of workflows.filter((w) => w.invalid)) checks.fail(version, `workflow ${relative(ROOT, w.file)}`, w.invalid);
		const valid = workflows.filter((w) => !w.invalid);
		const importDir = mkdtempSync(join(tmpdir(), 'proxy-account-workflows-'));
		cleanupsHere.push(async () => rmSync(importDir, { recursive: true, force: true }));
		for (const w of valid) writeFileSync(join(importDir, `${w.id}.json`), `${JSON.stringify(w.data, null, 2)}\n`);
		const imported = await check(checks, version, `n8n import:workflow (${valid.length} workflows)`, async () => {
			const result = await n8n.cli(['import:workflow', '--separate', `--input=${importDir}`]);
			if (result.code !== 0 && !result.crashedOnExit) throw new Error(`exit ${result.code}:\n${result.output.trim().split('\n').slice(-20).join('\n')}`);
			const list = await n8n.rest.request('GET', '/rest/workflows');
			const ids = (list.json?.data ?? []).map((w) => w.id);
			const missing = valid.filter((w) => !ids.includes(w.id));
			if (missing.length > 0) throw new Error(`not in n8n after the import: ${missing.map((w) => relative(ROOT, w.file)).join(', ')}`);
			return valid.map((w) => `${relative(ROOT, w.file)}${w.timerReplaced ? ' (CLI copy)' : ''}`).join(', ');
		});

		if (imported) {
			for (const w of valid) {
				const label = `n8n execute ${relative(ROOT, w.file)}${w.timerReplaced ? ' (its timer trigger replaced by a Manual Trigger)' : ''}`;
				if (!w.hasManualTrigger) {
					if (!valid.some((other) => other.file === w.file && other.timerReplaced)) {
						log(`  skip ${label}: no Manual Trigger (n8n's CLI runs only workflows that start with one)`);
					}
					continue;
				}
				await check(checks, version, label, () => executeAndCheck(n8n, sim, w));
			}
		}

		// After the CLI runs: the server's executions here would hold n8n's SQLite database while a CLI run writes.
		await check(checks, version, major >= 2 ? "n8n's Retry of a failed execution through a sub-workflow sends no second order" : "n8n's Retry of a failed execution through a sub-workflow: what n8n 1.x lets through", () => subWorkflowRetry({ n8n, sim, credential, seesRetry: major >= 2 }));

		if (options.browser) {
			await check(checks, version, 'editor in headless Chromium', async () => {
				const executablePath = await ensureChromium({ log });
				const stock = valid.find((w) => basename(w.file) === 'stock-get-many.json');
				const trigger = valid.find((w) => basename(w.file) === 'trigger.json') ?? valid.find((w) => w.data.nodes.some((n) => n.type === TRIGGER_TYPE));
				if (!stock) throw new Error('test/e2e/workflows/stock-get-many.json was not imported');
				const triggerNode = trigger?.data.nodes.find((n) => n.type === TRIGGER_TYPE);
				const { files, outputText } = await captureEditor({
					baseUrl: n8n.url,
					owner: n8n.owner,
					executablePath,
					outDir: options.screenshots,
					suffix: major >= 2 ? '' : '-n8n1',
					actionWorkflow: { id: stock.id, node: 'Proxy Account' },
					triggerWorkflow: triggerNode ? { id: trigger.id, node: triggerNode.name } : undefined,
					log,
				});
				const items = outputText.match(/(\d+)\s+items?/i)?.[1];
				return `output panel shows ${items ?? '?'} item(s); screenshots: ${files.map((f) => relative(ROOT, f)).join(', ')}`;
			});
		}
	} catch (error) {
		checks.fail(version, 'set-up', error.message);
	} finally {
		await cleanup();
	}
}

async function main() {
	let options;
	try {
		options = parseArgs(process.argv.slice(2));
	} catch (error) {
		console.error(error.message);
		process.exit(2);
	}
	const checks = new Checks();
	try {
		log(`n8n versions: ${options.versions.join(', ')}`);
		const tgz = await buildAndPack({ log, skipBuild: !options.build });
		onCleanup(async () => rmSync(resolve(tgz, '..'), { recursive: true, force: true }));
		for (const version of options.versions) await testVersion(version, tgz, options, checks);
	} catch (error) {
		checks.fail('-', 'e2e run', error.message);
	} finally {
		await runCleanups();
	}
	const failed = checks.failed;
	log(`${checks.results.length - failed.length} checks passed, ${failed.length} failed (${elapsed()} in all)`);
	if (failed.length > 0) {
		console.error('\nE2E FAILED:');
		for (const f of failed) console.error(`  [n8n ${f.version}] ${f.what}: ${f.detail.split('\n')[0]}`);
	} else if (options.browser) {
		log(`screenshots in ${options.screenshots}`);
	}
	// A plain closing line, as the unit tests' reporter prints one.
	console.log(`\ne2e: ${checks.results.length - failed.length} passed, ${failed.length} failed`);
	if (failed.length > 0) process.exit(1);
	// Idle keep-alive sockets would hold the process for a few more seconds.
	process.exit(0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	void main();
}
