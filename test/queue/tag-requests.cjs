/**
 * Loaded into each n8n process of the queue-mode test with `node --require`: every HTTP request the
 * process sends carries `x-test-process: <its name>` (PROXY_ACCOUNT_TEST_PROCESS), so the
 * simulator's request log tells which process (main, worker-1, worker-2) sent it. Test
 * instrumentation only; n8n's behaviour is otherwise unchanged.
 */
const http = require('node:http');

const name = process.env.PROXY_ACCOUNT_TEST_PROCESS;
if (name) {
	const request = http.request;
	http.request = function taggedRequest(...args) {
		const req = request.apply(this, args);
		if (!req.headersSent) req.setHeader('x-test-process', name);
		return req;
	};
}
