/**
 * The fault matrix's hostile columns: faults the simulator cannot make on its own, made by the
 * hostile front server (test/harness/hostile.ts) between the node and the simulator, and the
 * settings a real n8n user reaches for. Same rows as the rest of the matrix (matrix.ts), new
 * columns:
 *
 * - **redirect**: a 302 to another loopback address (the sink), for reads and for the charge;
 * - **slow drip**: the reply trickled 16 bytes every 400 ms, longer than Timeout (Seconds) = 3;
 * - **charge-then-5xx**: the request reaches the service (which acts) and a 500 comes back;
 * - **lagging read**: after the charge, the next list read still shows the old expiry dates;
 * - **partial list**: a list reply with its first entry missing;
 * - **expression options**: an option set by an expression that resolves to nothing;
 * - **Retry On Fail**: n8n's node setting, with a 500 on the first request.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { pollTrigger } from '../../nodes/ProxyAccount/trigger/poll';
import { createHarness, HostileFront, PollHarness } from '../harness';
import type { HostileRule, NodeResult, NodeUnderTest } from '../harness';
import type { FaultSpec, ProxyAccountSimulator, RouteKey } from '../simulator';
import type { ActionRow, TriggerRow } from './matrix';
import type { Observation, Results, SecretAudit } from './support';
import { plural, withSim } from './support';

/**
 * The slow drip: 16 bytes every DRIP_MS against a DRIP_TIMEOUT_SECONDS timeout. The timeout is wide so
 * that the retry's normal answer arrives within it on a machine busy with another test suite; the
 * drip is slow enough that every reply of the matrix outlasts it (issue 35).
 */
const DRIP_MS = 400;
const DRIP_TIMEOUT_SECONDS = 3;

export type HostileColumnId = 'redirect' | 'drip' | 'charge-then-5xx' | 'lag' | 'partial' | 'expression' | 'retry';

export const HOSTILE_COLUMNS: Array<{ id: HostileColumnId; label: string }> = [
	{ id: 'redirect', label: 'redirect' },
	{ id: 'drip', label: 'slow drip' },
	{ id: 'charge-then-5xx', label: 'charge-then-5xx' },
	{ id: 'lag', label: 'lagging read' },
	{ id: 'partial', label: 'partial list' },
	{ id: 'expression', label: 'expression options' },
	{ id: 'retry', label: 'Retry On Fail' },
];

const LIST_ROUTES: RouteKey[] = ['GET /v1/proxies', 'GET /v1/stock'];

/** A rule without its route (distributed over the kinds, so each keeps its own fields). */
type RuleBody = HostileRule extends infer R ? (R extends HostileRule ? Omit<R, 'route'> : never) : never;

/** The front lets `skip` requests of a route through untouched before `rule` applies. */
function rulesFor(route: RouteKey, skip: number, rule: RuleBody): HostileRule[] {
	const pass = Array.from({ length: skip }, (): HostileRule => ({ route, kind: 'delay', ms: 0 }));
	return [...pass, { ...rule, route } as HostileRule];
}

const messages = {
	redirect: (origin: string, endpoint: string) =>
		`The Proxy Account service answered with a redirect (HTTP 302) to ${origin}, which was not followed (${endpoint})`,
	status500: (endpoint: string) => `The Proxy Account service could not handle the request (HTTP 500, ${endpoint})`,
	timeout: (endpoint: string) => `The Proxy Account service did not answer within ${DRIP_TIMEOUT_SECONDS} s (${endpoint})`,
	retry: 'Retry On Fail is on, which could pay twice for the same extension',
	readTimeout: (item: number) => `Timeout (Seconds) must be a whole number from 1 to 600, but it is empty [item ${item}]`,
	cap: 'Maximum Total Cost must be an amount of 0 or more, but it is empty',
};

const EMPTY = '={{ $json.nothing }}';

// ----- action rows -----------------------------------------------------------------------------------

