/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test tooling: an HTTP server and client run by Node under jest; never shipped */
/**
 * A hostile front server for tests: a real HTTP server on 127.0.0.1 that sits between the node under
 * test and the simulator (or any upstream) and misbehaves on request, in the ways a real gateway,
 * CDN or replica can: it redirects, trickles bodies, answers something else after the service has
 * already acted, delays, serves stale reads after a write, and drops list entries.
 *
 *   const front = await HostileFront.start(sim.url);
 *   front.add({ route: 'POST /v1/proxies/allocate', kind: 'rewrite', reply: 'status', status: 500 });
 *   // ... point the credential's Base URL at front.url ...
 *   front.log;                 // every request the front saw
 *   front.sink.requests;       // what reached the redirect target
 *   await front.stop();
 *
 * API
 * - `HostileFront.start(upstream, options?)`: starts the front on 127.0.0.1 (a free port) and a
 *   {@link Sink} on 127.0.0.2 (`options.sinkHost` to change it). `upstream` is a base URL such as
 *   `sim.url`; a path in it is put in front of every forwarded path.
 * - `front.url`, `front.upstream`, `front.sink`, `front.sinkOrigin` (`http://127.0.0.2:<port>`).
 * - `front.add(rule)`: queues a {@link HostileRule}; throws when the rule is not usable.
 * - `front.clear()`: drops every queued rule (an active lag ends). The log and what the front
 *   remembers of past list replies are kept.
 * - `front.pending()`: the rules still queued, with their uses left and whether a lag is armed.
 * - `front.log`: one {@link HostileLogEntry} per request, in arrival order; `front.resetLog()`
 *   empties it. It never holds the Authorization header or any other header.
 * - `front.stop()`: closes both servers, every socket (hanging and trickling replies included),
 *   every upstream request and every timer. Safe to call twice.
 *
 * Without rules the front is transparent: method, path and query, headers (Authorization included)
 * and body go upstream unchanged, and the upstream's status, headers (content-type, retry-after,
 * date, ...) and body come back unchanged. Only hop-by-hop headers (connection, keep-alive,
 * transfer-encoding, ...) are the front's own; bodies are buffered, so Content-Length is always
 * sent. When the upstream fails at the transport level (refused, reset, body cut short) the front
 * resets the client's connection in turn.
 *
 * Rules are matched in insertion order by route, like the simulator's faults: `route` is a
 * {@link RouteKey} or '*' (any request that has a service route; a 404, a 405 and the simulator's
 * /__sim/ control API never match). The path is matched as the simulator's server matches it, query
 * string ignored. A request takes at most one rule; each rule is used `times` times (default 1,
 * Infinity = until `clear()`). Lag rules are the exception: see below.
 *
 * Rule kinds
 * - `redirect` { status: 301|302|303|307|308, to?, forward? }: answers that status with
 *   `Location: <to><original path and query>` (default `to`: the sink's origin) and an empty body.
 *   With `forward: true` the request first goes upstream (so the service acts: an allocate
 *   charges) and the redirect is sent instead of its reply.
 * - `trickle` { intervalMs = 200, bytes = 1 }: forwards, sends the upstream's status and headers
 *   (Content-Length included) at once, then the body `bytes` bytes at a time: the first chunk at
 *   once, each next one `intervalMs` later. Stops when the client goes away.
 * - `rewrite` (the service has already acted): forwards, waits for the complete reply, then instead:
 *   - `reply: 'status'` { status, body?, contentType?, headers? }: that status; an object body is
 *     sent as JSON, a string as text/plain (or `contentType`). Default body:
 *     `{"ok":false,"message":<the status' reason phrase, e.g. "Internal Server Error">}` for
 *     status >= 400, `{"ok":true}` below.
 *   - `reply: 'reset'`: resets the client's connection.
 *   - `reply: 'hang'`: sends nothing and keeps the connection open until the client closes it or
 *     the front stops.
 *   - `reply: 'malformed'`: status 200, the upstream's JSON cut in half (never valid JSON).
 *   - `reply: 'transform'` { transform(json) }: the upstream's status and headers, body = the JSON
 *     of what `transform` returns (it may mutate and return its argument; it gets the raw text
 *     when the upstream body is not JSON).
 * - `delay` { ms, when = 'before' }: 'before' holds the request before forwarding it (a request
 *   whose client went away meanwhile is not forwarded, as a gateway queue drops it); 'after' holds
 *   the upstream's reply before relaying it.
 * - `lag` { reads = 1, forMs? }: reads lag behind writes. The front remembers the last successful
 *   `GET /v1/proxies` list it relayed, per Authorization header value. A queued lag rule is armed by
 *   the next `POST /v1/proxies/allocate` that the front forwards (arming does not take the
 *   allocate's rule: another rule may still apply to it; a redirect without `forward` does not arm). While armed, reads sent with the same Authorization
 *   are still forwarded (the service logs them) but a 2xx reply is replaced by the remembered
 *   pre-charge list; `GET /v1/proxies/:name` gets the matching record of it as
 *   `{"ok":true,"data":record}`. The lag lasts `reads` such reads, or `forMs` ms from the arming
 *   when given; then one use of the rule is spent (with `times` > 1 it waits for the next
 *   allocate). Its `route` picks the reads that lag: 'GET /v1/proxies', 'GET /v1/proxies/:name' or
 *   '*' for both. A read for which nothing is remembered (prime it with a `GET /v1/proxies` through
 *   the front before the allocate), or a name not in the remembered list, is relayed as is and
 *   does not count.
 * - `drop` { names?, count?, fraction?, seed = 1 }: on a list reply (`GET /v1/proxies` or
 *   `GET /v1/stock`, `{ok:true, data:[...]}`) removes entries from `data`: those whose `proxy_name`
 *   (proxies) or `city` (stock) is in `names`; else the first `count`; else
 *   `Math.round(fraction * length)` entries picked by a random generator seeded with `seed` (the
 *   same seed drops the same entries of the same list). Everything else is relayed unchanged. A
 *   drop rule on '*' matches only the two list routes.
 *
 * The sink (see {@link Sink}) answers everything 200 `{"ok":true,"message":"ok","data":[]}` so a
 * client that follows a redirect appears to succeed; it records every request in full, headers
 * included, so a test can see whether the API key went along.
 */
