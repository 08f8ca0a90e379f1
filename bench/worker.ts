/* eslint-disable @n8n/community-nodes/no-restricted-globals -- benchmark tooling run by Node from the command line (timers, child processes, console output); never shipped, the package holds dist/ only */
/**
 * One benchmark side in its own process, so its peak memory is its own. The parent (bench/run.ts)
 * owns the simulator; it sends `init`, then `run` / `poll` as many times as it measures, then
 * `finish`. Every worker loads the same modules (the package, n8n-core, n8n's own nodes) before it
 * reports ready, so the memory each side adds is comparable.
 */
import type { PollHarness } from '../test/harness';
import type { BaseNodes } from './n8n-base';
import { loadBaseNodes } from './n8n-base';
import type { Engine, ExtendSide, ListSide, RotateSide, TriggerEvent } from './sides';
import { bareFetch, bareFetchSplit, createEngine, createPoller, pollOnce, pollSplit, runExtend, runList, runRotate, sinceMs, staticDataBytes, triggerPath } from './sides';
import type { ParentMessage, WorkerMessage } from './protocol';

let engine: Engine | undefined;
let poller: PollHarness | undefined;
let init: Extract<ParentMessage, { type: 'init' }> | undefined;
let rssAfterLoadKb = 0;

function send(message: WorkerMessage): void {
	process.send?.(message);
}

async function handle(message: ParentMessage): Promise<void> {
	switch (message.type) {
		case 'init': {
			init = message;
			const base: BaseNodes | undefined = message.installDir ? loadBaseNodes(message.installDir) : undefined;
			engine = createEngine(message.credentials, base);
			if (message.caseId === 'trigger') poller = createPoller(engine, message.side as TriggerEvent);
			global.gc?.();
			rssAfterLoadKb = Math.round(process.memoryUsage().rss / 1024);
			send({ type: 'ready', rssAfterLoadKb });
			return;
		}
		case 'run': {
			if (!engine || !init) throw new Error('run before init');
			const start = process.hrtime.bigint();
			const outcome =
				init.caseId === 'extend'
					? await runExtend(engine, init.side as ExtendSide, init.names ?? [], init.batchSize, init.pacing)
					: init.caseId === 'rotate'
						? await runRotate(engine, init.side as RotateSide, init.names ?? [], init.pacing)
						: await runList(engine, init.side as ListSide);
			send({ type: 'result', ms: sinceMs(start), items: outcome.items, check: outcome.check });
			return;
		}
		case 'poll': {
			if (!engine || !init || !poller) throw new Error('poll before init');
			// The same endpoint fetched bare first, then the poll: what the poll costs beyond the fetch.
			// The poll's own requests are timed from inside it as well (pollSplit).
			let bare = { httpMs: Number.NaN, parseMs: Number.NaN };
			if (message.withFetch) bare = await bareFetchSplit(engine.credentials, triggerPath(init.side as TriggerEvent));
			const start = process.hrtime.bigint();
			const outcome = await pollSplit(poller);
			const ms = sinceMs(start);
			send({
				type: 'result',
				ms,
				fetchMs: message.withFetch ? bare.httpMs + bare.parseMs : undefined,
				items: outcome.items,
				staticDataBytes: staticDataBytes(poller),
				split: { helperMs: outcome.helperMs, parseMs: outcome.parseMs, calls: outcome.calls, fetchHttpMs: bare.httpMs, fetchParseMs: bare.parseMs },
			});
			return;
		}
		case 'fetchPaths': {
			if (!engine) throw new Error('fetchPaths before init');
			const start = process.hrtime.bigint();
			for (const path of message.paths) await bareFetch(engine.credentials, path);
			send({ type: 'result', ms: sinceMs(start), items: message.paths.length });
			return;
		}
		case 'baseline': {
			if (!engine || !init) throw new Error('baseline before init');
			const fresh = createPoller(engine, init.side as TriggerEvent);
			const start = process.hrtime.bigint();
			const outcome = await pollOnce(fresh);
			send({ type: 'result', ms: sinceMs(start), items: outcome.items, staticDataBytes: staticDataBytes(fresh) });
			return;
		}
		case 'finish':
			send({ type: 'memory', maxRssKb: process.resourceUsage().maxRSS, rssAfterLoadKb });
			setImmediate(() => process.exit(0));
			return;
		default:
			throw new Error(`unknown message ${JSON.stringify(message)}`);
	}
}

let queue = Promise.resolve();
process.on('message', (message: ParentMessage) => {
	queue = queue
		.then(() => handle(message))
		.catch((error: unknown) => {
			send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
		});
});
process.on('disconnect', () => process.exit(0));
