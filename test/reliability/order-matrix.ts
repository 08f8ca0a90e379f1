/**
 * Fault-matrix rows of the operations that buy, move, remove or command a device (Buy, Change
 * Location, Remove, Rotate IP, Reboot). Each is sent once and never repeated once it may have
 * reached the service: only a 429 (which proves nothing happened) is waited for, by the transport
 * for Buy, Change Location and Remove; Rotate IP and Reboot skip the proxy instead. A failure says
 * whether the purchase or the change may have been made; a refusal that nothing was.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../harness';
import type { FaultSpec, ProxyAccountSimulator, RouteKey } from '../simulator';
import type { ColumnId } from './matrix';
import { COLUMNS, describeFault, faultFor } from './matrix';
import type { Results, SecretAudit } from './support';
import { withSim } from './support';

/**
 * `retry`: the transport waits for a 429 and sends again. `pause`: a short 429 (the endpoint's rate
 * limit) pauses the run and the proxy is sent again; a long one skips it (the proxy's throttle, or
 * when longer than the throttle lasts, the endpoint's limit: nothing more goes to it in the run).
 */
type Rotating = 'retry' | 'pause';

export interface OrderRow {
	label: string;
	route: RouteKey;
	endpoint: string;
	/** What a 429 does. */
	on429: Rotating;
	/** Whether the operation moves money (a refusal then says nothing was charged). */
	money: boolean;
	/** A reply `{ok: true, data: {}}` is still a success for this operation. */
	emptyOk: boolean;
	parameters(sim: ProxyAccountSimulator, name: string, timeoutSeconds?: number): IDataObject;
}

const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };
const withTimeout = (timeoutSeconds: number | undefined): IDataObject =>
	timeoutSeconds === undefined ? {} : { timeoutSeconds };
const cityWith = (sim: ProxyAccountSimulator, key: string) => sim.stock.find((c) => c.open && c.counts[key] > 0)!.city;

export const ORDER_ROWS: OrderRow[] = [
	{
		label: 'Proxy > Buy',
		route: 'POST /v1/proxies/deploy',
		endpoint: 'POST /v1/proxies/deploy',
		on429: 'retry',
		money: true,
		emptyOk: false,
		parameters: (sim, _name, timeoutSeconds) => ({ resource: 'proxy', operation: 'buy', carrier: 'AT&T', city: cityWith(sim, 'att'), quantity: 1, interval: 1, period: 'weekly', options: withTimeout(timeoutSeconds) }),
	},
	{
		label: 'Proxy > Change Location',
		route: 'POST /v1/proxies/swap/:name',
		endpoint: 'POST /v1/proxies/swap/{proxyName}',
		on429: 'retry',
		money: false,
		emptyOk: true,
		parameters: (sim, _name, timeoutSeconds) => ({ resource: 'proxy', operation: 'changeLocation', proxyName: byName, carrier: 'T-Mobile', city: cityWith(sim, 'tmobile'), copySettings: true, options: { waitTimeoutSeconds: 0, ...withTimeout(timeoutSeconds) } }),
	},
	{
		label: 'Proxy > Remove',
		route: 'DELETE /v1/proxies/remove',
		endpoint: 'DELETE /v1/proxies/remove',
		on429: 'retry',
		money: false,
		emptyOk: true,
		parameters: (_sim, _name, timeoutSeconds) => ({ resource: 'proxy', operation: 'remove', proxyName: byName, confirmCount: 1, options: withTimeout(timeoutSeconds) }),
	},
	{
		label: 'Proxy > Rotate IP',
		route: 'POST /v1/proxies/changeip/:name',
		endpoint: 'POST /v1/proxies/changeip/{proxyName}',
		on429: 'pause',
		money: false,
		emptyOk: false,
		parameters: (_sim, _name, timeoutSeconds) => ({ resource: 'proxy', operation: 'rotateIp', proxyName: byName, options: withTimeout(timeoutSeconds) }),
	},
	{
		label: 'Proxy > Reboot',
		route: 'POST /v1/proxies/reboot/:name',
		endpoint: 'POST /v1/proxies/reboot/{proxyName}',
		on429: 'pause',
		money: false,
		emptyOk: false,
		parameters: (_sim, _name, timeoutSeconds) => ({ resource: 'proxy', operation: 'reboot', proxyName: byName, options: withTimeout(timeoutSeconds) }),
	},
];

interface OrderExpectation {
	/** The item succeeds (`skipped` counts as a success: nothing failed). */
	ok: boolean;
	status?: string;
	/** Requests on the route. */
	attempts: number;
	message?: RegExp;
	/** What the description says about the purchase or the change. */
	description?: RegExp;
}

function orderFault(column: ColumnId, route: RouteKey): FaultSpec {
	if (column === 'timeout') return { route, kind: 'latency', delayMs: 2_500, when: 'after' };
	if (column === 'empty') return { route, kind: 'status', status: 200, body: { ok: true, data: {} } };
	return faultFor(column, route);
}

