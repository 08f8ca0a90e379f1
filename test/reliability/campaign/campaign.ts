/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test tooling run by Node under jest: CAMPAIGN_VERBOSE=1 prints each step (process.env, console); never shipped */
/**
 * The money campaign's driver: runs a seed's sequence of steps against a fresh simulator, keeps the
 * reference model (the wallet and the ledger as the steps leave them), checks every invariant after
 * every step, and shrinks a failing sequence to one that still fails.
 */
import { capturedLogs } from '../../harness';
import { SecretAudit } from '../support';
import { doubtfulOrderBoughtAgain, doubtsOf, orderKey } from './doubt';
import type { Doubt } from './doubt';
import { faultNames } from './faults';
import { INVARIANTS, noSecrets, outputs, MAYBE, cents } from './invariants';
import type { StepFacts } from './invariants';
import { randomSteps, worldOf } from './model';
import type { Replay, Step } from './model';
import { proxyNames, runStep, settle, startWorld, stopWorld } from './run';

export interface Violation {
	step: number;
	invariant: string;
	text: string;
}

export interface Tally {
	seeds: number;
	steps: number;
	executions: number;
	charges: number;
	amount: number;
	removals: number;
	maybe: number;
	refusals: number;
	stopped: number;
	twins: number;
	tools: number;
	/** Steps run under n8n's Retry On Fail, its Retry of a failed execution, or as a sub-workflow. */
	retries: number;
	subWorkflows: number;
	faults: Record<string, number>;
	ops: Record<string, number>;
}

export const emptyTally = (): Tally => ({ seeds: 0, steps: 0, executions: 0, charges: 0, amount: 0, removals: 0, maybe: 0, refusals: 0, stopped: 0, twins: 0, tools: 0, retries: 0, subWorkflows: 0, faults: {}, ops: {} });

export const stepsOf = (seed: number): Step[] => randomSteps(seed, faultNames);

const add = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);

/** Runs one sequence from a fresh world; the violations found (empty: it holds). */
export async function runSequence(replay: Replay, tally: Tally = emptyTally()): Promise<Violation[]> {
	const w = await startWorld(replay.seed, worldOf(replay.seed));
	const audit = new SecretAudit();
	const violations: Violation[] = [];
	// The reference model: the wallet moves only by what the ledger holds and by the others' doings.
	let expectedBalance = w.sim.account().balance;
	// Orders a Buy left in doubt: the next step placing the same one must not be charged again.
	const doubts: Doubt[] = [];
	try {
		tally.seeds += 1;
		for (const [index, step] of replay.steps.entries()) {
			w.sim.clock.advance(step.advanceMinutes * 60_000);
			if (step.wallet !== undefined) expectedBalance = step.wallet;
			audit.addSim(w.sim);
			const before = { ledger: w.sim.ledger.length, requests: w.sim.requests.length, logs: capturedLogs.length, names: new Set(proxyNames(w)) };
			const balanceBefore = step.wallet ?? w.sim.account().balance;
			const commitmentBefore = w.sim.commitment();
			const ran = await runStep(w, step);
			const ledger = w.sim.ledger.slice(before.ledger);
			const requests = w.sim.requests.slice(before.requests);
			// Whatever was sent takes effect (orders, removals) before the account is compared.
			w.sim.clock.advance(31_000);
			await settle(w);
			const after = new Set(proxyNames(w));
			const movedAway = new Set(ledger.filter((e) => e.kind === 'swap').map((e) => e.proxy_name));
			const removed = new Set([...before.names].filter((n) => !after.has(n) && !movedAway.has(n)));
			const facts: StepFacts = {
				step,
				ran,
				ledger,
				requests,
				removed,
				namesBefore: before.names,
				proxiesAfter: new Map([...w.sim.account().proxies.values()].map((p) => [p.proxy_name, { isp: p.isp, city: p.city }])),
				balanceBefore,
				balanceAfter: w.sim.account().balance,
				commitmentBefore,
				commitmentAfter: w.sim.commitment(),
				swapPrice: w.world.swapPrice,
				logs: capturedLogs.slice(before.logs),
			};
			expectedBalance = cents(expectedBalance - ledger.reduce((s, e) => s + e.amount, 0));
			const found: Violation[] = [];
			for (const [invariant, check] of INVARIANTS) for (const text of check(facts)) found.push({ step: index, invariant, text });
			for (const text of noSecrets(facts, audit, `seed ${replay.seed} step ${index}`)) found.push({ step: index, invariant: '5 no secret', text });
			if (step.call.op === 'buy' && step.advanceMinutes === 0 && ran.length > 0) {
				for (const text of doubtfulOrderBoughtAgain(doubts, orderKey(ran[0].prepared), index, ledger)) found.push({ step: index, invariant: '9 no order in doubt bought again', text });
			}
			doubts.push(...doubtsOf(facts, index));
			if (Math.abs(expectedBalance - facts.balanceAfter) > 0.005) {
				found.push({ step: index, invariant: 'reference model', text: `the wallet is ${facts.balanceAfter}, the ledger says ${expectedBalance}` });
				expectedBalance = facts.balanceAfter;
			}
			violations.push(...found);
			if (process.env.CAMPAIGN_VERBOSE) console.log(trace(replay.seed, index, step, facts));
			tally.steps += 1;
			tally.executions += ran.length;
			tally.charges += ledger.length;
			tally.amount = cents(tally.amount + ledger.reduce((s, e) => s + e.amount, 0));
			tally.removals += removed.size;
			if (step.twin) tally.twins += 1;
			add(tally.ops, step.call.op + (step.call.tool ? ' (tool)' : ''));
			if (step.call.tool) tally.tools += 1;
			if (step.call.retryOnFail || step.call.retryMode || step.call.subWorkflow === 'retry') tally.retries += 1;
			if (step.call.subWorkflow) tally.subWorkflows += 1;
			for (const fault of step.faults) add(tally.faults, fault.name);
			for (const r of ran) {
				if (r.result.status === 'error') tally.stopped += 1;
				const text = `${String(r.result.error?.message ?? '')} ${outputs(r).map((o) => JSON.stringify(o.item.json)).join(' ')}`;
				if (MAYBE.test(text)) tally.maybe += 1;
				if (requests.length === 0) tally.refusals += 1;
			}
			// Later steps would only repeat the first failure's consequences.
			if (found.length > 0) break;
		}
	} finally {
		await stopWorld(w);
	}
	return violations;
}

