/**
 * 9. A Buy in doubt is not bought again: when a run left an order's outcome unknown (it said the
 * purchase may have been made) and the service did make it, the same order placed again at once (a
 * retrying agent, the next step with the clock not moved) must not be charged a second time. The
 * node remembers such an order per credential (issue 35); the campaign's steps share one.
 */
import type { ChargeEntry } from '../../simulator';
import { MAYBE, outputs } from './invariants';
import type { StepFacts } from './invariants';
import type { Prepared } from './run';

export interface Doubt {
	/** The order: its lines (carrier, city, quantity) and interval. */
	key: string;
	/** Whether the service made it (the step's ledger holds a purchase). */
	made: boolean;
	/** The step that left it in doubt. */
	at: number;
}

export const orderKey = (p: Prepared): string =>
	`${p.items.map((i) => `${String(i.carrier)}|${String(i.city)}|${String(i.quantity)}`).join(';')}|${p.call.interval ?? 1}`;

/** The orders a Buy step left in doubt. */
export function doubtsOf(f: StepFacts, at: number): Doubt[] {
	if (f.step.call.op !== 'buy') return [];
	const made = f.ledger.some((e) => e.kind === 'deploy');
	return f.ran
		.filter((r) => !r.prepared.call.dryRun)
		.filter((r) => MAYBE.test(`${String(r.result.error?.message ?? '')} ${String((r.result.error as { description?: string } | undefined)?.description ?? '')} ${outputs(r).map((o) => JSON.stringify(o.item.json)).join(' ')}`))
		.map((r) => ({ key: orderKey(r.prepared), made, at }));
}

/** What is wrong when step `at` bought `key` again right after a step left the same order in doubt and the service had made it. */
export function doubtfulOrderBoughtAgain(doubts: Doubt[], key: string, at: number, ledger: ChargeEntry[]): string[] {
	const earlier = doubts.find((d) => d.key === key && d.made && d.at === at - 1);
	if (!earlier || !ledger.some((e) => e.kind === 'deploy')) return [];
	return [`the order ${key} was left in doubt by step ${earlier.at} and made by the service, and the same order placed again at once was charged again`];
}
