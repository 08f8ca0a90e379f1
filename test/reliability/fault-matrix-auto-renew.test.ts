/**
 * Proxy > Set Auto-Renew under every fault column of the fault matrix (real workflow executions
 * against a simulator per cell). The request changes settings (no money): it is never sent again
 * once it may have reached the service, and a failure says whether the settings may have changed
 * and how to check. Each cell runs with Continue On Fail (two items, one batch) and, for a failure,
 * again without it: the node stops with the same message.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../harness';
import type { FaultSpec, ProxyAccountSimulator } from '../simulator';
import type { ColumnId } from './matrix';
import { COLUMNS, faultFor } from './matrix';
import { withSim } from './support';

const ROUTE = 'PATCH /v1/proxies/allocate/renew' as const;
const harness = createHarness();

interface Cell {
	ok: boolean;
	/** Requests on the route, retries included. */
	attempts: number;
	/** Whether the service applied the change. */
	changed: boolean;
	message?: string;
	description?: RegExp;
	unconfirmed?: boolean;
}

const notAgain = /not sent again/;
const mayHave = /may have been made: the request may have reached the service, so it was not sent again/;
const status = (code: number) => `The Proxy Account service could not handle the request (HTTP ${code}, ${ROUTE})`;
const shape = (what: string) => `The Proxy Account service sent data in an unexpected shape: ${what} (${ROUTE})`;

const CELLS: Record<ColumnId, Cell> = {
	'429': { ok: true, attempts: 2, changed: true },
	'429-storm': { ok: false, attempts: 1, changed: false, message: 'The Proxy Account service is limiting how often it can be called', description: /nothing was changed/ },
	'500': { ok: false, attempts: 1, changed: false, message: status(500), description: notAgain },
	'502-html': { ok: false, attempts: 1, changed: false, message: `The Proxy Account service answered with a web page instead of data (HTTP 502, ${ROUTE})`, description: notAgain },
	'503': { ok: false, attempts: 1, changed: false, message: status(503), description: notAgain },
	'503-persistent': { ok: false, attempts: 1, changed: false, message: status(503), description: notAgain },
	timeout: { ok: false, attempts: 1, changed: true, message: `The Proxy Account service did not answer within 1 s (${ROUTE})`, description: mayHave },
	reset: { ok: false, attempts: 1, changed: true, message: `The connection to the Proxy Account service closed before its answer arrived (${ROUTE})`, description: mayHave },
	malformed: { ok: false, attempts: 1, changed: false, message: `The Proxy Account service sent a reply that is not valid JSON (HTTP 200, ${ROUTE})`, description: notAgain },
	'ok-false': { ok: false, attempts: 1, changed: false, message: 'The Proxy Account service could not process the request: Unexpected error' },
	'drift-missing': { ok: false, attempts: 1, changed: true, message: shape('data.proxies is missing'), description: mayHave },
	'drift-type': { ok: false, attempts: 1, changed: true, message: shape('data.proxies.time should be array but is string'), description: mayHave },
	'drift-extra': { ok: true, attempts: 1, changed: true },
	empty: { ok: true, attempts: 1, changed: true, unconfirmed: true },
	huge: { ok: true, attempts: 1, changed: true },
};

/** The matrix's fault, except the timeout: held 2.5 s after the service applied the change, as for Extend. */
function fault(column: ColumnId): FaultSpec {
	if (column === 'timeout') return { route: ROUTE, kind: 'latency', delayMs: 2_500, when: 'after' };
	return faultFor(column, ROUTE);
}

function prepare(sim: ProxyAccountSimulator): string[] {
	const names = [...sim.account().proxies.keys()].slice(0, 2);
	for (const name of names) Object.assign(sim.account().proxies.get(name)!, { auto_renew: true, auto_renew_interval: 1 });
	return names;
}

const parameters = (timeout: boolean): IDataObject => ({
	resource: 'proxy',
	operation: 'setAutoRenew',
	proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
	autoRenew: false,
	interval: 3,
	options: timeout ? { timeoutSeconds: 1 } : {},
});

function changedAll(sim: ProxyAccountSimulator, names: string[]): boolean[] {
	return names.map((name) => {
		const record = sim.account().proxies.get(name)!;
		return record.auto_renew === false && record.auto_renew_interval === 3;
	});
}

describe('fault matrix: Proxy > Set Auto-Renew under every fault', () => {
	it.concurrent.each(COLUMNS.map((c) => [c.label, c.id] as const))('Set Auto-Renew \u00d7 %s', async (_label, column) => {
		const e = CELLS[column];
		await withSim({}, async (sim) => {
			const names = prepare(sim);
			sim.injectFault(fault(column));
			const started = Date.now();
			const result = await harness.runNode(
				{ type: 'proxyAccount', continueOnFail: true, parameters: parameters(column === 'timeout') },
				{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: names.map((name) => ({ name })) },
			);
			expect(result.status).toBe('success');
			expect(Date.now() - started).toBeLessThan(35_000);
			expect(sim.requests.filter((r) => r.route === ROUTE)).toHaveLength(e.attempts);
			expect(changedAll(sim, names)).toEqual([e.changed, e.changed]);
			expect(sim.ledger).toHaveLength(0);
			expect(result.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual([0, 1]);
			for (const item of result.items) {
				if (e.ok) {
					expect(item.json.status).toBe(e.unconfirmed ? 'unconfirmed' : 'updated');
					expect(String(item.json.note)).toMatch(/removed at its expiry/);
					if (e.unconfirmed) expect(String(item.json.note)).toMatch(/did not list this proxy/);
				} else {
					expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
					expect(item.json.error).toBe(e.message);
					if (e.description) expect(String(item.json.message)).toMatch(e.description);
					expect(String(item.json.message)).not.toMatch(/charged|expiry dates/);
				}
			}
			expect(JSON.stringify(result.items)).not.toContain(sim.demoApiKey);
		});
		if (e.ok) return;
		// Without Continue On Fail: the execution stops with the same message, nothing sent twice.
		await withSim({}, async (sim) => {
			const names = prepare(sim);
			sim.injectFault(fault(column));
			const result = await harness.runNode(
				{ type: 'proxyAccount', parameters: parameters(column === 'timeout') },
				{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: names.map((name) => ({ name })) },
			);
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(e.message);
			expect(sim.requests.filter((r) => r.route === ROUTE)).toHaveLength(1);
		});
	});
});
