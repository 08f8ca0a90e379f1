/**
 * The service's routes, in one table. Each entry holds everything the server knows of a route: its
 * method and path, the handler (which calls the state), and what fault injection does to it. The
 * route keys ('GET /v1/proxies/:name'), the matching, the 404 and 405 (with Allow) answers and the
 * dispatch are all derived from this table.
 *
 * Adding an endpoint:
 *   1. its business logic in state.ts, as a SimState method returning an Outcome;
 *   2. one entry in ROUTES below: method, path (with `:param`s), handle (calls that method), faults.
 * Its RouteKey ('METHOD /path'), fault and rate-limit targeting, and the request log follow.
 */
import type { Outcome, SimState } from './state';
import type { SimAccount } from './types';

/** The methods a route may have, in the order an Allow header lists them. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type Method = (typeof METHODS)[number];

/** The names of the `:param`s of a path pattern, e.g. 'name' for '/v1/proxies/:name'. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
	? Name | PathParams<`/${Rest}`>
	: P extends `${string}:${infer Name}`
		? Name
		: never;

/** What a handler gets: the authenticated account, the path's parameters and the body. */
export interface RouteRequest<P extends string = string> {
	state: SimState;
	account: SimAccount;
	/** The path's `:param`s, percent-decoded. */
	params: Record<PathParams<P>, string>;
	/** The parsed JSON body, the raw string when it is not JSON, null when none was sent. */
	body: unknown;
	/** The request's sequence number (as in the request log and the ledger). */
	seq: number;
}

/**
 * What fault injection does to a route, where it depends on the route (every other fault kind works
 * the same on every route; see faults.ts and server.ts).
 */
export type FaultHooks = {
	/**
	 * The route answers a list, `{ok: true, data: [...]}`: an `emptyList` fault empties `data` of a
	 * successful reply. On other routes the fault sends the reply unchanged.
	 */
	emptyList?: boolean;
} & (
	| {
			/** No side effects: a `malformed` fault processes the request and cuts its JSON reply. */
			sideEffects: false;
	  }
	| {
			/**
			 * The request changes something (or draws from a seeded generator): a `malformed` fault must
			 * not process it, and sends `malformed` instead, a reply cut short that never parses.
			 */
			sideEffects: true;
			malformed: string;
	  }
);

export interface RouteSpec<M extends Method = Method, P extends string = string> {
	method: M;
	/**
	 * Matched against the raw path (still percent-encoded, query string removed). `:param` matches one
	 * path segment; a `:param` at the end of the pattern matches the rest of the path, '/' included.
	 * Parameters are percent-decoded for the handler; one that does not decode gets a 400.
	 */
	path: P;
	/** How a parameter is named in the 400 for bad percent-encoding; default: its name. */
	paramLabels?: Partial<Record<PathParams<P>, string>>;
	/** The route reads a JSON body: a body that is sent and is not JSON gets a 400, unprocessed. */
	jsonBody?: boolean;
	/** The route's business logic: call the state. */
	handle(request: RouteRequest<P>): Outcome;
	faults: FaultHooks;
}

/** A table entry, with what is derived from its spec. */
export type Route<K extends string = string> = RouteSpec & {
	/** 'METHOD /path', the name faults, rate limits and the request log use. */
	readonly key: K;
	/** The pattern's parameter names, in order. */
	readonly paramNames: readonly string[];
	readonly regex: RegExp;
	/** One entry per path segment: true for a `:param`; orders the matching (static segments first). */
	readonly segments: readonly boolean[];
};

function route<M extends Method, P extends string>(spec: RouteSpec<M, P>): Route<`${M} ${P}`> {
	const parts = spec.path.split('/').slice(1);
	const paramNames: string[] = [];
	const segments: boolean[] = [];
	const source = parts.map((part, i) => {
		const isParam = part.startsWith(':');
		segments.push(isParam);
		if (!isParam) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		paramNames.push(part.slice(1));
		return i === parts.length - 1 ? '(.+)' : '([^/]+)';
	});
	return {
		...spec,
		key: `${spec.method} ${spec.path}`,
		paramNames,
		regex: new RegExp(`^/${source.join('/')}$`),
		segments,
	};
}

