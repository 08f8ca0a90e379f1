/**
 * The README's install commands, run as a user runs them (issue 28: "An install that works").
 *
 *   import { installWithReadme } from './readme-install.mjs';
 *   const result = await installWithReadme({ home, tgz, nodeMajor: 20, log });
 *
 * README.md's Installation section holds the install commands in one fenced ```bash block, on the
 * line after `<!-- install-commands -->`. This module reads that block and runs it verbatim with
 * bash (`bash -e -c`), replacing only the tarball placeholder
 * (/path/to/n8n-nodes-proxy-account-<version>.tgz) by the packed tarball, with
 *  - HOME at the given folder (n8n's user folder: `~/.n8n/nodes` is `$N8N_USER_FOLDER/.n8n/nodes`),
 *    so npm reads no user config and starts with an empty cache, as on a fresh machine;
 *  - the wanted Node first on PATH: Node 20 with npm 10.8.2 (what Node 20's releases ship; the
 *    machine's Node 20 may have a newer npm), or the cached Node 24 with the npm on PATH;
 *  - no `npm_*` variables of the calling `npm run` (it exports the project's `ignore-scripts=true`,
 *    which would hide a failing install script) and no node_modules/.bin folders on PATH.
 * Then it checks the result: exit 0, the package and every node and credential file its package.json
 * lists under `n8n` in `~/.n8n/nodes/node_modules/n8n-nodes-proxy-account`, and no other package
 * installed (neither the peer n8n-workflow nor isolated-vm, whose native build fails on Node 20).
 * The e2e suite installs the package into n8n this way for every n8n it starts (n8n-server.mjs).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureNode24, ensureNpm10 } from './n8n-install.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The line before the README's install block. */
export const INSTALL_MARKER = '<!-- install-commands -->';

function packageJson() {
	return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
}

/** The tarball path the README's block names: /path/to/<name>-<version>.tgz (npm pack's file name). */
export function tarballPlaceholder() {
	const { name, version } = packageJson();
	return `/path/to/${name}-${version}.tgz`;
}

/** The commands of the README's install block, as written (no trailing newline). */
export function readmeInstallCommands(readmePath = join(ROOT, 'README.md')) {
	const lines = readFileSync(readmePath, 'utf8').split('\n');
	const at = lines.map((line, i) => (line.trim() === INSTALL_MARKER ? i : -1)).filter((i) => i >= 0);
	if (at.length !== 1) throw new Error(`README.md must have exactly one ${INSTALL_MARKER} line (found ${at.length})`);
	if (lines[at[0] + 1]?.trim() !== '```bash') throw new Error(`the line after ${INSTALL_MARKER} in README.md must open a \`\`\`bash block`);
	const end = lines.findIndex((line, i) => i > at[0] + 1 && line.trim() === '```');
	if (end < 0) throw new Error(`the ${INSTALL_MARKER} block in README.md is not closed`);
	const script = lines.slice(at[0] + 2, end).join('\n').trim();
	const placeholder = tarballPlaceholder();
	if (!script.includes(placeholder)) throw new Error(`the README's install block does not name the tarball ${placeholder}:\n${script}`);
	return script;
}

/** A path as one shell word. */
function shellWord(path) {
	return /^[\w./+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The environment of a user's shell: HOME, the wanted Node (and npm) first on PATH, no npm run leftovers. */
function userShellEnv(home, binDirs) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_/i.test(key) || /^(INIT_CWD|NODE|NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV|PREFIX)$/.test(key) || /^N8N_/.test(key)) continue;
		env[key] = value;
	}
	const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.includes('node_modules'));
	env.PATH = [...binDirs, ...path].join(delimiter);
	env.HOME = home;
	return env;
}

function runShell(args, { cwd, env }) {
	return new Promise((resolvePromise, reject) => {
		const child = spawn('bash', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', (c) => {
			output += c;
		});
		child.stderr.on('data', (c) => {
			output += c;
		});
		child.on('error', reject);
		child.on('close', (code, signal) => resolvePromise({ code: code ?? 128, signal, output }));
	});
}

