/**
 * Each invariant of the campaign against made-up facts that break it: an invariant that cannot fail
 * proves nothing. Returns the invariants that did not see their breach.
 */
import type { IDataObject } from 'n8n-workflow';

import type { NodeResult } from '../../harness';
import type { ChargeEntry, RequestLogEntry } from '../../simulator';
import { commitmentBounds, everyChargeReported, inTime, namesConfirmed, noRepeat, pairing, refusalsSendNothing, STEP_BOUND_MS, walletBounds } from './invariants';
import { doubtfulOrderBoughtAgain } from './doubt';
import type { StepFacts } from './invariants';
import type { Call } from './model';
import type { Ran } from './run';

const P = 'PRX-US-AU1-0001';

function ran(call: Call, items: IDataObject[], out: Array<{ json: IDataObject; item: number }>, ms = 10): Ran {
	const result = { status: 'success', output: (_node: string, index = 0) => (index === 0 ? out.map((o) => ({ json: o.json, pairedItem: { item: o.item } })) : []) } as unknown as NodeResult;
	return { prepared: { call, node: { type: 'proxyAccount', parameters: {} }, items, names: items.map((i) => String(i.name)), floor: call.floorBelow, maxRenewalCommitment: call.maxRenewalCommitment, dest: { carrier: 'AT&T', city: 'Austin' } }, result, ms };
}

function facts(call: Call, r: Ran, ledger: Array<Partial<ChargeEntry>> = [], requests: Array<Partial<RequestLogEntry>> = [], wallet = { before: 1_000, after: 1_000 }): StepFacts {
	return { step: { call, faults: [], advanceMinutes: 0 }, ran: [r], ledger: ledger as ChargeEntry[], requests: requests as RequestLogEntry[], removed: new Set(), namesBefore: new Set([P]), proxiesAfter: new Map([[P, { isp: 'AT&T', city: 'Dallas' }]]), balanceBefore: wallet.before, balanceAfter: wallet.after, commitmentBefore: 0, commitmentAfter: 0, swapPrice: 5, logs: [] };
}

export function invariantsThatCannotFail(): string[] {
	const extend: Call = { op: 'extend', onError: 'continueRegularOutput' };
	const one = [{ name: P }];
	const renew: Call = { op: 'setAutoRenew', onError: 'continueRegularOutput', maxRenewalCommitment: 400 };
	const allocate = { route: 'POST /v1/proxies/allocate' as const, method: 'POST', path: '/v1/proxies/allocate', body: { proxies: [P] }, status: 200 };
	const charge = { seq: 1, proxy_name: P, amount: 79 };
	const cases: Array<[string, string[]]> = [
		['1: one request charged twice', noRepeat(facts(extend, ran(extend, one, []), [charge, charge]))],
		['1: an allocate sent again after it reached the service', noRepeat(facts(extend, ran(extend, one, []), [], [allocate, { ...allocate, seq: 2 }]))],
		['2: a charge reported as skipped', everyChargeReported(facts(extend, ran(extend, one, [{ json: { proxy_name: P, status: 'skipped', charged: 0 }, item: 0 }]), [charge]))],
		['2: an extension reported that was not charged', everyChargeReported(facts(extend, ran(extend, one, [{ json: { proxy_name: P, status: 'extended', charged: 79 }, item: 0 }])))],
		['3: the wallet below the floor', walletBounds(facts({ ...extend, floorBelow: 100 }, { ...ran(extend, one, []), prepared: { ...ran(extend, one, []).prepared, floor: 900 } }, [charge], [], { before: 1_000, after: 800 }))],
		['3b: the commitment raised above the cap', commitmentBounds({ ...facts(renew, ran(renew, one, [])), commitmentBefore: 100, commitmentAfter: 450 })],
		['3b: the commitment raised above the wallet', commitmentBounds({ ...facts({ ...renew, maxRenewalCommitment: 5_000 }, ran(renew, one, [])), commitmentBefore: 100, commitmentAfter: 1_200 })],
		['4: two outputs paired with one item', pairing(facts(extend, ran(extend, [{ name: P }, { name: 'PRX-B' }], [{ json: { proxy_name: P }, item: 0 }, { json: { proxy_name: P }, item: 0 }])))],
		['6: an execution past its bound', inTime(facts(extend, ran(extend, one, [], STEP_BOUND_MS + 1)))],
		['3: a move counted at 0 without Maximum Cost per Move', walletBounds(facts({ op: 'changeLocation', onError: 'stopWorkflow' }, { ...ran({ op: 'changeLocation', onError: 'stopWorkflow' }, one, []), prepared: { ...ran({ op: 'changeLocation', onError: 'stopWorkflow' }, one, []).prepared, floor: 150 } }, [{ ...charge, amount: 30, kind: 'swap' }, { ...charge, seq: 2, amount: 30, kind: 'swap' }], [], { before: 200, after: 140 }))],
		['7: a tool with Keep Wallet At Least 0 that charged', refusalsSendNothing(facts({ ...extend, tool: true, floorZero: true }, ran({ ...extend, tool: true, floorZero: true }, one, []), [charge], [allocate]))],
		['8: a move reported to a proxy the account already had', namesConfirmed(facts({ op: 'changeLocation', onError: 'stopWorkflow' }, ran({ op: 'changeLocation', onError: 'stopWorkflow' }, [{ name: 'PRX-OLD' }], [{ json: { old_proxy_name: 'PRX-OLD', new_proxy_name: P, status: 'moved' }, item: 0 }])))],
		['9: an order in doubt bought again', doubtfulOrderBoughtAgain([{ key: 'AT&T|Austin|1|1', made: true, at: 0 }], 'AT&T|Austin|1|1', 1, [{ ...charge, kind: 'deploy' } as ChargeEntry])],
		['7: a Dry Run that sent the allocate', refusalsSendNothing(facts({ ...extend, dryRun: true }, ran({ ...extend, dryRun: true }, one, []), [], [allocate]))],
	];
	return cases.filter(([, found]) => found.length === 0).map(([name]) => name);
}