const MALFORMED_PRICE = '{"ok":true,"message":"Price calculated","data":{"member":true,"periods":{"weekly":{"individual":{"VR-AU-';
const MALFORMED_IPV4 = '{"ok":true,"message":"IPv4 setting sent","data":{"proxy_name":"PRX-';
const MALFORMED_AUTH = '{"ok":true,"message":"Authentication updated","data":{"proxy_name":"PRX-';
const MALFORMED_DEVICE = '{"ok":true,"message":"Sent to the device","data":{"proxy_name":"PRX-';
const MALFORMED_ORDER = '{"ok":true,"message":"Order queued","data":{"user_id":"u_';
const MALFORMED_RENEW = '{"ok":true,"message":"Auto-renew settings updated","data":{"proxies":{"time":[{"proxy_name":"PRX-';
const MALFORMED_ALLOCATE = '{"ok":true,"message":"Proxies allocated","data":{"proxies":{"time":[{"proxy_name":"PRX-US-';

/** Every route of the service. The order is the order of ROUTE_KEYS (error messages list them). */
export const ROUTES = [
	route({
		method: 'GET',
		path: '/v1/stock',
		handle: ({ state }) => ({ ok: true, body: state.stockPayload() }),
		faults: { sideEffects: false, emptyList: true },
	}),
	route({
		method: 'GET',
		path: '/v1/proxies',
		handle: ({ state, account }) => state.listProxies(account),
		faults: { sideEffects: false, emptyList: true },
	}),
	route({
		method: 'GET',
		path: '/v1/proxies/:name',
		paramLabels: { name: 'proxyName' },
		handle: ({ state, account, params }) => state.getProxy(account, params.name),
		faults: { sideEffects: false },
	}),
	route({
		method: 'POST',
		path: '/v1/price',
		jsonBody: true,
		handle: ({ state, account, body }) => state.price(account, body),
		// A quote draws its item keys from the seeded key generator.
		faults: { sideEffects: true, malformed: MALFORMED_PRICE },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/allocate',
		jsonBody: true,
		handle: ({ state, account, body, seq }) => state.allocate(account, body, seq),
		// It charges the wallet and moves expiries.
		faults: { sideEffects: true, malformed: MALFORMED_ALLOCATE },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/ipv4/:name',
		paramLabels: { name: 'proxyName' },
		jsonBody: true,
		handle: ({ state, account, params, body }) => state.setIpv4(account, params.name, body),
		faults: { sideEffects: true, malformed: MALFORMED_IPV4 },
	}),
	route({
		method: 'PATCH',
		path: '/v1/proxies/auth/basic/:name',
		paramLabels: { name: 'proxyName' },
		jsonBody: true,
		handle: ({ state, account, params, body }) => state.setBasicAuth(account, params.name, body),
		// It changes the credentials and draws generated ones from a seeded generator.
		faults: { sideEffects: true, malformed: MALFORMED_AUTH },
	}),
	route({
		method: 'PATCH',
		path: '/v1/proxies/auth/whitelist/:name',
		paramLabels: { name: 'proxyName' },
		jsonBody: true,
		handle: ({ state, account, params, body }) => state.setWhitelist(account, params.name, body),
		faults: { sideEffects: true, malformed: MALFORMED_AUTH },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/changeip/:name',
		paramLabels: { name: 'proxyName' },
		handle: ({ state, account, params }) => state.changeIp(account, params.name),
		faults: { sideEffects: true, malformed: MALFORMED_DEVICE },
	}),
	route({
		// The rotation link of a Limited key: the key is in the path, no Authorization header needed.
		method: 'GET',
		path: '/v1/proxies/changeip/:key/:name',
		paramLabels: { key: 'limitedApiKey', name: 'proxyName' },
		handle: ({ state, account, params }) => state.changeIp(account, params.name),
		faults: { sideEffects: true, malformed: MALFORMED_DEVICE },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/reboot/:name',
		paramLabels: { name: 'proxyName' },
		handle: ({ state, account, params }) => state.reboot(account, params.name),
		faults: { sideEffects: true, malformed: MALFORMED_DEVICE },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/autochangeip/:name',
		paramLabels: { name: 'proxyName' },
		jsonBody: true,
		handle: ({ state, account, params, body }) => state.setAutoChange(account, params.name, body),
		faults: { sideEffects: true, malformed: MALFORMED_DEVICE },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/deploy',
		jsonBody: true,
		handle: ({ state, account, body, seq }) => state.deploy(account, body, seq),
		// It charges the wallet and takes proxies out of stock.
		faults: { sideEffects: true, malformed: MALFORMED_ORDER },
	}),
	route({
		method: 'POST',
		path: '/v1/proxies/swap/:name',
		paramLabels: { name: 'proxyName' },
		jsonBody: true,
		handle: ({ state, account, params, body, seq }) => state.swap(account, params.name, body, seq),
		faults: { sideEffects: true, malformed: MALFORMED_ORDER },
	}),
	route({
		method: 'DELETE',
		path: '/v1/proxies/remove',
		jsonBody: true,
		handle: ({ state, account, body }) => state.removeProxies(account, body),
		faults: { sideEffects: true, malformed: MALFORMED_ORDER },
	}),
	route({
		method: 'GET',
		path: '/v1/funds',
		handle: ({ state, account }) => state.funds(account),
		faults: { sideEffects: false },
	}),
	route({
		method: 'PATCH',
		path: '/v1/proxies/allocate/renew',
		jsonBody: true,
		handle: ({ state, account, body }) => state.setAutoRenew(account, body),
		// It changes the proxies' auto-renew settings.
		faults: { sideEffects: true, malformed: MALFORMED_RENEW },
	}),
] as const;