interface ActionPlan {
	scenario: string;
	expected: string;
	short: string;
	rules: (front: HostileFront) => HostileRule[];
	faults?: FaultSpec[];
	parameters: IDataObject;
	node?: Partial<NodeUnderTest>;
	check(run: ActionRun): void;
}

interface ActionRun {
	result: NodeResult;
	sim: ProxyAccountSimulator;
	front: HostileFront;
	inputs: IDataObject[];
	outputs: Map<number, INodeExecutionData[]>;
	elapsed: number;
	/** Requests on the row's route that the front received (what the node sent). */
	sent: number;
}

const isExtend = (row: ActionRow) => row.kind !== 'read';

function errorOf(items: INodeExecutionData[] | undefined): { error: string; description: string } {
	expect(items).toHaveLength(1);
	const json = items![0].json;
	expect(typeof json.error).toBe('string');
	return { error: String(json.error), description: String(json.message ?? '') };
}

/** Every input item failed with `message` (a function of the item, or one text for all). */
function allFailed(run: ActionRun, message: string | ((item: number) => string)): void {
	run.inputs.forEach((_input, i) => {
		expect(errorOf(run.outputs.get(i)).error).toBe(typeof message === 'string' ? message : message(i));
	});
}

function extendedAll(run: ActionRun, row: ActionRow): void {
	run.inputs.forEach((input, i) => row.verify(run.outputs.get(i) ?? [], input, run.sim, { ok: true, attempts: 1 }, null));
}

function ledgerNames(sim: ProxyAccountSimulator): string[] {
	return sim.ledger.map((entry) => entry.proxy_name);
}

function unconfirmedAll(run: ActionRun, note: string): void {
	run.inputs.forEach((input, i) => {
		const items = run.outputs.get(i) ?? [];
		expect(items).toHaveLength(1);
		expect(items[0].json.status).toBe('unconfirmed');
		expect(String(items[0].json.note)).toContain(note);
		expect(items[0].json.charged).toBe(run.sim.ledger.find((entry) => entry.proxy_name === input.name)?.amount);
	});
}

