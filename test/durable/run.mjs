#!/usr/bin/env node
/**
 * Durable poll cursors end-to-end test (npm run test:durable): the Proxy Account Trigger in a real
 * n8n 2.41.1 killed with SIGKILL between polls and during them, on n8n's durable scheduler with
 * durable poll cursors and, side by side, on the default scheduler.
 *
 *   node test/durable/run.mjs [--no-build] [--only durable|default]
 *
 * Packs the package and starts, for each scheduler, its own simulator (frozen clock) and its own
 * n8n (user folder and SQLite database in a temporary folder) with the package installed. The
 * durable one gets N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED,
 * N8N_USE_WORKFLOW_PUBLICATION_SERVICE and N8N_POLLER_DURABLE_CURSORS_ENABLED (=true); the default
 * one none of them. Five workflows each (New Proxy, Proxy Removed, Proxy Expiring, Proxy Status
 * Changed, Stock Changed), created and published through REST, poll every 15 s (four custom crons
 * a minute: n8n refuses less than a minute per cron) and POST each item to a recorder on 127.0.0.1
 * (recorder.mjs). The same script (script.mjs) then changes the account and kills n8n's main
 * process (SIGKILL, then its task runner) between polls, while the simulator holds the list
 * replies, while the executions wait for the recorder, and right after the list replies were
 * served; n8n is started again on the same database after each kill. At the end the events each
 * workflow received (at the recorder, and in n8n's stored executions) are compared with the
 * changes: missed, duplicated, invented, per kill point. It proves from the database and the log
 * that the durable run really ran on durable cursors (poller_state rows, poll jobs, no "stay
 * disabled" warning) and the default run did not.
 *
 * Checks: durable scheduler: nothing missed or invented in the stored executions, at any kill point,
 * nothing repeated except what README's Restarts section documents (the events of a poll killed
 * while it waited for its reply, at most twice); the recorder misses only what n8n stored in an
 * execution that died with it; n8n may need a second start after a kill (documented, counted).
 * Default scheduler: nothing duplicated or invented; what it misses only of the kinds the Restarts
 * section documents. The measured numbers are printed either way (DURABLE_KEEP=1 keeps the user
 * folders with n8n's log and database). Prints `durable: N passed, M
 * failed`; exits 1 when a check fails. Stops every n8n and simulator in any case.
 */
import { createChecks, runSuite } from '../e2e/checks.mjs';
import { buildAndPack, onCleanup, runCleanups } from '../e2e/support.mjs';
import { startInstance } from './instance.mjs';
import { startRecorder } from './recorder.mjs';
import { DURABLE_REPEAT, KILL_POINTS, prepareAccount, runScript } from './script.mjs';
import { EVENTS, eventKey, triggerWorkflow } from './workflows.mjs';

const SCHEDULERS = {
	durable: {
		env: {
			N8N_SCHEDULER_ENABLED: 'true',
			N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
			N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
			N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
		},
		// Every 15 s, 7 s after the default run's polls so the two restarts rarely meet.
		seconds: [7, 22, 37, 52],
	},
	default: { env: {}, seconds: [0, 15, 30, 45] },
};
const DISABLED_WARNING = 'durable poll cursors stay disabled';

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (line) => console.log(`[durable ${elapsed().padStart(5)}] ${line}`);

function parseArgs(argv) {
	const options = { build: true, only: Object.keys(SCHEDULERS) };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--no-build') options.build = false;
		else if (arg === '--only') {
			options.only = String(argv[++i] ?? '').split(',').map((s) => s.trim());
			if (options.only.some((s) => !(s in SCHEDULERS))) throw new Error(`--only takes ${Object.keys(SCHEDULERS).join(', ')}`);
		} else if (arg === '--help' || arg === '-h') {
			console.log('Usage: node test/durable/run.mjs [--no-build] [--only durable|default]');
			process.exit(0);
		} else throw new Error(`Unknown argument: ${arg}`);
	}
	return options;
}

const { check, assert, results } = createChecks(log);

/** Creates the five workflows through REST and publishes (activates) each; returns { key: id }. */
async function createWorkflows(I, { credential, recorderUrl, seconds }) {
	const ids = {};
	let index = 0;
	for (const key of Object.keys(EVENTS)) {
		index += 1;
		const workflow = triggerWorkflow({ scheduler: I.scheduler, key, index, seconds, credential, recorderUrl });
		const { json } = await I.n8n.rest.request('POST', '/rest/workflows', { ...workflow, active: false });
		const created = json?.data ?? json;
		if (!created?.id) throw new Error(`workflow creation returned no id: ${JSON.stringify(json).slice(0, 300)}`);
		await I.n8n.rest.request('POST', `/rest/workflows/${created.id}/activate`, { versionId: created.versionId });
		ids[key] = created.id;
	}
	return ids;
}

