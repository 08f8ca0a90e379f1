#!/usr/bin/env node
/**
 * Local development environment (npm run dev): builds and packs the package, starts the simulator
 * and a real n8n editor with the package loaded, a credential for the simulator already created and
 * the example workflows imported (the e2e suite's own workflows only with --with-tests). Runs until
 * Ctrl-C, then stops both.
 *
 * Environment:
 *   PROXY_ACCOUNT_N8N_VERSION  n8n version (default 2.41.1; 1.123.81 also works)
 *   PROXY_ACCOUNT_N8N_PORT     editor port (default 5678; N8N_PORT is honoured too)
 *   PROXY_ACCOUNT_SIM_PORT     simulator port (default 5679, a free one when taken)
 *   PROXY_ACCOUNT_N8N_CACHE    where n8n is installed (default ~/.cache/n8n-nodes-proxy-account)
 * Flags: --no-build (pack the existing dist/), --no-workflows, --with-tests (also import
 * test/e2e/workflows), --echo (show n8n's log).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

import { PACKAGE_NAME, getFreePort, isPortFree, startN8n } from './n8n-server.mjs';
import { buildAndPack, onCleanup, ROOT, runCleanups, startSimulator } from './support.mjs';

const CREDENTIAL_NAME = 'Proxy Account (simulator)';
/** The bearer token credential of the MCP server example (examples/proxy-account-mcp-server.json). */
const MCP_CREDENTIAL_NAME = 'Proxy Account MCP token';
const log = (line) => console.log(`[dev] ${line}`);

function workflowFiles(withTests) {
	const files = [];
	const walk = (dir) => {
		if (!existsSync(dir)) return;
		for (const entry of readdirSync(dir).sort()) {
			const path = join(dir, entry);
			if (entry.endsWith('.json')) files.push(path);
			else if (!entry.includes('.')) walk(path);
		}
	};
	walk(join(ROOT, 'examples'));
	if (withTests) walk(join(ROOT, 'test', 'e2e', 'workflows'));
	return files;
}