export type RouteKey = (typeof ROUTES)[number]['key'];

export const ROUTE_KEYS: readonly RouteKey[] = ROUTES.map((r) => r.key);

/** Static segments before parameters, then the longer pattern first; else the table's order. */
function bySpecificity(a: Route, b: Route): number {
	const n = Math.min(a.segments.length, b.segments.length);
	for (let i = 0; i < n; i++) if (a.segments[i] !== b.segments[i]) return a.segments[i] ? 1 : -1;
	return b.segments.length - a.segments.length;
}

const MATCH_ORDER: ReadonlyArray<Route<RouteKey>> = [...ROUTES].sort(bySpecificity);

export type RouteMatch =
	| {
			kind: 'route';
			route: Route<RouteKey>;
			/** The path's `:param`s as sent, still percent-encoded. */
			params: Record<string, string>;
	  }
	| { kind: 'not-found' }
	| { kind: 'method'; allow: string };

/** Matches a method (upper case) and a raw path (query string removed) against the table. */
export function matchRoute(method: string, path: string): RouteMatch {
	const allowed = new Set<string>();
	for (const candidate of MATCH_ORDER) {
		const found = candidate.regex.exec(path);
		if (!found) continue;
		if (candidate.method !== method) {
			allowed.add(candidate.method);
			continue;
		}
		const params: Record<string, string> = {};
		candidate.paramNames.forEach((name, i) => (params[name] = found[i + 1]));
		return { kind: 'route', route: candidate, params };
	}
	if (allowed.size === 0) return { kind: 'not-found' };
	return { kind: 'method', allow: METHODS.filter((m) => allowed.has(m)).join(', ') };
}

/** A request that matched a route, past the gateway. */
export interface RouteCall {
	state: SimState;
	account: SimAccount;
	/** From matchRoute: still percent-encoded. */
	params: Record<string, string>;
	/** The parsed body (see RouteRequest.body), whether it was JSON, whether one was sent at all. */
	body: { value: unknown; json: boolean; sent: boolean };
	seq: number;
}

/** Runs a route's handler: decodes its parameters and checks its body first (400 when they are bad). */
export function dispatch(route: Route, call: RouteCall): Outcome {
	const params: Record<string, string> = {};
	for (const name of route.paramNames) {
		try {
			params[name] = decodeURIComponent(call.params[name] ?? '');
		} catch {
			const label = (route.paramLabels as Record<string, string | undefined> | undefined)?.[name] ?? name;
			return { ok: false, error: 'invalid', message: `${label} in the path is not valid percent-encoding` };
		}
	}
	if (route.jsonBody && call.body.sent && !call.body.json) {
		return { ok: false, error: 'invalid', message: 'Request body must be valid JSON' };
	}
	return route.handle({ state: call.state, account: call.account, params, body: call.body.value, seq: call.seq });
}
