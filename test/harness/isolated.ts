/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test tooling: forks a child process and watches it with timers; never shipped */
/**
 * `runNodeIsolated`: a node run in a child process (isolated-child.ts) watched from the test's own
 * process, so a run that never awaits (a loop that freezes the event loop) fails the test instead
 * of freezing jest: the child's heartbeat stopping for `frozenMs`, or no result within `deadlineMs`,
 * kills it and rejects with what was seen. The heartbeat's 10 s: a loop that never awaits freezes
 * for good and is caught all the same, while a machine busy with another test suite (which has held
 * a child's heartbeat for 3.3 s) does not fail a run that awaits (issue 35).
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import type { NodeUnderTest, RunOptions } from './workflow';

export interface IsolatedRequest {
	node: NodeUnderTest;
	options: RunOptions;
}

export type IsolatedReply =
	| { type: 'ready' }
	| { type: 'beat' }
	| { type: 'result'; elapsedMs: number; status: string; items: IDataObject[]; error?: string };

export type IsolatedResult = Extract<IsolatedReply, { type: 'result' }>;

export async function runNodeIsolated(
	request: IsolatedRequest,
	{ deadlineMs, frozenMs = 10_000 }: { deadlineMs: number; frozenMs?: number },
): Promise<IsolatedResult> {
	const child = fork(join(__dirname, 'isolated-child.ts'), [], {
		execArgv: ['-r', require.resolve('ts-node/register/transpile-only')],
		// Without it, `ProxyAccount.node` would resolve to the codex file ProxyAccount.node.json.
		env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' },
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
	});
	return await new Promise<IsolatedResult>((resolve, reject) => {
		let lastBeat = Date.now();
		let runStarted: number | undefined;
		const end = (outcome: () => void) => {
			clearInterval(watch);
			child.kill('SIGKILL');
			outcome();
		};
		const watch = setInterval(() => {
			const now = Date.now();
			const started = runStarted;
			if (started === undefined) return;
			if (now - lastBeat > frozenMs) end(() => reject(new Error(`the run froze the event loop: no heartbeat for ${now - lastBeat} ms, ${now - started} ms into the run`)));
			else if (now - started > deadlineMs) end(() => reject(new Error(`the run did not end within ${deadlineMs} ms`)));
		}, 100);
		child.on('message', (message: IsolatedReply) => {
			lastBeat = Date.now();
			if (message.type === 'ready') {
				runStarted = Date.now();
				child.send(request);
			} else if (message.type === 'result') end(() => resolve(message));
		});
		child.on('exit', (code) => end(() => reject(new Error(`the child process ended (${code}) before its result`))));
	});
}
