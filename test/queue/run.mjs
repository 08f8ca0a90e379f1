#!/usr/bin/env node
/**
 * Queue-mode end-to-end test (npm run test:queue): n8n 2.41.1 in queue mode, one main instance and
 * two workers on PostgreSQL and Redis, against the simulator.
 *
 *   node test/queue/run.mjs [--no-build] [--keep-going] [--only schedule,restart,crash,overlap]
 *
 * Installs Debian's postgresql and redis-server when missing (apt-get), starts both on 127.0.0.1 in
 * temporary folders on free ports, packs this package and installs it into the main's and each
 * worker's user folder, then proves from the simulator's request log and ledger:
 *   schedule  the scheduled auto-extend example runs on the workers and charges each proxy once;
 *             the stock-alert trigger polls on the main only (one poll per interval) and its
 *             workflow runs on a worker;
 *   restart   a worker stopped (SIGTERM) in the middle of a run finishes it: the execution is
 *             stored with every charge, and nothing is charged twice;
 *   crash     a worker killed (SIGKILL) in the middle of a run: nothing is charged twice, the next
 *             run sees the extension;
 *   overlap   two executions of the auto-extend on two workers, started a little apart, against
 *             the simulator's network model: how many proxies are paid twice (measured, reported).
 * Prints `queue: N passed, M failed`; exits 1 when a check fails.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE_NAME } from '../e2e/n8n-server.mjs';
import { createChecks, runSuite } from '../e2e/checks.mjs';
import { buildAndPack, onCleanup, ROOT, runCleanups, startSimulator } from '../e2e/support.mjs';
import { QUEUE_N8N_VERSION, startCluster } from './cluster.mjs';
import { ensureQueueServers, startPostgres, startRedis } from './services.mjs';

const SCENARIOS = ['schedule', 'restart', 'crash', 'overlap'];
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (line) => console.log(`[queue ${elapsed().padStart(5)}] ${line}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
	const options = { build: true, only: [...SCENARIOS] };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--no-build') options.build = false;
		else if (arg === '--only') {
			options.only = String(argv[++i] ?? '').split(',').map((s) => s.trim());
			const unknown = options.only.filter((s) => !SCENARIOS.includes(s));
			if (unknown.length > 0) throw new Error(`--only takes ${SCENARIOS.join(', ')}`);
		} else if (arg === '--help' || arg === '-h') {
			console.log(`Usage: node test/queue/run.mjs [--no-build] [--only ${SCENARIOS.join(',')}]`);
			process.exit(0);
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

// ----- checks ------------------------------------------------------------------------------------

const { check, assert, results } = createChecks(log);

// ----- workflows ---------------------------------------------------------------------------------

function example(file, credential) {
	const data = JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8'));
	for (const node of data.nodes) {
		const short = node.type.split('.').pop();
		if (short === 'proxyAccount' || short === 'proxyAccountTrigger') node.type = `${PACKAGE_NAME}.${short}`;
		if (node.credentials?.proxyAccountApi) node.credentials.proxyAccountApi = { id: credential.id, name: credential.name };
	}
	return { name: data.name, nodes: data.nodes, connections: data.connections, settings: data.settings ?? { executionOrder: 'v1' } };
}

/** The scheduled auto-extend example with its trigger replaced (same name, so connections hold). */
function withTrigger(workflow, replace) {
	const copy = JSON.parse(JSON.stringify(workflow));
	const trigger = copy.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger' || n.type.endsWith('Trigger'));
	Object.assign(trigger, replace(trigger));
	return copy;
}

/** Output items of a node in a stored execution (first run, main output 0). */
function outputOf(execution, nodeName) {
	const runs = execution.data?.resultData?.runData?.[nodeName];
	return runs?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];
}

const EXTEND_NODE = 'Extend One Week';

/** Sums what the Extend node says it charged, over executions. */
function chargedIn(executions) {
	const items = executions.flatMap((e) => outputOf(e, EXTEND_NODE));
	const extended = items.filter((i) => i.status === 'extended');
	const total = extended.reduce((sum, i) => sum + (typeof i.charged === 'number' ? i.charged : 0), 0);
	return { names: extended.map((i) => i.proxy_name), total: Math.round(total * 100) / 100 };
}