export function actionPlan(row: ActionRow, column: HostileColumnId): ActionPlan {
	const skip = row.skip ?? 0;
	const base = row.parameters() as IDataObject;
	const faultOnce = (rule: RuleBody) => (): HostileRule[] => rulesFor(row.route, skip, rule);
	switch (column) {
		case 'redirect':
			return {
				scenario: `${row.route} answered with a 302 to another loopback address (the sink), once`,
				expected:
					row.kind === 'readback'
						? 'unconfirmed, the note names the redirect and the target origin; the sink receives nothing'
						: `fails at once with \u201c\u2026answered with a redirect (HTTP 302) to <sink origin>, which was not followed\u201d; the sink receives nothing (no key, no body)${row.kind === 'allocate' ? '; the description says the extension may have been applied' : ''}${isExtend(row) ? '; nothing charged' : ''}`,
				short: row.kind === 'readback' ? 'unconfirmed + note · 0 to sink' : 'error · 0 to sink',
				rules: faultOnce({ kind: 'redirect', status: 302 }),
				parameters: base,
				check(run) {
					const message = messages.redirect(run.front.sinkOrigin, row.endpoint);
					expect(run.front.sink.requests).toHaveLength(0);
					if (row.kind === 'readback') {
						unconfirmedAll(run, message);
						return;
					}
					if (row.perItem) {
						expect(errorOf(run.outputs.get(0)).error).toBe(message);
						row.verify(run.outputs.get(1) ?? [], run.inputs[1], run.sim, { ok: true, attempts: 1 }, null);
					} else allFailed(run, message);
					if (row.kind === 'allocate') expect(errorOf(run.outputs.get(0)).description).toMatch(/may have been applied/);
					if (isExtend(row)) expect(run.sim.ledger).toHaveLength(0);
				},
			};
		case 'drip':
			return {
				scenario: `${row.route}: the reply trickled 16 bytes every ${DRIP_MS} ms (several seconds in all), Timeout (Seconds) ${DRIP_TIMEOUT_SECONDS}, once`,
				expected:
					row.kind === 'allocate'
						? `fails at its ${DRIP_TIMEOUT_SECONDS} s deadline, before the trickled reply ends: \u201cdid not answer within ${DRIP_TIMEOUT_SECONDS} s\u201d, the extension may have been applied; one request; charged once per item (the service acted)`
						: `the trickled attempt ends at its ${DRIP_TIMEOUT_SECONDS} s deadline and is tried again: recovers (2 requests)`,
				short: row.kind === 'allocate' ? `error at ${DRIP_TIMEOUT_SECONDS} s · 1 req` : 'ok · 2 req',
				rules: faultOnce({ kind: 'trickle', intervalMs: DRIP_MS, bytes: 16 }),
				parameters: row.parameters(DRIP_TIMEOUT_SECONDS) as IDataObject,
				check(run) {
					if (row.kind === 'allocate') {
						allFailed(run, messages.timeout(row.endpoint));
						expect(errorOf(run.outputs.get(0)).description).toMatch(/may have been applied/);
						expect(run.sent).toBe(1);
						expect(ledgerNames(run.sim)).toEqual(run.inputs.map((input) => input.name));
						// The deadline, not the drip, ends the run: the node left before the trickled reply
						// ended (the front saw no complete reply), not a wall-clock bound of a busy machine.
						expect(run.front.log.filter((entry) => entry.route === row.route).map((entry) => entry.status)).toEqual([null]);
						return;
					}
					// The trickled attempt and its retry; an Extend also reads the list after the charge.
					expect(run.sent).toBe(row.perItem ? run.inputs.length + 1 : isExtend(row) && row.route === 'GET /v1/proxies' ? 3 : 2);
					expect(run.elapsed).toBeGreaterThanOrEqual(DRIP_TIMEOUT_SECONDS * 1_000);
					if (isExtend(row)) extendedAll(run, row);
					else run.inputs.forEach((input, i) => row.verify(run.outputs.get(i) ?? [], input, run.sim, { ok: true, attempts: 2 }, null));
				},
			};
		case 'charge-then-5xx':
			return {
				scenario: `${row.route} reaches the service, which acts; the front answers 500 instead of its reply, once`,
				expected:
					row.kind === 'allocate'
						? 'fails: \u201cHTTP 500\u201d, the extension may have been applied (never \u201cnothing was charged\u201d); one request; charged once per item'
						: row.kind === 'readback'
							? 'unconfirmed, the note names the 500; charged once per item'
							: 'fails with \u201cHTTP 500\u201d (a read is not retried on 500); nothing charged',
				short: row.kind === 'readback' ? 'unconfirmed + note' : row.kind === 'allocate' ? 'error · maybe charged' : 'error · 1 req',
				rules: faultOnce({ kind: 'rewrite', reply: 'status', status: 500 }),
				parameters: base,
				check(run) {
					const message = messages.status500(row.endpoint);
					if (row.kind === 'readback') {
						unconfirmedAll(run, message);
						return;
					}
					if (row.perItem) expect(errorOf(run.outputs.get(0)).error).toBe(message);
					else allFailed(run, message);
					if (row.kind === 'allocate') {
						const { description } = errorOf(run.outputs.get(0));
						expect(description).toMatch(/may have been applied/);
						expect(description).not.toMatch(/nothing was charged/i);
						expect(run.sent).toBe(1);
						expect(ledgerNames(run.sim)).toEqual(run.inputs.map((input) => input.name));
					} else if (isExtend(row)) expect(run.sim.ledger).toHaveLength(0);
				},
			};
		case 'lag':
			return {
				scenario: 'after the charge, the next list read still shows the old expiry dates (a replica lagging behind the write)',
				expected: isExtend(row)
					? 'the read-back sees the old expiry, reads again and confirms: extended, charged once per item'
					: 'no charge to lag behind: a normal answer',
				short: isExtend(row) ? 'ok · re-read' : 'ok',
				rules: () => [{ route: 'GET /v1/proxies', kind: 'lag', reads: 1 }],
				parameters: base,
				check(run) {
					if (isExtend(row)) {
						extendedAll(run, row);
						expect(run.front.log.filter((entry) => entry.lag === 'served')).toHaveLength(1);
						expect(run.front.log.filter((entry) => entry.route === 'GET /v1/proxies')).toHaveLength(3);
					} else run.inputs.forEach((input, i) => row.verify(run.outputs.get(i) ?? [], input, run.sim, { ok: true, attempts: 1 }, null));
				},
			};
		case 'partial': {
			const list = LIST_ROUTES.includes(row.route);
			return {
				scenario: list ? `${row.route} answers without its first entry, once` : `${row.route} is no list: nothing to drop`,
				expected: !list
					? 'a normal answer'
					: row.kind === 'guard'
						? 'the missing proxy fails as not found, nothing charged for it; the other is extended'
						: row.kind === 'readback'
							? 'a proxy missing from the read-back is read again: extended, charged once per item'
							: 'what the service listed, without the missing entry',
				short: !list ? 'ok' : row.kind === 'guard' ? '1 not found · 1 ok' : row.kind === 'readback' ? 'ok · re-read' : 'ok, 1 fewer',
				rules: () => (list ? rulesFor(row.route, skip, { kind: 'drop', count: 1 }) : []),
				parameters: base,
				check(run) {
					if (!list) {
						run.inputs.forEach((input, i) => row.verify(run.outputs.get(i) ?? [], input, run.sim, { ok: true, attempts: 1 }, null));
						return;
					}
					if (row.kind === 'guard') {
						const first = [...run.sim.account().proxies.keys()][0];
						expect(errorOf(run.outputs.get(0)).error).toBe(`Proxy \u201c${first}\u201d was not found in this Proxy Account [item 0]`);
						expect(ledgerNames(run.sim)).toEqual([run.inputs[1].name]);
						return;
					}
					if (row.kind === 'readback') {
						extendedAll(run, row);
						return;
					}
					const items = run.outputs.get(0) ?? [];
					if (row.route === 'GET /v1/stock') expect(items.map((item) => item.json.city)).toEqual(run.sim.stock.slice(1).map((city) => city.city));
					else expect(items.map((item) => item.json.proxy_name)).toEqual([...run.sim.account().proxies.keys()].slice(1));
				},
			};
		}
		case 'expression':
			return {
				scenario: isExtend(row)
					? 'Maximum Total Cost set by an expression that resolves to nothing'
					: 'Timeout (Seconds) set by an expression that resolves to nothing',
				expected: isExtend(row)
					? `every item refused before any request: \u201c${messages.cap}\u201d; nothing charged`
					: 'every item refused before any request: \u201cTimeout (Seconds) must be a whole number from 1 to 600, but it is empty [item N]\u201d',
				short: 'refused · 0 req',
				rules: () => [],
				parameters: isExtend(row)
					? { ...base, options: { ...(base.options as IDataObject), maxTotalCost: EMPTY } }
					: { ...base, options: { ...(base.options as IDataObject), timeoutSeconds: EMPTY } },
				check(run) {
					allFailed(run, isExtend(row) ? messages.cap : messages.readTimeout);
					expect(run.front.log).toHaveLength(0);
					expect(run.sim.ledger).toHaveLength(0);
				},
			};
		case 'retry':
			return {
				scenario: `n8n\u2019s Retry On Fail on (2 tries); ${isExtend(row) ? 'a 500 queued on the charge' : `a 500 on the first ${row.route}`}`,
				expected: isExtend(row)
					? `every item refused before any request: \u201c${messages.retry}\u201d (n8n tries again; refused again); nothing charged`
					: 'the first run ends in an error item, n8n runs the node again, which succeeds; nothing is charged',
				short: isExtend(row) ? 'refused · 0 req' : 'ok · n8n re-ran',
				rules: () => [],
				faults: [{ route: isExtend(row) ? 'POST /v1/proxies/allocate' : row.route, kind: 'status', status: 500 }],
				node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 },
				parameters: base,
				check(run) {
					if (isExtend(row)) {
						allFailed(run, messages.retry);
						expect(run.front.log).toHaveLength(0);
						expect(run.sim.ledger).toHaveLength(0);
						return;
					}
					run.inputs.forEach((input, i) => row.verify(run.outputs.get(i) ?? [], input, run.sim, { ok: true, attempts: 2 }, null));
					expect(run.sim.requests.filter((r) => r.route === row.route).length).toBeGreaterThan(row.perItem ? run.inputs.length : 1);
				},
			};
	}
}

