/**
 * The campaign's invariants, checked after every step from what the service did (its charge ledger,
 * its request log, the account's proxies and wallet) against what the step's executions output.
 * Each check returns what is wrong, in words; an empty list is a step that holds.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { visibleText } from '../../harness';
import type { LogLine } from '../../harness/logger';
import type { ChargeEntry, RequestLogEntry } from '../../simulator';
import type { SecretAudit } from '../support';
import { EFFECT_ROUTE, misquotes } from './faults';
import { NO_RETRY_OPS, SPENDING_OPS } from './model';
import type { Step } from './model';
import type { Ran } from './run';

/** What the service did during one step. */
export interface StepFacts {
	step: Step;
	ran: Ran[];
	ledger: ChargeEntry[];
	requests: RequestLogEntry[];
	/** Proxies that left the account during the step, other than by a move (removed). */
	removed: Set<string>;
	/** The account's proxies before the step, and after it (with their carrier and city). */
	namesBefore: Set<string>;
	proxiesAfter: Map<string, { isp: string; city: string }>;
	balanceBefore: number;
	balanceAfter: number;
	/** The account's renewal commitment (`total_commitment` of GET /v1/funds) before and after the step. */
	commitmentBefore: number;
	commitmentAfter: number;
	swapPrice: number;
	logs: LogLine[];
}

export const cents = (n: number) => Math.round(n * 100) / 100;
const same = (a: number, b: number) => Math.abs(a - b) < 0.005;
const sum = (list: number[]) => cents(list.reduce((a, b) => a + b, 0));

export const MAYBE = /may (also )?have been|may have reached the service|may have (bought|moved|removed|charged)/i;
const NOTHING = /nothing was (charged|bought|moved|removed|sent or charged)|was not applied/i;

/** Every output item of a run, regular and error outputs, with the input item it says it came from. */
export function outputs(ran: Ran): Array<{ item: INodeExecutionData; index: number; output: number }> {
	return [0, 1].flatMap((output) =>
		ran.result.output('Node Under Test', output).map((item) => {
			const paired = item.pairedItem as { item?: number } | Array<{ item?: number }> | number | undefined;
			const index = typeof paired === 'number' ? paired : Array.isArray(paired) ? (paired[0]?.item ?? -1) : (paired?.item ?? -1);
			return { item, index, output };
		}),
	);
}

const itemText = (json: Record<string, unknown>) => ['error', 'message', 'note', 'reason', 'description'].map((k) => String(json[k] ?? '')).join(' ');
const runText = (ran: Ran) => `${String(ran.result.error?.message ?? '')} ${String((ran.result.error as { description?: string } | undefined)?.description ?? '')}`;
const stopped = (ran: Ran) => ran.result.status === 'error';
const acting = (ran: Ran) => !ran.prepared.call.dryRun;

/** 1. Nothing charged or removed twice for one request; no acting request sent again once it may have reached the service. */
export function noRepeat(f: StepFacts): string[] {
	const wrong: string[] = [];
	const perRequest = new Map<string, number>();
	for (const entry of f.ledger) {
		const key = `${entry.seq} ${entry.proxy_name}`;
		perRequest.set(key, (perRequest.get(key) ?? 0) + 1);
		if (perRequest.get(key) === 2) wrong.push(`request ${entry.seq} charged ${entry.proxy_name} twice`);
	}
	const effect = EFFECT_ROUTE[f.step.call.op];
	// A quote is a read: it may be sent again.
	if (f.step.call.op === 'quote') return wrong;
	const sent = new Map<string, number>();
	for (const request of f.requests) {
		if (request.route !== effect) continue;
		const key = `${request.method} ${request.path} ${JSON.stringify(request.body)}`;
		// A 429 proves the request was not processed: sending it again is allowed.
		if (request.status === 429) continue;
		sent.set(key, (sent.get(key) ?? 0) + 1);
	}
	for (const [key, count] of sent) if (count > f.ran.length) wrong.push(`sent ${count} times (by ${f.ran.length} execution(s)) after it may have reached the service: ${key.slice(0, 160)}`);
	return wrong;
}

