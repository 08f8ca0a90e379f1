/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * The bad-input sweep (issue #26): every parameter of every operation and trigger event, read from
 * the nodes' own descriptions, against hostile values given typed and through an expression. Each
 * case is a real workflow execution (or a real poll) against the simulator, and must be refused
 * clearly with nothing sent that changes anything and nothing charged, or accepted as a value the
 * field legitimately takes. What shipped code does otherwise is listed in KNOWN_FINDINGS.
 */
import type { IDataObject } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, capturedLogs, cityWith, createHarness, PollHarness } from '../harness';
import type { NodeResult } from '../harness';
import { ProxyAccountSimulator } from '../simulator';
import type { Hostile, SweepParam } from './sweep';
import { ABSENT, actionParams, HOSTILE, legitimate, SENT_NOTHING, setAt, SWEPT_VERSION, triggerParams, typedForm } from './sweep';
import { auditCell, Results, SecretAudit } from './support';

const results = new Results('bad-input-sweep');
const audit = new SecretAudit();
const harness = createHarness([new ProxyAccountTrigger()]);

afterAll(() => results.write());

/** A case's outcome, as the sweep classifies it. */
export type Outcome =
	/** Stopped before any request, naming the field (and the item), with a fix. */
	| 'refused'
	/** Stopped after reads only (a look-up or a quote), naming the field, with a fix. */
	| 'refused after reads'
	/** Sent, and refused by the service with a 4xx; nothing changed or charged. */
	| 'refused by the service'
	/** Stopped at the bad item (item 1); item 0, good, was done first (one item at a time). */
	| 'refused at its item, after the items before it'
	/** n8n itself would not start the run (a required field left empty). */
	| 'refused by n8n'
	/** Sent once and done: the value is one the field takes. */
	| 'accepted'
	/** Anything else: the outcome's text says what. */
	| string;

const GOOD = new Set(['refused', 'refused after reads', 'refused by n8n', 'refused at its item, after the items before it']);

/** A group of cases that misbehave because of shipped code, and how. */
export interface KnownFinding {
	/** Target labels (`proxy/getAll`, `proxy/extend (no Dry Run)`), or every target with the field. */
	targets: string[] | 'every target with the field';
	/** The field's path, e.g. `filters.city` or `options.timeoutSeconds`. */
	field: string;
	/** Labels of HOSTILE values. */
	values: string[];
	via: Via[];
	/** The exact outcome each of these cases still has (a pattern where the message quotes the value). */
	outcome: Outcome | RegExp;
	reason: string;
}

/**
 * Cases that misbehave because of shipped code (none left: issue 26 fixed the last). Each must still
 * have exactly its outcome: the sweep fails when one behaves otherwise, so a fix makes this list shrink.
 */
export const KNOWN_FINDINGS: KnownFinding[] = [];

// ----- the operations: otherwise-valid parameters and two items -----------------------------------

const byName = (value: string) => ({ __rl: true, mode: 'name', value });

interface Target {
	id: string;
	label: string;
	params: SweepParam[];
	/** Changes or charges the account when accepted (the simulator is replaced after such a case). */
	mutates: boolean;
	base(sim: ProxyAccountSimulator): IDataObject;
}

const DRY = { dryRun: true };