/** One scheduler's whole run: n8n and simulator, workflows, baseline, the script, the database. */
async function runScheduler(scheduler, { tgz, recorder }) {
	const say = (line) => log(`${scheduler.padEnd(7)} ${line}`);
	const { env, seconds } = SCHEDULERS[scheduler];
	const I = await startInstance({ scheduler, env: { ...env, EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all', N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info' }, tgz, log: say, simArgs: ['--frozen-clock', '--proxies', '16'] });
	const acc = await prepareAccount(I);
	const credential = await I.n8n.createCredential('Proxy Account (simulator)', 'proxyAccountApi', { baseUrl: I.sim.url, apiKey: I.sim.apiKey });
	await I.markNow();
	const workflowIds = await createWorkflows(I, { credential, recorderUrl: recorder.url, seconds });
	say(`5 workflows published, polling at seconds ${seconds.join(', ')} of each minute`);

	// The baseline: on the durable scheduler the activation poll's cursor is not committed (n8n runs
	// it as a test poll); the first scheduled poll commits it. Wait until every cursor holds a state.
	let baselineRounds = 0;
	for (;;) {
		await I.waitRound();
		baselineRounds += 1;
		if (scheduler !== 'durable') break;
		const { pollerState } = await I.db();
		const set = pollerState.filter((r) => Object.values(workflowIds).includes(r.workflowId) && r.cursor && Object.keys(r.cursor).length > 0);
		if (set.length === Object.keys(workflowIds).length) break;
		if (baselineRounds >= 4) throw new Error(`${set.length} of 5 poll cursors hold a state after ${baselineRounds} rounds`);
	}
	say(`baseline recorded (${baselineRounds} poll round${baselineRounds > 1 ? 's' : ''} after publishing)`);

	const workflowOf = Object.fromEntries(Object.entries(workflowIds).map(([key, id]) => [id, key]));
	const receivedKeys = () => recorder.items(scheduler).map((r) => eventKey(r.item));
	const { expected, facts } = await runScript(I, { acc, recorder, receivedKeys, say });
	const db = await I.db();
	const logText = I.logText();
	const executions = db.executions.filter((e) => e.workflowId in workflowOf);
	await I.stop();
	return { scheduler, I, expected, facts, db, logText, executions, workflowIds, baselineRounds, received: recorder.items(scheduler) };
}

/** Missed, duplicated and invented events of one view (keys received, with repeats) against the expected events. */
function tally(expected, receivedKeys) {
	const counts = new Map();
	for (const key of receivedKeys) counts.set(key, (counts.get(key) ?? 0) + 1);
	const expectedKeys = new Set(expected.map((e) => e.key));
	const byPoint = {};
	for (const point of Object.keys(KILL_POINTS)) {
		const mine = expected.filter((e) => e.point === point);
		if (mine.length === 0) continue;
		byPoint[point] = {
			expected: mine.length,
			received: mine.filter((e) => (counts.get(e.key) ?? 0) > 0).length,
			missed: mine.filter((e) => !counts.get(e.key)),
			duplicated: mine.filter((e) => (counts.get(e.key) ?? 0) > 1).map((e) => `${e.key} ×${counts.get(e.key)}`),
		};
	}
	const invented = [...counts.keys()].filter((k) => !expectedKeys.has(k));
	return { byPoint, invented };
}

