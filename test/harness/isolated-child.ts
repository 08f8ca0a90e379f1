/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a child process of the jest tests (process IPC, a heartbeat timer, n8n-core's folder through the environment); never shipped */
/**
 * Runs one node in n8n-core's real WorkflowExecute in a process of its own, for a test that must
 * see whether the run froze the event loop: a heartbeat goes to the parent every 100 ms while the
 * loop turns, and the result once the run ends (isolated.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IsolatedRequest, IsolatedReply } from './isolated';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-proxy-account-test-'));

const send = (message: IsolatedReply) => process.send?.(message);
const beat = setInterval(() => send({ type: 'beat' }), 100);

// Loaded before the parent is told it is ready (n8n-core reads N8N_USER_FOLDER when it loads).
void import('./index').then(({ createHarness }) => {
	const harness = createHarness();
	process.on('message', (request: IsolatedRequest) => {
		void (async () => {
			try {
				const started = Date.now();
				const result = await harness.runNode(request.node, request.options);
				send({
					type: 'result',
					elapsedMs: Date.now() - started,
					status: result.status,
					items: result.items.map((item) => item.json),
					error: result.error?.message,
				});
			} catch (error) {
				send({ type: 'result', elapsedMs: 0, status: 'error', items: [], error: String(error) });
			} finally {
				clearInterval(beat);
				process.disconnect?.();
			}
		})();
	});
	send({ type: 'ready' });
});