const cents = (n) => Math.round(n * 100) / 100;

function countBy(values) {
	const counts = new Map();
	for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
	return counts;
}

// ----- the simulator -----------------------------------------------------------------------------

async function proxyNames(sim) {
	const response = await fetch(`${sim.url}/v1/proxies`, { headers: { authorization: `Bearer ${sim.apiKey}`, 'x-test-process': 'test' } });
	const body = await response.json();
	return body.data.map((p) => p.proxy_name);
}

/** Sets `near` to expire in 3 hours and every other proxy in 500 hours. */
async function setExpiries(sim, names, near) {
	for (const name of names) await sim.control('POST', '/__sim/proxy', { name, expiresInHours: near.includes(name) ? 3 : 500 });
}

async function waitFor(what, fn, { timeoutMs = 60_000, everyMs = 250 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(everyMs);
	}
}

// ----- scenarios ---------------------------------------------------------------------------------

/**
 * The scheduled auto-extend (every 20 s instead of 6 hours) and the stock alert (polling every
 * minute instead of 5), both active for two minutes.
 */
async function scheduleScenario({ cluster, sim, credential }) {
	log('--- schedule: auto-extend on the workers, stock trigger on the main ---');
	const names = await proxyNames(sim);
	const near = names.slice(0, 4);
	await setExpiries(sim, names, near);
	const stock = await fetch(`${sim.url}/v1/stock`, { headers: { authorization: `Bearer ${sim.apiKey}`, 'x-test-process': 'test' } }).then((r) => r.json());
	const city = stock.data[0].city;
	await sim.control('POST', '/__sim/stock', { city, carrier: 'tmobile', count: 0 });

	const autoExtend = withTrigger(example('scheduled-auto-extend.json', credential), (t) => ({
		parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 20 }] } },
		name: t.name,
	}));
	autoExtend.name = 'Queue mode: scheduled auto-extend (every 20 s)';
	const stockAlert = example('stock-alert.json', credential);
	stockAlert.name = 'Queue mode: stock alert (every minute)';
	const trigger = stockAlert.nodes.find((n) => n.type === `${PACKAGE_NAME}.proxyAccountTrigger`);
	trigger.parameters.pollTimes = { item: [{ mode: 'everyMinute' }] };

	const extendWf = await cluster.createWorkflow(autoExtend);
	const stockWf = await cluster.createWorkflow(stockAlert);
	const ledgerBefore = (await sim.control('GET', '/__sim/ledger')).length;
	const t0 = Date.now();
	await cluster.activate(stockWf.id);
	await cluster.activate(extendWf.id);
	log(`activated both; the stock comes back in ${city} in 30 s; both stay active for 130 s`);
	await sleep(30_000);
	await sim.control('POST', '/__sim/stock', { city, carrier: 'tmobile', count: 4 });
	await sleep(Math.max(0, t0 + 130_000 - Date.now()));
	await cluster.deactivate(extendWf.id);
	await cluster.deactivate(stockWf.id);
	const t1 = Date.now();
	log(`deactivated after ${((t1 - t0) / 1000).toFixed(0)} s`);

	const extendRuns = await cluster.settled(extendWf.id, { count: 2 });
	const stockRuns = await cluster.settled(stockWf.id, { count: 1 });
	const ledger = (await sim.control('GET', '/__sim/ledger')).slice(ledgerBefore);

	await check('scheduled auto-extend: every execution ran on a worker, none on the main', async () => {
		const where = extendRuns.map((e) => ({ id: e.id, on: cluster.ranOn(e.id) }));
		const bad = where.filter((w) => w.on.length !== 1);
		assert(bad.length === 0, `executions not on exactly one worker: ${JSON.stringify(bad)}`);
		assert(!/Worker started execution/.test(cluster.main.logTail()), 'the main logged a worker execution');
		const failed = extendRuns.filter((e) => e.status !== 'success');
		assert(failed.length === 0, `executions not successful: ${JSON.stringify(failed)}`);
		const requests = await sim.control('GET', '/__sim/requests');
		const charges = requests.filter((r) => r.route === 'POST /v1/proxies/allocate' && r.at >= t0);
		const senders = countBy(charges.map((r) => r.headers['x-test-process'] ?? 'untagged'));
		assert(charges.length > 0 && [...senders.keys()].every((s) => s.startsWith('worker-')), `POST /v1/proxies/allocate sent by ${JSON.stringify([...senders])}`);
		const perWorker = countBy(where.map((w) => w.on[0]));
		return `${extendRuns.length} executions (mode ${[...new Set(extendRuns.map((e) => e.mode))].join('/')}): ${[...perWorker].map(([w, n]) => `${n} on ${w}`).join(', ')}; the charge sent by ${[...senders.keys()].join(', ')}`;
	});

	await check('scheduled auto-extend: each expiring proxy charged exactly once over every run (ledger)', async () => {
		const counts = countBy(ledger.map((c) => c.proxy_name));
		assert(near.every((n) => counts.get(n) === 1), `charges per proxy: ${JSON.stringify([...counts])}, expected each of ${near.join(', ')} once`);
		assert(ledger.every((c) => near.includes(c.proxy_name)), `a proxy not expiring was charged: ${JSON.stringify(ledger.map((c) => c.proxy_name))}`);
		const executions = await Promise.all(extendRuns.map((e) => cluster.execution(e.id)));
		const reported = chargedIn(executions);
		const ledgerTotal = cents(ledger.reduce((sum, c) => sum + c.amount, 0));
		assert(reported.names.length === near.length && reported.total === ledgerTotal, `the executions report ${reported.names.length} extended for ${reported.total}, the ledger ${ledger.length} charges for ${ledgerTotal}`);
		return `${ledger.length} charges, ${ledgerTotal} in all, the same in the stored executions; later runs charged nothing`;
	});

	await check('stock trigger: polled on the main only, one poll per interval', async () => {
		const requests = await sim.control('GET', '/__sim/requests');
		const stockRequests = requests.filter((r) => r.route === 'GET /v1/stock' && r.at >= t0 && r.at <= t1 + 1000 && r.headers['x-test-process'] !== 'test');
		const senders = countBy(stockRequests.map((r) => r.headers['x-test-process'] ?? 'untagged'));
		assert(senders.size === 1 && senders.has('main'), `GET /v1/stock sent by ${JSON.stringify([...senders])}`);
		const polls = stockRequests.map((r) => r.at);
		const minutes = (t1 - t0) / 60_000;
		// Activation polls once at once (n8n's test poll), then once a minute at a random second.
		assert(polls.length >= 1 + Math.floor(minutes) && polls.length <= 1 + Math.ceil(minutes), `${polls.length} polls in ${minutes.toFixed(2)} minutes`);
		const gaps = polls.slice(2).map((at, i) => at - polls[i + 1]);
		assert(gaps.every((g) => g > 55_000), `polls closer than a minute apart: at ${polls.map((at) => `${((at - t0) / 1000).toFixed(1)} s`).join(', ')} after activation`);
		return `${polls.length} polls of GET /v1/stock in ${(minutes * 60).toFixed(0)} s, all sent by the main (the activation poll, then one a minute), with three n8n processes running`;
	});

	await check('stock trigger: its workflow ran on a worker and carried the event', async () => {
		const withEvent = [];
		for (const run of stockRuns) {
			const execution = await cluster.execution(run.id);
			const alerts = outputOf(execution, 'Compose Alert');
			if (alerts.some((a) => a.city === city && a.carrier === 'tmobile')) withEvent.push(run);
		}
		assert(withEvent.length === 1, `${withEvent.length} executions with the ${city} alert (of ${stockRuns.length}: ${JSON.stringify(stockRuns)})`);
		const on = cluster.ranOn(withEvent[0].id);
		assert(on.length === 1, `execution ${withEvent[0].id} ran on ${on.length} workers`);
		assert(withEvent[0].status === 'success', `status ${withEvent[0].status}`);
		return `execution ${withEvent[0].id} on ${on[0]}: "T-Mobile is back in stock in ${city}"`;
	});
}

