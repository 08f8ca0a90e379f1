/**
 * The recorder of test:durable, on 127.0.0.1: every workflow of the suite ends in an HTTP Request
 * node that POSTs each item its Proxy Account Trigger emitted to
 * `/record/<scheduler>/<workflow key>?execution=<id>`. The recorder keeps what arrived, in order.
 *
 *   const recorder = await startRecorder();
 *   recorder.url;                          // http://127.0.0.1:<port>
 *   recorder.items('durable');             // [{ workflow, execution, item, at }]
 *   recorder.hold('durable', true);        // received but not answered: the execution waits
 *   await recorder.stop();
 *
 * While a scheduler is held, requests are recorded on arrival and answered only when the hold is
 * lifted (or never, when n8n dies meanwhile): the suite kills n8n while its executions wait here.
 */
import { createServer } from 'node:http';

export async function startRecorder() {
	const received = [];
	const held = new Map();
	const waiting = new Map();
	const sockets = new Set();

	const server = createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const match = /^\/record\/([a-z]+)\/([A-Za-z]+)$/.exec(url.pathname);
			if (req.method !== 'POST' || !match) {
				res.writeHead(404, { 'content-type': 'application/json' }).end('{"ok":false}');
				return;
			}
			let item;
			try {
				item = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				item = { unparsable: Buffer.concat(chunks).toString('utf8').slice(0, 200) };
			}
			const [, scheduler, workflow] = match;
			received.push({ scheduler, workflow, execution: url.searchParams.get('execution'), item, at: Date.now() });
			const answer = () => {
				if (!res.writableEnded) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			};
			if (held.get(scheduler)) {
				const list = waiting.get(scheduler) ?? [];
				list.push(answer);
				waiting.set(scheduler, list);
			} else answer();
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen({ port: 0, host: '127.0.0.1' }, resolve);
	});
	const { port } = server.address();
	return {
		url: `http://127.0.0.1:${port}`,
		items: (scheduler) => received.filter((r) => r.scheduler === scheduler),
		hold(scheduler, on) {
			held.set(scheduler, on);
			if (!on) {
				for (const answer of waiting.get(scheduler) ?? []) answer();
				waiting.delete(scheduler);
			}
		},
		stop: () =>
			new Promise((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
