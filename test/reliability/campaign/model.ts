/**
 * The money campaign's steps: plain JSON (so a failing sequence can be printed, shrunk and replayed)
 * and their seeded generator. A step names proxies, carriers and cities by index into what the
 * account and the stock hold when the step runs, so a sequence with steps dropped still runs.
 */
import { prng } from '../../harness/prng';
import type { Prng } from '../../harness/prng';

export type Op = 'extend' | 'buy' | 'remove' | 'changeLocation' | 'setAutoRenew' | 'rotateIp' | 'reboot' | 'quote';
export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

/** The operations that move money or destroy paid time (n8n's retries are refused for them). */
export const MONEY_OPS: readonly Op[] = ['extend', 'buy', 'remove', 'changeLocation'];
/** The operations that refuse n8n's Retry On Fail and its Retry of a failed execution (except a Dry Run). */
export const NO_RETRY_OPS: readonly Op[] = ['extend', 'buy', 'remove', 'changeLocation', 'setAutoRenew', 'rotateIp', 'reboot'];
/** The operations that spend from the wallet: as a tool, Keep Wallet At Least of 0 is refused. */
export const SPENDING_OPS: readonly Op[] = ['extend', 'buy', 'changeLocation'];

/** A fault, by name: the campaign's fault menu (faults.ts) turns it into simulator or front rules. */
export interface FaultRef {
	name: string;
	/** Requests of the faulted route let through first. */
	skip?: number;
}

export interface Call {
	op: Op;
	tool?: boolean;
	/** Proxies by index into the account's proxies (sorted by name) when the step runs; one input item each. */
	targets?: number[];
	/** Buy: one input item per line. */
	lines?: Array<{ carrier: number; city: number; quantity: number }>;
	/** Change Location's destination. */
	dest?: { carrier: number; city: number };
	interval?: number;
	autoRenew?: boolean;
	dryRun?: boolean;
	maxTotalCost?: number;
	/** Keep Wallet At Least, as this much below the wallet when the step starts (0: the whole wallet). */
	floorBelow?: number;
	/** Keep Wallet At Least set to 0 itself (the value the option has when added): bounds nothing across calls. */
	floorZero?: boolean;
	/** Extend: Period (`same`: each proxy by its own, over an account of mixed periods). */
	period?: 'same' | 'weekly' | 'monthly';
	/** Extend: Proxy From: Field of Each Input Item (the `name` field) instead of the Proxy parameter. */
	fromField?: boolean;
	/** Change Location: Copy Settings (default on). */
	copySettings?: boolean;
	/**
	 * Set Auto-Renew at the cap's edge: the targets are proxies of one period, and Maximum Renewal
	 * Commitment is what the account would commit with all of them on (each at its own price) less
	 * this share of what they add (0: exactly at the cap).
	 */
	commitmentEdge?: number;
	onlyIfExpiringWithinHours?: number;
	batchSize?: number;
	/** Remove: Confirm Number of Proxies minus the number of different proxies named. */
	confirmOff?: number;
	maxMoveCost?: number;
	maxRenewalCommitment?: number;
	allowAsTool?: boolean;
	timeoutSeconds?: number;
	onError: OnError;
	/** An option set by an expression that gives the items different values (must be refused). */
	perItem?: string;
	retryOnFail?: boolean;
	/** n8n's Retry of a failed execution. */
	retryMode?: boolean;
	/**
	 * Run as a sub-workflow (mode `integrated`) of a parent execution started by a trigger (`run`) or
	 * by n8n's Retry of a failed execution (`retry`: refused as the parent's retry would be).
	 */
	subWorkflow?: 'run' | 'retry';
}

