import type { IDataObject } from 'n8n-workflow';

import type { FundsData } from '../transport';
import type { LowFundsParams } from './params';
import type { LowFundsState } from './state';
import { STATE_VERSION } from './state';
import type { Detection } from './stock';

export interface FundsObservation {
	funds: FundsData;
	/** The service's clock when it answered. */
	now: number;
}

const cents = (amount: number) => Math.round(amount * 100);

/** Why the balance counts as low right now: the limits it is below. Empty when it is not low. */
export function lowReasons(funds: FundsData, params: LowFundsParams): string[] {
	const balance = cents(funds.funds);
	const reasons: string[] = [];
	if (params.threshold !== undefined && balance < cents(params.threshold))
		reasons.push('threshold');
	if (params.belowUpcomingRenewals && balance < cents(funds.upcoming.total.renewal_required))
		reasons.push('upcoming_renewals');
	return reasons;
}

/** The event item: the balance, the limits it is compared with, and by how much it falls short. */
export function lowFundsItem(observation: FundsObservation, params: LowFundsParams): IDataObject {
	const { funds, now } = observation;
	const reasons = lowReasons(funds, params);
	const limits: number[] = [];
	if (params.threshold !== undefined) limits.push(params.threshold);
	if (params.belowUpcomingRenewals) limits.push(funds.upcoming.total.renewal_required);
	const highest = limits.length > 0 ? Math.max(...limits) : funds.funds;
	return {
		event: 'low_funds',
		funds: funds.funds,
		threshold: params.threshold ?? null,
		renewal_required: funds.upcoming.total.renewal_required,
		total_required: funds.upcoming.total.total_required,
		renewing_count: funds.upcoming.renewing.count,
		reasons,
		shortfall: Math.max(0, cents(highest) - cents(funds.funds)) / 100,
		checked_at: new Date(now).toISOString(),
	};
}

/**
 * Low Funds: one event when the balance goes below the limits (Threshold and/or the upcoming
 * renewals), none while it stays below, and the trigger re-arms once the balance is at or above
 * every limit again. Without a stored state (the first poll) a balance that is already low emits
 * once: the condition is what the user wants to hear about, not only its change.
 */
export function detectLowFunds(
	previous: LowFundsState | null,
	observation: FundsObservation,
	params: LowFundsParams,
): Detection<LowFundsState> {
	const below = lowReasons(observation.funds, params).length > 0;
	const wasBelow = previous !== null && previous.below;
	const events = below && !wasBelow ? [lowFundsItem(observation, params)] : [];
	return { events, nextState: { v: STATE_VERSION, event: 'lowFunds', below } };
}