const BASES: Record<string, (sim: ProxyAccountSimulator) => IDataObject> = {
	'proxy/extend': () => ({ proxySource: 'parameter', proxyName: byName('={{ $json.name }}'), interval: 1, period: 'weekly', options: { ...DRY } }),
	'proxy/get': () => ({ proxyName: byName('={{ $json.name }}'), simplify: true, options: {} }),
	'proxy/getAll': () => ({ returnAll: false, limit: 50, filters: {}, sort: 'none', simplify: true, options: {} }),
	'proxy/setIpv4': () => ({ proxyName: byName('={{ $json.name }}'), ipv4Enabled: false, options: {} }),
	'proxy/setAuthentication': () => ({ proxyName: byName('={{ $json.name }}'), authMethod: 'usernamePassword', options: {} }),
	'proxy/remove': () => ({ proxyName: byName('={{ $json.name }}'), confirmCount: 2, options: { ...DRY } }),
	'proxy/buy': (sim) => ({ carrier: 'AT&T', city: cityWith(sim, 'att', 4).city, quantity: 1, interval: 1, period: 'weekly', options: { ...DRY } }),
	'proxy/changeLocation': (sim) => ({
		proxyName: byName('={{ $json.name }}'),
		carrier: 'T-Mobile',
		city: cityWith(sim, 'tmobile', 4).city,
		copySettings: true,
		options: { waitTimeoutSeconds: 0 },
	}),
	'proxy/setAutoRenew': () => ({ proxyName: byName('={{ $json.name }}'), autoRenew: false, interval: 3, options: {} }),
	'proxy/rotateIp': () => ({ proxyName: byName('={{ $json.name }}'), options: {} }),
	'proxy/reboot': () => ({ proxyName: byName('={{ $json.name }}'), options: {} }),
	'proxy/setAutoRotation': () => ({ proxyName: byName('={{ $json.name }}'), autoRotationEnabled: true, rateMinutes: 17, options: {} }),
	'price/quote': () => ({ lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: 1, period: 'weekly' }] }, combineItems: false, simplify: true, options: {} }),
	'stock/getAll': () => ({ returnAll: false, limit: 50, filters: {}, options: {} }),
	'account/getFunds': () => ({ simplify: true, options: {} }),
};

/** A good value for the items that do not carry the hostile one, where the default is none. */
const GOOD_VALUES: Record<string, unknown> = { username: 'sweep-user', password: 'sweep-password-1', whitelist: '203.0.113.7' };

/** Money operations run twice: with Dry Run (the base) and without it (a bad value must still be refused first). */
const WITHOUT_DRY_RUN = ['proxy/extend', 'proxy/buy', 'proxy/remove'];
const READ_ONLY = new Set(['proxy/get', 'proxy/getAll', 'price/quote', 'stock/getAll', 'account/getFunds']);

const TARGETS: Target[] = [];
for (const [id, params] of actionParams()) {
	const base = BASES[id];
	if (base === undefined) throw new Error(`the sweep has no valid parameters for ${id}: add it to BASES`);
	const [resource, operation] = id.split('/');
	const withOp = (sim: ProxyAccountSimulator): IDataObject => ({ resource, operation, ...base(sim) });
	TARGETS.push({ id, label: id, params, mutates: !READ_ONLY.has(id), base: withOp });
	if (WITHOUT_DRY_RUN.includes(id)) {
		TARGETS.push({
			id,
			label: `${id} (no Dry Run)`,
			params,
			mutates: true,
			base: (sim) => {
				const parameters = withOp(sim);
				return { ...parameters, options: { ...(parameters.options as IDataObject), dryRun: false } };
			},
		});
	}
}
for (const [id, params] of triggerParams()) {
	TARGETS.push({ id, label: id, params, mutates: false, base: () => ({ event: id.split('/')[1] }) });
}

/** Each known finding's cases, by case id: only cases the sweep runs (a switch has no typed form). */
const FINDINGS = new Map<string, KnownFinding>();
for (const finding of KNOWN_FINDINGS) {
	for (const target of TARGETS) {
		if (finding.targets !== 'every target with the field' && !finding.targets.includes(target.label)) continue;
		for (const param of target.params.filter((p) => fieldOf(p) === finding.field)) {
			for (const hostile of HOSTILE.filter((h) => finding.values.includes(h.label))) {
				for (const via of finding.via) if (runs(param, hostile, via)) FINDINGS.set(caseId(target, param, hostile, via), finding);
			}
		}
	}
}

function stillAsRecorded(finding: KnownFinding | undefined, outcome: Outcome): boolean {
	return finding !== undefined && (finding.outcome instanceof RegExp ? finding.outcome.test(outcome) : finding.outcome === outcome);
}

