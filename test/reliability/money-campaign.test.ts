/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node that prints a failing seed's replay and writes the summary for npm run campaign (console, process.env, node:fs); never shipped */
/**
 * The money campaign: a property-based test over whole sequences of money operations. For each seed,
 * a fresh simulator and 5 to 15 random steps, each a real workflow execution through n8n-core's
 * WorkflowExecute (Extend, Buy, Remove, Change Location, Set Auto-Renew, Rotate IP, Reboot; as a
 * node or as an AI agent's tool; random options, On Error modes, item-dependent options, Retry On
 * Fail, n8n's Retry of a failed execution, two executions at once as two n8n processes) under random
 * faults (5xx before and after the service acted, resets, late answers, hangs past a timeout, the
 * hostile front's tricks, lying rate-limit headers, the wallet changed by others, someone else's
 * proxies joining). After every step the invariants of campaign/invariants.ts are checked against
 * the simulator's ledger, request log and account, not against what the node says.
 *
 *   npx jest test/reliability/money-campaign.test.ts                       # the fixed CI seeds
 *   CAMPAIGN_REPLAY='{"seed":7,"steps":[...]}' npx jest test/reliability/money-campaign.test.ts
 *   npm run campaign -- --seeds 200 [--from 12345]                         # more seeds
 *
 * A failing seed is shrunk (steps, then faults, dropped while it still fails) and printed as the
 * replay JSON.
 */
import { writeFileSync } from 'node:fs';

import { capturedLogs } from '../harness';
import { emptyTally, runSequence, shrink, stepsOf } from './campaign/campaign';
import type { Tally, Violation } from './campaign/campaign';
import type { Replay } from './campaign/model';
import { invariantsThatCannotFail } from './campaign/selftest';
import { Results } from './support';

/** The fixed seeds CI runs (about two minutes on two cores; see test/README.md). */
const CI_FROM = 1;
const CI_COUNT = 150;
const LANES = 3;

/**
 * Known findings: defects of the shipped nodes the campaign found, reported to their owner (see
 * docs/RELIABILITY.md, "Money campaign"). Each has a skipped test below with its shrunk replay (it
 * fails until the node is fixed); `signature` recognises it in `npm run campaign` runs. The CI
 * seeds that meet one are left out of the fixed set (`EXCLUDED`), never the invariant.
 */
const KNOWN: Array<{ id: string; title: string; signature: RegExp; replay: Replay }> = [];

/**
 * Findings the campaign made and the node has since fixed: each replay runs as a regression test
 * and its seeds are back in the fixed set.
 */
const FIXED: Array<{ id: string; title: string; signature: RegExp; replay: Replay }> = [
	{
		id: 'F1',
		title: 'Change Location with Stop Workflow: a later item\u2019s failure ends the run with \u201cNothing was sent or charged\u201d / \u201cNothing was moved\u201d, and the move (and charge) an earlier item of the same run made is reported nowhere',
		signature: /^\[2 every charge reported\] the run stopped \(.*\) reporting \d+ move\(s\); the service moved and charged \d+ of its proxies$/s,
		replay: { seed: 43, steps: [{ call: { op: 'changeLocation', onError: 'stopWorkflow', targets: [0, 1], dest: { carrier: 4, city: 0 }, floorBelow: 100, maxMoveCost: 100 }, faults: [], advanceMinutes: 0 }] },
	},
	{
		id: 'F2',
		title: 'Change Location sends the same move again for an item that repeats a proxy (other operations send a repeat once); the service refuses it here only because the first move is under way or done',
		signature: /^(\[1 no charge or removal twice\] sent \d+ times \(by 1 execution\(s\)\) after it may have reached the service: POST \/v1\/proxies\/swap\/|\[2 every charge reported\] the run stopped \(.*\) reporting \d+ move\(s\); the service moved and charged \d+ of its proxies$)/s,
		replay: { seed: 4, steps: [{ call: { op: 'changeLocation', onError: 'continueRegularOutput', targets: [3, 3], dest: { carrier: 7, city: 1 } }, faults: [], advanceMinutes: 0 }] },
	},
	// Issue 35: the shapes the campaign missed before, found on the code before issue 35's fixes (h35a, h35b).
	{
		id: 'F3',
		title: 'Change Location without Maximum Cost per Move counts a move at 0: the wallet ends below Keep Wallet At Least',
		signature: /^\[3 wallet bounds\] the wallet ends at [\d.]+, below Keep Wallet At Least/,
		replay: { seed: 1, steps: [{ call: { op: 'changeLocation', onError: 'stopWorkflow', targets: [30], dest: { carrier: 2, city: 8 }, floorBelow: 0, allowAsTool: true }, faults: [], advanceMinutes: 60 }] },
	},
	{
		id: 'F4',
		title: 'Change Location reports as moved to the proxy a swap reply names, one the account already had',
		signature: /^\[8 names confirmed\]/,
		replay: { seed: 42, steps: [{ call: { op: 'changeLocation', onError: 'stopWorkflow', targets: [28], dest: { carrier: 3, city: 7 }, floorBelow: 150, allowAsTool: true }, faults: [{ name: 'swap reply names a third proxy' }], advanceMinutes: 1 }] },
	},
	{
		id: 'F5',
		title: 'As a tool, Buy spends with Keep Wallet At Least 0, a floor that bounds nothing across calls',
		signature: /^\[7 refusals send nothing\] Keep Wallet At Least 0 on a tool/,
		replay: { seed: 46, steps: [{ call: { op: 'buy', onError: 'stopWorkflow', tool: true, lines: [{ carrier: 3, city: 9, quantity: 2 }], interval: 1, floorZero: true, maxTotalCost: 400 }, faults: [], advanceMinutes: 2 }] },
	},
	{
		id: 'F6',
		title: 'Set Auto-Renew prices several proxies of one period with one bulk quote: the commitment ends above Maximum Renewal Commitment',
		signature: /^\[3b commitment bounds\]/,
		replay: { seed: 9, steps: [{ call: { op: 'setAutoRenew', onError: 'continueRegularOutput', autoRenew: true, interval: 2, targets: [0, 1, 2, 3], commitmentEdge: 0.05 }, faults: [], advanceMinutes: 0 }] },
	},
	{
		id: 'F7',
		title: 'A Buy whose answer was lost (the service made it) is bought again by the same order at once',
		signature: /^\[9 no order in doubt bought again\]/,
		replay: {
			seed: 3,
			steps: [
				{ call: { op: 'buy', onError: 'continueRegularOutput', lines: [{ carrier: 1, city: 1, quantity: 1 }], interval: 1 }, faults: [{ name: 'effect hangs after acting (past a 2 s timeout)' }], advanceMinutes: 0 },
				{ call: { op: 'buy', onError: 'continueRegularOutput', lines: [{ carrier: 1, city: 1, quantity: 1 }], interval: 1 }, faults: [], advanceMinutes: 0 },
			],
		},
	},
];