/** The auto-extend behind a Webhook trigger, so a test decides when each run starts. */
async function webhookAutoExtend(cluster, credential, path) {
	const workflow = withTrigger(example('scheduled-auto-extend.json', credential), (t) => ({
		name: t.name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	}));
	workflow.name = `Queue mode: auto-extend on a webhook (${path})`;
	const created = await cluster.createWorkflow(workflow);
	await cluster.activate(created.id);
	await cluster.webhookRegistered(path);
	const fire = async () => {
		const response = await fetch(`${cluster.main.url}/webhook/${path}`, { method: 'POST' });
		if (!response.ok) throw new Error(`webhook ${path}: HTTP ${response.status} ${await response.text()}`);
	};
	return { id: created.id, fire };
}

/** A run whose charge reply is held back 8 s; the worker running it is stopped with `signal` once the service has charged. */
async function interruptedRun({ cluster, sim, credential, signal, names, near, path }) {
	const hook = await webhookAutoExtend(cluster, credential, path);
	await setExpiries(sim, names, near);
	const before = await cluster.executions(hook.id);
	const ledgerBefore = (await sim.control('GET', '/__sim/ledger')).length;
	await sim.control('POST', '/__sim/faults', { route: 'POST /v1/proxies/allocate', kind: 'latency', delayMs: 8000, when: 'after', times: 1 });
	await hook.fire();
	await waitFor('the service to charge', async () => (await sim.control('GET', '/__sim/ledger')).length >= ledgerBefore + near.length);
	const running = await waitFor('the execution to be running', async () => {
		const list = await cluster.executions(hook.id);
		return list.find((e) => !before.some((b) => b.id === e.id));
	});
	const on = await waitFor('a worker to log the execution', async () => cluster.ranOn(running.id)[0]);
	const worker = cluster.workers.find((w) => w.name === on);
	log(`execution ${running.id} is waiting for the charge reply on ${on}: ${signal} to ${on}, then it starts again`);
	const stopAt = Date.now();
	await worker.restart(signal);
	log(`${on} stopped and started again in ${((Date.now() - stopAt) / 1000).toFixed(1)} s`);
	return { hook, running, on, ledgerBefore, before };
}

