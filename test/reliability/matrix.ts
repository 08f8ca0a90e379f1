/**
 * The fault matrix: every operation of the action node and every event of the trigger, against
 * every fault the service can produce. Columns (faults) and rows (operations, events) are data;
 * `expectationFor` says what each cell must do; `runActionCell` and `runTriggerCell` drive real
 * workflow executions (and real polls) against a simulator of its own per cell and check it.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { pollTrigger } from '../../nodes/ProxyAccount/trigger/poll';
import { createHarness, PollHarness } from '../harness';
import type { WorkflowHarness } from '../harness';
import type { FaultSpec, ProxyAccountSimulator, RouteKey } from '../simulator';
import type { Results, SecretAudit } from './support';
import { plural, withSim } from './support';

// ----- columns: the faults ------------------------------------------------------------------------

export type ColumnId =
	| '429'
	| '429-storm'
	| '500'
	| '502-html'
	| '503'
	| '503-persistent'
	| 'timeout'
	| 'reset'
	| 'malformed'
	| 'ok-false'
	| 'drift-missing'
	| 'drift-type'
	| 'drift-extra'
	| 'empty'
	| 'huge';

export interface Column {
	id: ColumnId;
	label: string;
}

export const COLUMNS: Column[] = [
	{ id: '429', label: '429 + retry-after' },
	{ id: '429-storm', label: '429 storm' },
	{ id: '500', label: '500' },
	{ id: '502-html', label: '502 HTML' },
	{ id: '503', label: '503 \u00d72' },
	{ id: '503-persistent', label: '503 \u221e' },
	{ id: 'timeout', label: 'timeout' },
	{ id: 'reset', label: 'reset mid-body' },
	{ id: 'malformed', label: 'malformed JSON' },
	{ id: 'ok-false', label: 'ok:false in 200' },
	{ id: 'drift-missing', label: 'drift: missing field' },
	{ id: 'drift-type', label: 'drift: wrong type' },
	{ id: 'drift-extra', label: 'drift: extra fields' },
	{ id: 'empty', label: 'empty list' },
	{ id: 'huge', label: '10 MB body' },
];

/** Faults that make a read retry until its budget or attempts run out (several seconds each). */
const PERSISTENT: ColumnId[] = ['502-html', '503-persistent'];

/**
 * A read timeout in the cells: the action node's Timeout option and the trigger's test hook. 3 s,
 * held against answers held twice as long: the retry's normal answer (tens of ms on a quiet machine)
 * must arrive within it even while another test suite loads the machine (issue 35).
 */
const ACTION_TIMEOUT_SECONDS = 3;
const TRIGGER_TIMEOUT_MS = 3_000;
/** How long the timeout column holds an answer: twice the timeout, so it is cut on a loaded machine too. */
const HELD_MS = 2 * ACTION_TIMEOUT_SECONDS * 1_000;

interface Drift {
	missing: { remove: string[]; field: string };
	type: { set: Record<string, unknown>; field: string; issue: string };
	extra: Record<string, unknown>;
}

const EXTRA = { served_by: 'edge-7' };