import { Agent, createServer, request as httpRequest, STATUS_CODES } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { truncateJson } from '../simulator/faults';
import { matchRoute, ROUTE_KEYS } from '../simulator/routes';
import type { RouteKey } from '../simulator/routes';
import { Rng } from '../simulator/seed';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** Headers that belong to one connection, never passed on. */
const HOP_BY_HOP = new Set([
	'connection',
	'keep-alive',
	'proxy-connection',
	'transfer-encoding',
	'te',
	'trailer',
	'upgrade',
	'content-length',
]);

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

export const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 303, 307, 308];

/** What a `rewrite` rule answers instead of the upstream's reply. */
export type RewriteReply =
	| {
			reply: 'status';
			status: number;
			/** An object is sent as JSON, a string as is. */
			body?: string | object;
			contentType?: string;
			headers?: Record<string, string>;
	  }
	| { reply: 'reset' }
	| { reply: 'hang' }
	| { reply: 'malformed' }
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	| { reply: 'transform'; transform: (json: any) => unknown };

export type HostileRule = {
	route: RouteKey | '*';
	/** Default 1; Infinity = until `clear()`. */
	times?: number;
	/** Shown in the log instead of the generated label (e.g. 'rewrite:status:500'). */
	label?: string;
} & (
	| { kind: 'redirect'; status: RedirectStatus; to?: string; forward?: boolean }
	| { kind: 'trickle'; intervalMs?: number; bytes?: number }
	| ({ kind: 'rewrite' } & RewriteReply)
	| { kind: 'delay'; ms: number; when?: 'before' | 'after' }
	| { kind: 'lag'; reads?: number; forMs?: number }
	| { kind: 'drop'; names?: string[]; count?: number; fraction?: number; seed?: number }
);

export type HostileRuleKind = HostileRule['kind'];

export const HOSTILE_RULE_KINDS: readonly HostileRuleKind[] = ['redirect', 'trickle', 'rewrite', 'delay', 'lag', 'drop'];

export type PendingRule = HostileRule & {
	/** Uses left (Infinity for until-cleared). */
	remaining: number;
	/** A lag rule that an allocate has armed and that is serving stale reads. */
	armed: boolean;
};

export interface HostileLogEntry {
	/** 1, 2, 3, ... in arrival order. */
	seq: number;
	/** Wall-clock ms when the request arrived. */
	at: number;
	method: string;
	/** Raw path as received, query string included. */
	path: string;
	/** The simulator's route for it; null for a 404, a 405 or the control API. */
	route: RouteKey | null;
	/** Label of the rule that was applied. */
	rule?: string;
	/** 'armed': this allocate armed a lag rule; 'served': this read was answered from the lag. */
	lag?: 'armed' | 'served';
	/** The upstream's status; null when forwarding failed; absent when not forwarded. */
	upstreamStatus?: number | null;
	/**
	 * Status of the reply the client received in full; null while in flight and when it got none
	 * (reset, hang, client gone, body cut).
	 */
	status: number | null;
}