export interface Step {
	call: Call;
	/** A second execution at the same moment, as another n8n process (another Base URL to the account). */
	twin?: Call;
	/** The twin runs in the same n8n process with the same credential (they then run one at a time). */
	twinSameProcess?: boolean;
	faults: FaultRef[];
	/** Someone else leaves this much in the wallet before the step. */
	wallet?: number;
	/** Someone else's proxy joins the list with the step's next deploy or swap. */
	foreign?: 'deploy' | 'swap';
	/** The service's prices move by this factor right after the step's first quote. */
	priceMove?: number;
	/** Minutes the service's clock moves before the step. */
	advanceMinutes: number;
}

export interface Replay {
	seed: number;
	steps: Step[];
}

/** The world of a seed: the simulator's set-up, derived from the seed alone (a replay rebuilds it). */
export interface World {
	proxies: number;
	balance: number;
	swapPrice: number;
	/** Deploys, swaps and removals take effect at once (else after the simulator's delays). */
	instantOrders: boolean;
}

export function worldOf(seed: number): World {
	const rng = prng(seed ^ 0x5eed);
	return { proxies: rng.int(5, 9), balance: rng.pick([800, 3_000, 20_000]), swapPrice: rng.pick([5, 25, 60]), instantOrders: rng.chance(0.6) };
}

const ON_ERROR: readonly OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];

/** Which option an item-dependent expression may set, per operation. */
export const PER_ITEM: Record<Op, string[]> = {
	extend: ['dryRun', 'maxTotalCost', 'batchSize'],
	buy: ['dryRun', 'maxTotalCost'],
	remove: ['dryRun', 'confirmCount'],
	changeLocation: ['maxMoveCost'],
	setAutoRenew: ['batchSize'],
	rotateIp: ['concurrency'],
	reboot: ['concurrency'],
	quote: [],
};

function targets(rng: Prng, max: number): number[] {
	const out: number[] = [];
	const count = rng.int(1, max);
	for (let i = 0; i < count; i++) out.push(out.length > 0 && rng.chance(0.15) ? rng.pick(out) : rng.int(0, 40));
	return out;
}

export function randomCall(rng: Prng, op: Op, forTwin = false): Call {
	const tool = !forTwin && rng.chance(0.2);
	const call: Call = { op, onError: rng.pick(ON_ERROR) };
	if (tool) call.tool = true;
	const money = op === 'extend' || op === 'buy' || op === 'changeLocation';
	if (op === 'buy' || op === 'quote') {
		call.lines = Array.from({ length: tool ? 1 : rng.int(1, 3) }, () => ({ carrier: rng.int(0, 9), city: rng.int(0, 9), quantity: rng.int(1, 2) }));
		call.interval = rng.int(1, 2);
	} else call.targets = targets(rng, tool ? 1 : op === 'changeLocation' ? 2 : 4);
	if (op === 'extend') {
		call.interval = rng.pick([1, 1, 2]);
		if (rng.chance(0.3)) call.period = rng.pick(['same', 'same', 'monthly'] as const);
		if (rng.chance(0.25)) call.fromField = true;
	}
	if (op === 'quote') call.interval = rng.int(1, 3);
	if (op === 'changeLocation') {
		call.dest = { carrier: rng.int(0, 9), city: rng.int(0, 9) };
		if (rng.chance(0.3)) call.copySettings = false;
	}
	if (op === 'setAutoRenew') {
		call.autoRenew = rng.chance(0.75);
		call.interval = rng.int(1, 3);
		if (call.autoRenew && rng.chance(0.3)) {
			// Several proxies of one period turned on at the cap's edge: exactly at it, or a little below.
			call.targets = Array.from({ length: tool ? 1 : rng.int(2, 6) }, () => rng.int(0, 40));
			call.commitmentEdge = rng.pick([0, 0.001, 0.05, 0.2]);
		} else if (rng.chance(0.5)) call.maxRenewalCommitment = rng.pick([50, 400, 5_000]);
	}
	if ((op === 'extend' || op === 'buy' || op === 'remove') && !forTwin && rng.chance(0.2)) call.dryRun = true;
	if (money && (forTwin || rng.chance(tool ? 0.85 : 0.5))) call.floorBelow = rng.pick([0, 50, 150, 400, 1_500]);
	if (money && tool && rng.chance(0.15)) {
		delete call.floorBelow;
		call.floorZero = true;
	}
	if ((op === 'extend' || op === 'buy') && (forTwin || rng.chance(tool ? 0.85 : 0.5))) call.maxTotalCost = rng.pick([60, 150, 400, 2_000]);
	if (op === 'changeLocation') {
		if (forTwin || rng.chance(tool ? 0.85 : 0.6)) call.maxMoveCost = rng.pick([0, 20, 30, 100]);
		call.allowAsTool = rng.chance(0.8);
	}
	if (op === 'extend' && rng.chance(0.3)) call.onlyIfExpiringWithinHours = rng.pick([24, 200, 2_000]);
	if ((op === 'extend' || op === 'setAutoRenew') && rng.chance(0.4)) call.batchSize = rng.int(1, 3);
	if (op === 'remove') call.confirmOff = rng.chance(0.75) ? 0 : rng.pick([-1, 1]);
	if (!forTwin && PER_ITEM[op].length > 0 && rng.chance(0.05)) call.perItem = rng.pick(PER_ITEM[op]);
	if (!forTwin && rng.chance(0.05)) call.retryOnFail = true;
	else if (!forTwin && rng.chance(0.04)) call.retryMode = true;
	else if (!forTwin && rng.chance(0.08)) call.subWorkflow = rng.pick(['run', 'retry'] as const);
	return call;
}

