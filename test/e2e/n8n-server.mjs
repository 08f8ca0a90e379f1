#!/usr/bin/env node
/**
 * Starts a real n8n (`n8n start`) for end-to-end tests and the dev environment, and runs n8n's CLI
 * against the same user folder.
 *
 *   import { startN8n } from './n8n-server.mjs';
 *   const n8n = await startN8n({ version: '2.41.1', packageTgz, log });
 *   const cred = await n8n.createCredential('Proxy Account (simulator)', 'proxyAccountApi', { baseUrl, apiKey });
 *   await n8n.importWorkflow(file);               // n8n import:workflow
 *   const { run } = await n8n.executeWorkflow(id); // n8n execute --id=… --rawOutput, run JSON parsed
 *   await n8n.stop();
 *
 * Small CLI:
 *   node test/e2e/n8n-server.mjs start [--version 2.41.1] [--port 5678] [--tgz file.tgz]
 *        [--sim-url URL --sim-key KEY]           (runs until Ctrl-C)
 *   node test/e2e/n8n-server.mjs exec --user-folder DIR [--version 2.41.1] -- <n8n args…>
 *
 * Each server gets a temporary N8N_USER_FOLDER (removed on stop unless keepUserFolder), a fixed
 * N8N_ENCRYPTION_KEY, 127.0.0.1 and free ports (the task broker too: its default 5679 is the
 * simulator's default port), no telemetry, version notifications or templates, and insecure
 * cookies (plain http). The packed package is installed into $N8N_USER_FOLDER/.n8n/nodes with the
 * README's install commands (readme-install.mjs), so the types carry their production names
 * (n8n-nodes-proxy-account.proxyAccount).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureN8n } from './n8n-install.mjs';
import { installWithReadme } from './readme-install.mjs';

export const ENCRYPTION_KEY = 'proxy-account-e2e-0123456789abcdef';

export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Proxy',
	lastName: 'Owner',
	password: 'ProxyAccount-e2e-1',
};

export const PACKAGE_NAME = 'n8n-nodes-proxy-account';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function defaultLog(line) {
	console.log(`[n8n] ${line}`);
}

/** A free TCP port on 127.0.0.1: `preferred` when it is free, otherwise any. */
export function getFreePort(preferred = 0) {
	const attempt = (port) =>
		new Promise((resolvePort, reject) => {
			const server = createServer();
			server.unref();
			server.once('error', reject);
			server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
				const { port: actual } = server.address();
				server.close(() => resolvePort(actual));
			});
		});
	if (!preferred) return attempt(0);
	return attempt(preferred).catch(() => attempt(0));
}

/** True when nothing listens on 127.0.0.1:port (a server could bind it). */
export function isPortFree(port) {
	return new Promise((resolvePort) => {
		const server = createServer();
		server.unref();
		server.once('error', () => resolvePort(false));
		server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolvePort(true)));
	});
}

// ----- process groups ---------------------------------------------------------------------------

const liveGroups = new Set();
let exitHookInstalled = false;

/** Every child is started in its own process group; they are all killed if this process exits. */
export function trackGroup(pid) {
	liveGroups.add(pid);
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.on('exit', () => {
			for (const group of liveGroups) {
				try {
					process.kill(-group, 'SIGKILL');
				} catch {
					// Already gone.
				}
			}
		});
	}
}

/** SIGTERM to the whole group, then SIGKILL after `graceMs` if the leader has not exited. */
export async function killGroup(child, graceMs = 15_000) {
	if (!child || child.pid === undefined) return;
	const exited = child.exitCode !== null || child.signalCode !== null;
	const done = exited ? Promise.resolve() : new Promise((r) => child.once('exit', r));
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		// The group is gone already.
	}
	let timerId;
	const timer = new Promise((r) => {
		timerId = setTimeout(() => r('timeout'), graceMs);
	});
	const outcome = await Promise.race([done, timer]);
	clearTimeout(timerId);
	// Whatever happened to the leader, nothing of the group may stay behind (task runners …).
	try {
		process.kill(-child.pid, 'SIGKILL');
	} catch {
		// The group is gone.
	}
	if (outcome === 'timeout') {
		let lastId;
		await Promise.race([done, new Promise((r) => (lastId = setTimeout(r, 5000)))]);
		clearTimeout(lastId);
	}
	liveGroups.delete(child.pid);
}