function outputsByInput(items: INodeExecutionData[]): Map<number, INodeExecutionData[]> {
	const map = new Map<number, INodeExecutionData[]>();
	for (const item of items) {
		const index = (item.pairedItem as { item: number }).item;
		map.set(index, [...(map.get(index) ?? []), item]);
	}
	return map;
}

const actionHarness = createHarness();

async function withFront<T>(sim: ProxyAccountSimulator, work: (front: HostileFront) => Promise<T>): Promise<T> {
	const front = await HostileFront.start(sim.url);
	try {
		return await work(front);
	} finally {
		await front.stop();
	}
}

function noteRun(obs: Observation, run: ActionRun): void {
	const parts: string[] = [];
	run.inputs.forEach((_input, i) => {
		const items = run.outputs.get(i) ?? [];
		const error = items.find((item) => item.json.error !== undefined);
		if (error) parts.push(`item ${i}: error item \u201c${String(error.json.error)}\u201d`);
		else parts.push(`item ${i}: ${plural(items.length, 'item')}${items[0]?.json.status ? ` ${String(items[0].json.status)}` : ''}`);
	});
	obs.note(
		`${run.result.status} in ${(run.elapsed / 1000).toFixed(2)} s; the node sent ${plural(run.sent, 'request')} on the faulted route; ${parts.join(', ')}; sink received ${run.front.sink.requests.length}`,
	);
}