const DRIFT: Record<RouteKey, Drift> = {
	'GET /v1/proxies': {
		missing: { remove: ['data.0.expires_at'], field: 'data[0].expires_at' },
		type: { set: { 'data.0.h_port': '8001' }, field: 'data[0].h_port', issue: 'should be number but is string' },
		extra: { ...EXTRA, 'data.0.brand_new_field': 'hello' },
	},
	'GET /v1/proxies/:name': {
		missing: { remove: ['data.expires_at'], field: 'data.expires_at' },
		type: { set: { 'data.auto_renew': 'yes' }, field: 'data.auto_renew', issue: 'should be boolean but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'GET /v1/stock': {
		missing: { remove: ['data.0.status'], field: 'data[0].status' },
		type: { set: { 'data.0.open': 'yes' }, field: 'data[0].open', issue: 'should be boolean but is string' },
		extra: { ...EXTRA, 'data.0.region_note': 'hello' },
	},
	'POST /v1/price': {
		missing: { remove: ['data.total'], field: 'data.total' },
		type: { set: { 'data.total.due': 'ninety' }, field: 'data.total.due', issue: 'should be number but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/allocate': {
		missing: { remove: ['data.total'], field: 'data.total' },
		type: { set: { 'data.total': 'lots' }, field: 'data.total', issue: 'should be number but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/ipv4/:name': {
		missing: { remove: ['data.proxy_name'], field: 'data.proxy_name' },
		type: { set: { 'data.last_ipv4_update': 5 }, field: 'data.last_ipv4_update', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'PATCH /v1/proxies/auth/basic/:name': {
		missing: { remove: ['data.password'], field: 'data.password' },
		type: { set: { 'data.username': 5 }, field: 'data.username', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'PATCH /v1/proxies/auth/whitelist/:name': {
		missing: { remove: ['data.last_auth_change'], field: 'data.last_auth_change' },
		type: { set: { 'data.proxy_name': 7 }, field: 'data.proxy_name', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/deploy': {
		missing: { remove: ['data.total'], field: 'data.total' },
		type: { set: { 'data.total': 'a lot' }, field: 'data.total', issue: 'should be number but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/swap/:name': {
		missing: { remove: ['data'], field: 'data' },
		type: { set: { 'data.proxy_name': 7 }, field: 'data.proxy_name', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/changeip/:name': {
		missing: { remove: ['data.last_ip_change'], field: 'data.last_ip_change' },
		type: { set: { 'data.proxy_name': 7 }, field: 'data.proxy_name', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'GET /v1/proxies/changeip/:key/:name': {
		missing: { remove: ['data.last_ip_change'], field: 'data.last_ip_change' },
		type: { set: { 'data.proxy_name': 7 }, field: 'data.proxy_name', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/reboot/:name': {
		missing: { remove: ['data.last_reboot'], field: 'data.last_reboot' },
		type: { set: { 'data.proxy_name': 7 }, field: 'data.proxy_name', issue: 'should be string but is number' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'POST /v1/proxies/autochangeip/:name': {
		missing: { remove: ['data.auto_change'], field: 'data.auto_change' },
		type: { set: { 'data.auto_change': 'yes' }, field: 'data.auto_change', issue: 'should be boolean but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'DELETE /v1/proxies/remove': {
		missing: { remove: ['ok'], field: 'ok' },
		type: { set: { ok: 'yes' }, field: 'ok', issue: 'should be boolean but is string' },
		extra: { ...EXTRA, brand_new_field: 'hello' },
	},
	'GET /v1/funds': {
		missing: { remove: ['data.upcoming'], field: 'data.upcoming' },
		type: { set: { 'data.funds': '12.5' }, field: 'data.funds', issue: 'should be number but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
	'PATCH /v1/proxies/allocate/renew': {
		missing: { remove: ['data.proxies'], field: 'data.proxies' },
		type: { set: { 'data.proxies.time': 'all' }, field: 'data.proxies.time', issue: 'should be array but is string' },
		extra: { ...EXTRA, 'data.brand_new_field': 'hello' },
	},
};

/** A quote that prices none of the lines it was asked for. */
const EMPTY_QUOTE = {
	ok: true,
	message: 'Price calculated',
	data: {
		member: true,
		periods: {},
		savings: { member: {}, bulk: {}, interval: 0, total: 0 },
		total: { standard: 0, member: 0, due: 0 },
	},
};

/** The "empty" answer of each route: an empty list where there is one, else an empty object. */
function emptyFault(route: RouteKey): FaultSpec {
	switch (route) {
		case 'GET /v1/proxies':
		case 'GET /v1/stock':
			return { route, kind: 'emptyList' };
		case 'GET /v1/proxies/:name':
			return { route, kind: 'status', status: 200, body: { ok: true, data: {} } };
		case 'POST /v1/price':
			return { route, kind: 'status', status: 200, body: EMPTY_QUOTE };
		case 'GET /v1/funds':
			return { route, kind: 'status', status: 200, body: { ok: true, data: {} } };
		default:
			// Processed and charged; the answer lists none of the lines.
			return { route, kind: 'drift', set: { 'data.proxies.time': [] } };
	}
}

export function faultFor(column: ColumnId, route: RouteKey): FaultSpec {
	const drift = DRIFT[route];
	switch (column) {
		case '429':
			return { route, kind: 'rateLimit', retryAfter: 1 };
		case '429-storm':
			return { route, kind: 'rateLimit', retryAfter: 120, times: Infinity };
		case '500':
			return { route, kind: 'status', status: 500 };
		case '502-html':
			return { route, kind: 'html', status: 502, times: Infinity };
		case '503':
			return { route, kind: 'status', status: 503, times: 2 };
		case '503-persistent':
			return { route, kind: 'status', status: 503, times: Infinity };
		case 'timeout':
			// An extension is processed before the answer is late; a read is held before it is processed.
			return route === 'POST /v1/proxies/allocate'
				? { route, kind: 'latency', delayMs: HELD_MS, when: 'after' }
				: { route, kind: 'latency', delayMs: HELD_MS, when: 'before' };
		case 'reset':
			return { route, kind: 'reset', when: 'mid-body' };
		case 'malformed':
			return { route, kind: 'malformed' };
		case 'ok-false':
			return { route, kind: 'okFalse', status: 200, message: 'Unexpected error' };
		case 'drift-missing':
			return { route, kind: 'drift', remove: drift.missing.remove };
		case 'drift-type':
			return { route, kind: 'drift', set: drift.type.set };
		case 'drift-extra':
			return { route, kind: 'drift', set: drift.extra };
		case 'empty':
			return emptyFault(route);
		case 'huge':
			return { route, kind: 'hugeBody' };
	}
}

export function describeFault(column: ColumnId, route: RouteKey, trigger: boolean): string {
	const f = faultFor(column, route);
	const times = f.times === Infinity ? 'every request' : f.times === 2 ? 'twice' : 'once';
	const on = `${route}, ${times}`;
	switch (column) {
		case '429':
			return `429 with retry-after: 1 (${on})`;
		case '429-storm':
			return `429 with retry-after: 120, more than the 30 s retry budget (${on})`;
		case '502-html':
			return `502 with an nginx HTML page (${on})`;
		case 'timeout':
			return route === 'POST /v1/proxies/allocate'
				? `answer held ${HELD_MS / 1000} s after the charge, Timeout (Seconds) ${ACTION_TIMEOUT_SECONDS} (${on})`
				: trigger
					? `answer held ${HELD_MS / 1000} s, poll timeout ${TRIGGER_TIMEOUT_MS / 1000} s (${on})`
					: `answer held ${HELD_MS / 1000} s, Timeout (Seconds) ${ACTION_TIMEOUT_SECONDS} (${on})`;
		case 'reset':
			return `connection cut half-way through the body (${on})`;
		case 'malformed':
			return route.startsWith('POST')
				? `a JSON body cut short, HTTP 200, request not processed (${on})`
				: `a JSON body cut short, HTTP 200 (${on})`;
		case 'ok-false':
			return `{ok:false, message:"Unexpected error"} with HTTP 200 (${on})`;
		case 'drift-missing':
			return `${DRIFT[route].missing.field} removed (${on})`;
		case 'drift-type':
			return `${DRIFT[route].type.field} as a ${DRIFT[route].type.issue.replace(/.* is /, '')} (${on})`;
		case 'drift-extra':
			return `unknown fields added: ${Object.keys(DRIFT[route].extra).join(', ')} (${on})`;
		case 'empty':
			return route === 'GET /v1/proxies' || route === 'GET /v1/stock'
				? `data: [] (${on})`
				: route === 'POST /v1/price'
					? `a quote with no periods, total 0 (${on})`
					: route === 'POST /v1/proxies/allocate' || route === 'PATCH /v1/proxies/allocate/renew'
						? `processed, the answer lists no proxies (${on})`
						: `data: {} (${on})`;
		case 'huge':
			return `a 10 MB body (${on})`;
		default:
			return `HTTP ${column.replace(/-.*/, '')} (${on})`;
	}
}

// ----- expectations -------------------------------------------------------------------------------

export type RowKind = 'read' | 'allocate' | 'guard' | 'readback' | 'poll';

export interface Expectation {
	ok: boolean;
	/** Requests the faulted request takes, retries included. */
	attempts: number;
	/** The mapped message (a failure), or what a readback note must say. */
	message?: string;
	description?: RegExp;
	/** Extension rows: whether the service charged each item (it did once it processed the request). */
	charged?: boolean;
	/** At least this long (a honoured retry-after). */
	minMs?: number;
	/** Row-specific outcome: an empty answer. */
	empty?: boolean;
}

const ALLOCATE = 'POST /v1/proxies/allocate';

const messages = {
	storm: 'The Proxy Account service is limiting how often it can be called',
	status: (status: number, endpoint: string) => `The Proxy Account service could not handle the request (HTTP ${status}, ${endpoint})`,
	html: (endpoint: string) => `The Proxy Account service answered with a web page instead of data (HTTP 502, ${endpoint})`,
	malformed: (endpoint: string) => `The Proxy Account service sent a reply that is not valid JSON (HTTP 200, ${endpoint})`,
	okFalse: 'The Proxy Account service could not process the request: Unexpected error',
	shape: (field: string, issue: string, endpoint: string) =>
		`The Proxy Account service sent data in an unexpected shape: ${field} ${issue} (${endpoint})`,
	timeout: (seconds: string, endpoint: string) => `The Proxy Account service did not answer within ${seconds} (${endpoint})`,
	reset: (endpoint: string) => `The connection to the Proxy Account service closed before its answer arrived (${endpoint})`,
};

/** What a read (GET or quote, retried) does under each fault. */
function readExpectation(column: ColumnId, route: RouteKey, endpoint: string): Expectation {
	const drift = DRIFT[route];
	switch (column) {
		case '429':
			return { ok: true, attempts: 2, minMs: 1_000 };
		case '429-storm':
			return { ok: false, attempts: 1, message: messages.storm, description: /It asked to wait 120 s/ };
		case '500':
			return { ok: false, attempts: 1, message: messages.status(500, endpoint) };
		case '502-html':
			return { ok: false, attempts: 5, message: messages.html(endpoint), description: /tried 5 times/ };
		case '503':
			return { ok: true, attempts: 3 };
		case '503-persistent':
			return { ok: false, attempts: 5, message: messages.status(503, endpoint), description: /tried 5 times/ };
		case 'timeout':
		case 'reset':
			return { ok: true, attempts: 2 };
		case 'malformed':
			return { ok: false, attempts: 1, message: messages.malformed(endpoint) };
		case 'ok-false':
			return { ok: false, attempts: 1, message: messages.okFalse };
		case 'drift-missing':
			return { ok: false, attempts: 1, message: messages.shape(drift.missing.field, 'is missing', endpoint) };
		case 'drift-type':
			return { ok: false, attempts: 1, message: messages.shape(drift.type.field, drift.type.issue, endpoint) };
		case 'drift-extra':
		case 'huge':
			return { ok: true, attempts: 1 };
		case 'empty':
			if (route === 'GET /v1/proxies/:name') return { ok: false, attempts: 1, message: messages.shape('data.proxy_name', 'is missing', endpoint) };
			if (route === 'POST /v1/price') return { ok: false, attempts: 1, message: messages.shape('data.periods.weekly', 'is missing', endpoint) };
			if (route === 'GET /v1/funds') return { ok: false, attempts: 1, message: messages.shape('data.funds', 'is missing', endpoint) };
			return { ok: true, attempts: 1, empty: true };
	}
}

/** What an extension request (never repeated once it may have been processed) does under each fault. */
function allocateExpectation(column: ColumnId): Expectation {
	const drift = DRIFT[ALLOCATE];
	const notAgain = /not sent again/;
	switch (column) {
		case '429':
			return { ok: true, attempts: 2, charged: true, minMs: 1_000 };
		case '429-storm':
			return { ok: false, attempts: 1, charged: false, message: messages.storm, description: /nothing was charged/ };
		case '500':
			return { ok: false, attempts: 1, charged: false, message: messages.status(500, ALLOCATE), description: notAgain };
		case '502-html':
			return { ok: false, attempts: 1, charged: false, message: messages.html(ALLOCATE), description: notAgain };
		case '503':
		case '503-persistent':
			return { ok: false, attempts: 1, charged: false, message: messages.status(503, ALLOCATE), description: notAgain };
		case 'timeout':
			return { ok: false, attempts: 1, charged: true, message: messages.timeout(`${ACTION_TIMEOUT_SECONDS} s`, ALLOCATE), description: notAgain };
		case 'reset':
			return { ok: false, attempts: 1, charged: true, message: messages.reset(ALLOCATE), description: notAgain };
		case 'malformed':
			return { ok: false, attempts: 1, charged: false, message: messages.malformed(ALLOCATE), description: notAgain };
		case 'ok-false':
			return { ok: false, attempts: 1, charged: false, message: messages.okFalse };
		case 'drift-missing':
			return { ok: false, attempts: 1, charged: true, message: messages.shape(drift.missing.field, 'is missing', ALLOCATE), description: /may have been applied/ };
		case 'drift-type':
			return { ok: false, attempts: 1, charged: true, message: messages.shape(drift.type.field, drift.type.issue, ALLOCATE), description: /may have been applied/ };
		case 'empty':
			return { ok: true, attempts: 1, charged: true, empty: true };
		case 'drift-extra':
		case 'huge':
			return { ok: true, attempts: 1, charged: true };
	}
}

export function expectationFor(kind: RowKind, column: ColumnId, route: RouteKey, endpoint: string): Expectation {
	if (kind === 'allocate') return allocateExpectation(column);
	const read = readExpectation(column, route, endpoint);
	switch (kind) {
		case 'guard':
			// A failed read or quote before the charge: nothing is sent, nothing charged.
			if (column === 'empty' && route === 'GET /v1/proxies') return { ok: false, attempts: 1, charged: false, empty: true };
			return { ...read, charged: read.ok };
		case 'readback':
			// The money has moved: a failed read-back leaves the items unconfirmed, with a note. A
			// list without the proxies is read again (a read lagging behind the charge).
			if (column === 'empty') return { ok: true, attempts: 2, charged: true };
			return { ...read, charged: true };
		case 'poll':
			if (column === 'timeout') return { ok: true, attempts: 2 };
			return read;
		default:
			return read;
	}
}

export function describeExpectation(kind: RowKind, e: Expectation): string {
	const attempts = `${e.attempts} request${e.attempts === 1 ? '' : 's'}`;
	let text: string;
	if (e.empty && kind === 'poll') text = 'no event, every entry kept (marked missing for its grace period); the next good poll emits the pending event';
	else if (e.empty && kind === 'guard') text = 'every item: \u201cProxy \u2026 was not found\u201d, nothing sent';
	else if (e.empty && kind === 'allocate') text = 'unconfirmed, charged amount unknown (null), a note says to check the expiry';
	else if (e.empty && kind === 'readback') text = 'extended; a note says the new expiry is unknown';
	else if (e.empty) text = `OK, no items (${attempts})`;
	else if (e.ok) text = `recovers (${attempts}${e.minMs ? `, waits \u2265 ${e.minMs / 1000} s` : ''})`;
	else if (kind === 'readback') text = `unconfirmed; the note says \u201c${e.message}\u201d (${attempts})`;
	else text = `fails (${attempts}${e.attempts > 1 ? ', within the 30 s budget' : ''}): \u201c${e.message}\u201d`;
	if (kind === 'poll' && !e.ok) text += '; state unchanged; the next good poll emits the pending event';
	if (kind === 'poll' && e.ok && !e.empty) text += '; emits the pending event';
	if (e.charged !== undefined) text += e.charged ? '; charged exactly once per item' : '; nothing charged';
	if (!e.ok && kind !== 'poll' && kind !== 'readback') text += '; error items paired with their inputs';
	return text;
}

type Parameters = Record<string, unknown>;

/** A few words for the grid: the outcome, the requests of the faulted call, the charges. */
export function shortOf(kind: RowKind, e: Expectation, items: number): string {
	const req = `${e.attempts} req`;
	let text: string;
	if (kind === 'poll') text = e.empty ? `no event \u00b7 ${req}` : e.ok ? `ok \u00b7 ${req}` : `error \u00b7 ${req}`;
	else if (kind === 'readback') text = e.ok && !e.empty ? `ok \u00b7 ${req}` : `unconfirmed + note \u00b7 ${req}`;
	else if (e.empty && e.ok) text = kind === 'allocate' ? `unconfirmed \u00b7 ${req}` : `ok, 0 items \u00b7 ${req}`;
	else text = `${e.ok ? 'ok' : 'error'} \u00b7 ${req}`;
	if (e.charged !== undefined) text += ` \u00b7 ${e.charged ? items : 0} charged`;
	return text;
}

// ----- action rows ---------------------------------------------------------------------------------

export interface ActionRow {
	label: string;
	kind: Exclude<RowKind, 'poll'>;
	/** The route the fault goes on. */
	route: RouteKey;
	/** The endpoint as messages name it. */
	endpoint: string;
	/** Each input item sends its own request (Get, Quote) rather than sharing one. */
	perItem: boolean;
	/** Requests on the route to let through before the faulted one (the Extend read-back). */
	skip?: number;
	parameters(timeoutSeconds?: number): Parameters;
	inputs(sim: ProxyAccountSimulator, count: number): IDataObject[];
	/** Checks the outputs of one input item that succeeded; `column` is null when its request was not the faulted one. */
	verify(outputs: INodeExecutionData[], input: IDataObject, sim: ProxyAccountSimulator, e: Expectation, column: ColumnId | null): void;
	/** Requests the faulted request took, from the simulator's log. */
	attempts?(sim: ProxyAccountSimulator): number;
}

const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };

function proxyNames(sim: ProxyAccountSimulator, count: number): string[] {
	return [...sim.account().proxies.keys()].slice(0, count);
}

const withTimeout = (timeoutSeconds: number | undefined): Parameters => (timeoutSeconds === undefined ? {} : { timeoutSeconds });

function extendRow(label: string, kind: ActionRow['kind'], route: RouteKey, endpoint: string, extra: Parameters, skip?: number): ActionRow {
	return {
		label,
		kind,
		route,
		endpoint,
		perItem: false,
		skip,
		parameters: (timeoutSeconds) => ({
			resource: 'proxy',
			operation: 'extend',
			proxyName: byName,
			interval: 1,
			period: 'weekly',
			options: { ...extra, ...withTimeout(timeoutSeconds) },
		}),
		inputs: (sim, count) => proxyNames(sim, count).map((name) => ({ name })),
		verify(outputs, input, sim, e, column) {
			expect(outputs).toHaveLength(1);
			const json = outputs[0].json;
			expect(json.proxy_name).toBe(input.name);
			const unconfirmed = (column === 'empty' && kind === 'allocate') || (kind === 'readback' && !e.ok);
			expect(json.status).toBe(unconfirmed ? 'unconfirmed' : 'extended');
			const entry = sim.ledger.find((charge) => charge.proxy_name === input.name);
			if (column === 'empty' && kind === 'allocate') {
				expect(json.charged).toBeNull();
				expect(String(json.note)).toMatch(/did not list this proxy.*Check its expiry/);
			} else expect(json.charged).toBe(entry?.amount);
			if (kind === 'readback' && !e.ok) {
				expect(json.new_expires_at).toBeNull();
				expect(String(json.note)).toContain(String(e.message));
			} else if (!(column === 'empty' && kind === 'allocate')) {
				expect(json.new_expires_at).toBe(sim.account().proxies.get(String(input.name))?.expires_at);
				expect(json.note).toBeUndefined();
			}
		},
		attempts(sim) {
			const routeRequests = sim.requests.filter((r) => r.route === route);
			if (kind === 'guard' && route === 'GET /v1/proxies') {
				// The look-up: the list requests before anything else was sent.
				const firstOther = sim.requests.findIndex((r) => r.route !== route);
				return firstOther < 0 ? routeRequests.length : sim.requests.slice(0, firstOther).length;
			}
			if (kind === 'readback') {
				const lastAllocate = sim.requests.map((r) => r.route).lastIndexOf('POST /v1/proxies/allocate');
				return sim.requests.slice(lastAllocate + 1).filter((r) => r.route === route).length;
			}
			return routeRequests.length;
		},
	};
}

export const ACTION_ROWS: ActionRow[] = [
	{
		label: 'Proxy > Get',
		kind: 'read',
		route: 'GET /v1/proxies/:name',
		endpoint: 'GET /v1/proxies/{proxyName}',
		perItem: true,
		parameters: (timeoutSeconds) => ({ resource: 'proxy', operation: 'get', proxyName: byName, simplify: false, options: withTimeout(timeoutSeconds) }),
		inputs: (sim, count) => proxyNames(sim, count).map((name) => ({ name })),
		verify(outputs, input, _sim, _e, column) {
			expect(outputs).toHaveLength(1);
			expect(outputs[0].json.proxy_name).toBe(input.name);
			expect(outputs[0].json.password).toBeUndefined();
			expect(typeof outputs[0].json.expires_in_hours).toBe('number');
			if (column === 'drift-extra') expect(outputs[0].json.brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Proxy > Get Many',
		kind: 'read',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		perItem: false,
		parameters: (timeoutSeconds) => ({ resource: 'proxy', operation: 'getAll', returnAll: true, simplify: false, options: withTimeout(timeoutSeconds) }),
		inputs: (_sim, count) => Array.from({ length: count }, (_, i) => ({ run: i })),
		verify(outputs, _input, sim, e, column) {
			const names = [...sim.account().proxies.keys()];
			expect(outputs.map((item) => item.json.proxy_name)).toEqual(e.empty ? [] : names);
			expect(outputs.every((item) => item.json.password === undefined)).toBe(true);
			if (column === 'drift-extra') expect(outputs[0].json.brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Price > Quote',
		kind: 'read',
		route: 'POST /v1/price',
		endpoint: 'POST /v1/price',
		perItem: true,
		parameters: (timeoutSeconds) => ({
			resource: 'price',
			operation: 'quote',
			lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: '={{ $json.interval }}', period: 'weekly' }] },
			simplify: false,
			options: withTimeout(timeoutSeconds),
		}),
		inputs: (_sim, count) => Array.from({ length: count }, (_, i) => ({ interval: i + 1 })),
		verify(outputs, input, _sim, _e, column) {
			expect(outputs).toHaveLength(1);
			const quote = outputs[0].json as { periods: Record<string, { individual: Record<string, { interval: number; total: number }> }>; total: { due: number } };
			const lines = Object.values(quote.periods.weekly.individual);
			expect(lines.map((line) => line.interval)).toEqual([input.interval]);
			expect(quote.total.due).toBe(lines[0].total);
			if (column === 'drift-extra') expect((quote as unknown as IDataObject).brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Stock > Get Many',
		kind: 'read',
		route: 'GET /v1/stock',
		endpoint: 'GET /v1/stock',
		perItem: false,
		parameters: (timeoutSeconds) => ({ resource: 'stock', operation: 'getAll', returnAll: true, filters: { onlyAvailable: false }, options: withTimeout(timeoutSeconds) }),
		inputs: (_sim, count) => Array.from({ length: count }, (_, i) => ({ run: i })),
		verify(outputs, _input, sim, e, column) {
			expect(outputs.map((item) => item.json.city)).toEqual(e.empty ? [] : sim.stock.map((city) => city.city));
			if (!e.empty) expect(outputs[0].json.carriers).toEqual(sim.stock[0].counts);
			if (column === 'drift-extra') expect(outputs[0].json.region_note).toBe('hello');
		},
	},
	extendRow('Proxy > Extend (the charge)', 'allocate', 'POST /v1/proxies/allocate', ALLOCATE, {}),
	extendRow('Extend: look-up before the charge', 'guard', 'GET /v1/proxies', 'GET /v1/proxies', {}),
	extendRow('Extend: Maximum Total Cost quote', 'guard', 'POST /v1/price', 'POST /v1/price', { maxTotalCost: 1_000_000 }),
	extendRow('Extend: read-back after the charge', 'readback', 'GET /v1/proxies', 'GET /v1/proxies', {}, 1),
	{
		label: 'Account > Get Funds',
		kind: 'read',
		route: 'GET /v1/funds',
		endpoint: 'GET /v1/funds',
		perItem: false,
		parameters: (timeoutSeconds) => ({ resource: 'account', operation: 'getFunds', simplify: false, options: withTimeout(timeoutSeconds) }),
		inputs: (_sim, count) => Array.from({ length: count }, (_, i) => ({ run: i })),
		verify(outputs, _input, sim, _e, column) {
			expect(outputs).toHaveLength(1);
			expect(outputs[0].json.funds).toBe(sim.account().balance);
			expect(outputs[0].json.upcoming).toHaveProperty('total.renewal_required');
			if (column === 'drift-extra') expect(outputs[0].json.brand_new_field).toBe('hello');
		},
	},
];

// ----- running an action cell -------------------------------------------------------------------

function outputsByInput(items: INodeExecutionData[]): Map<number, INodeExecutionData[]> {
	const map = new Map<number, INodeExecutionData[]>();
	for (const item of items) {
		const paired = item.pairedItem;
		const index = typeof paired === 'object' && paired !== null && !Array.isArray(paired) ? paired.item : -1;
		map.set(index, [...(map.get(index) ?? []), item]);
	}
	return map;
}

function injectFor(sim: ProxyAccountSimulator, row: { route: RouteKey; skip?: number }, fault: FaultSpec): void {
	for (let i = 0; i < (row.skip ?? 0); i++) sim.injectFault({ route: row.route, kind: 'latency', delayMs: 0, when: 'before' });
	sim.injectFault(fault);
}

function summary(outputs: Map<number, INodeExecutionData[]>, inputs: number): string {
	const parts: string[] = [];
	for (let i = 0; i < inputs; i++) {
		const items = outputs.get(i) ?? [];
		const error = items.find((item) => item.json.error !== undefined);
		if (error) parts.push(`item ${i}: error item \u201c${String(error.json.error)}\u201d`);
		else {
			const first = items[0]?.json;
			const status =
				first?.status === 'extended' || first?.status === 'unconfirmed'
					? ` ${String(first.status)}, charged ${String(first.charged)}${first.note ? ', with a note' : ''}`
					: '';
			parts.push(`item ${i}: ${items.length} item${items.length === 1 ? '' : 's'}${status}`);
		}
	}
	return parts.join(', ');
}

const actionHarness = createHarness();



export async function runActionCell(results: Results, audit: SecretAudit, row: ActionRow, column: ColumnId): Promise<void> {
	const e = expectationFor(row.kind, column, row.route, row.endpoint);
	const slow = PERSISTENT.includes(column) && e.attempts > 1;
	const inputCount = row.perItem && slow ? 1 : 2;
	await results.cell(
		{
			table: 'fault-matrix',
			row: row.label,
			column: COLUMNS.find((c) => c.id === column)!.label,
			scenario: `${inputCount} input item${inputCount === 1 ? '' : 's'}, Continue On Fail on; ${describeFault(column, row.route, false)}`,
			expected: describeExpectation(row.kind, e),
			short: shortOf(row.kind, e, inputCount),
		},
		async (obs) => {
			await withSim({}, async (sim) => {
				audit.addSim(sim);
				const timeoutSeconds = column === 'timeout' ? ACTION_TIMEOUT_SECONDS : undefined;
				const inputs = row.inputs(sim, inputCount);
				injectFor(sim, row, faultFor(column, row.route));
				const started = performance.now();
				const result = await actionHarness.runNode(
					{ type: 'proxyAccount', continueOnFail: true, parameters: row.parameters(timeoutSeconds) },
					{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: inputs },
				);
				const elapsed = performance.now() - started;
				audit.run(`${row.label} / ${column}`, result);
				obs.count(sim);
				const outputs = outputsByInput(result.items);
				const attempts = row.attempts ? row.attempts(sim) : sim.requests.filter((r) => r.route === row.route).length - (row.perItem ? inputCount - 1 : 0);
				obs.note(`${result.status}; ${attempts} request${attempts === 1 ? '' : 's'} for the faulted call in ${(elapsed / 1000).toFixed(2)} s; ${summary(outputs, inputCount)}`);
				if (row.kind !== 'read') obs.note(`ledger: ${sim.ledger.map((c) => c.proxy_name).join(', ') || 'empty'}`);

				expect(result.status).toBe('success');
				expect(attempts).toBe(e.attempts);
				if (e.minMs) expect(elapsed).toBeGreaterThanOrEqual(e.minMs);
				expect(elapsed).toBeLessThan(30_000 + 5_000);
				checkLedger(sim, row, inputs, e);

				// A fault taken once or twice hits the first item's request; one on every request hits all.
				const everyRequest = faultFor(column, row.route).times === Infinity;
				const failing = e.ok || row.kind === 'readback' ? 0 : row.perItem && !everyRequest ? 1 : inputCount;
				for (let i = 0; i < inputCount; i++) {
					const items = outputs.get(i) ?? [];
					if (i < failing) {
						expect(items).toHaveLength(1);
						expect(items[0].json.error).toBe(e.message ?? `Proxy \u201c${String(inputs[i].name)}\u201d was not found in this Proxy Account [item ${i}]`);
						if (e.description) expect(String(items[0].json.message)).toMatch(e.description);
					} else {
						// Only the first request carries the fault (the others are normal answers).
						row.verify(items, inputs[i], sim, e, i === 0 || !row.perItem ? column : null);
					}
				}
				expect(outputs.size).toBe(e.empty && !row.perItem && row.kind === 'read' ? 0 : inputCount);
			});
			// The same fault without Continue On Fail: the node stops the execution with the same message.
			if (!e.ok && e.attempts === 1 && row.kind !== 'readback') {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					injectFor(sim, row, faultFor(column, row.route));
					const inputs = row.inputs(sim, inputCount);
					const result = await actionHarness.runNode(
						{ type: 'proxyAccount', parameters: row.parameters(column === 'timeout' ? ACTION_TIMEOUT_SECONDS : undefined) },
						{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: inputs },
					);
					audit.run(`${row.label} / ${column} / stop`, result);
					obs.note(
						`run again without Continue On Fail: ${result.status}, \u201c${String(result.error?.message)}\u201d (${plural(sim.requests.length, 'request')}, ${plural(sim.ledger.length, 'charge')})`,
					);
					expect(result.status).toBe('error');
					expect(result.error?.message).toBe(e.message ?? `Proxy \u201c${String(inputs[0].name)}\u201d was not found in this Proxy Account [item 0]`);
					checkLedger(sim, row, inputs, e);
				});
			}
		},
	);
}

/** An extension is charged at most once per item: exactly once when the service processed it. */
function checkLedger(sim: ProxyAccountSimulator, row: ActionRow, inputs: IDataObject[], e: Expectation): void {
	if (row.kind === 'read') {
		expect(sim.ledger).toHaveLength(0);
		return;
	}
	const names = inputs.map((input) => String(input.name));
	expect(sim.ledger.map((charge) => charge.proxy_name)).toEqual(e.charged ? names : []);
	const allocates = sim.requests.filter((r) => r.route === ALLOCATE);
	// Every allocation request the node sent (a 429 answered by the gateway included) named each proxy once.
	for (const request of allocates) {
		const sent = (request.body as { proxies: { time: Array<{ proxy_name: string }> } }).proxies.time.map((line) => line.proxy_name);
		expect(sent).toEqual(names);
	}
	if (row.kind === 'guard' && !e.ok) expect(allocates).toHaveLength(0);
}

// ----- trigger rows --------------------------------------------------------------------------------

export interface TriggerRow {
	label: string;
	event: string;
	route: RouteKey;
	endpoint: string;
	parameters: Parameters;
	/** Before the baseline poll. */
	prepare(sim: ProxyAccountSimulator): void;
	/** After the baseline: the change the next good poll must report. Returns the keys of its events. */
	change(sim: ProxyAccountSimulator): string[];
	key(item: IDataObject): string;
	/**
	 * After the change, good polls that bring the event to its last poll (Proxy Removed: the grace
	 * period), so that the faulted poll is the one that must report it.
	 */
	settle?(poll: () => Promise<unknown>, sim: ProxyAccountSimulator): Promise<void>;
}

const HOUR = 3_600_000;


function utc(ms: number): string {
	return new Date(ms).toISOString().replace('Z', '+00:00');
}

export const TRIGGER_ROWS: TriggerRow[] = [
	{
		label: 'Trigger: Stock Changed',
		event: 'stockChanged',
		route: 'GET /v1/stock',
		endpoint: 'GET /v1/stock',
		parameters: { event: 'stockChanged' },
		prepare(sim) {
			const city = sim.stock[1];
			sim.setCityOpen(city.city, true);
			for (const carrier of sim.carriers) sim.setStockCount(city.city, carrier.key, 0);
		},
		change(sim) {
			sim.setStockCount(sim.stock[1].city, 'att', 3);
			return [`${sim.stock[1].city}/att/became_available`];
		},
		key: (item) => `${String(item.city)}/${String(item.carrier)}/${String(item.change)}`,
	},
	{
		label: 'Trigger: Proxy Expiring',
		event: 'proxyExpiring',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		parameters: { event: 'proxyExpiring', withinHours: 24 },
		prepare() {},
		change(sim) {
			sim.addProxy(null, { proxy_name: 'PRX-REL-EXPIRING', expires_at: utc(sim.clock.now() + 10 * HOUR) });
			return ['PRX-REL-EXPIRING'];
		},
		key: (item) => String(item.proxy_name),
	},
	{
		label: 'Trigger: Proxy Status Changed',
		event: 'proxyStatusChanged',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		parameters: { event: 'proxyStatusChanged' },
		prepare(sim) {
			[...sim.account().proxies.values()][3].network_status = 'online';
		},
		change(sim) {
			const proxy = [...sim.account().proxies.values()][3];
			proxy.network_status = 'offline';
			return [`${proxy.proxy_name}:online->offline`];
		},
		key: (item) =>
			`${String(item.proxy_name)}:${String((item.before as IDataObject).network_status)}->${String((item.after as IDataObject).network_status)}`,
	},
	{
		label: 'Trigger: New Proxy',
		event: 'newProxy',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		parameters: { event: 'newProxy' },
		prepare() {},
		change(sim) {
			sim.addProxy(null, { proxy_name: 'PRX-REL-NEW' });
			return ['PRX-REL-NEW'];
		},
		key: (item) => String(item.proxy_name),
	},
	{
		label: 'Trigger: Low Funds',
		event: 'lowFunds',
		route: 'GET /v1/funds',
		endpoint: 'GET /v1/funds',
		parameters: { event: 'lowFunds', fundsThreshold: 50 },
		prepare(sim) {
			sim.account().balance = 100;
		},
		change(sim) {
			sim.account().balance = 12.5;
			return ['low_funds:12.5'];
		},
		key: (item) => `${String(item.event)}:${String(item.funds)}`,
	},
	{
		label: 'Trigger: IP Changed',
		event: 'ipChanged',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		parameters: { event: 'ipChanged', onlyAutoRotating: false },
		prepare(sim) {
			for (const proxy of sim.account().proxies.values()) {
				proxy.auto_change = false;
				proxy.last_ip_change = utc(Date.parse('2020-01-01T00:00:00.000Z'));
			}
		},
		change(sim) {
			const proxy = [...sim.account().proxies.values()][2];
			proxy.last_ip_change = utc(Date.parse('2020-01-02T00:00:00.000Z'));
			return [`${proxy.proxy_name}:ip`];
		},
		key: (item) => `${String(item.proxy_name)}:ip`,
	},
];

/** The trigger with a short request timeout (its test hook); every other policy as shipped. */
class QuickTimeoutTrigger extends ProxyAccountTrigger {
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger(this, { timeoutMs: TRIGGER_TIMEOUT_MS });
	}
}

const triggerHarness = createHarness([new ProxyAccountTrigger()]);
const quickTriggerHarness = createHarness([new QuickTimeoutTrigger()]);

async function pollOnce(t: PollHarness): Promise<{ output: INodeExecutionData[][] | null; error?: unknown }> {
	try {
		return { output: await t.poll() };
	} catch (error) {
		return { output: null, error };
	}
}

function eventKeys(row: TriggerRow, output: INodeExecutionData[][] | null): string[] | null {
	return output === null ? null : output[0].map((item) => row.key(item.json));
}

export async function runTriggerCell(results: Results, audit: SecretAudit, row: TriggerRow, column: ColumnId): Promise<void> {
	// An empty list leaves every proxy out: each is read by name (issue 36); for Proxy Removed the
	// removed one answers not found, but the others are found, so the reply is known to be partial and
	// the removal waits (reported at the next good poll, as after any empty list).
	// Proxy Status Changed and IP Changed: the changed proxy, left out, is read by name and its change
	// reported at that very poll.
	const readChange = column === 'empty' && ['proxyStatusChanged', 'ipChanged'].includes(row.event);
	const e = readChange ? { ok: true, attempts: 1 } : expectationFor('poll', column, row.route, row.endpoint);
	await results.cell(
		{
			table: 'fault-matrix',
			row: row.label,
			column: COLUMNS.find((c) => c.id === column)!.label,
			scenario: `baseline poll, one change, then a poll under ${describeFault(column, row.route, true)}`,
			expected: describeExpectation('poll', e),
			short: shortOf('poll', e, 0),
		},
		async (obs) => {
			await withSim({}, async (sim) => {
				audit.addSim(sim);
				const harness: WorkflowHarness = column === 'timeout' ? quickTriggerHarness : triggerHarness;
				const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: row.parameters }, { baseUrl: sim.url, apiKey: sim.demoApiKey });
				row.prepare(sim);
				const baselinePoll = await pollOnce(t);
				expect(baselinePoll).toEqual({ output: null });
				const pending = row.change(sim);
				if (row.settle) await row.settle(() => t.poll(), sim);
				const baseline = JSON.stringify(t.staticData);
				sim.injectFault(faultFor(column, row.route));
				sim.resetLogs();

				const started = performance.now();
				const faulted = await pollOnce(t);
				const elapsed = performance.now() - started;
				audit.poll(`${row.label} / ${column}`, faulted.output, faulted.error);
				obs.count(sim);
				const attempts = sim.requests.filter((r) => r.route === row.route).length;
				const stateKept = JSON.stringify(t.staticData) === baseline;
				const message = faulted.error instanceof Error ? faulted.error.message : undefined;
				obs.note(
					`${attempts} request${attempts === 1 ? '' : 's'} in ${(elapsed / 1000).toFixed(2)} s; ${
						message ? `poll failed: \u201c${message}\u201d` : `poll emitted ${JSON.stringify(eventKeys(row, faulted.output))}`
					}; state ${stateKept ? 'unchanged' : 'advanced'}`,
				);

				expect(attempts).toBe(e.attempts);
				if (e.minMs) expect(elapsed).toBeGreaterThanOrEqual(e.minMs);
				expect(elapsed).toBeLessThan(30_000 + 5_000);
				if (!e.ok) {
					expect(faulted.error).toBeInstanceOf(NodeApiError);
					expect(message).toBe(e.message);
					if (e.description) expect(String((faulted.error as NodeApiError).description)).toMatch(e.description);
					expect(stateKept).toBe(true);
				} else if (e.empty) {
					// Every entry is kept, marked missing for its grace period (the next good poll clears the marks).
					expect(faulted).toEqual({ output: null });
					const stored = (data: IDataObject) => {
						const state = Object.values(data)[0] as IDataObject;
						return Object.keys((state.stock ?? state.reported ?? state.status ?? state.ids ?? state.known ?? state.ips ?? {}) as object).sort();
					};
					expect(stored(t.staticData)).toEqual(stored(JSON.parse(baseline) as IDataObject));
				} else {
					expect(faulted.error).toBeUndefined();
					expect(eventKeys(row, faulted.output)).toEqual(pending);
				}

				// The next good polls: what was pending comes out exactly once.
				sim.clearFaults();
				sim.resetLogs();
				const next = await pollOnce(t);
				const after = await pollOnce(t);
				audit.poll(`${row.label} / ${column} / next`, next.output, next.error);
				audit.poll(`${row.label} / ${column} / after`, after.output, after.error);
				obs.count(sim);
				obs.note(`next polls emitted ${JSON.stringify(eventKeys(row, next.output))} then ${JSON.stringify(eventKeys(row, after.output))}`);
				expect(next.error).toBeUndefined();
				expect(after).toEqual({ output: null });
				expect(eventKeys(row, next.output)).toEqual(e.ok && !e.empty ? null : pending);
			});
		},
	);
}