/** Per proxy: what the items of the non-stopped runs say was charged for it, and whether they say it may have been. */
function perProxyReports(f: StepFacts, made: (json: Record<string, unknown>) => number | undefined) {
	const reported = new Map<string, { certain: number; maybe: boolean; nothing: boolean; items: number }>();
	for (const ran of f.ran.filter((r) => !stopped(r))) {
		// Within one execution an item repeating a proxy carries the first item's figure; executions add up.
		const fromThisRun = new Map<string, number>();
		for (const { item, index } of outputs(ran)) {
			const name = ran.prepared.names[index];
			if (name === undefined) continue;
			const json = item.json as Record<string, unknown>;
			const entry = reported.get(name) ?? { certain: 0, maybe: false, nothing: false, items: 0 };
			entry.items += 1;
			const text = itemText(json);
			const amount = made(json);
			if (amount !== undefined && amount > (fromThisRun.get(name) ?? 0)) {
				entry.certain = cents(entry.certain - (fromThisRun.get(name) ?? 0) + amount);
				fromThisRun.set(name, amount);
			}
			if (json.status === 'unconfirmed' || MAYBE.test(text)) entry.maybe = true;
			if (NOTHING.test(text)) entry.nothing = true;
			reported.set(name, entry);
		}
	}
	return reported;
}

