/**
 * n8n 2.41.1 in queue mode for the queue-mode end-to-end test: one main instance and worker
 * processes, all on one PostgreSQL database and one Redis, each with its own user folder and the
 * packed package installed into it the way the README tells users (npm install in
 * ~/.n8n/nodes, on the main and on every worker).
 *
 *   const cluster = await startCluster({ tgz, pg, redis, workers: 2, log });
 *   cluster.main            the startN8n handle (REST client, log)
 *   cluster.workers[i]      { name, logText(), restart(signal), stop() }
 *   await cluster.createWorkflow(data) / activate(id) / deactivate(id) / executions(id) / execution(id)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureN8n } from '../e2e/n8n-install.mjs';
import { getFreePort, installPackage, n8nEnv, startN8n } from '../e2e/n8n-server.mjs';
import { startService } from './services.mjs';

export const QUEUE_N8N_VERSION = '2.41.1';

/** Tags each process's HTTP requests with its name (`x-test-process`) for the simulator's log. */
const TAG_REQUESTS = join(dirname(fileURLToPath(import.meta.url)), 'tag-requests.cjs');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The environment every process of the cluster shares: queue mode on Postgres and Redis. */
function queueEnv(pg, redis) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: '',
		// Worker logs name the executions they run (`Worker started execution 12 (job 7)`).
		N8N_LOG_LEVEL: 'info',
		// A worker stopped with SIGTERM finishes its running executions first, for up to 60 s.
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '60',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
	};
}

/**
 * A worker (`n8n worker --concurrency=N`) in its own user folder with the package installed;
 * ready when its health endpoint answers. `restart(signal)` stops it (SIGTERM: n8n's graceful
 * shutdown; SIGKILL: a crash) and starts it again on the same folder.
 */
async function startWorker({ name, install, tgz, env, concurrency, log }) {
	const userFolder = mkdtempSync(join(tmpdir(), `proxy-account-${name}-`));
	await installPackage(userFolder, tgz, { log, install });
	const logFile = join(userFolder, 'n8n.log');
	let service;
	const launch = async () => {
		const healthPort = await getFreePort();
		const workerEnv = n8nEnv(install, userFolder, {
			port: healthPort,
			brokerPort: await getFreePort(),
			extra: { ...env, PROXY_ACCOUNT_TEST_PROCESS: name, QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(healthPort), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' },
		});
		service = await startService({
			name: `n8n ${name}`,
			command: install.nodeBinary,
			args: ['--require', TAG_REQUESTS, install.n8nEntry, 'worker', `--concurrency=${concurrency}`],
			cwd: userFolder,
			env: workerEnv,
			logFile,
			timeoutMs: 180_000,
			ready: async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok,
			log,
		});
	};
	await launch();
	return {
		name,
		userFolder,
		logText: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
		pid: () => service.child.pid,
		async restart(signal = 'SIGTERM') {
			if (signal === 'SIGKILL') {
				try {
					process.kill(-service.child.pid, 'SIGKILL');
				} catch {
					// Gone already.
				}
			}
			await service.stop(90_000);
			await launch();
		},
		async stop() {
			await service.stop();
			rmSync(userFolder, { recursive: true, force: true });
		},
	};
}

/** Starts the main instance, then the workers (the main runs the database migrations first). */
export async function startCluster({ tgz, pg, redis, workers = 2, concurrency = 1, log }) {
	const install = await ensureN8n(QUEUE_N8N_VERSION, { log: (line) => log(`install: ${line}`) });
	const env = queueEnv(pg, redis);
	const main = await startN8n({
		version: QUEUE_N8N_VERSION,
		packageTgz: tgz,
		env: { ...env, PROXY_ACCOUNT_TEST_PROCESS: 'main' },
		nodeArgs: ['--require', TAG_REQUESTS],
		log,
		readyTimeoutMs: 300_000,
	});
	const started = [];
	try {
		for (let i = 1; i <= workers; i++) started.push(await startWorker({ name: `worker-${i}`, install, tgz, env, concurrency, log }));
	} catch (error) {
		for (const worker of started) await worker.stop();
		await main.stop();
		throw error;
	}
	// n8n keeps executions as `flatted` JSON; its own copy reads them.
	const flatted = createRequire(join(install.dir, 'package.json'))('flatted');
	const rest = main.rest;
	const cluster = {
		main,
		workers: started,
		async createCredential(name, data) {
			return main.createCredential(name, 'proxyAccountApi', data);
		},
		async createWorkflow(data) {
			const { json } = await rest.request('POST', '/rest/workflows', { ...data, active: false });
			const created = json?.data ?? json;
			if (!created?.id) throw new Error(`workflow creation returned no id: ${JSON.stringify(json).slice(0, 300)}`);
			return created;
		},
		async activate(id) {
			const { json } = await rest.request('GET', `/rest/workflows/${id}`);
			const workflow = json?.data ?? json;
			await rest.request('POST', `/rest/workflows/${id}/activate`, { versionId: workflow.versionId });
		},
		/** Waits until the main has registered a production webhook (it does so shortly after activation). */
		async webhookRegistered(path, timeoutMs = 30_000) {
			const deadline = Date.now() + timeoutMs;
			const quoted = path.replace(/'/g, "''");
			while (pg.sql(`SELECT count(*) FROM webhook_entity WHERE "webhookPath" = '${quoted}'`) === '0') {
				if (Date.now() > deadline) throw new Error(`webhook ${path} not registered after ${timeoutMs / 1000} s`);
				await sleep(250);
			}
		},
		async deactivate(id) {
			await rest.request('POST', `/rest/workflows/${id}/deactivate`, {});
		},
		/** The workflow's executions, newest first: { id, status, mode, startedAt, stoppedAt }. */
		async executions(workflowId) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const { json } = await rest.request('GET', `/rest/executions?filter=${filter}&limit=100`);
			const data = json?.data ?? json;
			return (data.results ?? data).map((e) => ({ id: String(e.id), status: e.status, mode: e.mode, startedAt: e.startedAt, stoppedAt: e.stoppedAt }));
		},
		/** One execution with its run data parsed. */
		async execution(id) {
			const { json } = await rest.request('GET', `/rest/executions/${id}`);
			const execution = json?.data ?? json;
			const data = typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data;
			return { ...execution, id: String(execution.id), data };
		},
		/** Waits until every execution of the workflow has stopped and there are at least `count`. */
		async settled(workflowId, { count = 1, timeoutMs = 120_000 } = {}) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const list = await cluster.executions(workflowId);
				const running = list.filter((e) => ['new', 'running', 'waiting'].includes(e.status));
				if (list.length >= count && running.length === 0) return list;
				if (Date.now() > deadline) throw new Error(`executions of workflow ${workflowId} not settled after ${timeoutMs / 1000} s: ${JSON.stringify(list)}`);
				await sleep(500);
			}
		},
		/** The workers that started an execution, once per start, from the workers' logs. */
		ranOn(executionId) {
			const pattern = new RegExp(`Worker started execution ${executionId} \\(job`, 'g');
			return started.flatMap((w) => (w.logText().match(pattern) ?? []).map(() => w.name));
		},
		async stop() {
			for (const worker of started) await worker.stop().catch((e) => log(`stopping ${worker.name}: ${e.message}`));
			await main.stop();
		},
	};
	return cluster;
}