export interface SinkRequest {
	/** Wall-clock ms when the request arrived. */
	at: number;
	method: string;
	/** Raw path, query string included. */
	path: string;
	/** Every header as received, Authorization included (that is what a test looks for). */
	headers: IncomingHttpHeaders;
	body: string;
}

export interface HostileFrontOptions {
	/** Where the sink listens; default '127.0.0.2' (another origin than the front's). */
	sinkHost?: string;
}

interface QueuedRule {
	spec: HostileRule;
	label: string;
	remaining: number;
	rng?: Rng;
	armed?: ArmedLag;
}

interface ArmedLag {
	authorization: string | undefined;
	/** Reads left; undefined when the lag lasts for a time. */
	readsLeft?: number;
	timer?: NodeJS.Timeout;
}

interface UpstreamReply {
	status: number;
	statusMessage?: string;
	/** Upstream headers, original case, hop-by-hop and Content-Length removed. */
	headers: OutgoingHttpHeaders;
	body: Buffer;
}

interface RememberedList {
	text: string;
	data: unknown[];
}

/** The simulator's routing, without its 404/405 answers: null when the request has no route. */
export function routeOf(method: string, rawPath: string): { route: RouteKey; name?: string } | null {
	const queryAt = rawPath.indexOf('?');
	const path = queryAt >= 0 ? rawPath.slice(0, queryAt) : rawPath;
	const match = matchRoute(method.toUpperCase(), path);
	if (match.kind !== 'route') return null;
	const name = match.params.name;
	return name === undefined ? { route: match.route.key } : { route: match.route.key, name };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** rawHeaders as an object with the original case, without hop-by-hop headers. */
function endToEndHeaders(rawHeaders: string[]): OutgoingHttpHeaders {
	const out: OutgoingHttpHeaders = {};
	const keyOf = new Map<string, string>();
	for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
		const name = rawHeaders[i];
		const value = rawHeaders[i + 1];
		const lower = name.toLowerCase();
		if (HOP_BY_HOP.has(lower)) continue;
		const key = keyOf.get(lower);
		if (key === undefined) {
			keyOf.set(lower, name);
			out[name] = value;
		} else {
			const previous = out[key];
			out[key] = Array.isArray(previous) ? [...previous, value] : [String(previous), value];
		}
	}
	return out;
}

/** Sets a header, replacing one of the same name in any case. */
function setHeader(headers: OutgoingHttpHeaders, name: string, value: string): void {
	for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
	headers[name] = value;
}

function pickHeader(headers: OutgoingHttpHeaders, name: string): OutgoingHttpHeaders {
	for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name.toLowerCase()) return { [key]: value };
	return {};
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

/** A `{ok: true, data: [...]}` list body, or undefined. */
function listBody(text: string): { body: Record<string, unknown>; data: unknown[] } | undefined {
	const parsed = parseJson(text);
	if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) return undefined;
	const body = parsed.value as Record<string, unknown>;
	if (body.ok !== true || !Array.isArray(body.data)) return undefined;
	return { body, data: body.data };
}

function fieldOf(entry: unknown, field: string): unknown {
	return typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[field] : undefined;
}