/** A stopped run accounts for what its own proxies were charged: a figure equal to it, or "may have". */
function stoppedRuns(f: StepFacts, chargedFor: (names: string[]) => number): string[] {
	const wrong: string[] = [];
	for (const ran of f.ran.filter(stopped)) {
		const text = runText(ran);
		// The proxies only this execution named: a proxy both executions named cannot be told apart.
		const own = ran.prepared.names.filter((n) => !f.ran.some((other) => other !== ran && other.prepared.names.includes(n)));
		const total = chargedFor(own);
		if (ran.prepared.call.op === 'changeLocation') {
			// What a move costs is not published: a stopped run reports each move it made ("was moved"), or says one may have been.
			const moves = f.ledger.filter((e) => e.kind === 'swap' && own.includes(e.proxy_name)).length;
			const reported = [...text.matchAll(/was moved \(/g)].length;
			if (moves > reported && !MAYBE.test(text)) wrong.push(`the run stopped (${text.slice(0, 200)}) reporting ${reported} move(s); the service moved and charged ${moves} of its proxies`);
			continue;
		}
		const figures = [...text.matchAll(/charged ([\d.]+)/g)].map((m) => Number(m[1]));
		const inAll = /charged ([\d.]+) in all/.exec(text);
		// A proxy both executions named may carry a charge of each: a figure may count this run's own charge of it.
		const withShared = chargedFor(ran.prepared.names);
		const accounts = (x: number) => same(x, total) || (x > total && x <= withShared + 0.005);
		if (total > 0 && !MAYBE.test(text) && !figures.some(accounts)) wrong.push(`the run stopped (${text.slice(0, 200)}) without reporting the ${total} the service charged`);
		if (inAll && Number(inAll[1]) > total + 0.005 && f.ran.length === 1) wrong.push(`the run stopped saying it charged ${inAll[1]} in all, the ledger holds ${total}`);
		if (total > 0 && NOTHING.test(text) && !MAYBE.test(text) && figures.length === 0) wrong.push(`the run stopped saying nothing was charged, the ledger holds ${total}`);
	}
	return wrong;
}

/** 2. Every charge (and removal) is reported as made or as maybe made; nothing is reported as made that was not. */
export function everyChargeReported(f: StepFacts): string[] {
	const op = f.step.call.op;
	const wrong: string[] = [];
	const byProxy = (kind: ChargeEntry['kind']) => {
		const map = new Map<string, number>();
		for (const e of f.ledger.filter((x) => x.kind === kind)) map.set(e.proxy_name, cents((map.get(e.proxy_name) ?? 0) + e.amount));
		return map;
	};
	const foreign = f.ledger.filter((e) => (op === 'extend' ? e.kind !== undefined : op === 'buy' ? e.kind !== 'deploy' : op === 'changeLocation' ? e.kind !== 'swap' : true));
	if (foreign.length > 0) wrong.push(`${op} made the service charge ${foreign.length} entries of another kind (${foreign.map((e) => `${e.kind ?? 'allocate'} ${e.amount}`).join(', ')})`);
	if (op === 'extend' || op === 'changeLocation' || op === 'remove') {
		const charged = op === 'extend' ? byProxy(undefined) : op === 'changeLocation' ? byProxy('swap') : new Map([...f.removed].map((n) => [n, 1]));
		const made = (json: Record<string, unknown>): number | undefined => {
			if (op === 'extend') {
				if ((json.status === 'extended' || json.status === 'applied_differently') && typeof json.charged === 'number') return json.charged;
				const over = /was extended \(charged ([\d.]+)\)/.exec(String(json.error ?? ''));
				return over ? Number(over[1]) : undefined;
			}
			if (op === 'remove') return json.status === 'removal_sent' ? 1 : undefined;
			if (['moved', 'move_sent', 'moved_unidentified'].includes(String(json.status)) || /was moved \(/.test(String(json.error ?? ''))) return f.swapPrice;
			return undefined;
		};
		const reported = perProxyReports(f, made);
		const what = op === 'remove' ? 'removed' : 'charged';
		for (const [name, amount] of charged) {
			const r = reported.get(name);
			const inStopped = f.ran.some((ran) => stopped(ran) && ran.prepared.names.includes(name));
			if (inStopped) continue; // accounted for by stoppedRuns
			if (!r) wrong.push(`${name} was ${what} (${amount}) but no output item names it`);
			else if (!same(r.certain, amount) && !(r.maybe && r.certain <= amount + 0.005)) wrong.push(`${name}: the items say ${what} ${r.certain}${r.maybe ? ' (or maybe)' : ''}, the service ${what} ${amount}`);
			else if (r.nothing && !r.maybe && r.certain === 0) wrong.push(`${name}: an item says nothing was ${what}, the service ${what} ${amount}`);
		}
		for (const [name, r] of reported) {
			if (r.certain > 0 && !charged.has(name)) wrong.push(`${name}: the items say ${what} ${op === 'remove' ? '' : r.certain}, the service did not`);
		}
		if (op !== 'remove') wrong.push(...stoppedRuns(f, (names) => sum(names.filter((n, i) => names.indexOf(n) === i).map((n) => charged.get(n) ?? 0))));
		else {
			for (const ran of f.ran.filter(stopped)) {
				const gone = ran.prepared.names.filter((n) => f.removed.has(n));
				const text = runText(ran);
				if (gone.length > 0 && !MAYBE.test(text) && !/accepted the removal/.test(text)) wrong.push(`the run stopped (${text.slice(0, 200)}) without saying ${gone.join(', ')} may have been removed`);
			}
		}
		// With Keep Wallet At Least, a moved item gives the wallet's change: it is the move's price.
		if (op === 'changeLocation' && f.ran.length === 1) {
			for (const { item } of outputs(f.ran[0])) {
				const change = item.json.wallet_change;
				if (typeof change === 'number' && !same(Math.abs(change), f.swapPrice)) wrong.push(`a move reports a wallet change of ${change}, a move costs ${f.swapPrice}`);
			}
		}
		return wrong;
	}
	if (op === 'buy') {
		const orders = new Map<number, number>();
		for (const e of f.ledger.filter((x) => x.kind === 'deploy')) orders.set(e.seq, cents((orders.get(e.seq) ?? 0) + e.amount));
		const totals = [...orders.values()];
		let uncertain = 0;
		for (const ran of f.ran) {
			if (stopped(ran)) {
				const text = runText(ran);
				const figure = /charged ([\d.]+)/.exec(text);
				if (figure) {
					const at = totals.findIndex((t) => same(t, Number(figure[1])));
					if (at >= 0) totals.splice(at, 1);
					else if (!MAYBE.test(text)) wrong.push(`the run stopped saying the service charged ${figure[1]}, no order was charged that`);
				} else if (MAYBE.test(text)) uncertain += 1;
				continue;
			}
			const items = outputs(ran).map((o) => o.item.json as Record<string, unknown>);
			const bought = items.find((j) => String(j.status ?? '').startsWith('bought'));
			const over = items.map((j) => /were bought, but the service charged ([\d.]+)/.exec(String(j.error ?? ''))).find(Boolean);
			const claimed = bought ? Number(bought.total_charged) : over ? Number(over[1]) : undefined;
			if (claimed !== undefined) {
				const at = totals.findIndex((t) => same(t, claimed));
				if (at >= 0) totals.splice(at, 1);
				else wrong.push(`an item says the service charged ${claimed} for the purchase, no order was charged that (orders: ${[...orders.values()].join(', ') || 'none'})`);
			} else if (items.some((j) => MAYBE.test(itemText(j)))) uncertain += 1;
		}
		if (totals.length > uncertain) wrong.push(`${totals.length - uncertain} order(s) charged (${totals.join(', ')}) that no output reports as made or maybe made`);
		return wrong;
	}
	if (f.ledger.length > 0) wrong.push(`${op} charged ${sum(f.ledger.map((e) => e.amount))}`);
	return wrong;
}

/** 3. The wallet bounds: Keep Wallet At Least (beyond the documented overlap), Maximum Total Cost (one batch or order in flight). */
export function walletBounds(f: StepFacts): string[] {
	const wrong: string[] = [];
	const total = sum(f.ledger.map((e) => e.amount));
	if (total === 0) return wrong;
	const perRequest = new Map<number, number>();
	for (const e of f.ledger) perRequest.set(e.seq, cents((perRequest.get(e.seq) ?? 0) + e.amount));
	const largest = Math.max(0, ...perRequest.values());
	const quoteLied = f.step.faults.some(misquotes) || f.step.priceMove !== undefined;
	const acts = f.ran.filter(acting).map((r) => r.prepared);
	const floors = acts.map((p) => p.floor).filter((x): x is number => x !== undefined);
	if (floors.length > 0) {
		// Each execution keeps its own floor: two at once with different floors are held to the lower one.
		const floor = Math.min(...floors);
		let overlap = quoteLied ? largest : 0;
		// Two n8n processes overlap by what each may spend; two runs of one credential in one process run one at a time.
		if (f.ran.length > 1 && !f.step.twinSameProcess) overlap += sum(acts.map((p) => p.call.maxTotalCost ?? p.call.maxMoveCost ?? 0));
		// What a move costs is not published: a run may learn it from its first move, which passes a Maximum
		// Cost per Move set below it by the difference. Without that option no move is counted at 0.
		if (f.step.call.op === 'changeLocation') overlap += sum(acts.map((p) => (p.call.maxMoveCost === undefined ? 0 : Math.max(0, f.swapPrice - p.call.maxMoveCost))));
		if (f.balanceAfter < floor - overlap - 0.005) wrong.push(`the wallet ends at ${f.balanceAfter}, below Keep Wallet At Least ${floor} by more than the documented overlap (${overlap}); charged ${total}`);
	}
	if (f.ran.length === 1 && acts.length === 1 && acts[0].call.maxTotalCost !== undefined) {
		const cap = acts[0].call.maxTotalCost;
		if (total - largest > cap + 0.005) wrong.push(`charged ${total}, past Maximum Total Cost ${cap} by more than the one request in flight (${largest})`);
	}
	return wrong;
}

/** 4. One output per input item, paired with it, across the regular and the error output. */
export function pairing(f: StepFacts): string[] {
	const wrong: string[] = [];
	for (const ran of f.ran) {
		if (stopped(ran)) continue;
		const out = outputs(ran);
		// A quote gives one item per priced period, each paired with its input item.
		const indexes = out.map((o) => o.index);
		const seen = (ran.prepared.call.op === 'quote' ? [...new Set(indexes)] : indexes).sort((a, b) => a - b);
		const expected = ran.prepared.items.map((_, i) => i);
		if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`outputs pair with items [${seen.join(',')}], the inputs are [${expected.join(',')}]`);
		for (const { item, index } of out) {
			const json = item.json as Record<string, unknown>;
			const input = ran.prepared.items[index];
			if (!input) continue;
			const said = ran.prepared.call.op === 'changeLocation' ? json.old_proxy_name : ran.prepared.call.op === 'buy' ? undefined : json.proxy_name;
			if (typeof said === 'string' && said !== input.name) wrong.push(`item ${index} (${String(input.name)}) came out naming ${said}`);
			if (ran.prepared.call.op === 'buy' && typeof json.city === 'string' && json.city !== input.city) wrong.push(`item ${index} (${String(input.city)}) came out for ${json.city}`);
			const tag = /\[item (\d+)\]/.exec(String(json.error ?? ''));
			// An item repeating a proxy carries the failure of the item it repeats (documented).
			const repeat = tag && ran.prepared.names[Number(tag[1])] !== undefined && ran.prepared.names[Number(tag[1])] === ran.prepared.names[index];
			if (tag && Number(tag[1]) !== index && !repeat) wrong.push(`an error naming item ${tag[1]} came out paired with item ${index}`);
		}
	}
	return wrong;
}

/** 5. No secret in any output, error or log line (the audit keeps its findings; this reports the new ones). */
export function noSecrets(f: StepFacts, audit: SecretAudit, label: string): string[] {
	const before = audit.findings.length;
	for (const ran of f.ran) {
		audit.run(label, ran.result);
		const text = visibleText([...ran.result.output('Node Under Test', 0), ...ran.result.output('Node Under Test', 1)], ran.result.error);
		audit.scanText(`${label} (visible text)`, text);
	}
	for (const line of f.logs) audit.scanText(`${label} log (${line.level}: ${line.message.slice(0, 60)})`, JSON.stringify(line));
	return audit.findings.slice(before).map((finding) => `${finding.secret} in ${finding.where}`);
}

/** 6. Every execution ends within its bound. */
export const STEP_BOUND_MS = 45_000;
export function inTime(f: StepFacts): string[] {
	return f.ran.filter((r) => r.ms > STEP_BOUND_MS).map((r) => `an execution took ${r.ms} ms, more than ${STEP_BOUND_MS} ms`);
}

/** 7. What must be refused sends nothing: Dry Run, n8n's retries of acting operations, item-dependent options, a wrong confirmation, a Remove by an agent. */
export function refusalsSendNothing(f: StepFacts): string[] {
	const wrong: string[] = [];
	if (f.ran.length !== 1) return wrong;
	const { call, confirmCount, names } = f.ran[0].prepared;
	const effect = f.requests.filter((r) => r.route === EFFECT_ROUTE[call.op]);
	const refuse = (why: string, what: RequestLogEntry[]) => {
		if (what.length > 0 || f.ledger.length > 0) wrong.push(`${why}, yet ${what.length} request(s) were sent and ${f.ledger.length} charge(s) made`);
	};
	if (call.perItem) refuse(`${call.perItem} differs between items (must be refused before anything is sent)`, f.requests);
	if (call.retryMode && NO_RETRY_OPS.includes(call.op) && !call.dryRun) refuse('a Retry of a failed execution', f.requests);
	if (call.subWorkflow === 'retry' && NO_RETRY_OPS.includes(call.op) && !call.dryRun) refuse('a sub-workflow of a Retry of a failed execution', f.requests);
	if (call.retryOnFail && NO_RETRY_OPS.includes(call.op) && !call.dryRun) refuse('Retry On Fail on an acting operation', effect);
	if (call.dryRun) refuse('a Dry Run', effect);
	if (call.op === 'remove' && !call.dryRun && confirmCount !== new Set(names).size) refuse(`Confirm Number of Proxies ${String(confirmCount)} for ${new Set(names).size} proxies`, effect);
	if (call.tool && call.op === 'remove' && !call.dryRun) refuse('a Remove by an agent (a tool only previews)', effect);
	if (call.tool && call.op === 'setAutoRenew' && call.autoRenew === false) refuse('an agent turning auto-renew off', effect);
	if (call.tool && call.floorZero && SPENDING_OPS.includes(call.op) && !call.dryRun) refuse('Keep Wallet At Least 0 on a tool (it bounds nothing across calls)', effect);
	if (call.tool && call.fromField) refuse('a tool reading its proxy from the input item (Proxy From: Field)', effect);
	return wrong;
}

/**
 * 8. No name the account does not confirm: a proxy Change Location reports as moved to is new in the
 * account since the step began, of the carrier and city it was moved to.
 */
export function namesConfirmed(f: StepFacts): string[] {
	const wrong: string[] = [];
	for (const ran of f.ran.filter((r) => !stopped(r) && r.prepared.call.op === 'changeLocation')) {
		const dest = ran.prepared.dest;
		for (const { item } of outputs(ran)) {
			const name = item.json.new_proxy_name;
			if (typeof name !== 'string') continue;
			const record = f.proxiesAfter.get(name);
			if (f.namesBefore.has(name)) wrong.push(`an item reports ${String(item.json.old_proxy_name)} moved to ${name} (status ${String(item.json.status)}), a proxy the account already had`);
			else if (!record) wrong.push(`an item reports ${String(item.json.old_proxy_name)} moved to ${name}, which the account does not hold`);
			else if (dest && (record.isp !== dest.carrier || record.city !== dest.city)) wrong.push(`an item reports a move to ${name}, which is in ${record.city} (${record.isp}), not ${dest.city} (${dest.carrier})`);
		}
	}
	return wrong;
}

/**
 * 3b. Set Auto-Renew with a Maximum Renewal Commitment never leaves the account committed above it,
 * nor above the wallet, unless it already was before the step (it then may not raise it).
 */
export function commitmentBounds(f: StepFacts): string[] {
	const call = f.step.call;
	const cap = f.ran[0]?.prepared.maxRenewalCommitment;
	if (call.op !== 'setAutoRenew' || cap === undefined) return [];
	if (f.commitmentAfter <= f.commitmentBefore + 0.005) return [];
	const wrong: string[] = [];
	if (f.commitmentAfter > cap + 0.005) wrong.push(`the commitment rose from ${f.commitmentBefore} to ${f.commitmentAfter}, above the Maximum Renewal Commitment of ${cap}`);
	if (f.commitmentAfter > f.balanceBefore + 0.005)
		wrong.push(`the commitment rose from ${f.commitmentBefore} to ${f.commitmentAfter}, above the wallet of ${f.balanceBefore}`);
	return wrong;
}

export const INVARIANTS: Array<[string, (f: StepFacts) => string[]]> = [
	['1 no charge or removal twice', noRepeat],
	['2 every charge reported', everyChargeReported],
	['3 wallet bounds', walletBounds],
	['3b commitment bounds', commitmentBounds],
	['4 pairing', pairing],
	['6 within the bound', inTime],
	['7 refusals send nothing', refusalsSendNothing],
	['8 names confirmed', namesConfirmed],
];
