/**
 * Fault-matrix rows of the operations that change a proxy without moving money (Set IPv4, Set
 * Authentication) and of the Proxy Removed event. A change is sent once per item and never
 * repeated once it may have reached the service (only a 429 from the gateway, before anything
 * happened, is waited for and sent again); its failures say whether the change may have been made.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { createHarness } from '../harness';
import type { FaultSpec, ProxyAccountSimulator, RouteKey } from '../simulator';
import type { ColumnId, TriggerRow } from './matrix';
import { COLUMNS, describeFault, faultFor } from './matrix';
import type { Results, SecretAudit } from './support';
import { withSim } from './support';

export interface ChangeRow {
	label: string;
	route: RouteKey;
	endpoint: string;
	/** How the description names what may have been made. */
	what: string;
	parameters(timeoutSeconds?: number): IDataObject;
	/** What the simulator's record must show once the item succeeded. */
	applied(sim: ProxyAccountSimulator, name: string): boolean;
	/** The output of a successful item. */
	verify(json: IDataObject, name: string, sim: ProxyAccountSimulator, column: ColumnId | null): void;
}

const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };
const withTimeout = (timeoutSeconds: number | undefined): IDataObject => (timeoutSeconds === undefined ? {} : { timeoutSeconds });

export const CHANGE_ROWS: ChangeRow[] = [
	{
		label: 'Proxy > Set Auto-Rotation',
		route: 'POST /v1/proxies/autochangeip/:name',
		endpoint: 'POST /v1/proxies/autochangeip/{proxyName}',
		what: 'The automatic rotation setting',
		parameters: (timeoutSeconds) => ({ resource: 'proxy', operation: 'setAutoRotation', proxyName: byName, autoRotationEnabled: true, rateMinutes: 17, options: withTimeout(timeoutSeconds) }),
		applied: (sim, name) => sim.account().proxies.get(name)?.auto_change_time === 17,
		verify(json, name, _sim, column) {
			expect(json).toMatchObject({ proxy_name: name, auto_change: true, auto_change_time: 17, status: 'set' });
			if (column === 'drift-extra') expect(json.brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Proxy > Set IPv4',
		route: 'POST /v1/proxies/ipv4/:name',
		endpoint: 'POST /v1/proxies/ipv4/{proxyName}',
		what: 'The IPv4 setting',
		parameters: (timeoutSeconds) => ({ resource: 'proxy', operation: 'setIpv4', proxyName: byName, ipv4Enabled: false, options: withTimeout(timeoutSeconds) }),
		applied: (sim, name) => typeof sim.account().proxies.get(name)?.last_ipv4_update === 'string',
		verify(json, name, _sim, column) {
			expect(json).toMatchObject({ proxy_name: name, ipv4_enabled: false, status: 'sent_to_device' });
			if (column === 'drift-extra') expect(json.brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Proxy > Set Authentication (username and password)',
		route: 'PATCH /v1/proxies/auth/basic/:name',
		endpoint: 'PATCH /v1/proxies/auth/basic/{proxyName}',
		what: 'The authentication change',
		parameters: (timeoutSeconds) => ({ resource: 'proxy', operation: 'setAuthentication', proxyName: byName, options: withTimeout(timeoutSeconds) }),
		applied: (sim, name) => typeof sim.account().proxies.get(name)?.last_auth_change === 'string',
		verify(json, name, sim, column) {
			expect(json).toMatchObject({ proxy_name: name, authentication: 'username_password', password_generated: true });
			expect(json.username).toBe(sim.account().proxies.get(name)?.username);
			expect(json).not.toHaveProperty('password');
			if (column === 'drift-extra') expect(json.brand_new_field).toBe('hello');
		},
	},
	{
		label: 'Proxy > Set Authentication (IP whitelist)',
		route: 'PATCH /v1/proxies/auth/whitelist/:name',
		endpoint: 'PATCH /v1/proxies/auth/whitelist/{proxyName}',
		what: 'The authentication change',
		parameters: (timeoutSeconds) => ({
			resource: 'proxy',
			operation: 'setAuthentication',
			proxyName: byName,
			authMethod: 'ipWhitelist',
			whitelist: '203.0.113.7, 2001:db8::/48',
			options: withTimeout(timeoutSeconds),
		}),
		applied: (sim, name) => sim.account().proxies.get(name)?.whitelist === '203.0.113.7,2001:db8::/48',
		verify(json, name, _sim, column) {
			expect(json).toMatchObject({ proxy_name: name, authentication: 'ip_whitelist', whitelist_entries: ['203.0.113.7', '2001:db8::/48'] });
			if (column === 'drift-extra') expect(json.brand_new_field).toBe('hello');
		},
	},
];

/** The faults of the matrix, with the two that depend on the route set for a change. */
export function changeFault(column: ColumnId, route: RouteKey): FaultSpec {
	// The change is processed before the answer is late (as the charge in Extend).
	if (column === 'timeout') return { route, kind: 'latency', delayMs: 2_500, when: 'after' };
	// The reply holds nothing (sent by the fault instead of the service: not processed), so the
	// node cannot tell whether the change was made.
	if (column === 'empty') return { route, kind: 'status', status: 200, body: { ok: true, data: {} } };
	return faultFor(column, route);
}

interface ChangeExpectation {
	ok: boolean;
	attempts: number;
	/** The first item's request was processed by the service. */
	processed: boolean;
	message?: string;
	description?: RegExp;
	minMs?: number;
}

const DRIFT_FIELDS: Record<string, { missing: string; type: string; issue: string }> = {
	'POST /v1/proxies/ipv4/:name': { missing: 'data.proxy_name', type: 'data.last_ipv4_update', issue: 'should be string but is number' },
	'PATCH /v1/proxies/auth/basic/:name': { missing: 'data.password', type: 'data.username', issue: 'should be string but is number' },
	'PATCH /v1/proxies/auth/whitelist/:name': { missing: 'data.last_auth_change', type: 'data.proxy_name', issue: 'should be string but is number' },
	'POST /v1/proxies/autochangeip/:name': { missing: 'data.auto_change', type: 'data.auto_change', issue: 'should be boolean but is string' },
};

export function changeExpectation(column: ColumnId, row: ChangeRow): ChangeExpectation {
	const endpoint = row.endpoint;
	const maybe = new RegExp(`${row.what} may have been made: the request may have reached the service, so it was not sent again`);
	const nothing = /nothing was changed/;
	const drift = DRIFT_FIELDS[row.route];
	const shape = (field: string, issue: string) => `The Proxy Account service sent data in an unexpected shape: ${field} ${issue} (${endpoint})`;
	switch (column) {
		case '429':
			return { ok: true, attempts: 2, processed: true, minMs: 1_000 };
		case '429-storm':
			return { ok: false, attempts: 1, processed: false, message: 'The Proxy Account service is limiting how often it can be called', description: nothing };
		case '500':
		case '503':
		case '503-persistent':
			return { ok: false, attempts: 1, processed: false, message: `The Proxy Account service could not handle the request (HTTP ${column === '500' ? 500 : 503}, ${endpoint})`, description: maybe };
		case '502-html':
			return { ok: false, attempts: 1, processed: false, message: `The Proxy Account service answered with a web page instead of data (HTTP 502, ${endpoint})`, description: maybe };
		case 'timeout':
			return { ok: false, attempts: 1, processed: true, message: `The Proxy Account service did not answer within 1 s (${endpoint})`, description: maybe };
		case 'reset':
			return { ok: false, attempts: 1, processed: true, message: `The connection to the Proxy Account service closed before its answer arrived (${endpoint})`, description: maybe };
		case 'malformed':
			return { ok: false, attempts: 1, processed: false, message: `The Proxy Account service sent a reply that is not valid JSON (HTTP 200, ${endpoint})`, description: maybe };
		case 'ok-false':
			return { ok: false, attempts: 1, processed: false, message: 'The Proxy Account service could not process the request: Unexpected error', description: nothing };
		case 'drift-missing':
			return { ok: false, attempts: 1, processed: true, message: shape(drift.missing, 'is missing'), description: maybe };
		case 'drift-type':
			return { ok: false, attempts: 1, processed: true, message: shape(drift.type, drift.issue), description: maybe };
		case 'empty':
			return { ok: false, attempts: 1, processed: false, message: shape('data.proxy_name', 'is missing'), description: maybe };
		case 'drift-extra':
		case 'huge':
			return { ok: true, attempts: 1, processed: true };
	}
}

function describeChange(e: ChangeExpectation, failing: number): string {
	const req = `${e.attempts} request${e.attempts === 1 ? '' : 's'}`;
	if (e.ok) return `recovers (${req}${e.minMs ? `, waits \u2265 ${e.minMs / 1000} s` : ''}); the change is made once per item`;
	return `${failing === 1 ? 'the first item fails' : 'every item fails'} (${req}, never sent again): \u201c${e.message}\u201d; the description says ${
		String(e.description).includes('nothing') ? 'nothing was changed' : 'the change may have been made'
	}; error items paired with their inputs`;
}

const harness = createHarness();

function itemsByInput(items: INodeExecutionData[]): Map<number, INodeExecutionData[]> {
	const map = new Map<number, INodeExecutionData[]>();
	for (const item of items) {
		const index = (item.pairedItem as { item: number }).item;
		map.set(index, [...(map.get(index) ?? []), item]);
	}
	return map;
}

/** One cell: two input items, Continue On Fail on, then again without it when the cell fails. */
export async function runChangeCell(results: Results, audit: SecretAudit, row: ChangeRow, column: ColumnId): Promise<void> {
	const e = changeExpectation(column, row);
	const fault = changeFault(column, row.route);
	const times = fault.times ?? 1;
	const inputCount = 2;
	const failing = e.ok ? 0 : Math.min(inputCount, times);
	await results.cell(
		{
			table: 'fault-matrix',
			row: row.label,
			column: COLUMNS.find((c) => c.id === column)!.label,
			scenario: `${inputCount} input items, Continue On Fail on; ${
				column === 'timeout' ? `answer held 2.5 s after the change, Timeout (Seconds) 1 (${row.route}, once)` : describeFault(column, row.route, false)
			}`,
			expected: describeChange(e, failing),
			short: `${e.ok ? 'ok' : failing === 1 ? '1 error' : 'errors'} \u00b7 ${e.attempts} req \u00b7 never repeated`,
		},
		async (obs) => {
			for (const continueOnFail of e.ok ? [true] : [true, false]) {
				await withSim({}, async (sim) => {
					audit.addSim(sim);
					const names = [...sim.account().proxies.keys()].slice(0, inputCount);
					sim.injectFault(fault);
					const started = Date.now();
					const result = await harness.runNode(
						{ type: 'proxyAccount', continueOnFail, parameters: row.parameters(column === 'timeout' ? 1 : undefined) },
						{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: names.map((name) => ({ name })) },
					);
					const elapsed = Date.now() - started;
					audit.addSim(sim); // generated passwords join the audit's list
					audit.run(`${row.label} / ${column}${continueOnFail ? '' : ' / stop'}`, result);
					obs.count(sim);
					const requests = sim.requests.filter((r) => r.route === row.route);
					const firstName = encodeURIComponent(names[0]);
					const firstAttempts = requests.filter((r) => r.path.endsWith(`/${firstName}`)).length;
					obs.note(`${continueOnFail ? 'Continue On Fail' : 'stop'}: ${result.status}; ${firstAttempts} request(s) for the first item in ${(elapsed / 1000).toFixed(2)} s; ${requests.length} in all`);
					expect(firstAttempts).toBe(e.attempts);
					if (e.minMs) expect(elapsed).toBeGreaterThanOrEqual(e.minMs);
					expect(row.applied(sim, names[0])).toBe(e.processed);
					if (!continueOnFail) {
						expect(result.status).toBe('error');
						expect(result.error?.message).toBe(e.message);
						expect(requests).toHaveLength(1);
						return;
					}
					expect(result.status).toBe('success');
					const outputs = itemsByInput(result.items);
					for (let i = 0; i < inputCount; i++) {
						const items = outputs.get(i) ?? [];
						expect(items).toHaveLength(1);
						// Each item's request is its own; none is ever sent twice but after a gateway 429.
						const own = requests.filter((r) => r.path.endsWith(`/${encodeURIComponent(names[i])}`)).length;
						expect(own).toBe(i === 0 ? e.attempts : 1);
						if (i < failing) {
							expect(items[0].json.error).toBe(e.message);
							expect(String(items[0].json.message)).toMatch(e.description!);
						} else {
							expect(items[0].json.error).toBeUndefined();
							row.verify(items[0].json, names[i], sim, i === 0 ? column : null);
							expect(row.applied(sim, names[i])).toBe(true);
						}
					}
				});
			}
		},
	);
}

// ----- Proxy Removed ------------------------------------------------------------------------------

const MINUTE = 60_000;

export const REMOVED_TRIGGER_ROWS: TriggerRow[] = [
	{
		label: 'Trigger: Proxy Removed',
		event: 'proxyRemoved',
		route: 'GET /v1/proxies',
		endpoint: 'GET /v1/proxies',
		parameters: { event: 'proxyRemoved' },
		prepare() {},
		change(sim) {
			const name = [...sim.account().proxies.keys()][2];
			sim.discardProxy(null, name);
			return [name];
		},
		key: (item) => String(item.proxy_name),
		// The next poll is the one that reports (its read by name answers not found: issue 36).
		async settle(_poll, sim) {
			sim.clock.advance(10 * MINUTE);
		},
	},
];
