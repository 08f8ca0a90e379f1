/**
 * The servers n8n's queue mode needs, for the queue-mode end-to-end test: PostgreSQL and Redis from
 * Debian's packages (installed with apt-get when missing), each started on 127.0.0.1 on a free
 * port with its data in a new temporary folder, and a way to run n8n worker processes.
 *
 *   await ensureQueueServers({ log });             // apt-get install postgresql redis-server if needed
 *   const pg = await startPostgres({ log });      // { host, port, database, user, stop() }
 *   const redis = await startRedis({ log });      // { host, port, stop() }
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { getFreePort, killGroup, trackGroup } from '../e2e/n8n-server.mjs';
import { aptInstall } from '../e2e/support.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The folder of PostgreSQL's server programs (Debian keeps them out of PATH), newest version first. */
export function findPostgresBin() {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((v) => existsSync(join(root, v, 'bin', 'postgres')) && existsSync(join(root, v, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

export function findRedisServer() {
	return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
}

/** Installs Debian's postgresql and redis-server when either is missing. */
export async function ensureQueueServers({ log } = {}) {
	const missing = [];
	if (!findPostgresBin()) missing.push('postgresql');
	if (!findRedisServer()) missing.push('redis-server');
	if (missing.length > 0) await aptInstall(missing, { log, what: missing.map((p) => (p === 'postgresql' ? 'PostgreSQL' : 'Redis')).join(' and ') });
	const postgresBin = findPostgresBin();
	const redisServer = findRedisServer();
	if (!postgresBin || !redisServer) throw new Error(`after apt-get: PostgreSQL ${postgresBin ?? 'not found'}, Redis ${redisServer ?? 'not found'}`);
	return { postgresBin, redisServer };
}

/**
 * Starts a program in its own process group, its output in `logFile`; resolves once `ready()`
 * answers true. Returns { child, logTail(), stop() }.
 */
export async function startService({ name, command, args, env = process.env, cwd, logFile, ready, timeoutMs = 60_000, log }) {
	const stream = createWriteStream(logFile, { flags: 'a' });
	const tail = [];
	const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	trackGroup(child.pid);
	const keep = (chunk) => {
		stream.write(chunk);
		for (const line of chunk.toString().split('\n')) {
			if (line.trim() === '') continue;
			tail.push(line);
			if (tail.length > 60) tail.shift();
		}
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	let exited;
	child.on('exit', (code, signal) => {
		exited = { code, signal };
	});
	const logTail = () => tail.join('\n');
	let stopped = false;
	const stop = async (graceMs = 10_000) => {
		if (stopped) return;
		stopped = true;
		await killGroup(child, graceMs);
		stream.end();
	};
	const started = Date.now();
	for (;;) {
		if (exited) {
			stream.end();
			throw new Error(`${name} exited while starting (${exited.signal ?? `exit ${exited.code}`}):\n${logTail()}`);
		}
		if (Date.now() - started > timeoutMs) {
			await stop(2000);
			throw new Error(`${name} was not ready after ${timeoutMs / 1000} s:\n${logTail()}`);
		}
		if (await ready(logTail()).catch(() => false)) break;
		await sleep(250);
	}
	log?.(`${name} ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
	return { child, logTail, stop, exited: () => exited };
}

/** A command as the `postgres` user when running as root (PostgreSQL refuses to run as root). */
function asPostgres(command, args) {
	return isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A throw-away PostgreSQL cluster in a temporary folder, on 127.0.0.1 and a free port, trust
 * authentication for the `postgres` user, one database `n8n`. Durability is off (a test database).
 */
export async function startPostgres({ postgresBin, log }) {
	const dir = mkdtempSync(join(tmpdir(), 'proxy-account-pg-'));
	if (isRoot) {
		const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
		const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
		if (ids.status !== 0) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
		chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
	}
	const data = join(dir, 'data');
	const [initCommand, initArgs] = asPostgres(join(postgresBin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-instructions']);
	const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
	if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}\n${init.stderr}`);
	const port = await getFreePort();
	const [command, args] = asPostgres(join(postgresBin, 'postgres'), [
		'-D', data,
		'-p', String(port),
		'-k', dir,
		'-c', 'listen_addresses=127.0.0.1',
		'-c', 'fsync=off',
		'-c', 'synchronous_commit=off',
		'-c', 'full_page_writes=off',
		'-c', 'max_connections=100',
	]);
	const isReady = join(postgresBin, 'pg_isready');
	const service = await startService({
		name: 'PostgreSQL',
		command,
		args,
		logFile: join(dir, 'postgres.log'),
		ready: async () => spawnSync(isReady, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q']).status === 0,
		log,
	});
	const psql = join(postgresBin, 'psql');
	const sql = (statement, database = 'postgres') => {
		const result = spawnSync(psql, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', statement], { encoding: 'utf8' });
		if (result.status !== 0) throw new Error(`psql: ${statement}: ${result.stderr}`);
		return result.stdout.trim();
	};
	sql('CREATE DATABASE n8n');
	return {
		host: '127.0.0.1',
		port,
		database: 'n8n',
		user: 'postgres',
		sql: (statement) => sql(statement, 'n8n'),
		logTail: service.logTail,
		async stop() {
			await service.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** Redis on 127.0.0.1 and a free port, nothing saved to disk, its folder temporary. */
export async function startRedis({ redisServer, log }) {
	const dir = mkdtempSync(join(tmpdir(), 'proxy-account-redis-'));
	const port = await getFreePort();
	const service = await startService({
		name: 'Redis',
		command: redisServer,
		args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
		logFile: join(dir, 'redis.log'),
		ready: async (tail) => /Ready to accept connections/.test(tail),
		log,
	});
	return {
		host: '127.0.0.1',
		port,
		logTail: service.logTail,
		async stop() {
			await service.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