function printTable(runs) {
	const rows = [['scheduler', 'kill point', 'expected', 'received', 'missed', 'duplicated', 'invented', 'in executions: missed/dup']];
	for (const run of runs) {
		for (const [point, t] of Object.entries(run.recorderTally.byPoint)) {
			const e = run.executionTally.byPoint[point];
			rows.push([run.scheduler, KILL_POINTS[point], t.expected, t.received, t.missed.length, t.duplicated.length, '', `${e.missed.length}/${e.duplicated.length}`]);
		}
		const all = Object.values(run.recorderTally.byPoint);
		const sum = (f) => all.reduce((n, t) => n + f(t), 0);
		const allE = Object.values(run.executionTally.byPoint);
		const sumE = (f) => allE.reduce((n, t) => n + f(t), 0);
		rows.push([run.scheduler, 'all', sum((t) => t.expected), sum((t) => t.received), sum((t) => t.missed.length), sum((t) => t.duplicated.length), run.recorderTally.invented.length, `${sumE((t) => t.missed.length)}/${sumE((t) => t.duplicated.length)} (invented ${run.executionTally.invented.length})`]);
	}
	const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
	console.log('');
	for (const [i, row] of rows.entries()) {
		console.log(`  ${row.map((cell, j) => String(cell).padEnd(widths[j])).join('  ')}`);
		if (i === 0) console.log(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}`);
	}
	console.log('');
	for (const run of runs) {
		for (const [point, t] of Object.entries(run.recorderTally.byPoint)) {
			for (const m of t.missed) console.log(`  ${run.scheduler} missed (${KILL_POINTS[point]}): ${m.key}${m.documented ? ` — ${m.documented}` : ''}`);
			for (const d of t.duplicated) console.log(`  ${run.scheduler} duplicated (${KILL_POINTS[point]}): ${d}`);
		}
		for (const k of run.recorderTally.invented) console.log(`  ${run.scheduler} invented: ${k}`);
		// Where each duplicated or missed event was (executions and their status, arrivals at the recorder).
		const odd = Object.values(run.recorderTally.byPoint).flatMap((t) => [...t.missed.map((m) => m.key), ...t.duplicated.map((d) => d.replace(/ ×\d+$/, ''))]);
		for (const key of new Set(odd)) {
			const stored = run.executions.filter((e) => e.items.some((i) => eventKey(i) === key)).map((e) => `#${e.id} ${e.status}${e.recovered ? ' (recovered)' : ''}`);
			const arrived = run.received.filter((r) => eventKey(r.item) === key).map((r) => `#${r.execution} at +${((r.at - started) / 1000).toFixed(1)} s`);
			console.log(`    ${run.scheduler} ${key}: stored in ${stored.join(', ') || 'no execution'}; recorder got ${arrived.join(', ') || 'nothing'}`);
		}
	}
	console.log('');
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	log(`durable poll cursors: the Proxy Account Trigger in n8n 2.41.1 under SIGKILL, on ${options.only.join(' and ')} scheduler${options.only.length > 1 ? 's' : ''}`);
	const tgz = await buildAndPack({ log, skipBuild: !options.build });
	const recorder = await startRecorder();
	onCleanup(() => recorder.stop());
	log(`recorder at ${recorder.url}`);

	const settled = await Promise.allSettled(options.only.map((s) => runScheduler(s, { tgz, recorder })));
	const runs = [];
	for (const [i, outcome] of settled.entries()) {
		if (outcome.status === 'fulfilled') runs.push(outcome.value);
		else {
			results.push({ what: `${options.only[i]} run`, ok: false });
			log(`FAIL ${options.only[i]}: the run stopped: ${outcome.reason?.stack ?? outcome.reason}`);
		}
	}

	for (const run of runs) {
		run.recorderTally = tally(run.expected, run.received.map((r) => eventKey(r.item)));
		run.executionTally = tally(run.expected, run.executions.flatMap((e) => e.items.map(eventKey)));
		const ended = run.executions.filter((e) => e.status !== 'success');
		run.unfinished = ended;
		run.unfinishedKeys = new Set(ended.flatMap((e) => e.items.map(eventKey)));
	}
	printTable(runs);

	for (const run of runs) {
		const { scheduler } = run;
		const ids = Object.values(run.workflowIds);
		const cursors = run.db.pollerState.filter((r) => ids.includes(r.workflowId));
		const jobs = run.db.pollJobs.filter((r) => ids.includes(r.workflowId));
		if (scheduler === 'durable') {
			await check('durable: the triggers ran on durable poll cursors (poller_state rows, poll jobs, no "stay disabled" warning)', async () => {
				assert(cursors.length === ids.length && cursors.every((r) => r.cursor && r.cursor.v !== undefined), `${cursors.length} poller_state rows with a state for ${ids.length} triggers`);
				assert(jobs.length === ids.length * SCHEDULERS.durable.seconds.length, `${jobs.length} poll jobs in scheduled_job, ${ids.length * SCHEDULERS.durable.seconds.length} expected`);
				assert(!run.logText.includes(DISABLED_WARNING), `n8n logged "${DISABLED_WARNING}"`);
				assert(/Scheduler started/.test(run.logText), 'n8n never logged "Scheduler started"');
				return `${cursors.length} cursors (events ${cursors.map((r) => r.cursor.event).join(', ')}), ${jobs.length} poll jobs (${[...new Set(jobs.map((j) => j.cronExpression))].join(' | ')}); every cursor held the baseline after ${run.baselineRounds} poll round${run.baselineRounds === 1 ? '' : 's (the activation poll\'s cursor is not kept)'}`;
			});
		} else {
			await check('default: the triggers ran on the default in-memory scheduler (no poller_state rows, no poll jobs)', async () => {
				assert(cursors.length === 0, `${cursors.length} poller_state rows`);
				assert(jobs.length === 0, `${jobs.length} poll jobs`);
				return 'static data in the workflow, saved when a poll emits';
			});
		}
		await check(`${scheduler}: n8n was killed (SIGKILL) and started again at every kill point`, async () => {
			const points = run.I.kills.map((k) => k.point);
			for (const point of ['idle', 'heldReply', 'execution', 'afterReply']) assert(points.includes(point), `no kill ${KILL_POINTS[point]}`);
			return run.I.kills
				.map((k) => `${k.point} (up again in ${k.restartSeconds?.toFixed(1)} s${k.failedStarts?.length ? ` after ${k.failedStarts.length} failed start${k.failedStarts.length > 1 ? 's' : ''}: ${k.failedStarts.join(' / ')}` : ''})`)
				.join(', ');
		});
		for (const [point, t] of Object.entries(run.recorderTally.byPoint)) {
			const e = run.executionTally.byPoint[point];
			const numbers = `expected ${t.expected}, received ${t.received}, missed ${t.missed.length}, duplicated ${t.duplicated.length}; in stored executions missed ${e.missed.length}, duplicated ${e.duplicated.length}`;
			const mayRepeat = scheduler === 'durable' && run.expected.some((x) => x.point === point && x.mayRepeat);
			const what = scheduler === 'durable' ? `no event missed${mayRepeat ? '; repeated at most once, as documented' : ' or repeated'}` : 'no event repeated; missed only as documented';
			await check(`${scheduler}: ${KILL_POINTS[point]}: ${what}`, async () => {
				// A repeat is allowed only where documented (durable, a kill during a poll), and only once.
				const repeats = [...t.duplicated, ...e.duplicated];
				assert(repeats.length === 0 || (mayRepeat && repeats.every((d) => / ×2$/.test(d))), `duplicated: ${repeats.join(', ')}`);
				const allowed = (m) => (scheduler === 'default' && m.documented !== undefined);
				const badStored = e.missed.filter((m) => !allowed(m));
				assert(badStored.length === 0, `missing from n8n's executions: ${badStored.map((m) => m.key).join(', ')}`);
				// The recorder may miss only what n8n stored in an execution that died with it (downstream nodes
				// run at most once, on every scheduler).
				const badRecorded = t.missed.filter((m) => !allowed(m) && !run.unfinishedKeys.has(m.key));
				assert(badRecorded.length === 0, `never reached the recorder: ${badRecorded.map((m) => m.key).join(', ')}`);
				const crashed = t.missed.filter((m) => !allowed(m));
				return `${numbers}${crashed.length > 0 ? `; stored but killed before the recorder: ${crashed.map((m) => m.key).join(', ')}` : ''}`;
			});
		}
		await check(`${scheduler}: nothing invented (every item received is one of the script's changes)`, async () => {
			const invented = [...new Set([...run.recorderTally.invented, ...run.executionTally.invented])];
			assert(invented.length === 0, `invented: ${invented.join(', ')}`);
			return `${run.received.length} items at the recorder, ${run.executions.length} executions stored (${run.unfinished.length} not finished: ${run.unfinished.map((x) => x.status).join(', ') || 'none'})`;
		});
	}
	if (runs.length === 2) {
		await check('both schedulers ran the same script (same expected events)', async () => {
			const [a, b] = runs.map((r) => r.expected.map((e) => `${e.point} ${e.key}`).join('\n'));
			assert(a === b, 'the expected events differ between the runs');
			return `${runs[0].expected.length} events`;
		});
	}
	for (const run of runs) {
		const tallies = Object.values(run.recorderTally.byPoint);
		if (run.scheduler === 'default') {
			const documented = tallies.flatMap((t) => t.missed.filter((m) => m.documented));
			log(`measured: the default scheduler missed ${documented.length} of the ${run.expected.filter((e) => e.documented).length} changes it may miss as documented${documented.length ? `: ${documented.map((m) => m.key).join(', ')}` : ''}`);
		} else {
			const repeated = tallies.flatMap((t) => t.duplicated);
			const failed = run.I.kills.flatMap((k) => k.failedStarts ?? []);
			log(`measured: the durable scheduler repeated ${repeated.length} event${repeated.length === 1 ? '' : 's'}${repeated.length ? ` (${repeated.join(', ')}) — ${DURABLE_REPEAT}` : ''}; n8n failed ${failed.length} start${failed.length === 1 ? '' : 's'} after a kill${failed.length ? ` (${failed.join(' / ')})` : ''}`);
		}
	}
}

await runSuite('durable', main, { results, log, cleanup: runCleanups, elapsed });