/** CI seeds left out because they meet a known finding (seed: the finding's id). */
const EXCLUDED: Record<number, string> = {};

const replayEnv = process.env.CAMPAIGN_REPLAY;
const extraSeeds = process.env.CAMPAIGN_SEEDS ? Number(process.env.CAMPAIGN_SEEDS) : undefined;
const from = Number(process.env.CAMPAIGN_FROM ?? CI_FROM);
const fixedRun = replayEnv === undefined && extraSeeds === undefined;
const seeds = Array.from({ length: extraSeeds ?? CI_COUNT }, (_, i) => from + i).filter((seed) => !fixedRun || EXCLUDED[seed] === undefined);
/** The known finding a failure is, when every violation of it matches that finding. */
const knownAs = (violations: Violation[]) => KNOWN.find((k) => violations.every((v) => k.signature.test(`[${v.invariant}] ${v.text}`)))?.id;

const results = new Results('money-campaign');
results.declare('randomized', ['Money campaign'], ['invariants']);
results.plan(1);
afterAll(() => {
	if (fixedRun && results.cells.length > 0) results.write();
});

interface Failure {
	seed: number;
	replay: Replay;
	violations: Violation[];
	/** The known finding it is (only outside the fixed CI set). */
	known?: string;
}

function describeFailure(failure: Failure): string {
	const json = JSON.stringify(failure.replay);
	return [
		`seed ${failure.seed}: ${failure.violations.length} violation(s) at step ${failure.violations[0]?.step}:`,
		...failure.violations.slice(0, 5).map((v) => `  [${v.invariant}] ${v.text}`),
		`replay (${failure.replay.steps.length} steps): CAMPAIGN_REPLAY='${json.replace(/'/g, "'\\''")}' npx jest test/reliability/money-campaign.test.ts`,
	].join('\n');
}

async function campaign(list: number[], tally: Tally): Promise<Failure[]> {
	const failures: Failure[] = [];
	const queue = [...list];
	const lane = async () => {
		for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
			const replay: Replay = { seed, steps: stepsOf(seed) };
			const violations = await runSequence(replay, tally);
			if (violations.length === 0) continue;
			const shrunk = await shrink(replay);
			const found = shrunk.violations.length > 0 ? shrunk.violations : violations;
			const failure: Failure = { seed, replay: shrunk.replay, violations: found, known: fixedRun ? undefined : knownAs(found) };
			failures.push(failure);
			console.log(describeFailure(failure));
		}
	};
	await Promise.all(Array.from({ length: LANES }, lane));
	return failures;
}

function summary(tally: Tally, failures: Failure[], ms: number): Record<string, unknown> {
	return { seeds: tally.seeds, steps: tally.steps, executions: tally.executions, chargesChecked: tally.charges, amountCharged: tally.amount, removalsChecked: tally.removals, reportedMaybe: tally.maybe, stopped: tally.stopped, sentNothing: tally.refusals, twoProcessSteps: tally.twins, toolSteps: tally.tools, retrySteps: tally.retries, subWorkflowSteps: tally.subWorkflows, ops: tally.ops, faults: tally.faults, findings: failures.map((f) => ({ seed: f.seed, known: f.known, violations: f.violations.slice(0, 3), replay: f.replay })), seconds: Math.round(ms / 1000) };
}

