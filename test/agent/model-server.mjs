/**
 * A scripted OpenAI-compatible chat model for n8n's OpenAI Chat Model node (test:agent), on 127.0.0.1.
 *
 *   const model = await startModelServer();
 *   model.script('floor', [
 *     { calls: [{ tool: 'extend_fixed', args: { days: 1 } }, { tool: 'extend_fixed', args: { days: 1 } }] },
 *     (conversation) => ({ content: 'done' }),
 *   ]);
 *   // the OpenAI credential's Base URL: model.url; the agent's prompt holds `SCENARIO:floor`
 *   model.toolResults('floor')   // [{ id, tool, args, content }] what the model read for each call
 *   model.toolsDeclared('floor') // [{ name, description, parameters }] as n8n declared them
 *
 * `POST /chat/completions` (and `/v1/chat/completions`): the scenario is the `SCENARIO:<id>` marker of
 * the conversation's user message; the turn is one more than the last scripted turn whose call ids
 * are in the messages (ids `call_<id>_<turn>_<k>`). A turn is `{ calls: [{ tool, args }] }` (parallel
 * tool calls in one model answer), `{ content }` (the final answer), or a function of the conversation
 * so far returning one of those. Past the script it answers `{ content: 'done' }`. Every request is
 * recorded with its messages and tools.
 */
import { createServer } from 'node:http';

const MARKER = /SCENARIO:([A-Za-z0-9_-]+)/;

/** The text of a message's content, whether a string or content parts. */
export function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('');
	return content === null || content === undefined ? '' : JSON.stringify(content);
}

export async function startModelServer({ log } = {}) {
	const scripts = new Map();
	const requests = [];
	const errors = [];

	function scenarioOf(messages) {
		for (const message of messages ?? []) {
			if (message.role !== 'user' && message.role !== 'human') continue;
			const found = MARKER.exec(textOf(message.content));
			if (found) return found[1];
		}
		return undefined;
	}

	/** One more than the highest scripted turn whose call ids the conversation holds. */
	function turnOf(id, messages) {
		let last = -1;
		const pattern = new RegExp(`^call_${id}_(\\d+)_\\d+$`);
		for (const message of messages ?? []) {
			const ids = [...(message.tool_calls ?? []).map((c) => c.id), message.tool_call_id].filter(Boolean);
			for (const callId of ids) {
				const turn = Number(pattern.exec(callId)?.[1] ?? -1);
				if (turn > last) last = turn;
			}
		}
		return last + 1;
	}

	/** What the conversation holds: the tool results by call id, with the call's tool and arguments. */
	function conversation(messages) {
		const calls = new Map();
		for (const message of messages ?? []) {
			for (const call of message.tool_calls ?? []) {
				let args;
				try {
					args = JSON.parse(call.function?.arguments ?? '{}');
				} catch {
					args = call.function?.arguments;
				}
				calls.set(call.id, { id: call.id, tool: call.function?.name, args, content: undefined });
			}
		}
		for (const message of messages ?? []) {
			if (message.role !== 'tool') continue;
			const entry = calls.get(message.tool_call_id) ?? { id: message.tool_call_id };
			entry.content = textOf(message.content);
			calls.set(message.tool_call_id, entry);
		}
		return { messages, results: [...calls.values()] };
	}

	function answer(id, turn, step, model) {
		const base = { id: `chatcmpl-${id}-${turn}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: model ?? 'scripted' };
		const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
		if (step.calls && step.calls.length > 0) {
			const toolCalls = step.calls.map((call, k) => ({
				id: `call_${id}_${turn}_${k}`,
				type: 'function',
				function: { name: call.tool, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}) },
			}));
			return { ...base, choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }], usage };
		}
		return { ...base, choices: [{ index: 0, message: { role: 'assistant', content: step.content ?? 'done' }, finish_reason: 'stop' }], usage };
	}

	const server = createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const send = (status, body) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			const path = (req.url ?? '').split('?')[0];
			if (req.method === 'GET' && /\/models$/.test(path)) {
				send(200, { object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'test' }] });
				return;
			}
			if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
				send(404, { error: { message: `no route ${req.method} ${path}` } });
				return;
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				send(400, { error: { message: 'body is not JSON' } });
				return;
			}
			const id = scenarioOf(body.messages);
			const turn = id === undefined ? 0 : turnOf(id, body.messages);
			requests.push({ at: Date.now(), path, scenario: id, turn, messages: body.messages, tools: body.tools ?? [], stream: body.stream });
			const script = id === undefined ? undefined : scripts.get(id);
			let step = script?.[turn] ?? { content: 'done' };
			try {
				if (typeof step === 'function') step = step(conversation(body.messages), turn) ?? { content: 'done' };
			} catch (error) {
				errors.push(`${id} turn ${turn}: ${error.message}`);
				step = { content: `script error: ${error.message}` };
			}
			log?.(`model: ${id ?? '(no scenario)'} turn ${turn} → ${step.calls ? step.calls.map((c) => c.tool).join(', ') : 'answer'}`);
			if (body.stream === true) {
				// Not expected (the node sends stream: false); answer as one SSE chunk anyway.
				const full = answer(id ?? 'none', turn, step, body.model);
				const message = full.choices[0].message;
				const delta = { role: 'assistant', content: message.content ?? '', tool_calls: message.tool_calls?.map((c, index) => ({ index, ...c })) };
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.write(`data: ${JSON.stringify({ ...full, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: full.choices[0].finish_reason }] })}\n\n`);
				res.end('data: [DONE]\n\n');
				return;
			}
			send(200, answer(id ?? 'none', turn, step, body.model));
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen({ port: 0, host: '127.0.0.1' }, resolve);
	});
	const { port } = server.address();
	const sockets = new Set();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	const of = (id) => requests.filter((r) => r.scenario === id);
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		errors,
		/** Sets the turns of a scenario. */
		script(id, turns) {
			scripts.set(id, turns);
		},
		/** The requests of a scenario, in order. */
		requestsOf: of,
		/** Every tool call of the scenario with what the model read back (from its last request). */
		toolResults(id) {
			const last = of(id).at(-1);
			return last ? conversation(last.messages).results : [];
		},
		/** The tools n8n declared in the scenario's first request: { name, description, parameters }. */
		toolsDeclared(id) {
			const first = of(id)[0];
			return (first?.tools ?? []).map((t) => ({ name: t.function?.name, description: t.function?.description, parameters: t.function?.parameters }));
		},
		stop: () =>
			new Promise((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