function isCount(value: unknown): boolean {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Throws a descriptive Error when `rule` is not a usable HostileRule. */
export function validateRule(rule: unknown): asserts rule is HostileRule {
	if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new Error('rule must be an object');
	const r = rule as Record<string, unknown>;
	if (r.route !== '*' && !ROUTE_KEYS.includes(r.route as RouteKey)) {
		throw new Error(`rule.route must be '*' or one of ${ROUTE_KEYS.join(', ')}`);
	}
	if (!HOSTILE_RULE_KINDS.includes(r.kind as HostileRuleKind)) {
		throw new Error(`rule.kind must be one of ${HOSTILE_RULE_KINDS.join(', ')}`);
	}
	if (r.times !== undefined && (typeof r.times !== 'number' || Number.isNaN(r.times) || r.times < 0)) {
		throw new Error('rule.times must be a non-negative number (Infinity = until cleared)');
	}
	if (r.label !== undefined && typeof r.label !== 'string') throw new Error('rule.label must be a string');
	const nonNegative = (name: string) => {
		const v = r[name];
		if (v !== undefined && (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v))) {
			throw new Error(`rule.${name} must be a non-negative number`);
		}
	};
	switch (r.kind) {
		case 'redirect':
			if (!REDIRECT_STATUSES.includes(r.status as RedirectStatus)) {
				throw new Error(`rule.status must be one of ${REDIRECT_STATUSES.join(', ')}`);
			}
			if (r.to !== undefined && typeof r.to !== 'string') throw new Error('rule.to must be a string');
			if (r.forward !== undefined && typeof r.forward !== 'boolean') throw new Error('rule.forward must be a boolean');
			break;
		case 'trickle':
			nonNegative('intervalMs');
			if (r.bytes !== undefined && (!isCount(r.bytes) || r.bytes === 0)) throw new Error('rule.bytes must be a positive integer');
			break;
		case 'rewrite':
			switch (r.reply) {
				case 'status':
					if (typeof r.status !== 'number' || !Number.isInteger(r.status) || r.status < 200 || r.status > 599) {
						throw new Error('rule.status must be an HTTP status code from 200 to 599');
					}
					break;
				case 'transform':
					if (typeof r.transform !== 'function') throw new Error('rule.transform must be a function');
					break;
				case 'reset':
				case 'hang':
				case 'malformed':
					break;
				default:
					throw new Error("rule.reply must be 'status', 'reset', 'hang', 'malformed' or 'transform'");
			}
			break;
		case 'delay':
			if (typeof r.ms !== 'number') throw new Error('rule.ms must be a non-negative number');
			nonNegative('ms');
			if (r.when !== undefined && r.when !== 'before' && r.when !== 'after') {
				throw new Error("rule.when must be 'before' or 'after'");
			}
			break;
		case 'lag':
			if (r.route !== '*' && r.route !== 'GET /v1/proxies' && r.route !== 'GET /v1/proxies/:name') {
				throw new Error("a lag rule's route must be 'GET /v1/proxies', 'GET /v1/proxies/:name' or '*'");
			}
			if (r.reads !== undefined && (!isCount(r.reads) || r.reads === 0)) throw new Error('rule.reads must be a positive integer');
			nonNegative('forMs');
			break;
		case 'drop':
			if (r.route !== '*' && r.route !== 'GET /v1/proxies' && r.route !== 'GET /v1/stock') {
				throw new Error("a drop rule's route must be 'GET /v1/proxies', 'GET /v1/stock' or '*'");
			}
			if (r.names !== undefined && (!Array.isArray(r.names) || !r.names.every((n) => typeof n === 'string'))) {
				throw new Error('rule.names must be a list of strings');
			}
			if (r.count !== undefined && !isCount(r.count)) throw new Error('rule.count must be a non-negative integer');
			if (r.fraction !== undefined && (typeof r.fraction !== 'number' || !(r.fraction >= 0 && r.fraction <= 1))) {
				throw new Error('rule.fraction must be a number from 0 to 1');
			}
			if (r.seed !== undefined && (typeof r.seed !== 'number' || !Number.isFinite(r.seed))) throw new Error('rule.seed must be a number');
			if (r.names === undefined && r.count === undefined && r.fraction === undefined) {
				throw new Error('a drop rule needs names, count or fraction');
			}
			break;
	}
}

/** The log label of a rule, e.g. 'redirect:307:forward', 'rewrite:status:500', 'delay:after'. */
export function ruleLabel(rule: HostileRule): string {
	if (rule.label !== undefined) return rule.label;
	switch (rule.kind) {
		case 'redirect':
			return `redirect:${rule.status}${rule.forward ? ':forward' : ''}`;
		case 'rewrite':
			return rule.reply === 'status' ? `rewrite:status:${rule.status}` : `rewrite:${rule.reply}`;
		case 'delay':
			return `delay:${rule.when ?? 'before'}`;
		default:
			return rule.kind;
	}
}

/** Tracks the sockets of a server so it can be closed at once. */
function trackSockets(server: Server, sockets: Set<Socket>): void {
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
}

function listen(server: Server, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const onError = (error: Error) => reject(error);
		server.once('error', onError);
		server.listen(0, host, () => {
			server.off('error', onError);
			const address = server.address();
			if (address === null || typeof address === 'string') reject(new Error('The server did not get a TCP address'));
			else resolve(address.port);
		});
	});
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
	return new Promise((resolve) => {
		if (!server.listening) {
			resolve();
			return;
		}
		server.close(() => resolve());
		server.closeAllConnections();
		for (const socket of sockets) socket.destroy();
		sockets.clear();
	});
}

function resetSocket(socket: Socket): void {
	if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
	else socket.destroy();
}

const SINK_BODY = JSON.stringify({ ok: true, message: 'ok', data: [] });

/**
 * Where redirects point: records every request it receives and answers each with 200
 * `{"ok":true,"message":"ok","data":[]}`, so a client that followed a redirect appears to succeed.
 */
export class Sink {
	/** Every request received, in order, headers included. */
	readonly requests: SinkRequest[] = [];
	/** `http://<host>:<port>`, no trailing slash. */
	origin = '';
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	private closing?: Promise<void>;