/** After an interrupted run: one more run of the hook charges nothing, and each proxy was paid once. */
async function nextRunPaysNothing(what, { cluster, sim, hook, near, ledgerBefore }) {
	await check(what, async () => {
		const before = await cluster.executions(hook.id);
		const ledgerAt = (await sim.control('GET', '/__sim/ledger')).length;
		await hook.fire();
		const after = await cluster.settled(hook.id, { count: before.length + 1 });
		assert(after[0].status === 'success', `the next run ended ${after[0].status}`);
		const ledger = await sim.control('GET', '/__sim/ledger');
		assert(ledger.length === ledgerAt, `the next run charged ${ledger.length - ledgerAt} times`);
		const counts = countBy(ledger.slice(ledgerBefore).map((c) => c.proxy_name));
		assert(near.every((n) => counts.get(n) === 1), `charges per proxy: ${JSON.stringify([...counts])}`);
		return `execution ${after[0].id} on ${cluster.ranOn(after[0].id).join(', ')}: nothing charged; each proxy paid once`;
	});
}

async function restartScenario({ cluster, sim, credential }) {
	log('--- restart: SIGTERM to the worker in the middle of a run ---');
	const names = await proxyNames(sim);
	const near = names.slice(4, 7);
	const { hook, running, on, ledgerBefore } = await interruptedRun({ cluster, sim, credential, signal: 'SIGTERM', names, near, path: 'queue-restart' });
	const settled = await cluster.settled(hook.id, { count: 1, timeoutMs: 120_000 });
	await check('worker restarted (SIGTERM) mid-run: the run finished and stored every charge', async () => {
		const run = settled.find((e) => e.id === running.id);
		assert(run?.status === 'success', `execution ${running.id} ended ${run?.status}`);
		const starts = cluster.ranOn(running.id);
		assert(starts.length === 1, `execution ${running.id} was started ${starts.length} times: on ${starts.join(', ')}`);
		const ledger = (await sim.control('GET', '/__sim/ledger')).slice(ledgerBefore);
		const reported = chargedIn([await cluster.execution(running.id)]);
		const ledgerTotal = cents(ledger.reduce((sum, c) => sum + c.amount, 0));
		assert(ledger.length === near.length && reported.names.length === near.length && reported.total === ledgerTotal, `ledger ${ledger.length} charges (${ledgerTotal}), execution ${reported.names.length} extended (${reported.total})`);
		return `execution ${running.id} on ${on} finished during n8n's graceful shutdown: ${reported.names.length} extended for ${reported.total}, as in the ledger`;
	});
	await nextRunPaysNothing('worker restarted (SIGTERM): the next run charges nothing', { cluster, sim, hook, near, ledgerBefore });
	await cluster.deactivate(hook.id);
}