// ----- run JSON from `n8n execute --rawOutput` --------------------------------------------------

/**
 * `n8n execute --rawOutput` prints log lines, then the run as pretty-printed JSON (maybe followed by
 * more log lines). Returns the parsed run, or undefined when there is none.
 */
export function parseRunJson(output) {
	const lines = output.split('\n');
	for (let i = 0; i < lines.length; i++) {
		if (lines[i].trim() !== '{') continue;
		for (let j = lines.length - 1; j > i; j--) {
			if (lines[j].trim() !== '}') continue;
			try {
				return JSON.parse(lines.slice(i, j + 1).join('\n'));
			} catch {
				// Not this pair of braces.
			}
		}
	}
	const oneLine = lines.find((line) => line.startsWith('{"'));
	if (oneLine) {
		try {
			return JSON.parse(oneLine);
		} catch {
			return undefined;
		}
	}
	return undefined;
}

/** The items a node produced in a run (first run, main output `output`). */
export function nodeItems(runData, nodeName, output = 0) {
	const runs = runData?.data?.resultData?.runData?.[nodeName] ?? runData?.resultData?.runData?.[nodeName];
	if (!runs || runs.length === 0) return undefined;
	return runs[0].data?.main?.[output]?.map((item) => item.json) ?? [];
}

/** The run's error, from whichever level it sits on. */
export function runError(runData) {
	return runData?.data?.resultData?.error ?? runData?.resultData?.error;
}

// ----- packing ----------------------------------------------------------------------------------

/**
 * Installs a packed package into $userFolder/.n8n/nodes with the README's install commands
 * (readme-install.mjs: HOME=userFolder, the Node of `install` first on PATH, checked afterwards).
 * Resolves with { nodesDir, node, npm, seconds, files, output }.
 */
export async function installPackage(userFolder, tgz, { log = defaultLog, install } = {}) {
	const nodeMajor = install?.nodeMajor ?? Number(process.versions.node.split('.')[0]);
	return await installWithReadme({ home: userFolder, tgz, nodeMajor, log });
}

// ----- the server -------------------------------------------------------------------------------

/** Environment for a server or a CLI command on a user folder. */
export function n8nEnv(install, userFolder, { port, brokerPort, extra = {} }) {
	// n8n settings of the calling shell (a database, queue mode, webhook URLs …) must not leak in.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => !/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|NODE_FUNCTION_)/.test(key)),
	);
	const env = {
		...inherited,
		...install.env,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_PORT: String(port),
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		DB_TYPE: 'sqlite',
		...extra,
	};
	delete env.NODE_OPTIONS;
	delete env.N8N_CONFIG_FILES;
	return env;
}

/** Minimal REST client with n8n's auth cookie and browser-id header. */
class Rest {
	constructor(baseUrl) {
		this.baseUrl = baseUrl;
		this.cookie = '';
		this.browserId = randomUUID();
	}

	async request(method, path, body, { allowStatus = [] } = {}) {
		const headers = { accept: 'application/json', 'browser-id': this.browserId };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (this.cookie) headers.cookie = this.cookie;
		const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
		const setCookies = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
		for (const sc of setCookies) {
			const pair = sc.split(';')[0];
			if (pair.startsWith('n8n-auth=')) this.cookie = pair;
		}
		const text = await response.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		if (!response.ok && !allowStatus.includes(response.status)) {
			throw new Error(`${method} ${path} → HTTP ${response.status}: ${text.slice(0, 500)}`);
		}
		return { status: response.status, json, text };
	}
}