if (replayEnv !== undefined) {
	it('replays the given sequence and holds every invariant', async () => {
		const replay = JSON.parse(replayEnv) as Replay;
		const violations = await runSequence(replay);
		if (violations.length > 0) console.log(describeFailure({ seed: replay.seed, replay, violations }));
		expect(violations).toEqual([]);
	}, 600_000);
} else {
	describe(`Money campaign: ${seeds.length} seeds of 5\u201315 random steps, every invariant after every step`, () => {
		it('holds the invariants in every step of every seed', async () => {
			const tally = emptyTally();
			const started = Date.now();
			let failures: Failure[] = [];
			const body = async () => {
				failures = await campaign(seeds, tally);
				const report = summary(tally, failures, Date.now() - started);
				if (process.env.CAMPAIGN_SUMMARY) writeFileSync(process.env.CAMPAIGN_SUMMARY, `${JSON.stringify(report, null, 1)}\n`);
				// Outside the fixed set, a known finding is reported in the summary; anything else fails.
				expect(failures.filter((f) => f.known === undefined).map(describeFailure)).toEqual([]);
				expect(tally.seeds).toBe(seeds.length);
			};
			if (!fixedRun) return await body();
			await results.cell(
				{
					table: 'randomized',
					row: 'Money campaign',
					column: 'invariants',
					scenario: `${seeds.length} fixed seeds (${CI_FROM}\u2013${CI_FROM + CI_COUNT - 1}${Object.keys(EXCLUDED).length > 0 ? `; seeds ${Object.keys(EXCLUDED).join(', ')} left out: they meet known findings` : ''}), each a fresh simulator and 5\u201315 steps, every step a real workflow execution: Extend, Buy, Remove, Change Location, Set Auto-Renew, Rotate IP, Reboot, Quote, as a node or an AI agent\u2019s tool, with random options (Dry Run, Maximum Total Cost, Keep Wallet At Least, 0 included as a tool, Only If Expiring Within, Batch Size, Confirm Number of Proxies, Maximum Cost per Move, Maximum Renewal Commitment, Copy Settings off, Period Same as Proxy over mixed periods, Proxy From: Field), On Error modes, item-dependent options, Retry On Fail, n8n\u2019s Retry of a failed execution, two executions at once as two n8n processes or as two runs of one credential in one process, several proxies of one period turning auto-renew on at the cap\u2019s edge, a Buy in doubt placed again at once, under random faults (5xx before and after the service acted, resets, late answers, hangs past the timeout, trickled, rewritten, redirected and lagging replies, a swap reply naming a third proxy, partial lists, lying rate-limit headers, the wallet changed by others, someone else\u2019s proxies joining)`,
					expected:
						'after every step: no charge or removal twice for one request and no acting request sent again; every charge and removal reported as made or maybe made, and none reported that the service did not make; the wallet within Keep Wallet At Least beyond the documented overlap (none in one process, no move counted at 0) and within Maximum Total Cost plus one request; the account\u2019s renewal commitment within Maximum Renewal Commitment; no name reported as moved to that the account does not confirm; no order left in doubt bought again; one output per input item, paired with it; no API key or password anywhere; every execution within 45 s; refusals send nothing; the wallet moves only by the ledger',
				},
				async (obs) => {
					try {
						await body();
					} finally {
						obs.requests = 0;
						obs.charges = tally.charges;
						obs.note(`${tally.seeds} seeds, ${tally.steps} steps, ${tally.executions} executions (${tally.twins} steps of two at once, ${tally.tools} as a tool, ${tally.retries} under one of n8n's retries, ${tally.subWorkflows} as a sub-workflow); ${tally.charges} charges (${tally.amount} in all) and ${tally.removals} removals checked; ${tally.maybe} executions reported a maybe, ${tally.stopped} stopped, ${tally.refusals} sent nothing; ${Object.keys(tally.faults).length} kinds of fault; findings: ${failures.length}; ${Math.round((Date.now() - started) / 1000)} s; ${capturedLogs.length} log lines scanned`);
					}
				},
			);
		}, 900_000);
	});
}

it('each invariant sees a made-up breach of it (an invariant that cannot fail proves nothing)', () => {
	expect(invariantsThatCannotFail()).toEqual([]);
});

for (const known of KNOWN) {
	it.skip(`known finding ${known.id}: ${known.title} (replay: CAMPAIGN_REPLAY='${JSON.stringify(known.replay)}')`, async () => {
		expect(await runSequence(known.replay)).toEqual([]);
	});
}

for (const fixed of FIXED) {
	it(`finding ${fixed.id}, fixed: ${fixed.title}`, async () => {
		expect(await runSequence(fixed.replay)).toEqual([]);
	});
}