function orderExpectation(column: ColumnId, row: OrderRow): OrderExpectation {
	const maybe = /may have been made: the request may have reached the service, so it was not sent again/;
	const nothing = row.money ? /nothing was charged/ : /nothing was changed/;
	const at = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
	switch (column) {
		case '429':
			return { ok: true, attempts: 2 };
		case '429-storm':
			// 120 s asked, until cleared: a device command skips the proxy, sent once (Rotate IP: longer
			// than its throttle lasts, so the endpoint's rate limit, and the run sends nothing more to
			// it; Reboot: within its 5-minute throttle, so that proxy's); others fail.
			return row.on429 === 'retry'
				? { ok: false, attempts: 1, message: /limiting how often it can be called/, description: nothing }
				: { ok: true, status: 'skipped', attempts: 1 };
		case '500':
		case '503':
		case '503-persistent':
			return { ok: false, attempts: 1, message: at(`The Proxy Account service could not handle the request (HTTP ${column === '500' ? 500 : 503}, ${row.endpoint})`), description: maybe };
		case '502-html':
			return { ok: false, attempts: 1, message: at(`The Proxy Account service answered with a web page instead of data (HTTP 502, ${row.endpoint})`), description: maybe };
		case 'timeout':
			return { ok: false, attempts: 1, message: at(`The Proxy Account service did not answer within 1 s (${row.endpoint})`), description: maybe };
		case 'reset':
			return { ok: false, attempts: 1, message: at(`The connection to the Proxy Account service closed before its answer arrived (${row.endpoint})`), description: maybe };
		case 'malformed':
			return { ok: false, attempts: 1, message: /not valid JSON/, description: maybe };
		case 'ok-false':
			return { ok: false, attempts: 1, message: /could not process the request: Unexpected error/, description: nothing };
		case 'drift-missing':
		case 'drift-type':
			return { ok: false, attempts: 1, message: /sent data in an unexpected shape/, description: maybe };
		case 'empty':
			return row.emptyOk ? { ok: true, attempts: 1 } : { ok: false, attempts: 1, message: /sent data in an unexpected shape/, description: maybe };
		case 'drift-extra':
		case 'huge':
			return { ok: true, attempts: 1 };
	}
}

const harness = createHarness();

/** One cell: one input item with Continue On Fail on. */
export async function runOrderCell(results: Results, audit: SecretAudit, row: OrderRow, column: ColumnId): Promise<void> {
	const e = orderExpectation(column, row);
	const fault = orderFault(column, row.route);
	await results.cell(
		{
			table: 'fault-matrix',
			row: row.label,
			column: COLUMNS.find((c) => c.id === column)!.label,
			scenario: `1 input item, Continue On Fail on; ${column === 'timeout' ? `answer held 2.5 s after the service acted, Timeout (Seconds) 1 (${row.route}, once)` : describeFault(column, row.route, false)}`,
			expected: e.ok
				? `succeeds${e.status ? ` (${e.status})` : ''} with ${e.attempts} request${e.attempts === 1 ? '' : 's'}`
				: `fails (${e.attempts} request, never sent again); the description says ${String(e.description).includes('nothing') ? `nothing was ${row.money ? 'charged' : 'changed'}` : 'it may have been made'}`,
			short: `${e.ok ? (e.status ?? 'ok') : 'error'} \u00b7 ${e.attempts} req \u00b7 never repeated`,
		},
		async (obs) => {
			await withSim({ balance: 100_000 }, async (sim) => {
				audit.addSim(sim);
				const [name] = [...sim.account().proxies.keys()];
				const proxy = sim.account().proxies.get(name)!;
				proxy.auto_change = false;
				proxy.last_ip_change = '2020-01-01T00:00:00.000Z';
				proxy.last_reboot = '2020-01-01T00:00:00.000Z';
				sim.injectFault(fault);
				const result = await harness.runNode(
					{ type: 'proxyAccount', continueOnFail: true, parameters: row.parameters(sim, name, column === 'timeout' ? 1 : undefined) },
					{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: [{ name }] },
				);
				audit.run(`${row.label} / ${column}`, result);
				obs.count(sim);
				const requests = sim.requests.filter((r) => r.route === row.route);
				obs.note(`${result.status}; ${requests.length} request(s) on ${row.route}; ${sim.ledger.length} charge(s)`);
				expect(result.status).toBe('success');
				expect(requests).toHaveLength(e.attempts);
				expect(sim.ledger.length).toBeLessThanOrEqual(1);
				expect(result.items).toHaveLength(1);
				expect(result.items[0].pairedItem).toEqual({ item: 0 });
				const json = result.items[0].json;
				if (e.ok) {
					expect(json.error).toBeUndefined();
					if (e.status) expect(json.status).toBe(e.status);
				} else {
					expect(String(json.error)).toMatch(e.message!);
					expect(String(json.message)).toMatch(e.description!);
				}
			});
		},
	);
}