const OPS: readonly Op[] = ['extend', 'extend', 'buy', 'remove', 'changeLocation', 'changeLocation', 'setAutoRenew', 'setAutoRenew', 'rotateIp', 'reboot', 'quote'];

export function randomStep(rng: Prng, faultNames: (op: Op) => string[]): Step {
	const op = rng.pick(OPS);
	const step: Step = { call: randomCall(rng, op), faults: [], advanceMinutes: rng.pick([0, 1, 2, 6, 60]) };
	const twinnable = op === 'extend' || op === 'buy' || op === 'changeLocation';
	if (twinnable && rng.chance(0.15)) {
		step.call = { ...randomCall(rng, op, true), onError: step.call.onError };
		step.twin = randomCall(rng, op, true);
		// Two runs of one credential in one n8n process (an agent's parallel calls): one at a time.
		if (rng.chance(0.5)) step.twinSameProcess = true;
	}
	const menu = faultNames(op);
	// A swap reply naming a proxy the account already had: Change Location must confirm the name.
	if (op === 'changeLocation' && rng.chance(0.2)) step.faults.push({ name: 'swap reply names a third proxy' });
	const faultCount = rng.pick([0, 0, 1, 1, 1, 2, 3]);
	for (let f = 0; f < faultCount; f++) {
		const fault: FaultRef = { name: rng.pick(menu) };
		if (rng.chance(0.25)) fault.skip = 1;
		step.faults.push(fault);
	}
	if (rng.chance(0.15)) step.wallet = rng.pick([0, 60, 300, 1_500, 8_000]);
	if (rng.chance(0.1)) step.foreign = op === 'changeLocation' ? 'swap' : 'deploy';
	if ((op === 'extend' || op === 'buy') && rng.chance(0.08)) step.priceMove = 2;
	return step;
}

export function randomSteps(seed: number, faultNames: (op: Op) => string[]): Step[] {
	const rng = prng(seed);
	const steps: Step[] = [];
	for (let i = rng.int(5, 15); i > 0; i--) {
		const step = randomStep(rng, faultNames);
		steps.push(step);
		// An order whose outcome was unknown, placed again at once, as a retrying agent does.
		if (step.call.op === 'buy' && !step.twin && step.faults.length > 0 && rng.chance(0.5)) steps.push({ call: { ...step.call, retryOnFail: undefined, retryMode: undefined, subWorkflow: undefined, perItem: undefined }, faults: [], advanceMinutes: 0 });
	}
	return steps;
}
