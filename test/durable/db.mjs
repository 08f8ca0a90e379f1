/**
 * Reads n8n's SQLite database for test:durable. n8n 2.41.1's sqlite3 is built for Node 24, so the
 * query runs in a child process on n8n's own Node with n8n's own `sqlite3` and `flatted` (execution
 * data is stored in flatted form). Read-only; safe while n8n runs.
 *
 *   const facts = await readN8nDb(n8n.install, join(userFolder, '.n8n', 'database.sqlite'), 'Trigger');
 *   facts.pollerState   // [{ workflowId, nodeId, cursor (parsed), updatedAt }]
 *   facts.pollJobs      // scheduled_job rows of poll triggers: [{ workflowId, cronExpression }]
 *   facts.executions    // [{ id, workflowId, status, mode, items: [trigger item json …], recovered }]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Runs in the child (CommonJS, n8n's Node): argv[1] = database, argv[2] = trigger node name.
const CHILD = `
const [dbPath, triggerName] = process.argv.slice(1);
const sqlite3 = require('sqlite3');
const { parse } = require('flatted');
const db = new sqlite3.Database(dbPath, sqlite3.OPEN_READONLY);
const all = (sql) => new Promise((resolve, reject) => db.all(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
const tables = async () => new Set((await all("select name from sqlite_master where type = 'table'")).map((r) => r.name));
// n8n's recovery after a crash marks a node it saw start as run with an artificial item
// (isArtificialRecoveredEventItem): the trigger's items are then still in the execution stack, as
// the trigger's own start data or as the input of the node after it.
function triggerItems(data) {
	const runs = data?.resultData?.runData?.[triggerName];
	const ran = Array.isArray(runs) && runs.length > 0 ? (runs[0].data?.main?.[0] ?? []).map((i) => i.json) : undefined;
	if (ran && !ran.some((j) => j && j.isArtificialRecoveredEventItem)) return { items: ran, recovered: false };
	const stack = data?.executionData?.nodeExecutionStack ?? [];
	const entry = stack.find((e) => e.node?.name === triggerName) ?? stack.find((e) => e.source?.main?.[0]?.previousNode === triggerName);
	if (entry) return { items: (entry.data?.main?.[0] ?? []).map((i) => i.json), recovered: ran !== undefined };
	return { items: ran ?? [], recovered: ran !== undefined };
}
(async () => {
	const have = await tables();
	const out = { pollerState: [], pollJobs: [], executions: [] };
	if (have.has('poller_state')) {
		out.pollerState = (await all('select "workflowId", "nodeId", cursor, "updatedAt" from poller_state')).map((r) => {
			let cursor = r.cursor;
			try { cursor = JSON.parse(r.cursor); } catch {}
			return { ...r, cursor };
		});
	}
	if (have.has('scheduled_job')) {
		out.pollJobs = (await all(\`select "ownerId" as "workflowId", "cronExpression" from scheduled_job where "taskType" = 'workflow:poll-trigger'\`));
	}
	const rows = await all('select e.id, e."workflowId", e.status, e.mode, d.data from execution_entity e left join execution_data d on d."executionId" = e.id order by e.id');
	for (const row of rows) {
		let found = { items: [], recovered: false };
		let unreadable;
		try {
			if (row.data) found = triggerItems(parse(row.data));
		} catch (error) {
			unreadable = error.message;
		}
		out.executions.push({ id: String(row.id), workflowId: row.workflowId, status: row.status, mode: row.mode, ...found, unreadable });
	}
	process.stdout.write(JSON.stringify(out));
	db.close();
})().catch((error) => {
	process.stderr.write(String(error.stack ?? error));
	process.exit(1);
});
`;

/** The poller state, poll jobs and executions (with their trigger items) of an n8n user folder's database. */
export function readN8nDb(install, dbPath, triggerName) {
	if (!existsSync(dbPath)) return Promise.reject(new Error(`no database at ${dbPath}`));
	const nodeModules = join(dirname(install.n8nEntry), '..', '..');
	return new Promise((resolve, reject) => {
		const child = spawn(install.nodeBinary, ['-e', CHILD, dbPath, triggerName], {
			cwd: nodeModules,
			env: { PATH: process.env.PATH, NODE_PATH: nodeModules },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c) => (stdout += c));
		child.stderr.on('data', (c) => (stderr += c));
		child.on('error', reject);
		child.on('close', (code) => {
			if (code !== 0) reject(new Error(`reading ${dbPath} failed (exit ${code}): ${stderr.slice(0, 500)}`));
			else {
				try {
					resolve(JSON.parse(stdout));
				} catch (error) {
					reject(new Error(`reading ${dbPath}: ${error.message}: ${stdout.slice(0, 200)}`));
				}
			}
		});
	});
}
