/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- the service simulator, an HTTP server run by Node under jest and ts-node; never shipped */
/**
 * The HTTP face of the simulator: routing and dispatch (from the route table, routes.ts), the
 * gateway (auth, rate limits), fault injection, logging, and the /__sim/ control API.
 */
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import {
	applyDrift,
	DEFAULT_HUGE_BODY_BYTES,
	faultLabel,
	htmlErrorPage,
	truncateJson,
	validateFault,
} from './faults';
import { dispatch, matchRoute, ROUTE_KEYS } from './routes';
import type { Route } from './routes';
import type { Outcome, SimState } from './state';
import { formatTimestamp, toEpochMs } from './time';
import type { FaultSpec, ProxyRecord, RateLimitRule, RequestLogEntry } from './types';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json';
const HTML_TYPE = 'text/html';

interface Reply {
	status: number;
	/** Serialized body. */
	text: string;
	contentType: string;
	headers?: Record<string, string>;
}

function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
	return { status, text: JSON.stringify(body), contentType: JSON_TYPE, headers };
}

function problem(status: number, title: string, detail: string, instance: string, headers?: Record<string, string>): Reply {
	return {
		status,
		text: JSON.stringify({ type: 'about:blank', title, status, detail, instance }),
		contentType: PROBLEM_TYPE,
		headers,
	};
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** Parses a request body: JSON value, the raw string when it is not JSON, null when empty. */
function parseBody(raw: Buffer): { value: unknown; json: boolean } {
	if (raw.length === 0) return { value: null, json: false };
	const text = raw.toString('utf8');
	try {
		return { value: JSON.parse(text), json: true };
	} catch {
		return { value: text, json: false };
	}
}

/** 'pa_live_***1a2b' — enough to tell keys apart, never the key. */
export function maskKey(key: string | null): string | null {
	if (key === null) return null;
	return key.length >= 16 ? `${key.slice(0, 8)}***${key.slice(-4)}` : '***';
}

function isLoopback(address: string | undefined): boolean {
	return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

export class SimServer {
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private closed = false;
	url = '';

	constructor(private readonly state: SimState) {
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((error: unknown) => {
				if (!res.headersSent && !res.destroyed) {
					this.write(res, json(500, { ok: false, message: `Internal simulator error: ${String(error)}` }));
				} else res.destroy();
			});
		});
		this.server.on('connection', (socket: Socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	listen(port: number): Promise<string> {
		return new Promise((resolve, reject) => {
			const onError = (error: Error) => reject(error);
			this.server.once('error', onError);
			this.server.listen(port, '127.0.0.1', () => {
				this.server.off('error', onError);
				const address = this.server.address();
				if (address === null || typeof address === 'string') {
					reject(new Error('Simulator did not get a TCP address'));
					return;
				}
				this.url = `http://127.0.0.1:${address.port}`;
				resolve(this.url);
			});
		});
	}

	/** Closes the server, every open socket and every pending timer. */
	close(): Promise<void> {
		if (this.closed) return Promise.resolve();
		this.closed = true;
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		return new Promise((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
			for (const socket of this.sockets) socket.destroy();
			this.sockets.clear();
		});
	}

	/** The network model's round trip for one reply (nothing on loopback, the default). */
	private async roundTrip(): Promise<void> {
		const network = this.state.network;
		if (!network) return;
		const jitter = network.jitterMs ?? 0;
		const ms = Math.max(0, network.latencyMs + (Math.random() * 2 - 1) * jitter);
		if (ms > 0) await this.delay(ms);
	}

	private delay(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, ms);
			this.timers.add(timer);
		});
	}

	// ----- writing ------------------------------------------------------------------------------

	private headersFor(reply: Reply, length: number): Record<string, string | number> {
		const skew = this.state.dateSkewMs;
		return {
			// The reply's time: the clock's, or off by `dateSkewMs`; none at all when that is null.
			...(skew === null ? {} : { Date: new Date(this.state.clock.now() + skew).toUTCString() }),
			'Content-Type': reply.contentType,
			'Content-Length': length,
			...(reply.headers ?? {}),
		};
	}

	private write(res: ServerResponse, reply: Reply, entry?: RequestLogEntry): void {
		if (res.destroyed || res.socket === null || res.socket.destroyed) {
			if (entry) entry.status = null;
			return;
		}
		const body = Buffer.from(reply.text, 'utf8');
		const noBody = reply.status === 204 || reply.status === 304;
		res.sendDate = this.state.dateSkewMs !== null;
		res.writeHead(reply.status, this.headersFor(reply, noBody ? 0 : body.length));
		res.end(noBody ? undefined : body);
		if (entry) entry.status = reply.status;
	}

	private reset(req: IncomingMessage, entry: RequestLogEntry): void {
		entry.status = null;
		const socket = req.socket;
		if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
		else socket.destroy();
	}

	private writePartial(req: IncomingMessage, res: ServerResponse, reply: Reply, entry: RequestLogEntry): Promise<void> {
		entry.status = null;
		const body = Buffer.from(reply.text, 'utf8');
		res.writeHead(reply.status, this.headersFor(reply, body.length));
		const part = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
		return new Promise((resolve) => {
			res.write(part, () => {
				// Let the bytes reach the client, then close the connection short of Content-Length.
				void this.delay(15).then(() => {
					req.socket.destroy();
					resolve();
				});
			});
		});
	}

	// ----- service requests ---------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const raw = await readBody(req);
		const method = (req.method ?? 'GET').toUpperCase();
		const rawPath = req.url ?? '/';
		const queryAt = rawPath.indexOf('?');
		const path = queryAt >= 0 ? rawPath.slice(0, queryAt) : rawPath;
		if (path === '/__sim' || path.startsWith('/__sim/')) {
			this.control(req, res, method, path, raw);
			return;
		}

		const state = this.state;
		const parsed = parseBody(raw);
		const entry: RequestLogEntry = {
			seq: state.nextSeq(),
			at: state.clock.now(),
			method,
			path: rawPath,
			route: null,
			headers: { ...req.headers },
			body: parsed.value,
			status: null,
			apiKey: null,
		};
		state.requests.push(entry);

		const match = matchRoute(method, path);
		if (match.kind === 'not-found') {
			this.write(res, json(404, { ok: false, message: 'Not found' }), entry);
			return;
		}
		if (match.kind === 'method') {
			this.write(res, json(405, { ok: false, message: 'Method not allowed' }, { Allow: match.allow }), entry);
			return;
		}
		const route = match.route;
		entry.route = route.key;

		// The gateway: authentication, then rate limits. The rotation link carries a Limited key in
		// its path; a Limited key as bearer may only change IPs (proxies.change_ip).
		const authorization = req.headers.authorization;
		const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
		let account = bearer ? state.accounts.get(bearer[1]) : undefined;
		if (route.key === 'GET /v1/proxies/changeip/:key/:name') {
			let key = '';
			try {
				key = decodeURIComponent(match.params.key ?? '');
			} catch {
				key = '';
			}
			account = state.limitedKeys.get(key);
			if (!account) {
				this.write(res, problem(401, 'Unauthorized', 'The rotation link\'s key is not a valid Limited API key.', '/v1/proxies/changeip/***'), entry);
				return;
			}
		} else if (!account && bearer && state.limitedKeys.has(bearer[1])) {
			const limited = state.limitedKeys.get(bearer[1])!;
			if (route.key !== 'POST /v1/proxies/changeip/:name') {
				entry.apiKey = limited.limitedKey;
				this.write(res, problem(403, 'Forbidden', 'This API key is a Limited key: it may only change the IP of proxies (proxies.change_ip).', path), entry);
				return;
			}
			account = limited;
		}
		if (!account) {
			const detail = authorization === undefined
				? 'No API key was sent. Send the header Authorization: Bearer <API key>.'
				: 'The API key is missing, malformed or not valid.';
			this.write(
				res,
				problem(401, 'Unauthorized', detail, path, { 'WWW-Authenticate': 'Bearer realm="proxy-account"' }),
				entry,
			);
			return;
		}
		entry.apiKey = account.apiKey;
		const retryAfter = state.checkRateLimit(account.apiKey, route.key);
		// The rule's rate-limit headers, when it sends them, go on every reply of the endpoint.
		const limitHeaders = state.rateLimitHeaders(account.apiKey, route.key);
		const withLimits = (reply: Reply): Reply => (limitHeaders ? { ...reply, headers: { ...limitHeaders, ...(reply.headers ?? {}) } } : reply);
		if (retryAfter !== null) {
			await this.roundTrip();
			this.write(res, withLimits(this.tooManyRequests(retryAfter, path)), entry);
			return;
		}

		const fault = state.faults.take(route.key);
		if (fault) entry.fault = faultLabel(fault);

		const processRequest = (): Reply =>
			this.outcomeReply(
				dispatch(route, {
					state,
					account,
					params: match.params,
					body: { value: parsed.value, json: parsed.json, sent: raw.length > 0 },
					seq: entry.seq,
				}),
				path,
			);

		if (!fault) {
			const reply = withLimits(processRequest());
			await this.roundTrip();
			this.write(res, reply, entry);
			return;
		}
		await this.applyFault(fault, route, path, req, res, entry, processRequest);
	}

	private tooManyRequests(retryAfter: number, path: string): Reply {
		return problem(429, 'Too Many Requests', `Rate limit exceeded. Retry in ${retryAfter} s.`, path, {
			'Retry-After': String(retryAfter),
		});
	}

	private outcomeReply(outcome: Outcome, path = ''): Reply {
		if (outcome.ok) return json(outcome.status ?? 200, outcome.body);
		if (outcome.error === 'throttled') {
			return problem(429, 'Too Many Requests', outcome.message, path, { 'Retry-After': String(outcome.retryAfter ?? 60) });
		}
		const body: Record<string, unknown> = { ok: false, message: outcome.message };
		if (outcome.data !== undefined) body.data = outcome.data;
		if (this.state.businessErrors === 'ok-false-200') return json(200, body);
		const status = outcome.error === 'invalid' ? 400 : outcome.error === 'not-found' ? 404 : 402;
		return json(status, body);
	}

	private async applyFault(
		fault: FaultSpec,
		route: Route,
		path: string,
		req: IncomingMessage,
		res: ServerResponse,
		entry: RequestLogEntry,
		processRequest: () => Reply,
	): Promise<void> {
		switch (fault.kind) {
			case 'status': {
				let reply: Reply;
				if (fault.body === undefined) {
					reply = fault.status >= 400
						? json(fault.status, { ok: false, message: STATUS_CODES[fault.status] ?? 'Error' })
						: json(fault.status, { ok: true });
				} else if (typeof fault.body === 'string') {
					reply = { status: fault.status, text: fault.body, contentType: 'text/plain; charset=utf-8' };
				} else reply = json(fault.status, fault.body);
				if (fault.contentType) reply.contentType = fault.contentType;
				reply.headers = { ...(fault.headers ?? {}) };
				this.write(res, reply, entry);
				return;
			}
			case 'rateLimit':
				this.write(res, this.tooManyRequests(fault.retryAfter ?? 1, path), entry);
				return;
			case 'html': {
				const status = fault.status ?? 502;
				this.write(res, { status, text: htmlErrorPage(status), contentType: HTML_TYPE }, entry);
				return;
			}
			case 'okFalse': {
				const body: Record<string, unknown> = { ok: false, message: fault.message ?? 'Unexpected error' };
				if (fault.data !== undefined) body.data = fault.data;
				this.write(res, json(fault.status ?? 200, body), entry);
				return;
			}
			case 'malformed': {
				// A route without side effects is processed and its real body cut; one with side effects is
				// not processed and sends the cut body its table entry holds.
				const text = route.faults.sideEffects ? route.faults.malformed : truncateJson(processRequest().text);
				this.write(res, { status: 200, text, contentType: JSON_TYPE }, entry);
				return;
			}
			case 'reset':
				if ((fault.when ?? 'before') === 'before') {
					this.reset(req, entry);
					return;
				}
				if (fault.when === 'after') {
					processRequest();
					this.reset(req, entry);
					return;
				}
				await this.writePartial(req, res, processRequest(), entry);
				return;
			case 'latency':
				if (fault.when === 'before') {
					await this.delay(fault.delayMs);
					// A gateway queue drops requests whose client has gone: nothing is processed then.
					if (req.socket.destroyed) {
						entry.status = null;
						return;
					}
					this.write(res, processRequest(), entry);
					return;
				} else {
					const reply = processRequest();
					await this.delay(fault.delayMs);
					this.write(res, reply, entry);
					return;
				}
			case 'drift': {
				const reply = processRequest();
				const body: unknown = JSON.parse(reply.text);
				applyDrift(body, fault.remove, fault.set);
				this.write(res, { ...reply, text: JSON.stringify(body) }, entry);
				return;
			}
			case 'emptyList': {
				const reply = processRequest();
				if (reply.status === 200 && route.faults.emptyList) {
					const body = JSON.parse(reply.text) as Record<string, unknown>;
					if (body.ok === true && Array.isArray(body.data)) reply.text = JSON.stringify({ ...body, data: [] });
				}
				this.write(res, reply, entry);
				return;
			}
			case 'hugeBody': {
				const reply = processRequest();
				const target = fault.bytes ?? DEFAULT_HUGE_BODY_BYTES;
				const filler = ',"_padding":""}';
				if (reply.text.startsWith('{') && reply.text.length + filler.length < target) {
					const pad = 'x'.repeat(target - reply.text.length - filler.length + 1);
					reply.text = `${reply.text.slice(0, -1)},"_padding":"${pad}"}`;
				}
				this.write(res, reply, entry);
				return;
			}
		}
	}

	// ----- control API --------------------------------------------------------------------------

	private control(req: IncomingMessage, res: ServerResponse, method: string, path: string, raw: Buffer): void {
		if (!isLoopback(req.socket.remoteAddress)) {
			this.write(res, json(403, { ok: false, message: 'The control API is for loopback clients only' }));
			return;
		}
		const parsed = parseBody(raw);
		const body = (parsed.value ?? {}) as Record<string, unknown>;
		const bad = (message: string) => this.write(res, json(400, { ok: false, message }));
		const ok = (data: unknown) => this.write(res, json(200, { ok: true, data }));
		const state = this.state;
		if (raw.length > 0 && !parsed.json) {
			bad('Request body must be valid JSON');
			return;
		}
		try {
			const key = `${method} ${path}`;
			switch (key) {
				case 'GET /__sim/state':
					ok(this.stateSnapshot());
					return;
				case 'POST /__sim/clock':
					if (typeof body.advanceMs === 'number') state.clock.advance(body.advanceMs);
					else if (typeof body.set === 'number' || typeof body.set === 'string') state.clock.set(toEpochMs(body.set, 0));
					else {
						bad('Send {advanceMs: number} or {set: epoch ms | ISO string}');
						return;
					}
					ok(this.clockSnapshot());
					return;
				case 'GET /__sim/faults':
					ok(state.faults.pending().map((f) => ({ ...f, times: jsonTimes(f.times ?? 1), remaining: jsonTimes(f.remaining) })));
					return;
				case 'POST /__sim/faults': {
					const spec = { ...body };
					if (spec.times === null || spec.times === 'Infinity' || spec.times === -1) spec.times = Number.POSITIVE_INFINITY;
					validateFault(spec);
					state.faults.add(spec);
					ok({ pending: state.faults.pending().length });
					return;
				}
				case 'DELETE /__sim/faults':
					state.faults.clear();
					ok({ pending: 0 });
					return;
				case 'GET /__sim/requests':
					ok(state.requests.map(redactRequest));
					return;
				case 'GET /__sim/ledger':
					ok(state.ledger.map((e) => ({ ...e, apiKey: maskKey(e.apiKey) })));
					return;
				case 'POST /__sim/stock': {
					if (typeof body.city !== 'string') {
						bad('Send {city, carrier, count} or {city, open}');
						return;
					}
					if (body.carrier !== undefined || body.count !== undefined) {
						const carrier = state.carriers.find((c) => c.key === body.carrier || c.name === body.carrier);
						if (!carrier) {
							bad(`Unknown carrier: ${String(body.carrier)}`);
							return;
						}
						state.setStockCount(body.city, carrier.key, body.count as number);
					}
					if (body.open !== undefined) {
						if (typeof body.open !== 'boolean') {
							bad('open must be a boolean');
							return;
						}
						state.setCityOpen(body.city, body.open);
					}
					ok(state.stock.find((c) => c.city === body.city));
					return;
				}
				case 'POST /__sim/account': {
					const account = state.account(typeof body.apiKey === 'string' ? body.apiKey : undefined);
					if (body.balance !== undefined) {
						if (typeof body.balance !== 'number' || !Number.isFinite(body.balance)) {
							bad('balance must be a number');
							return;
						}
						account.balance = body.balance;
					}
					if (body.member !== undefined) {
						if (typeof body.member !== 'boolean') {
							bad('member must be a boolean');
							return;
						}
						account.member = body.member;
					}
					ok(accountSnapshot(account, state.demoApiKey));
					return;
				}
				case 'POST /__sim/proxy': {
					// Changes one proxy of an account: its expiry (in hours from the simulator's now, or a
					// timestamp) and its network status, e.g. to make a proxy near expiry for the trigger.
					const account = state.account(typeof body.apiKey === 'string' ? body.apiKey : undefined);
					const proxy = typeof body.name === 'string' ? account.proxies.get(body.name) : undefined;
					if (!proxy) {
						bad('Send {name, expiresInHours | expires_at, network_status} with the name of a proxy of the account');
						return;
					}
					if (body.expiresInHours !== undefined) {
						if (typeof body.expiresInHours !== 'number' || !Number.isFinite(body.expiresInHours)) {
							bad('expiresInHours must be a number');
							return;
						}
						proxy.expires_at = formatTimestamp(state.clock.now() + body.expiresInHours * 3_600_000, state.utcOffsetMinutes);
					} else if (body.expires_at !== undefined) {
						proxy.expires_at = formatTimestamp(toEpochMs(body.expires_at as string | number, state.clock.now()), state.utcOffsetMinutes);
					}
					if (body.network_status !== undefined) {
						if (typeof body.network_status !== 'string' || body.network_status.trim() === '') {
							bad('network_status must be a non-empty string');
							return;
						}
						proxy.network_status = body.network_status;
					}
					if (body.nickname !== undefined) {
						// Text the account holder typed on the dashboard: tests set hostile text here.
						if (typeof body.nickname !== 'string' && body.nickname !== null) {
							bad('nickname must be a string or null');
							return;
						}
						proxy.nickname = body.nickname;
					}
					ok({ proxy_name: proxy.proxy_name, expires_at: proxy.expires_at, network_status: proxy.network_status, nickname: proxy.nickname });
					return;
				}
				case 'POST /__sim/orders': {
					// What a swap costs and how long orders take (as tests set them in-process through sim.orders).
					const numbers = ['swapPrice', 'swapDelayMs', 'deployDelayMs', 'removeDelayMs'] as const;
					for (const name of numbers) {
						const value = body[name];
						if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
							bad(`${name} must be a non-negative number`);
							return;
						}
					}
					for (const name of numbers) if (typeof body[name] === 'number') state[name] = body[name] as number;
					ok({ swapPrice: state.swapPrice, swapDelayMs: state.swapDelayMs, deployDelayMs: state.deployDelayMs, removeDelayMs: state.removeDelayMs });
					return;
				}
				case 'POST /__sim/discard-proxy': {
					if (typeof body.name !== 'string') {
						bad('Send {name, apiKey?}: the proxy to delete at once');
						return;
					}
					const existed = state.discardProxy(typeof body.apiKey === 'string' ? body.apiKey : undefined, body.name);
					ok({ discarded: existed });
					return;
				}
				case 'POST /__sim/rate-limit': {
					// Sets the rate limit of one route for every key ({route, limit, windowMs, headers?, retryAfter?, claim?}),
					// or lifts it ({route, limit: null}): e.g. a long window whose 429 asks for an hour.
					const route = ROUTE_KEYS.find((k) => k === body.route);
					if (!route) {
						bad(`Send {route, limit, windowMs, headers?} or {route, limit: null}; route is one of ${ROUTE_KEYS.join(', ')}`);
						return;
					}
					if (body.limit === null) {
						state.setRateLimit(route, null);
						ok({ route, rule: null });
						return;
					}
					const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1;
					if (!whole(body.limit) || !whole(body.windowMs) || (body.headers !== undefined && body.headers !== 'draft' && body.headers !== 'x')) {
						bad('limit and windowMs must be whole numbers from 1; headers is "draft", "x" or absent');
						return;
					}
					const claim = body.claim as Record<string, unknown> | undefined;
					const claimOk = claim === undefined || (typeof claim === 'object' && claim !== null && Object.entries(claim).every(([k, v]) => ['limit', 'remaining', 'reset'].includes(k) && typeof v === 'string'));
					if ((body.retryAfter !== undefined && body.retryAfter !== 'ceil' && body.retryAfter !== 'floor') || !claimOk) {
						bad('retryAfter is "ceil", "floor" or absent; claim is {limit?, remaining?, reset?} of strings');
						return;
					}
					const rule: RateLimitRule = { limit: body.limit as number, windowMs: body.windowMs as number };
					if (body.headers !== undefined) rule.headers = body.headers as 'draft' | 'x';
					if (body.retryAfter !== undefined) rule.retryAfter = body.retryAfter as 'ceil' | 'floor';
					if (claim !== undefined) rule.claim = claim as RateLimitRule['claim'];
					state.setRateLimit(route, rule);
					ok({ route, rule });
					return;
				}
				case 'POST /__sim/reset-logs':
					state.resetLogs();
					ok({ requests: 0, ledger: 0 });
					return;
				default:
					this.write(res, json(404, { ok: false, message: `Unknown control endpoint: ${method} ${path}` }));
			}
		} catch (error) {
			bad(error instanceof Error ? error.message : String(error));
		}
	}

	private clockSnapshot() {
		const now = this.state.clock.now();
		return { now, iso: formatTimestamp(now, this.state.utcOffsetMinutes), frozen: this.state.clock.isFrozen };
	}

	private stateSnapshot() {
		const state = this.state;
		state.settleOrders(); // purchases, moves and removals that are due show, as in GET /v1/proxies
		return {
			url: this.url,
			seed: state.seed,
			clock: this.clockSnapshot(),
			utcOffsetMinutes: state.utcOffsetMinutes,
			businessErrors: state.businessErrors,
			accounts: Array.from(state.accounts.values()).map((a) => accountSnapshot(a, state.demoApiKey)),
			// The demo account's proxies, a few fields each (the whole records: GET /v1/proxies with its key).
			proxies: Array.from(state.account().proxies.values()).map(proxySummary),
			carriers: state.carriers.map((c) => ({ ...c })),
			cities: state.stock.length,
			stock: state.stock.map((c) => ({ city: c.city, state: c.state, open: c.open, counts: { ...c.counts } })),
			faults: state.faults.pending().length,
			requests: state.requests.length,
			ledger: state.ledger.length,
		};
	}
}

function jsonTimes(n: number): number | 'Infinity' {
	return Number.isFinite(n) ? n : 'Infinity';
}

function accountSnapshot(a: { apiKey: string; balance: number; member: boolean; proxies: Map<string, unknown> }, demoKey: string) {
	return { apiKey: maskKey(a.apiKey), demo: a.apiKey === demoKey, balance: a.balance, member: a.member, proxies: a.proxies.size };
}

function proxySummary(p: ProxyRecord) {
	const { proxy_name, isp, city, state, expires_at, network_status, auto_renew } = p;
	return { proxy_name, isp, city, state, expires_at, network_status, auto_renew };
}

function redactRequest(entry: RequestLogEntry): RequestLogEntry {
	const headers = { ...entry.headers };
	if (headers.authorization !== undefined) {
		headers.authorization = /^Bearer\s/i.test(String(headers.authorization)) ? 'Bearer ***' : '***';
	}
	return { ...entry, headers, apiKey: maskKey(entry.apiKey) };
}