// ----- one case --------------------------------------------------------------------------------------

type Via = 'typed' | 'expression';

interface CaseResult {
	id: string;
	outcome: Outcome;
	ok: boolean;
	requests: number;
	charges: number;
}

/** The field as messages name it: "Carrier Name or ID" is "Carrier" there. */
const shortName = (param: SweepParam) => param.displayName.replace(/ Names? or IDs?$/, '');

function fieldOf(param: SweepParam): string {
	return param.path.filter((p) => typeof p === 'string').join('.');
}

function caseId(target: Target, param: SweepParam, hostile: Hostile, via: Via): string {
	return `${target.label} > ${fieldOf(param)} = ${hostile.label} (${via})`;
}

/** Whether the sweep runs the value that way: typed where the editor can store it, an expression where the field takes one. */
function runs(param: SweepParam, hostile: Hostile, via: Via): boolean {
	return via === 'typed' ? typedForm(param, hostile.value) !== undefined : param.expressions;
}

const isRead = (r: { method: string; route: string | null }) => r.method === 'GET' || r.route === 'POST /v1/price';

/** Where the value goes in the parameters, and the items the run gets. */
function arrange(target: Target, param: SweepParam, sim: ProxyAccountSimulator, hostile: Hostile, via: Via, both: boolean) {
	const names = [...sim.account().proxies.keys()];
	const items: IDataObject[] = [0, 1].map((i) => ({ name: names[i], proxy_name: names[i] }));
	let parameters = { ...target.base(sim), ...param.shownWith };
	const isTrigger = target.id.startsWith('trigger/');
	let value: unknown;
	if (via === 'typed') {
		value = typedForm(param, hostile.value)?.value;
	} else if (isTrigger) {
		// A poll has no input item: the expression gives the value itself.
		value = hostile.value === ABSENT ? '={{ undefined }}' : `={{ ${JSON.stringify(hostile.value)} }}`;
	} else {
		value = '={{ $json.v }}';
		const key = param.path[param.path.length - 1];
		const good = param.kind === 'locator' ? names[0] : (valueAt(parameters, param.path) ?? GOOD_VALUES[key] ?? param.fallback);
		items.forEach((item, i) => {
			if (i === 1 || both) {
				if (hostile.value !== ABSENT) item.v = hostile.value as IDataObject[string];
			} else item.v = good as IDataObject[string];
		});
		if (param.kind === 'locator') items.forEach((item) => (item.name = item.v as string));
	}
	if (param.kind === 'locator') value = byName(value as string);
	// Typed, one proxy name is in both items: Remove must be told it removes one.
	if (target.id === 'proxy/remove' && param.kind === 'locator' && via === 'typed') parameters.confirmCount = 1;
	parameters = setAt(parameters, param.path, value);
	return { parameters, items };
}

function valueAt(parameters: IDataObject, path: SweepParam['path']): unknown {
	let at: unknown = parameters;
	for (const key of path) at = (at as Record<string | number, unknown> | undefined)?.[key];
	return at;
}

/** What a case is run with, for its classification. */
interface Placement {
	/** The proxy of item 0 when only item 1 carries the hostile value: its own requests are its item's work. */
	doneFirst?: string;
	/** The item the message must name, if it names one. */
	badItem: number;
	/** The field is known to be read per item: the message must name the item. */
	perItem?: boolean;
}

/**
 * A request's text as checked for values that should never be sent. Set Authentication sends a null
 * username or password on purpose: the service generates one (documented API); other nulls count.
 */
const sentText = (r: { path: string; body: unknown }) =>
	`${r.path} ${r.body === null ? '' : JSON.stringify(r.body, (key, v: unknown) => ((key === 'username' || key === 'password') && v === null ? undefined : v))}`;