export async function runHostileActionCell(results: Results, audit: SecretAudit, row: ActionRow, column: HostileColumnId): Promise<void> {
	const plan = actionPlan(row, column);
	await results.cell(
		{
			table: 'fault-matrix',
			row: row.label,
			column: HOSTILE_COLUMNS.find((c) => c.id === column)!.label,
			scenario: `2 input items, On Error: Continue; ${plan.scenario}`,
			expected: plan.expected,
			short: plan.short,
		},
		async (obs) => {
			await withSim({}, async (sim) =>
				withFront(sim, async (front) => {
					audit.addSim(sim);
					const inputs = row.inputs(sim, 2);
					for (const rule of plan.rules(front)) front.add(rule);
					for (const fault of plan.faults ?? []) sim.injectFault(fault);
					const started = Date.now();
					const result = await actionHarness.runNode(
						{ type: 'proxyAccount', continueOnFail: true, ...plan.node, parameters: plan.parameters },
						{ credentials: { baseUrl: front.url, apiKey: sim.demoApiKey }, items: inputs },
					);
					const run: ActionRun = {
						result,
						sim,
						front,
						inputs,
						outputs: outputsByInput(result.items),
						elapsed: Date.now() - started,
						sent: front.log.filter((entry) => entry.route === row.route).length,
					};
					audit.run(`${row.label} / ${column}`, result);
					// The sink's requests are what would have leaked: scanned like everything else.
					audit.refused(`${row.label} / ${column} / sink`, front.sink.requests);
					obs.count(sim);
					noteRun(obs, run);
					if (isExtend(row)) obs.note(`ledger: ${ledgerNames(sim).join(', ') || 'empty'}`);
					expect(result.status).toBe('success');
					expect(front.sink.requests).toHaveLength(0);
					plan.check(run);
				}),
			);
		},
	);
}