/** Packages under a node_modules folder (scoped ones as @scope/name): folders with a package.json. */
export function installedPackages(nodeModules) {
	if (!existsSync(nodeModules)) return [];
	const out = [];
	for (const entry of readdirSync(nodeModules)) {
		if (entry.startsWith('.')) continue;
		if (entry.startsWith('@')) {
			for (const sub of readdirSync(join(nodeModules, entry))) {
				if (existsSync(join(nodeModules, entry, sub, 'package.json'))) out.push(`${entry}/${sub}`);
			}
		} else if (existsSync(join(nodeModules, entry, 'package.json'))) out.push(entry);
	}
	return out.sort();
}

/**
 * Runs the README's install block with HOME=`home` and Node `nodeMajor` (20 or 24) first on PATH,
 * then checks what it installed (`readmePath`: another README, to try a changed block). Resolves with { nodesDir, node, npm, seconds, files, output };
 * rejects with npm's output when the commands fail or the result is wrong.
 */
export async function installWithReadme({ home, tgz, nodeMajor, log = () => {}, readmePath }) {
	const script = readmeInstallCommands(readmePath);
	const commands = script.split(tarballPlaceholder()).join(shellWord(resolve(tgz)));
	const binDirs = nodeMajor === 24 ? [join(await ensureNode24({ log }), 'bin')] : [await ensureNpm10({ log }), dirname(process.execPath)];
	const env = userShellEnv(resolve(home), binDirs);
	const versions = await runShell(['-c', 'echo "$(node --version) $(npm --version)"'], { cwd: home, env });
	const [node, npm] = versions.output.trim().split(/\s+/);
	if (versions.code !== 0 || !node?.startsWith(`v${nodeMajor}.`)) throw new Error(`expected Node ${nodeMajor} first on PATH, got: ${versions.output.trim()}`);
	log(`running the README's install commands with HOME=${home}, Node ${node}, npm ${npm}:\n    ${script.split('\n').join('\n    ')}`);
	const start = Date.now();
	const result = await runShell(['-e', '-c', commands], { cwd: home, env });
	const seconds = (Date.now() - start) / 1000;
	const tail = () => result.output.trim().split('\n').slice(-40).join('\n');
	if (result.code !== 0) throw new Error(`the README's install commands failed (${result.signal ?? `exit ${result.code}`}, Node ${node}, npm ${npm}):\n${tail()}`);

	const nodesDir = join(home, '.n8n', 'nodes');
	const { name, version, n8n } = packageJson();
	const installedDir = join(nodesDir, 'node_modules', name);
	if (!existsSync(join(installedDir, 'package.json'))) throw new Error(`${name} is not in ${nodesDir}/node_modules after the README's install commands:\n${tail()}`);
	const installedVersion = JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')).version;
	if (installedVersion !== version) throw new Error(`${nodesDir}/node_modules/${name} is version ${installedVersion}, not ${version}`);
	const files = [...(n8n?.nodes ?? []), ...(n8n?.credentials ?? [])];
	const missing = files.filter((file) => !existsSync(join(installedDir, file)));
	if (files.length === 0 || missing.length > 0) throw new Error(`installed package lacks ${missing.join(', ') || 'the n8n section of its package.json'}`);
	const others = [...installedPackages(join(nodesDir, 'node_modules')).filter((p) => p !== name), ...installedPackages(join(installedDir, 'node_modules'))];
	if (others.length > 0) {
		const named = ['n8n-workflow', 'isolated-vm'].filter((p) => others.includes(p));
		throw new Error(`the README's install commands installed ${others.length} other package(s)${named.length ? `, among them ${named.join(' and ')}` : ''}: ${others.slice(0, 12).join(', ')}`);
	}
	return { nodesDir, node, npm, seconds, files, output: result.output };
}