/** What happened, in the sweep's words. */
function classify(param: SweepParam, hostile: Hostile, sim: ProxyAccountSimulator, error: { message?: string; description?: unknown } | undefined, success: boolean, at: Placement): Outcome {
	const all = apiRequests(sim);
	const ofDoneItem = (text: string) => at.doneFirst !== undefined && text.includes(encodeURIComponent(at.doneFirst));
	const requests = all.filter((r) => !ofDoneItem(r.path) && !ofDoneItem(JSON.stringify(r.body)));
	const earlier = all.length - requests.length;
	const charges = sim.ledger.filter((c) => at.doneFirst === undefined || c.proxy_name !== at.doneFirst);
	const changes = requests.filter((r) => !isRead(r));
	// "NaN" or "null" sent is a finding unless it is the text the user gave (a proxy may be named "NaN").
	const given = typeof hostile.value === 'string' ? hostile.value : '';
	const badText = all.find((r) => SENT_NOTHING.test(sentText(r)) && !given.includes(SENT_NOTHING.exec(sentText(r))?.[0] ?? ''));
	if (charges.length > 0 && !success) return `charged ${charges.length}, then stopped: \u201c${error?.message ?? ''}\u201d`;
	if (badText) return `sent ${badText.method} ${badText.path.slice(0, 80)} carrying ${SENT_NOTHING.exec(sentText(badText))?.[0]}`;
	if (success) return 'accepted';
	const message = error?.message ?? '';
	if (changes.length > 0 && !changes.every((r) => r.status !== null && r.status >= 400 && r.status < 500)) {
		return `sent ${changes.length} change${changes.length === 1 ? '' : 's'}, then stopped: \u201c${message}\u201d`;
	}
	const problems: string[] = [];
	if (!message.toLowerCase().includes(shortName(param).toLowerCase())) problems.push('message does not name the field');
	const named = [...message.matchAll(/\[item (\d+)\]/g)].map((m) => Number(m[1]));
	if (named.some((n) => n !== at.badItem)) problems.push(`message names item ${named.join(', ')}, not item ${at.badItem}`);
	else if (at.perItem === true && named.length === 0) problems.push(`message does not name item ${at.badItem}`);
	if (typeof error?.description !== 'string' || error.description.trim() === '') problems.push('no description (no fix)');
	if (problems.length > 0) return `stopped unclearly (${problems.join(', ')}): \u201c${message.slice(0, 160)}\u201d`;
	const last = requests[requests.length - 1];
	if (last !== undefined && last.status !== null && last.status >= 400 && last.status < 500) return 'refused by the service';
	if (earlier > 0) return 'refused at its item, after the items before it';
	return requests.length === 0 ? 'refused' : 'refused after reads';
}