/** Imports the example workflows (and with --with-tests the e2e ones), pointed at the simulator credential and the MCP token. */
async function importWorkflows(n8n, { credential, bearer }, hasTrigger, proxyName, withTests) {
	const dir = mkdtempSync(join(tmpdir(), 'proxy-account-dev-workflows-'));
	try {
		let count = 0;
		for (const file of workflowFiles(withTests)) {
			if (!hasTrigger && basename(file) === 'trigger.json') continue;
			let data;
			try {
				data = JSON.parse(readFileSync(file, 'utf8'));
			} catch {
				continue;
			}
			if (!Array.isArray(data?.nodes)) continue;
			data.active = false;
			if (typeof data.id !== 'string' || !/^[A-Za-z0-9]{1,36}$/.test(data.id)) delete data.id;
			for (const node of data.nodes) {
				const short = typeof node.type === 'string' ? node.type.split('.').pop() : '';
				if (['proxyAccount', 'proxyAccountTrigger', 'proxyAccountTool'].includes(short)) node.type = `${PACKAGE_NAME}.${short}`;
				if (node.credentials?.proxyAccountApi) node.credentials.proxyAccountApi = { id: credential.id, name: credential.name };
				if (node.credentials?.httpBearerAuth) node.credentials.httpBearerAuth = { id: bearer.id, name: bearer.name };
				if (file.includes(`${join('test', 'e2e')}`) && typeof node.parameters?.proxyName?.value === 'string' && !node.parameters.proxyName.value.startsWith('=') && proxyName) node.parameters.proxyName.value = proxyName;
			}
			writeFileSync(join(dir, `${String(count).padStart(3, '0')}.json`), JSON.stringify(data));
			count += 1;
		}
		if (count === 0) return 0;
		const result = await n8n.cli(['import:workflow', '--separate', `--input=${dir}`]);
		if (result.code !== 0) throw new Error(result.output.trim().split('\n').slice(-10).join('\n'));
		return count;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	const argv = process.argv.slice(2);
	const flags = new Set(argv);
	for (const flag of flags) {
		if (!['--no-build', '--no-workflows', '--with-tests', '--echo'].includes(flag)) {
			console.error(`Unknown argument: ${flag}\nUsage: npm run dev [-- --no-build] [--no-workflows] [--with-tests] [--echo]`);
			process.exit(2);
		}
	}
	const version = process.env.PROXY_ACCOUNT_N8N_VERSION ?? '2.41.1';
	const n8nPort = Number(process.env.PROXY_ACCOUNT_N8N_PORT ?? process.env.N8N_PORT ?? 5678);
	const simPort = Number(process.env.PROXY_ACCOUNT_SIM_PORT ?? 5679);

	const tgz = await buildAndPack({ log, skipBuild: flags.has('--no-build') });
	onCleanup(async () => rmSync(resolve(tgz, '..'), { recursive: true, force: true }));

	const sim = await startSimulator({ port: simPort, fallback: true, log });
	onCleanup(() => sim.stop());

	let port = n8nPort;
	if (!(await isPortFree(port))) {
		port = await getFreePort();
		log(`port ${n8nPort} is taken: the editor uses ${port}`);
	}
	const n8n = await startN8n({ version, port, packageTgz: tgz, log, echo: flags.has('--echo') });
	onCleanup(() => n8n.stop());

	const credential = await n8n.createCredential(CREDENTIAL_NAME, 'proxyAccountApi', { baseUrl: sim.url, apiKey: sim.apiKey });
	log(`credential "${credential.name}" created`);
	const mcpToken = randomBytes(24).toString('base64url');
	const bearer = await n8n.createCredential(MCP_CREDENTIAL_NAME, 'httpBearerAuth', { token: mcpToken });
	log(`credential "${bearer.name}" (the MCP server example's bearer token) created`);

	if (!flags.has('--no-workflows')) {
		const hasTrigger = existsSync(join(ROOT, 'dist', 'nodes', 'ProxyAccount', 'ProxyAccountTrigger.node.js'));
		const proxies = await fetch(`${sim.url}/v1/proxies`, { headers: { authorization: `Bearer ${sim.apiKey}` } }).then((r) => r.json());
		try {
			const withTests = flags.has('--with-tests');
			const count = await importWorkflows(n8n, { credential, bearer }, hasTrigger, proxies.data?.[0]?.proxy_name, withTests);
			if (count > 0) log(`${count} workflows imported (${withTests ? 'examples, test/e2e/workflows' : 'examples'})`);
		} catch (error) {
			log(`importing the workflows did not work (the editor runs anyway):\n${error.message}`);
		}
	}

	console.log('');
	console.log(`  n8n ${n8n.version} editor:  ${n8n.url}`);
	console.log(`  owner:              ${n8n.owner.email}  /  ${n8n.owner.password}`);
	console.log(`  credential:         "${credential.name}" (proxyAccountApi)`);
	console.log(`  simulator:          ${sim.url}   (control API: ${sim.url}/__sim/state)`);
	console.log(`  simulator API key:  ${sim.apiKey}`);
	console.log(`  MCP server:         ${n8n.url}/mcp/proxy-account  (activate "Proxy Account MCP server" first;`);
	console.log(`                      header  Authorization: Bearer ${mcpToken})`);
	console.log(`  n8n log:            ${n8n.logFile}`);
	console.log('');
	console.log('  Ctrl-C stops n8n and the simulator. After changing the code, restart npm run dev.');
	console.log('');

	// Exit if n8n dies on its own.
	n8n.process.on('exit', (code, signal) => {
		if (n8n.isStopping()) return;
		log(`n8n stopped (${signal ?? `exit ${code}`}); see ${n8n.logFile}`);
		void runCleanups().finally(() => process.exit(1));
	});
}

main().catch(async (error) => {
	console.error(`[dev] FAILED: ${error.message}`);
	await runCleanups();
	process.exit(1);
});