// ----- trigger rows ------------------------------------------------------------------------------------

/** The trigger with a 3 s request timeout (its test hook), for the slow drip. */
class QuickTimeoutTrigger extends ProxyAccountTrigger {
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger(this, { timeoutMs: DRIP_TIMEOUT_SECONDS * 1_000 });
	}
}

const triggerHarness = createHarness([new ProxyAccountTrigger()]);
const quickTriggerHarness = createHarness([new QuickTimeoutTrigger()]);

/** The columns a trigger row has: a trigger has no Retry On Fail, and only two events have a number to set. */
export function triggerColumns(row: TriggerRow): HostileColumnId[] {
	const columns: HostileColumnId[] = ['redirect', 'drip', 'charge-then-5xx', 'lag', 'partial'];
	if (row.event === 'stockChanged' || row.event === 'proxyExpiring') columns.push('expression');
	// The funds are no list: there is no entry to drop.
	if (row.route === 'GET /v1/funds') return columns.filter((column) => column !== 'partial');
	return columns;
}

async function pollOnce(t: PollHarness): Promise<{ output: INodeExecutionData[][] | null; error?: unknown }> {
	try {
		return { output: await t.poll() };
	} catch (error) {
		return { output: null, error };
	}
}

const keys = (row: TriggerRow, output: INodeExecutionData[][] | null) => (output === null ? null : output[0].map((item) => row.key(item.json)));