async function crashScenario({ cluster, sim, credential }) {
	log('--- crash: SIGKILL to the worker in the middle of a run ---');
	const names = await proxyNames(sim);
	const near = names.slice(7, 10);
	const { hook, running, on, ledgerBefore } = await interruptedRun({ cluster, sim, credential, signal: 'SIGKILL', names, near, path: 'queue-crash' });
	let status;
	await check('worker killed (SIGKILL) mid-run: the service kept the charges, n8n does not run the execution again', async () => {
		// n8n sets maxStalledCount 0: a job whose worker died fails instead of running again.
		const settled = await cluster.settled(hook.id, { count: 1, timeoutMs: 150_000 });
		status = settled.find((e) => e.id === running.id)?.status;
		const ledger = (await sim.control('GET', '/__sim/ledger')).slice(ledgerBefore);
		assert(ledger.length === near.length, `${ledger.length} charges for ${near.length} proxies`);
		const starts = cluster.ranOn(running.id);
		assert(starts.length === 1, `execution ${running.id} was started ${starts.length} times: on ${starts.join(', ')}`);
		return `execution ${running.id} (on ${on}) ended "${status}"; the ledger holds its ${ledger.length} charges`;
	});
	await nextRunPaysNothing('worker killed (SIGKILL): the next run sees the extension and charges nothing', { cluster, sim, hook, near, ledgerBefore });
	await cluster.deactivate(hook.id);
}

const OVERLAP_GAPS_MS = [0, 25, 50, 75, 100, 150, 200, 300];
const OVERLAP_TRIALS = 3;
const OVERLAP_PROXIES = 5;

/**
 * Two runs of the auto-extend on two workers, fired `gap` ms apart, against the network model,
 * OVERLAP_TRIALS times per gap: how many proxies are paid twice.
 */