/** Whether an outcome is what issue #26 asks for this value. */
function acceptable(target: Target, param: SweepParam, hostile: Hostile, outcome: Outcome, sim: ProxyAccountSimulator): boolean {
	if (GOOD.has(outcome)) return true;
	const legit = legitimate(param, hostile.value === ABSENT ? undefined : hostile.value);
	if (outcome === 'refused by the service') return legit && sim.ledger.length === 0;
	if (outcome !== 'accepted') return false;
	if (!legit) return false;
	// Accepted: each change went out once (never the same request twice), and nothing was charged with Dry Run on.
	const changes = apiRequests(sim).filter((r) => !isRead(r)).map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`);
	const dry = (valueAt(target.base(sim), ['options', 'dryRun']) as boolean | undefined) === true;
	return new Set(changes).size === changes.length && !(dry && sim.ledger.length > 0);
}

async function runOne(
	target: Target,
	param: SweepParam,
	sim: ProxyAccountSimulator,
	hostile: Hostile,
	via: Via,
	both: boolean,
	perItem = false,
): Promise<{ outcome: Outcome; namesItem1?: boolean }> {
	const { parameters, items } = arrange(target, param, sim, hostile, via, both);
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	const at: Placement = both ? { badItem: 0, perItem } : { badItem: 1, perItem, doneFirst: String(items[0].name) };
	if (target.id.startsWith('trigger/')) {
		const poll = new PollHarness(harness, { type: 'proxyAccountTrigger', typeVersion: SWEPT_VERSION.trigger, parameters }, credentials);
		try {
			audit.poll(target.label, await poll.poll());
			return { outcome: classify(param, hostile, sim, undefined, true, at) };
		} catch (caught) {
			audit.poll(target.label, null, caught);
			return { outcome: classify(param, hostile, sim, caught as Error, false, at) };
		}
	}
	let result: NodeResult;
	try {
		result = await harness.runNode({ type: 'proxyAccount', parameters }, { credentials, items });
	} catch (caught) {
		audit.refused(target.label, caught);
		// n8n's own check of the parameters: this required field left empty.
		const message = caught instanceof Error ? caught.message : String(caught);
		const n8n = message === `The 'Node Under Test' node has issues:\n- Parameter "${param.displayName}" is required.`;
		return { outcome: apiRequests(sim).length === 0 && n8n ? 'refused by n8n' : `n8n stopped the run: \u201c${message.slice(0, 160)}\u201d` };
	}
	audit.run(target.label, result);
	return {
		outcome: classify(param, hostile, sim, result.error as { message?: string; description?: unknown } | undefined, result.status === 'success', at),
		namesItem1: /\[item 1\]/.test(result.error?.message ?? ''),
	};
}

// ----- a target: every parameter x every value, on one simulator (replaced after a change) ----------

/** As `withSim` starts one, with a small account: every case reads it. */
const SIM_OPTIONS = { seed: 3, frozenClock: true, balance: 1_000_000, proxies: 6 };

/** An object is wrong for every kind of field: it runs first, and tells per-item fields from run-wide ones. */
const PROBE_FIRST = [...HOSTILE].sort((a, b) => Number(typeof b.value === 'object' && !Array.isArray(b.value) && b.value !== null) - Number(typeof a.value === 'object' && !Array.isArray(a.value) && a.value !== null));

async function sweepTarget(target: Target): Promise<CaseResult[]> {
	const out: CaseResult[] = [];
	let sim = await startSim();
	const replaceIfChanged = async () => {
		if (apiRequests(sim).some((r) => !isRead(r)) || sim.ledger.length > 0) {
			await sim.stop();
			sim = await startSim();
		}
	};
	try {
		await expectBaseAccepted(target, sim);
		await replaceIfChanged();
		for (const param of target.params) {
			// Per item (the value in item 1 only, refused naming item 1) or read once per run (the value
			// in both items, so that the value itself is checked, not only that it differs between
			// items): found on the first value the field must refuse.
			let mode: 'unknown' | 'per item' | 'once' = target.id.startsWith('trigger/') ? 'once' : 'unknown';
			for (const hostile of PROBE_FIRST) {
				for (const via of ['expression', 'typed'] as Via[]) {
					if (!runs(param, hostile, via)) continue;
					sim.resetLogs();
					const first = await runOne(target, param, sim, hostile, via, via === 'typed' || mode === 'once', mode === 'per item');
					let outcome = first.outcome;
					if (via === 'expression' && mode === 'unknown' && !legitimate(param, hostile.value === ABSENT ? undefined : hostile.value)) {
						if (GOOD.has(outcome) && first.namesItem1 === true) mode = 'per item';
						else {
							mode = 'once';
							await replaceIfChanged();
							sim.resetLogs();
							({ outcome } = await runOne(target, param, sim, hostile, via, true));
						}
					}
					const id = caseId(target, param, hostile, via);
					out.push({ id, outcome, ok: acceptable(target, param, hostile, outcome, sim), requests: apiRequests(sim).length, charges: sim.ledger.length });
					await replaceIfChanged();
				}
			}
		}
	} finally {
		await sim.stop();
	}
	return out;
}

/** The otherwise-valid parameters run as they are: a case refused is then refused for its value. */
async function expectBaseAccepted(target: Target, sim: ProxyAccountSimulator): Promise<void> {
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	const parameters = target.base(sim);
	if (target.id.startsWith('trigger/')) {
		await new PollHarness(harness, { type: 'proxyAccountTrigger', typeVersion: SWEPT_VERSION.trigger, parameters }, credentials).poll();
		return;
	}
	const names = [...sim.account().proxies.keys()];
	const result = await harness.runNode({ type: 'proxyAccount', parameters }, { credentials, items: [0, 1].map((i) => ({ name: names[i], proxy_name: names[i] })) });
	expect({ base: target.label, status: result.status, error: result.error?.message }).toEqual({ base: target.label, status: 'success', error: undefined });
	expect(apiRequests(sim).length).toBeGreaterThan(0);
}

async function startSim(): Promise<ProxyAccountSimulator> {
	const sim = await ProxyAccountSimulator.start(SIM_OPTIONS);
	audit.addSim(sim);
	return sim;
}

// ----- running and recording ----------------------------------------------------------------------

results.declare('bad-input-sweep', TARGETS.map((t) => t.label), ['sweep']);
results.plan(TARGETS.length + 1);

const seen = new Map<string, CaseResult>();

describe(`bad-input sweep: ${TARGETS.length} operations and events, every parameter \u00d7 ${HOSTILE.length} hostile values, typed and through an expression`, () => {
	it.concurrent.each(TARGETS.map((t): [string, Target] => [t.label, t]))('%s', async (_label, target) => {
		await results.cell(
			{
				table: 'bad-input-sweep',
				row: target.label,
				column: 'sweep',
				scenario: `${target.params.length} parameters \u00d7 ${HOSTILE.length} values, typed and through an expression, 2 items`,
				expected: 'each case refused before anything changes, naming the field (and the item), with a fix; or accepted as a value the field takes',
			},
			async (obs) => {
				const cases = await sweepTarget(target);
				for (const c of cases) seen.set(c.id, c);
				const counts = tally(cases);
				Object.assign(obs, { requests: cases.reduce((n, c) => n + c.requests, 0), charges: cases.reduce((n, c) => n + c.charges, 0) });
				obs.note(
					`${counts.cases} cases: ${counts.refused} refused (${counts.beforeAnyRequest} before any request, ${counts.afterReads} after reads, ${counts.byTheService} by the service, ${counts.byN8n} by n8n, ${counts.atItsItem} at item 1 after item 0), ${counts.accepted} accepted, ${counts.findings} known findings`,
				);
				const unexpected = cases
					.filter((c) => (FINDINGS.has(c.id) ? !stillAsRecorded(FINDINGS.get(c.id), c.outcome) : !c.ok))
					.map((c) => `${c.id}: ${c.outcome}${FINDINGS.has(c.id) ? ` (known finding, expected: ${FINDINGS.get(c.id)?.outcome})` : ''}`);
				expect(unexpected).toEqual([]);
			},
			() => tally(seenOf(target)),
		);
	});

	it('every known finding is a case of the sweep, and the secret audit finds nothing', async () => {
		expect([...FINDINGS.keys()].filter((id) => !seen.has(id))).toEqual([]);
		await auditCell(results, audit, capturedLogs, 'the bad-input sweep');
	});
});

const seenOf = (target: Target) => [...seen.values()].filter((c) => c.id.startsWith(`${target.label} > `));

/** The totals the report shows: refused (and how), accepted, known findings. */
function tally(cases: CaseResult[]) {
	const plain = cases.filter((c) => !FINDINGS.has(c.id));
	const n = (outcome: Outcome) => plain.filter((c) => c.outcome === outcome).length;
	const accepted = n('accepted');
	const findings = cases.length - plain.length;
	return {
		cases: cases.length,
		refused: plain.length - accepted,
		accepted,
		findings,
		beforeAnyRequest: n('refused'),
		afterReads: n('refused after reads'),
		byTheService: n('refused by the service'),
		byN8n: n('refused by n8n'),
		atItsItem: n('refused at its item, after the items before it'),
	};
}