/**
 * Starts n8n and returns a handle. Options:
 *   version       n8n version or alias (default 2.41.1)
 *   port          port for the editor/API (0 or undefined: a free one; a taken port is an error)
 *   userFolder    N8N_USER_FOLDER to use (default: a new temporary folder, removed on stop)
 *   packageTgz    packed package to install into $N8N_USER_FOLDER/.n8n/nodes
 *   setupOwner    create the owner and log in (default true)
 *   echo          copy n8n's log to this process's output (default false; it is always in n8n.log)
 *   env           extra environment for n8n
 *   readyTimeoutMs  (default 240 s)
 *   nodeArgs      arguments for Node before n8n's entry (e.g. ['--require', file])
 */
export async function startN8n(options = {}) {
	const log = options.log ?? defaultLog;
	const install = await ensureN8n(options.version ?? '2.41.1', { log: options.installLog ?? ((line) => log(`install: ${line}`)) });
	const ownsFolder = !options.userFolder;
	const userFolder = options.userFolder ? resolve(options.userFolder) : mkdtempSync(join(tmpdir(), 'proxy-account-n8n-'));
	mkdirSync(userFolder, { recursive: true });
	let port = options.port;
	if (port) {
		if (!(await isPortFree(port))) throw new Error(`Port ${port} on 127.0.0.1 is taken: stop what uses it, or choose another port`);
	} else port = await getFreePort();
	const brokerPort = await getFreePort();

	let packageInstall;
	if (options.packageTgz) {
		log(`installing ${options.packageTgz} into ${join(userFolder, '.n8n', 'nodes')}`);
		try {
			packageInstall = await installPackage(userFolder, options.packageTgz, { log, install });
		} catch (error) {
			if (ownsFolder && !options.keepUserFolder) rmSync(userFolder, { recursive: true, force: true });
			throw error;
		}
		log(`installed in ${packageInstall.seconds.toFixed(1)} s (Node ${packageInstall.node}, npm ${packageInstall.npm})`);
	}

	const env = n8nEnv(install, userFolder, { port, brokerPort, extra: options.env });
	const logFile = join(userFolder, 'n8n.log');
	const logStream = createWriteStream(logFile, { flags: 'a' });
	const tail = [];
	const start = Date.now();
	log(`starting n8n ${install.version} on http://127.0.0.1:${port} (user folder ${userFolder}, log ${logFile})`);
	const child = spawn(install.nodeBinary, [...(options.nodeArgs ?? []), install.n8nEntry, 'start'], { cwd: userFolder, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	trackGroup(child.pid);
	const onData = (chunk) => {
		logStream.write(chunk);
		for (const line of chunk.toString().split('\n')) {
			if (line.trim() === '') continue;
			tail.push(line);
			if (tail.length > 80) tail.shift();
			if (options.echo) log(`| ${line}`);
		}
	};
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	let exitInfo;
	child.on('exit', (code, signal) => {
		exitInfo = { code, signal };
	});

	const url = `http://127.0.0.1:${port}`;
	const rest = new Rest(url);
	let stopped = false;
	const handle = {
		version: install.version,
		install,
		url,
		port,
		brokerPort,
		userFolder,
		logFile,
		env,
		owner: { ...OWNER },
		rest,
		process: child,
		/** What installPackage reported, when `packageTgz` was given. */
		packageInstall,
		logTail: () => tail.join('\n'),
		isStopping: () => stopped,
		async stop() {
			if (stopped) return;
			stopped = true;
			await killGroup(child);
			logStream.end();
			if (ownsFolder && !options.keepUserFolder) rmSync(userFolder, { recursive: true, force: true });
		},
		createCredential: (name, type, data) => createCredential(handle, name, type, data),
		cli: (args, cliOptions) => runCli(handle, args, cliOptions),
		importWorkflow: (file) => importWorkflow(handle, file),
		executeWorkflow: (id) => executeWorkflow(handle, id),
		loadedTypes: () => loadedTypes(handle),
	};

	try {
		const deadline = Date.now() + (options.readyTimeoutMs ?? 240_000);
		for (;;) {
			if (exitInfo) throw new Error(`n8n exited while starting (${exitInfo.signal ?? `exit ${exitInfo.code}`}). Last log lines:\n${handle.logTail()}`);
			if (Date.now() > deadline) throw new Error(`n8n was not ready after ${Math.round((options.readyTimeoutMs ?? 240_000) / 1000)} s. Last log lines:\n${handle.logTail()}`);
			try {
				const ready = await fetch(`${url}/healthz/readiness`);
				if (ready.ok) {
					const settings = await fetch(`${url}/rest/settings`);
					if (settings.ok) break;
				}
			} catch {
				// Not listening yet.
			}
			await sleep(500);
		}
		log(`n8n ${install.version} ready after ${((Date.now() - start) / 1000).toFixed(1)} s`);
		if (options.setupOwner !== false) await setupOwner(handle, log);
	} catch (error) {
		await handle.stop();
		throw error;
	}
	return handle;
}

async function setupOwner(handle, log) {
	const { rest, owner } = handle;
	const setup = await rest.request('POST', '/rest/owner/setup', owner, { allowStatus: [400] });
	if (setup.status === 400 && !/already/i.test(setup.text)) throw new Error(`owner set-up failed: ${setup.text.slice(0, 300)}`);
	let login = await rest.request('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password }, { allowStatus: [400, 401] });
	if (login.status !== 200) login = await rest.request('POST', '/rest/login', { email: owner.email, password: owner.password });
	await rest.request(
		'POST',
		'/rest/me/survey',
		{ version: 'v4', personalization_survey_submitted_at: new Date().toISOString(), personalization_survey_n8n_version: handle.version },
		{ allowStatus: [400, 401, 403, 404, 500] },
	);
	log(`owner ${owner.email} set up and logged in`);
}

/** Creates a credential through the REST API; returns { id, name, type }. */
async function createCredential(handle, name, type, data) {
	const response = await handle.rest.request('POST', '/rest/credentials', { name, type, data });
	const created = response.json?.data ?? response.json;
	if (!created?.id) throw new Error(`credential creation returned no id: ${response.text.slice(0, 300)}`);
	return { id: String(created.id), name: created.name, type: created.type };
}

/** Names of the node and credential types n8n loaded (from its generated types files, else HTTP). */
async function loadedTypes(handle) {
	const read = async (file) => {
		const path = join(handle.userFolder, '.cache', 'n8n', 'public', 'types', file);
		if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'));
		const response = await handle.rest.request('GET', `/types/${file}`);
		return response.json;
	};
	const nodes = await read('nodes.json');
	const credentials = await read('credentials.json');
	return { nodes: nodes.map((n) => n.name), credentials: credentials.map((c) => c.name) };
}

/**
 * Runs an n8n CLI command on the server's user folder (same encryption key and database), with a
 * task broker port of its own so it does not collide with the running server's.
 * Returns { code, signal, crashedOnExit, stdout, stderr, output } (output = stdout + stderr).
 */
export async function runCli(handle, args, { timeoutMs = 180_000, env: extraEnv = {}, log } = {}) {
	const brokerPort = await getFreePort();
	const cliPort = await getFreePort();
	const env = { ...handle.env, N8N_RUNNERS_BROKER_PORT: String(brokerPort), N8N_PORT: String(cliPort), ...extraEnv };
	return await new Promise((resolvePromise, reject) => {
		const child = spawn(handle.install.nodeBinary, [handle.install.n8nEntry, ...args], {
			cwd: handle.userFolder,
			env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		trackGroup(child.pid);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c) => {
			stdout += c;
		});
		child.stderr.on('data', (c) => {
			stderr += c;
		});
		const timer = setTimeout(() => {
			log?.(`n8n ${args.join(' ')} timed out after ${timeoutMs / 1000} s: killing it`);
			void killGroup(child, 2000);
		}, timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			// The CLI may leave a task runner behind in its group: make sure it is gone.
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// Gone.
			}
			liveGroups.delete(child.pid);
			// n8n 2.41.1's CLI on Node 24 now and then dies of SIGSEGV in process.exit(), after its work is
			// done (native teardown of isolated-vm, n8n's default expression engine): callers can tell.
			const crashedOnExit = ['SIGSEGV', 'SIGABRT', 'SIGBUS'].includes(signal ?? '');
			resolvePromise({ code: code ?? (signal ? 128 : 1), signal, crashedOnExit, stdout, stderr, output: `${stdout}\n${stderr}` });
		});
	});
}

/** n8n import:workflow --input=file; throws with n8n's output if it fails. */
async function importWorkflow(handle, file) {
	const result = await runCli(handle, ['import:workflow', `--input=${resolve(file)}`]);
	if (!/Successfully imported/i.test(result.output) || (result.code !== 0 && !result.crashedOnExit)) {
		throw new Error(`n8n import:workflow ${file} failed (exit ${result.code}):\n${result.output.trim().split('\n').slice(-30).join('\n')}`);
	}
	return result;
}

/** n8n execute --id=… --rawOutput; returns { code, run, output } with the run JSON parsed. */
async function executeWorkflow(handle, id) {
	const result = await runCli(handle, ['execute', `--id=${id}`, '--rawOutput']);
	const runJson = parseRunJson(result.stdout) ?? parseRunJson(result.output);
	return { ...result, run: runJson };
}

// ----- CLI --------------------------------------------------------------------------------------

function parseFlags(argv) {
	const flags = {};
	const rest = [];
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--') {
			rest.push(...argv.slice(i + 1));
			break;
		}
		if (arg.startsWith('--')) {
			const eq = arg.indexOf('=');
			if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
			else flags[arg.slice(2)] = argv[++i];
		} else rest.push(arg);
	}
	return { flags, rest };
}