	private constructor() {
		this.server = createServer((req, res) => {
			readBody(req).then(
				(raw) => {
					this.requests.push({
						at: Date.now(),
						method: (req.method ?? 'GET').toUpperCase(),
						path: req.url ?? '/',
						headers: { ...req.headers },
						body: raw.toString('utf8'),
					});
					if (res.destroyed) return;
					res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(SINK_BODY) });
					res.end(SINK_BODY);
				},
				() => res.destroy(),
			);
		});
		trackSockets(this.server, this.sockets);
	}

	/** Listens on `host` (default 127.0.0.2) at a free port. */
	static async start(host = '127.0.0.2'): Promise<Sink> {
		const sink = new Sink();
		const port = await listen(sink.server, host);
		sink.origin = `http://${host}:${port}`;
		return sink;
	}

	/** Forgets the requests received so far. */
	clear(): void {
		this.requests.length = 0;
	}

	/** Closes the server and every open socket. Safe to call twice. */
	stop(): Promise<void> {
		this.closing ??= closeServer(this.server, this.sockets);
		return this.closing;
	}
}

/** The front server; see the file header for the rules and the API. */
export class HostileFront {
	/** Every request the front saw, in arrival order. */
	readonly log: HostileLogEntry[] = [];
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly outgoing = new Set<ClientRequest>();
	private readonly agent = new Agent({ keepAlive: false });
	private readonly remembered = new Map<string, RememberedList>();
	private readonly upstreamUrl: URL;
	private queue: QueuedRule[] = [];
	private seq = 0;
	private stopped = false;
	private stopping?: Promise<void>;
	/** `http://127.0.0.1:<port>`, no trailing slash. */
	url = '';
	sink!: Sink;

