/**
 * Shared pieces of the e2e tooling: building and packing the package, running the simulator as a
 * child process, finding (or installing) Chromium, and cleaning up on Ctrl-C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { run } from './n8n-install.mjs';
import { getFreePort, isPortFree, killGroup, trackGroup } from './n8n-server.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `npm run build`, then `npm pack` into a temporary folder; returns the tarball's path. */
export async function buildAndPack({ log, skipBuild = false } = {}) {
	const start = Date.now();
	if (!skipBuild) {
		log?.('building the package (npm run build)');
		await run('npm', ['run', 'build', '--silent'], { cwd: ROOT, log, label: 'npm run build', echo: false });
	}
	if (!existsSync(join(ROOT, 'dist', 'nodes', 'ProxyAccount', 'ProxyAccount.node.js'))) {
		throw new Error('dist/nodes/ProxyAccount/ProxyAccount.node.js is missing after the build');
	}
	const out = mkdtempSync(join(tmpdir(), 'proxy-account-pack-'));
	await run('npm', ['pack', '--silent', '--pack-destination', out], { cwd: ROOT, log, label: 'npm pack', echo: false });
	const tgz = readdirSync(out).find((f) => f.endsWith('.tgz'));
	if (!tgz) throw new Error(`npm pack wrote no tarball into ${out}`);
	log?.(`packed ${join(out, tgz)} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
	return join(out, tgz);
}

/**
 * Starts the simulator (test/simulator/cli.ts through ts-node) in its own process group on
 * `port` (0 = a free one; a taken preferred port falls back to a free one when `fallback`).
 * Returns { url, apiKey, port, control(method, path, body), stop() }.
 */
export async function startSimulator({ port = 0, fallback = true, args = [], log } = {}) {
	let chosen = port;
	if (port && !(await isPortFree(port))) {
		if (!fallback) throw new Error(`Port ${port} on 127.0.0.1 is taken`);
		chosen = await getFreePort();
		log?.(`port ${port} is taken: the simulator uses ${chosen}`);
	} else if (!port) chosen = await getFreePort();
	const require = createRequire(join(ROOT, 'package.json'));
	const tsNode = require.resolve('ts-node/dist/bin.js');
	const child = spawn(process.execPath, [tsNode, '--transpile-only', '--prefer-ts-exts', join(ROOT, 'test', 'simulator', 'cli.ts'), '--port', String(chosen), ...args], {
		cwd: ROOT,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	trackGroup(child.pid);
	let output = '';
	child.stdout.on('data', (c) => {
		output += c;
	});
	child.stderr.on('data', (c) => {
		output += c;
	});
	let exited;
	child.on('exit', (code, signal) => {
		exited = { code, signal };
	});
	const deadline = Date.now() + 60_000;
	let url;
	let apiKey;
	while (!url || !apiKey) {
		url = output.match(/listening on (http:\/\/\S+)/)?.[1];
		apiKey = output.match(/Demo API key: (\S+)/)?.[1];
		if (url && apiKey) break;
		if (exited) throw new Error(`the simulator exited (${exited.signal ?? `exit ${exited.code}`}):\n${output}`);
		if (Date.now() > deadline) {
			await killGroup(child, 2000);
			throw new Error(`the simulator did not start within 60 s:\n${output}`);
		}
		await sleep(100);
	}
	const control = async (method, path, body) => {
		const response = await fetch(`${url}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const json = await response.json();
		if (!response.ok) throw new Error(`simulator ${method} ${path} → ${response.status}: ${JSON.stringify(json)}`);
		return json.data;
	};
	return {
		url,
		apiKey,
		port: chosen,
		control,
		output: () => output,
		stop: () => killGroup(child, 5000),
	};
}

// Debian's chromium first; Google Chrome (preinstalled on some CI images) as a fallback.
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/google-chrome-stable', '/usr/bin/google-chrome'];

export function findChromium() {
	if (process.env.PROXY_ACCOUNT_CHROMIUM && existsSync(process.env.PROXY_ACCOUNT_CHROMIUM)) return process.env.PROXY_ACCOUNT_CHROMIUM;
	return CHROMIUM_PATHS.find((p) => existsSync(p));
}

/**
 * Installs Debian packages with apt-get (as root, or through `sudo -n`): `apt-get update` first, as
 * on a fresh machine the package lists are empty. `what` names the need in the error when neither works.
 */
export async function aptInstall(packages, { log, what = packages.join(', ') } = {}) {
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isRoot && spawnSync('sudo', ['-n', 'true']).status !== 0) {
		throw new Error(`${what} is missing and apt-get needs root: run \`sudo apt-get install -y ${packages.join(' ')}\``);
	}
	const start = Date.now();
	log?.(`${what} is missing: installing Debian's ${packages.join(', ')} (apt-get update && apt-get install)`);
	const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const cmd = (args) => (isRoot ? [args[0], args.slice(1)] : ['sudo', ['-n', ...args]]);
	const [u, uArgs] = cmd(['apt-get', 'update', '-q']);
	await run(u, uArgs, { env: aptEnv, log, label: 'apt-get update', echo: false });
	const [i, iArgs] = cmd(['apt-get', 'install', '-y', '-q', '--no-install-recommends', ...packages]);
	await run(i, iArgs, { env: aptEnv, log, label: `apt-get install ${packages.join(' ')}`, echo: false });
	log?.(`${packages.join(', ')} installed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}

/** Chromium's path; installs Debian's `chromium` with apt-get when it is missing (root or sudo). */
export async function ensureChromium({ log } = {}) {
	const found = findChromium();
	if (found) return found;
	if (process.env.PROXY_ACCOUNT_CHROMIUM) log?.(`PROXY_ACCOUNT_CHROMIUM=${process.env.PROXY_ACCOUNT_CHROMIUM} does not exist`);
	await aptInstall(['chromium', 'fonts-liberation'], { log, what: 'Chromium (or set PROXY_ACCOUNT_CHROMIUM)' });
	const installed = findChromium();
	if (!installed) throw new Error('apt-get installed chromium, but no chromium binary was found');
	log?.(`Chromium: ${installed}`);
	return installed;
}

/**
 * Registers a cleanup to run once on exit, Ctrl-C or SIGTERM (in reverse order of registration).
 * Returns a function that runs them all now.
 */
const cleanups = [];
let signalsHooked = false;
export function onCleanup(fn) {
	cleanups.push(fn);
	if (!signalsHooked) {
		signalsHooked = true;
		for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
			process.on(signal, () => {
				console.log(`\n${signal}: stopping …`);
				runCleanups().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
			});
		}
	}
}

let cleaning;
export function runCleanups() {
	if (!cleaning) {
		cleaning = (async () => {
			while (cleanups.length > 0) {
				const fn = cleanups.pop();
				try {
					await fn();
				} catch (error) {
					console.error(`cleanup: ${error.message}`);
				}
			}
		})();
	}
	return cleaning;
}