export async function runHostileTriggerCell(results: Results, audit: SecretAudit, row: TriggerRow, column: HostileColumnId): Promise<void> {
	const failing = column === 'redirect' || column === 'charge-then-5xx';
	const expectation: Record<HostileColumnId, { expected: string; short: string; scenario: string }> = {
		redirect: { scenario: `${row.route} answered with a 302 to the sink`, expected: 'the poll fails naming the redirect; state unchanged; the sink receives nothing; the next good poll emits the pending event once', short: 'error · 0 to sink' },
		drip: { scenario: `${row.route} trickled 16 bytes every ${DRIP_MS} ms, poll timeout ${DRIP_TIMEOUT_SECONDS} s`, expected: `the trickled attempt ends at ${DRIP_TIMEOUT_SECONDS} s and is tried again; the poll emits the pending event`, short: 'ok · 2 req' },
		'charge-then-5xx': { scenario: `${row.route} answered 500 after the service answered`, expected: 'the poll fails (HTTP 500); state unchanged; the next good poll emits the pending event once', short: 'error · 1 req' },
		lag: { scenario: 'a lag armed by no charge (a trigger only reads)', expected: 'a normal poll: emits the pending event', short: 'ok' },
		partial: {
			scenario: `${row.route} answers without its first entry once, then complete again`,
			expected: 'emits the pending event and nothing false; when the missing entry is back unchanged, nothing is emitted (it was kept for the grace period)',
			short: 'ok · no false event',
		},
		expression: {
			scenario: row.event === 'stockChanged' ? 'Reached Threshold with Threshold set by an expression that resolves to nothing' : 'Expiring Within (Hours) set by an expression that resolves to nothing',
			expected: 'the poll is refused before any request, naming the field; state unchanged',
			short: 'refused · 0 req',
		},
		retry: { scenario: '', expected: '', short: '' },
	};
	const e = expectation[column];
	await results.cell(
		{ table: 'fault-matrix', row: row.label, column: HOSTILE_COLUMNS.find((c) => c.id === column)!.label, scenario: `baseline poll, one change, then a poll: ${e.scenario}`, expected: e.expected, short: e.short },
		async (obs) => {
			await withSim({}, async (sim) =>
				withFront(sim, async (front) => {
					audit.addSim(sim);
					const harness = column === 'drip' ? quickTriggerHarness : triggerHarness;
					let parameters = row.parameters;
					if (column === 'expression') {
						parameters = row.event === 'stockChanged' ? { ...parameters, stockChange: 'reachedThreshold', threshold: '={{ undefined }}' } : { ...parameters, withinHours: '={{ undefined }}' };
					}
					const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: row.parameters }, { baseUrl: front.url, apiKey: sim.demoApiKey });
					row.prepare(sim);
					expect(await pollOnce(t)).toEqual({ output: null });
					const baseline = JSON.stringify(t.staticData);
					const pending = row.change(sim);
					front.resetLog();
					if (column === 'expression') {
						const refusedPoll = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters }, { baseUrl: front.url, apiKey: sim.demoApiKey });
						const refused = await pollOnce(refusedPoll);
						audit.poll(`${row.label} / ${column}`, refused.output, refused.error);
						const message = refused.error instanceof Error ? refused.error.message : '';
						obs.note(`poll refused: \u201c${message}\u201d; ${plural(front.log.length, 'request')}`);
						expect(message).toBe(
							row.event === 'stockChanged'
								? 'Threshold must be a whole number of 1 or more, but it is empty'
								: 'Expiring Within (Hours) must be a number of hours of 0 or more, but it is empty',
						);
						expect(front.log).toHaveLength(0);
						return;
					}
					if (column === 'redirect') front.add({ route: row.route, kind: 'redirect', status: 302 });
					if (column === 'drip') front.add({ route: row.route, kind: 'trickle', intervalMs: DRIP_MS, bytes: 16 });
					if (column === 'charge-then-5xx') front.add({ route: row.route, kind: 'rewrite', reply: 'status', status: 500 });
					if (column === 'lag') front.add({ route: 'GET /v1/proxies', kind: 'lag', reads: 1 });
					if (column === 'partial') front.add({ route: row.route, kind: 'drop', count: 1 });
					const faulted = await pollOnce(t);
					audit.poll(`${row.label} / ${column}`, faulted.output, faulted.error);
					audit.refused(`${row.label} / ${column} / sink`, front.sink.requests);
					const message = faulted.error instanceof Error ? faulted.error.message : undefined;
					const sent = front.log.filter((entry) => entry.route === row.route).length;
					obs.note(`${plural(sent, 'request')}; ${message ? `poll failed: \u201c${message}\u201d` : `poll emitted ${JSON.stringify(keys(row, faulted.output))}`}; sink received ${front.sink.requests.length}`);
					expect(front.sink.requests).toHaveLength(0);
					if (failing) {
						expect(faulted.error).toBeInstanceOf(NodeApiError);
						expect(message).toBe(
							column === 'redirect'
								? messages.redirect(front.sinkOrigin, row.endpoint)
								: messages.status500(row.endpoint),
						);
						expect(JSON.stringify(t.staticData)).toBe(baseline);
					} else {
						expect(faulted.error).toBeUndefined();
						expect(keys(row, faulted.output)).toEqual(pending);
						expect(sent).toBe(column === 'drip' ? 2 : 1);
					}
					// The next good polls: what was pending comes out exactly once, nothing false.
					const next = await pollOnce(t);
					const after = await pollOnce(t);
					audit.poll(`${row.label} / ${column} / next`, next.output, next.error);
					audit.poll(`${row.label} / ${column} / after`, after.output, after.error);
					obs.note(`next polls emitted ${JSON.stringify(keys(row, next.output))} then ${JSON.stringify(keys(row, after.output))}`);
					expect(next.error).toBeUndefined();
					expect(keys(row, next.output)).toEqual(failing ? pending : null);
					expect(after).toEqual({ output: null });
				}),
			);
		},
	);
}