	private constructor(upstream: string) {
		this.upstreamUrl = new URL(upstream);
		if (this.upstreamUrl.protocol !== 'http:') throw new Error('The hostile front forwards to http:// upstreams only');
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((error: unknown) => {
				if (!res.headersSent && !res.destroyed) {
					const text = JSON.stringify({ ok: false, message: `Hostile front error: ${String(error)}` });
					res.writeHead(500, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
					res.end(text);
				} else res.destroy();
			});
		});
		trackSockets(this.server, this.sockets);
	}

	/** Starts the front on 127.0.0.1 (a free port) in front of `upstream`, and its sink. */
	static async start(upstream: string, options: HostileFrontOptions = {}): Promise<HostileFront> {
		const front = new HostileFront(upstream);
		front.sink = await Sink.start(options.sinkHost ?? '127.0.0.2');
		try {
			const port = await listen(front.server, '127.0.0.1');
			front.url = `http://127.0.0.1:${port}`;
		} catch (error) {
			await front.sink.stop();
			throw error;
		}
		return front;
	}

	/** The upstream base URL, no trailing slash. */
	get upstream(): string {
		return this.upstreamUrl.href.replace(/\/+$/, '');
	}

	/** `http://127.0.0.2:<port>`: the default redirect target. */
	get sinkOrigin(): string {
		return this.sink.origin;
	}

	// ----- rules --------------------------------------------------------------------------------

	/** Queues a rule; throws when it is not usable. A rule with `times: 0` is ignored. */
	add(rule: HostileRule): void {
		validateRule(rule);
		const times = rule.times ?? 1;
		if (times <= 0) return;
		const spec = { ...rule } as HostileRule;
		const queued: QueuedRule = { spec, label: ruleLabel(spec), remaining: times };
		if (spec.kind === 'drop') queued.rng = new Rng(spec.seed ?? 1);
		this.queue.push(queued);
	}

	/** Drops every queued rule; an armed lag ends. */
	clear(): void {
		for (const rule of this.queue) if (rule.armed?.timer) this.clearTimer(rule.armed.timer);
		this.queue = [];
	}

	/** Rules still queued, with their uses left. */
	pending(): PendingRule[] {
		return this.queue.map((q) => ({ ...q.spec, remaining: q.remaining, armed: q.armed !== undefined }));
	}

	/** Empties the log (sequence numbers keep counting up). */
	resetLog(): void {
		this.log.length = 0;
	}

	private spend(rule: QueuedRule): void {
		rule.remaining -= 1;
		if (rule.remaining <= 0) this.queue = this.queue.filter((q) => q !== rule);
	}

	/** Takes one use of the first rule (lag rules aside) that applies to `route`. */
	private take(route: RouteKey): QueuedRule | undefined {
		const rule = this.queue.find((q) => {
			if (q.spec.kind === 'lag') return false;
			if (q.spec.route !== '*') return q.spec.route === route;
			return q.spec.kind !== 'drop' || route === 'GET /v1/proxies' || route === 'GET /v1/stock';
		});
		if (rule) this.spend(rule);
		return rule;
	}

	/** An allocate arms the first queued lag rule, unless one is armed already. */
	private arm(authorization: string | undefined): boolean {
		if (this.queue.some((q) => q.armed !== undefined)) return false;
		const rule = this.queue.find((q) => q.spec.kind === 'lag');
		if (!rule || rule.spec.kind !== 'lag') return false;
		const armed: ArmedLag = { authorization };
		if (rule.spec.forMs !== undefined) armed.timer = this.setTimer(rule.spec.forMs, () => this.endLag(rule));
		else armed.readsLeft = rule.spec.reads ?? 1;
		rule.armed = armed;
		return true;
	}

	private endLag(rule: QueuedRule): void {
		if (rule.armed?.timer) this.clearTimer(rule.armed.timer);
		rule.armed = undefined;
		if (this.queue.includes(rule)) this.spend(rule);
	}

	/** The stale body for a read while a lag is armed, or undefined to relay the upstream's. */
	private lagged(
		route: RouteKey,
		rawName: string | undefined,
		authorization: string | undefined,
		upstream: UpstreamReply,
	): string | undefined {
		if (route !== 'GET /v1/proxies' && route !== 'GET /v1/proxies/:name') return undefined;
		const rule = this.queue.find((q) => q.armed !== undefined);
		if (!rule?.armed || rule.armed.authorization !== authorization) return undefined;
		if (rule.spec.route !== '*' && rule.spec.route !== route) return undefined;
		if (upstream.status < 200 || upstream.status >= 300) return undefined;
		const remembered = this.remembered.get(authorization ?? '');
		if (!remembered) return undefined;
		let text: string;
		if (route === 'GET /v1/proxies') text = remembered.text;
		else {
			let name: string;
			try {
				name = decodeURIComponent(rawName ?? '');
			} catch {
				return undefined;
			}
			const record = remembered.data.find((r) => fieldOf(r, 'proxy_name') === name);
			if (record === undefined) return undefined;
			text = JSON.stringify({ ok: true, data: record });
		}
		if (rule.armed.readsLeft !== undefined) {
			rule.armed.readsLeft -= 1;
			if (rule.armed.readsLeft <= 0) this.endLag(rule);
		}
		return text;
	}

	/** Remembers a successful list reply relayed to the client, for lag rules. */
	private remember(route: RouteKey | undefined, authorization: string | undefined, reply: UpstreamReply): void {
		if (route !== 'GET /v1/proxies' || reply.status !== 200) return;
		const text = reply.body.toString('utf8');
		const list = listBody(text);
		if (list) this.remembered.set(authorization ?? '', { text, data: list.data });
	}

	private drop(route: RouteKey, rule: QueuedRule, text: string): string {
		if (rule.spec.kind !== 'drop' || (route !== 'GET /v1/proxies' && route !== 'GET /v1/stock')) return text;
		const list = listBody(text);
		if (!list) return text;
		const spec = rule.spec;
		const key = route === 'GET /v1/stock' ? 'city' : 'proxy_name';
		let kept: unknown[];
		if (spec.names !== undefined) {
			const names = new Set(spec.names);
			kept = list.data.filter((entry) => !names.has(fieldOf(entry, key) as string));
		} else if (spec.count !== undefined) {
			kept = list.data.slice(spec.count);
		} else {
			const n = list.data.length;
			const k = Math.round((spec.fraction ?? 0) * n);
			const indices = list.data.map((_, i) => i);
			const rng = rule.rng ?? new Rng(spec.seed ?? 1);
			// A partial Fisher-Yates shuffle: the first k indices are the dropped ones.
			for (let i = 0; i < k; i++) {
				const j = i + Math.floor(rng.next() * (n - i));
				[indices[i], indices[j]] = [indices[j], indices[i]];
			}
			const dropped = new Set(indices.slice(0, k));
			kept = list.data.filter((_, i) => !dropped.has(i));
		}
		return JSON.stringify({ ...list.body, data: kept });
	}

	// ----- timers -------------------------------------------------------------------------------

	private setTimer(ms: number, fn: () => void): NodeJS.Timeout {
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			fn();
		}, ms);
		this.timers.add(timer);
		return timer;
	}

	private clearTimer(timer: NodeJS.Timeout): void {
		clearTimeout(timer);
		this.timers.delete(timer);
	}

	/** Resolves after `ms`; never resolves once the front has stopped (its timer is cleared). */
	private wait(ms: number): Promise<void> {
		return new Promise((resolve) => {
			this.setTimer(ms, resolve);
		});
	}

	// ----- requests -----------------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const raw = await readBody(req);
		const method = (req.method ?? 'GET').toUpperCase();
		const rawPath = req.url ?? '/';
		const match = routeOf(method, rawPath);
		const route = match?.route;
		const entry: HostileLogEntry = { seq: ++this.seq, at: Date.now(), method, path: rawPath, route: route ?? null, status: null };
		this.log.push(entry);
		const header = req.headers.authorization;
		const authorization = typeof header === 'string' ? header : undefined;

		const rule = route === undefined ? undefined : this.take(route);
		if (rule) entry.rule = rule.label;
		const spec = rule?.spec;

		if (spec?.kind === 'redirect' && !spec.forward) {
			this.redirect(req, res, entry, spec.status, spec.to);
			return;
		}
		if (spec?.kind === 'delay' && (spec.when ?? 'before') === 'before') {
			await this.wait(spec.ms);
			// A gateway queue drops requests whose client has gone: nothing goes upstream then.
			if (this.gone(req, res)) return;
		}

		// Only an allocate that reaches the service arms a lag.
		if (route === 'POST /v1/proxies/allocate' && this.arm(authorization)) entry.lag = 'armed';
		let upstream: UpstreamReply;
		try {
			upstream = await this.forward(req, method, rawPath, raw);
		} catch {
			entry.upstreamStatus = null;
			if (!this.gone(req, res)) resetSocket(req.socket);
			return;
		}
		entry.upstreamStatus = upstream.status;
		if (this.stopped) return;

		let reply = upstream;
		if (route !== undefined) {
			const stale = this.lagged(route, match?.name, authorization, upstream);
			if (stale !== undefined) {
				entry.lag = 'served';
				reply = this.withBody(reply, stale, false);
			}
			if (spec?.kind === 'drop') {
				const text = reply.body.toString('utf8');
				const kept = this.drop(route, rule as QueuedRule, text);
				if (kept !== text) reply = this.withBody(reply, kept, false);
			}
		}

		switch (spec?.kind) {
			case 'redirect':
				this.redirect(req, res, entry, spec.status, spec.to);
				return;
			case 'rewrite':
				await this.rewrite(req, res, entry, spec, reply);
				return;
			case 'delay':
				if (spec.when === 'after') {
					await this.wait(spec.ms);
					if (this.gone(req, res)) return;
				}
				break;
			default:
				break;
		}

		if (entry.lag !== 'served') this.remember(route, authorization, reply);
		if (spec?.kind === 'trickle') {
			await this.trickle(req, res, entry, reply, spec.intervalMs ?? 200, spec.bytes ?? 1);
			return;
		}
		this.send(req, res, entry, reply);
	}

	/** True when the client went away or the front stopped. */
	private gone(req: IncomingMessage, res: ServerResponse): boolean {
		return this.stopped || req.socket.destroyed || res.destroyed || res.writableEnded;
	}

	private withBody(reply: UpstreamReply, text: string, json: boolean): UpstreamReply {
		const headers = { ...reply.headers };
		if (json) setHeader(headers, 'Content-Type', JSON_TYPE);
		return { ...reply, headers, body: Buffer.from(text, 'utf8') };
	}

	private forward(req: IncomingMessage, method: string, rawPath: string, raw: Buffer): Promise<UpstreamReply> {
		return new Promise((resolve, reject) => {
			const headers = endToEndHeaders(req.rawHeaders);
			const hadBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
			if (hadBody || raw.length > 0) headers['Content-Length'] = raw.length;
			const base = this.upstreamUrl.pathname.replace(/\/+$/, '');
			const outgoing = httpRequest(
				{
					host: this.upstreamUrl.hostname,
					port: this.upstreamUrl.port || 80,
					method,
					path: `${base}${rawPath}`,
					headers,
					agent: this.agent,
				},
				(upstream) => {
					const chunks: Buffer[] = [];
					let ended = false;
					upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
					upstream.on('end', () => {
						ended = true;
						resolve({
							status: upstream.statusCode ?? 502,
							statusMessage: upstream.statusMessage,
							headers: endToEndHeaders(upstream.rawHeaders),
							body: Buffer.concat(chunks),
						});
					});
					upstream.on('error', reject);
					upstream.on('close', () => {
						if (!ended) reject(new Error('The upstream closed the connection before the end of its reply'));
					});
				},
			);
			this.outgoing.add(outgoing);
			outgoing.on('close', () => this.outgoing.delete(outgoing));
			outgoing.on('error', reject);
			outgoing.end(raw.length > 0 ? raw : undefined);
		});
	}

	private writeHead(res: ServerResponse, reply: UpstreamReply): void {
		const headers: OutgoingHttpHeaders = { ...reply.headers, 'Content-Length': reply.body.length };
		if (reply.statusMessage) res.writeHead(reply.status, reply.statusMessage, headers);
		else res.writeHead(reply.status, headers);
	}

	private send(req: IncomingMessage, res: ServerResponse, entry: HostileLogEntry, reply: UpstreamReply): void {
		if (this.gone(req, res)) return;
		this.writeHead(res, reply);
		res.end(reply.body);
		entry.status = reply.status;
	}

	private redirect(req: IncomingMessage, res: ServerResponse, entry: HostileLogEntry, status: RedirectStatus, to?: string): void {
		const target = (to ?? this.sinkOrigin).replace(/\/+$/, '');
		this.send(req, res, entry, { status, headers: { Location: `${target}${req.url ?? '/'}` }, body: Buffer.alloc(0) });
	}

	private async rewrite(
		req: IncomingMessage,
		res: ServerResponse,
		entry: HostileLogEntry,
		spec: Extract<HostileRule, { kind: 'rewrite' }>,
		upstream: UpstreamReply,
	): Promise<void> {
		const date = pickHeader(upstream.headers, 'date');
		switch (spec.reply) {
			case 'status': {
				let text: string;
				let contentType: string;
				if (spec.body === undefined) {
					const body = spec.status >= 400 ? { ok: false, message: STATUS_CODES[spec.status] ?? 'Error' } : { ok: true };
					text = JSON.stringify(body);
					contentType = JSON_TYPE;
				} else if (typeof spec.body === 'string') {
					text = spec.body;
					contentType = TEXT_TYPE;
				} else {
					text = JSON.stringify(spec.body);
					contentType = JSON_TYPE;
				}
				const headers: OutgoingHttpHeaders = { ...date, 'Content-Type': spec.contentType ?? contentType, ...(spec.headers ?? {}) };
				this.send(req, res, entry, { status: spec.status, headers, body: Buffer.from(text, 'utf8') });
				return;
			}
			case 'reset':
				if (!this.gone(req, res)) resetSocket(req.socket);
				return;
			case 'hang':
				// Nothing is sent; stop() or the client ends the connection.
				return;
			case 'malformed': {
				const headers: OutgoingHttpHeaders = { ...date, 'Content-Type': JSON_TYPE };
				const text = truncateJson(upstream.body.toString('utf8'));
				this.send(req, res, entry, { status: 200, headers, body: Buffer.from(text, 'utf8') });
				return;
			}
			case 'transform': {
				const source = upstream.body.toString('utf8');
				const parsed = parseJson(source);
				const result = await Promise.resolve(spec.transform(parsed.ok ? parsed.value : source));
				this.send(req, res, entry, this.withBody(upstream, JSON.stringify(result) ?? 'null', true));
				return;
			}
		}
	}

	private trickle(
		req: IncomingMessage,
		res: ServerResponse,
		entry: HostileLogEntry,
		reply: UpstreamReply,
		intervalMs: number,
		bytes: number,
	): Promise<void> {
		if (this.gone(req, res)) return Promise.resolve();
		this.writeHead(res, reply);
		res.flushHeaders();
		const body = reply.body;
		return new Promise((resolve) => {
			let offset = 0;
			let timer: NodeJS.Timeout | undefined;
			const finish = () => {
				if (timer) this.clearTimer(timer);
				timer = undefined;
				res.off('close', finish);
				resolve();
			};
			const step = () => {
				timer = undefined;
				if (this.gone(req, res)) {
					finish();
					return;
				}
				const chunk = body.subarray(offset, offset + bytes);
				offset += chunk.length;
				if (offset >= body.length) {
					res.end(chunk);
					entry.status = reply.status;
					finish();
					return;
				}
				res.write(chunk);
				timer = this.setTimer(intervalMs, step);
			};
			res.on('close', finish);
			step();
		});
	}

	// ----- shutdown -----------------------------------------------------------------------------

	/** Closes both servers, every socket, every upstream request and every timer. Safe to call twice. */
	stop(): Promise<void> {
		this.stopping ??= (async () => {
			this.stopped = true;
			for (const timer of this.timers) clearTimeout(timer);
			this.timers.clear();
			for (const rule of this.queue) rule.armed = undefined;
			for (const outgoing of this.outgoing) outgoing.destroy();
			this.outgoing.clear();
			this.agent.destroy();
			await Promise.all([closeServer(this.server, this.sockets), this.sink.stop()]);
		})();
		return this.stopping;
	}
}