async function main() {
	const [command, ...argv] = process.argv.slice(2);
	const { flags, rest } = parseFlags(argv);
	if (command === 'start') {
		const n8n = await startN8n({
			version: flags.version ?? '2.41.1',
			port: flags.port ? Number(flags.port) : undefined,
			packageTgz: flags.tgz,
			userFolder: flags['user-folder'],
			keepUserFolder: Boolean(flags['user-folder']),
		});
		let stopping = false;
		const stop = async () => {
			if (stopping) return;
			stopping = true;
			defaultLog('stopping n8n …');
			await n8n.stop();
			process.exit(0);
		};
		process.on('SIGINT', stop);
		process.on('SIGTERM', stop);
		if (flags['sim-url'] && flags['sim-key']) {
			const credential = await n8n.createCredential('Proxy Account (simulator)', 'proxyAccountApi', { baseUrl: flags['sim-url'], apiKey: flags['sim-key'] });
			defaultLog(`credential "${credential.name}" (${credential.id}) created`);
		}
		defaultLog(`editor: ${n8n.url}  owner: ${n8n.owner.email} / ${n8n.owner.password}`);
		defaultLog(`user folder: ${n8n.userFolder} (CLI: node test/e2e/n8n-server.mjs exec --user-folder ${n8n.userFolder} -- <args>)`);
		defaultLog('Ctrl-C stops it.');
		return;
	}
	if (command === 'exec') {
		if (!flags['user-folder'] || rest.length === 0) throw new Error('Usage: n8n-server.mjs exec --user-folder DIR [--version V] -- <n8n args…>');
		const install = await ensureN8n(flags.version ?? '2.41.1', { log: (line) => console.error(`[n8n-install] ${line}`) });
		const handle = { install, userFolder: resolve(flags['user-folder']), env: n8nEnv(install, resolve(flags['user-folder']), { port: await getFreePort(), brokerPort: await getFreePort() }) };
		const result = await runCli(handle, rest);
		process.stdout.write(result.stdout);
		process.stderr.write(result.stderr);
		process.exit(result.code);
	}
	throw new Error('Usage: n8n-server.mjs start [--version V] [--port N] [--tgz FILE] [--sim-url URL --sim-key KEY]\n       n8n-server.mjs exec --user-folder DIR [--version V] -- <n8n args…>');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((error) => {
		console.error(`[n8n] FAILED: ${error.message}`);
		process.exit(1);
	});
}