/** Drops steps, then faults and the others' doings, while the sequence still fails. */
export async function shrink(replay: Replay, budgetMs = 120_000): Promise<{ replay: Replay; violations: Violation[] }> {
	const started = Date.now();
	let best = { ...replay, steps: replay.steps.slice(0, (await runSequence(replay))[0]?.step + 1 || replay.steps.length) };
	let violations = await runSequence(best);
	if (violations.length === 0) return { replay, violations: await runSequence(replay) };
	const attempt = async (candidate: Replay): Promise<boolean> => {
		if (Date.now() - started > budgetMs) return false;
		const found = await runSequence(candidate);
		if (found.length === 0) return false;
		best = candidate;
		violations = found;
		return true;
	};
	for (let i = best.steps.length - 2; i >= 0; i--) {
		await attempt({ ...best, steps: best.steps.filter((_, j) => j !== i) });
	}
	for (let i = 0; i < best.steps.length; i++) {
		for (let f = best.steps[i].faults.length - 1; f >= 0; f--) {
			const steps = best.steps.map((s, j) => (j === i ? { ...s, faults: s.faults.filter((_, k) => k !== f) } : s));
			await attempt({ ...best, steps });
		}
		for (const key of ['twin', 'wallet', 'foreign', 'priceMove'] as const) {
			if (best.steps[i][key] === undefined) continue;
			const steps = best.steps.map((s, j) => {
				if (j !== i) return s;
				const copy = { ...s };
				delete copy[key];
				return copy;
			});
			await attempt({ ...best, steps });
		}
	}
	return { replay: best, violations };
}

/** One line per step (CAMPAIGN_VERBOSE=1): what ran, what came out, what the service did. */
function trace(seed: number, index: number, step: Step, f: StepFacts): string {
	const runs = f.ran.map((r) => {
		const statuses = outputs(r).map((o) => String(o.item.json.status ?? (o.item.json.error ? `error:${String(o.item.json.error).slice(0, 90)}` : '?')));
		return `${r.result.status}${r.result.error ? ` (${r.result.error.message.slice(0, 140)})` : ''} [${statuses.join(' | ')}] ${r.ms} ms`;
	});
	const cap = f.ran[0]?.prepared.maxRenewalCommitment;
	return `seed ${seed} step ${index}: ${JSON.stringify(step)}${cap === undefined ? '' : ` (Maximum Renewal Commitment ${cap}; commitment ${f.commitmentBefore} -> ${f.commitmentAfter})`}\n   -> ${runs.join('\n   -> ')}\n   service: ${f.requests.map((q) => `${q.method} ${q.path.split('?')[0]} ${String(q.status)}`).join(', ')}; ledger ${f.ledger.map((e) => `${e.kind ?? 'allocate'} ${e.proxy_name} ${e.amount}`).join(', ')}`;
}
