/**
 * One n8n of test:durable with its own simulator: started, killed with SIGKILL and started again on
 * the same user folder (same SQLite database), with the poll rounds read from the simulator's log.
 *
 *   const I = await startInstance({ scheduler: 'durable', env, tgz, log });
 *   await I.waitRound();          // every trigger polled once more (served replies)
 *   await I.kill();               // SIGKILL to n8n's main process, then to its group (task runner)
 *   await I.restart();
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startN8n } from '../e2e/n8n-server.mjs';
import { onCleanup, startSimulator } from '../e2e/support.mjs';
import { readN8nDb } from './db.mjs';
import { POLLS_PER_ROUND, TRIGGER_NAME } from './workflows.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function startInstance({ scheduler, env, tgz, log, simArgs = [] }) {
	const sim = await startSimulator({ port: 0, args: simArgs, log });
	onCleanup(() => sim.stop());
	const userFolder = mkdtempSync(join(tmpdir(), `proxy-account-durable-${scheduler}-`));
	// DURABLE_KEEP=1 keeps the user folders (n8n.log, database.sqlite) for a look afterwards.
	if (!process.env.DURABLE_KEEP) onCleanup(() => rmSync(userFolder, { recursive: true, force: true }));
	const common = { userFolder, keepUserFolder: true, log, env };
	let n8n = await startN8n({ ...common, packageTgz: tgz });
	onCleanup(() => n8n.stop());

	const instance = {
		scheduler,
		sim,
		userFolder,
		get n8n() {
			return n8n;
		},
		/** The highest request seq counted so far: a round is the poll requests after it. */
		mark: 0,
		kills: [],
		/** The simulator's request log (the service's requests; control calls are not logged). */
		requests: () => sim.control('GET', '/__sim/requests'),
		/** The poll requests after `since`, by route: `served` (answered) or all that arrived. */
		async pollsSince(since, { served = true } = {}) {
			const entries = await instance.requests();
			return entries.filter((r) => r.seq > since && r.route in POLLS_PER_ROUND && (!served || r.status !== null));
		},
		/** Sets the mark to the latest request: the next round starts after it. */
		async markNow() {
			const entries = await instance.requests();
			instance.mark = entries.length === 0 ? 0 : entries.at(-1).seq;
			return instance.mark;
		},
		/**
		 * Waits until every trigger polled once after the mark (the replies served), then moves the mark
		 * past that round. Returns the round's requests.
		 */
		async waitRound({ timeoutMs = 120_000 } = {}) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const polls = await instance.pollsSince(instance.mark);
				const complete = Object.entries(POLLS_PER_ROUND).every(([route, n]) => polls.filter((r) => r.route === route).length >= n);
				if (complete) {
					instance.mark = Math.max(...polls.map((r) => r.seq));
					return polls;
				}
				if (Date.now() > deadline) throw new Error(`${scheduler}: no complete poll round within ${timeoutMs / 1000} s (${polls.length} poll requests since seq ${instance.mark})`);
				await sleep(250);
			}
		},
		/** SIGKILL to n8n's main process, then to what is left of its process group. */
		async kill(point) {
			const pid = n8n.process.pid;
			const at = Date.now();
			process.kill(pid, 'SIGKILL');
			try {
				process.kill(-pid, 'SIGKILL');
			} catch {
				// The group went with its leader.
			}
			await n8n.stop();
			instance.kills.push({ point, at });
		},
		/**
		 * Starts n8n again on the same user folder and database; returns the seconds it took. A start
		 * that fails (n8n exits) is recorded on the kill (`failedStarts`: the error n8n logged) and
		 * tried again, up to `attempts` starts in all.
		 */
		async restart({ attempts = 3 } = {}) {
			const start = Date.now();
			const kill = instance.kills.at(-1);
			kill.failedStarts = [];
			for (let attempt = 1; ; attempt++) {
				try {
					n8n = await startN8n(common);
					break;
				} catch (error) {
					const lines = String(error.message).split('\n');
					const cause = lines.find((l) => /^(TypeError|Error|SyntaxError|RangeError):/.test(l.trim()) && !/Exiting due to an error/.test(l)) ?? lines[0];
					kill.failedStarts.push(cause.trim());
					log(`n8n failed to start (attempt ${attempt}): ${cause.trim()}`);
					if (attempt >= attempts) throw error;
				}
			}
			const seconds = (Date.now() - start) / 1000;
			kill.restartSeconds = seconds;
			return seconds;
		},
		db: () => readN8nDb(n8n.install, join(userFolder, '.n8n', 'database.sqlite'), TRIGGER_NAME),
		logText: () => readFileSync(join(userFolder, 'n8n.log'), 'utf8'),
		stop: async () => {
			await n8n.stop();
			await sim.stop();
		},
	};
	return instance;
}