async function overlapScenario({ cluster, simNet, credentialNet }) {
	log('--- overlap: two runs of the auto-extend on two workers (network model: 50 ms round trips) ---');
	const hook = await webhookAutoExtend(cluster, credentialNet, 'queue-overlap');
	const names = await proxyNames(simNet);
	const near = names.slice(0, OVERLAP_PROXIES);
	const rows = [];
	for (const gap of OVERLAP_GAPS_MS) {
		const row = { gap, twice: 0, charges: [], workers: [], statuses: [], starts: [] };
		for (let trial = 0; trial < OVERLAP_TRIALS; trial++) {
			await setExpiries(simNet, names, near);
			const before = await cluster.executions(hook.id);
			const ledgerBefore = (await simNet.control('GET', '/__sim/ledger')).length;
			await hook.fire();
			await sleep(gap);
			await hook.fire();
			const after = await cluster.settled(hook.id, { count: before.length + 2 });
			const runs = after.filter((e) => !before.some((b) => b.id === e.id));
			const ledger = (await simNet.control('GET', '/__sim/ledger')).slice(ledgerBefore);
			const counts = countBy(ledger.map((c) => c.proxy_name));
			row.twice += near.filter((n) => (counts.get(n) ?? 0) > 1).length;
			row.charges.push(ledger.length);
			row.workers.push(runs.map((e) => cluster.ranOn(e.id)[0] ?? '?'));
			row.statuses.push(...runs.map((e) => e.status));
			row.starts.push(Math.abs(Date.parse(runs[0].startedAt) - Date.parse(runs[1].startedAt)));
		}
		rows.push(row);
		const starts = row.starts.slice().sort((a, b) => a - b);
		log(`  fired ${gap} ms apart: ${row.twice} of ${OVERLAP_TRIALS * OVERLAP_PROXIES} proxies paid twice (runs started ${starts.join(', ')} ms apart; on ${row.workers.map((w) => w.join('+')).join(', ')})`);
	}
	await cluster.deactivate(hook.id);
	await check('overlap measured: two runs on two workers, every proxy paid at least once and at most twice', async () => {
		for (const row of rows) {
			assert(row.statuses.every((s) => s === 'success'), `gap ${row.gap} ms: runs ended ${row.statuses.join(', ')}`);
			assert(row.charges.every((n) => n >= OVERLAP_PROXIES && n <= 2 * OVERLAP_PROXIES), `gap ${row.gap} ms: ${row.charges.join(', ')} charges`);
		}
		assert(rows.some((row) => row.workers.some((pair) => new Set(pair).size === 2)), 'no pair ran on two different workers');
		return rows.map((r) => `${r.gap} ms: ${r.twice}/${OVERLAP_TRIALS * OVERLAP_PROXIES}`).join('; ');
	});
	return rows;
}

// ----- main --------------------------------------------------------------------------------------

async function main() {
	const options = parseArgs(process.argv.slice(2));
	log(`queue mode: n8n ${QUEUE_N8N_VERSION}, main + 2 workers on PostgreSQL and Redis (scenarios: ${options.only.join(', ')})`);
	const servers = await ensureQueueServers({ log });
	const pg = await startPostgres({ postgresBin: servers.postgresBin, log });
	onCleanup(() => pg.stop());
	const redis = await startRedis({ redisServer: servers.redisServer, log });
	onCleanup(() => redis.stop());
	log(`PostgreSQL on 127.0.0.1:${pg.port}, Redis on 127.0.0.1:${redis.port}`);

	const tgz = await buildAndPack({ log, skipBuild: !options.build });
	const sim = await startSimulator({ port: 0, args: ['--proxies', '12', '--balance', '100000'], log });
	onCleanup(() => sim.stop());
	const simNet = await startSimulator({ port: 0, args: ['--proxies', '12', '--balance', '100000', '--network-model'], log });
	onCleanup(() => simNet.stop());
	log(`simulators at ${sim.url} and ${simNet.url} (network model)`);

	const cluster = await startCluster({ tgz, pg, redis, workers: 2, concurrency: 1, log });
	onCleanup(() => cluster.stop());
	await check('the package is loaded on the main', async () => {
		const types = await cluster.main.loadedTypes();
		const ours = types.nodes.filter((t) => t.startsWith(`${PACKAGE_NAME}.`));
		const wanted = ['proxyAccount', 'proxyAccountTrigger'].map((t) => `${PACKAGE_NAME}.${t}`);
		assert(wanted.every((t) => ours.includes(t)), `loaded: ${ours.join(', ') || 'none'}`);
		return ours.join(', ');
	});
	const credential = await cluster.createCredential('Proxy Account (simulator)', { baseUrl: sim.url, apiKey: sim.apiKey });
	const credentialNet = await cluster.createCredential('Proxy Account (simulator, network model)', { baseUrl: simNet.url, apiKey: simNet.apiKey });
	const context = { cluster, sim, simNet, credential, credentialNet };
	if (options.only.includes('schedule')) await scheduleScenario(context);
	if (options.only.includes('restart')) await restartScenario(context);
	if (options.only.includes('crash')) await crashScenario(context);
	if (options.only.includes('overlap')) await overlapScenario(context);
}

await runSuite('queue', main, { results, log, cleanup: runCleanups, elapsed });
