import type { IDataObject } from 'n8n-workflow';

import { invalidParameter, parseAmount, parseBoolean } from '../../helpers/framework/validation';
import type { FundsData } from '../../transport';
import { send } from '../../transport';
import type { Observed, TriggerEventModule } from '../registry';
import type { Detection, StoredState } from '../state';
import { loadStored, STATE_VERSION } from '../state';

export interface LowFundsParams {
	event: 'lowFunds';
	/** Below this balance the funds are low; undefined: no fixed threshold. */
	threshold?: number;
	/** Whether a balance below the upcoming renewals (`upcoming.total.renewal_required`) is low. */
	belowUpcomingRenewals: boolean;
}

/** `below`: whether the balance was below the limits at the last poll (an event was sent then). */
export type LowFundsState = StoredState & { event: 'lowFunds'; below: boolean };

export interface FundsObservation extends Observed {
	funds: FundsData;
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
		// True for every real event; a test event says whether the wallet is low now.
		low: reasons.length > 0,
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

/** Low Funds (docs/trigger.md): once per drop; the first poll emits when already low. */
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

export const lowFunds: TriggerEventModule<LowFundsParams, LowFundsState, FundsObservation> = {
	event: {
		name: 'Low Funds',
		value: 'lowFunds',
		action: 'On Low Funds',
		description:
			'The wallet balance goes below a threshold or below the upcoming renewals; once per drop',
	},
	properties: [
		{
			displayName: 'Threshold',
			name: 'fundsThreshold',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 50,
			description:
				'Trigger when the balance goes below this amount, in the account currency. 0 for no fixed threshold.',
		},
		{
			displayName: 'Below Upcoming Renewals',
			name: 'belowUpcomingRenewals',
			type: 'boolean',
			default: false,
			description:
				'Whether to trigger when the balance goes below what the auto-renewals coming up will charge',
		},
	],
	stateKeys: ['below'],
	readParameters(ctx) {
		const node = ctx.getNode();
		const amount = parseAmount(
			node,
			undefined,
			ctx.getNodeParameter('fundsThreshold', 0),
			'Threshold',
			'Enter the balance below which to trigger, in the account currency, e.g. 50 (0 for none).',
		);
		const belowUpcomingRenewals = parseBoolean(
			node,
			undefined,
			ctx.getNodeParameter('belowUpcomingRenewals', false),
			'Below Upcoming Renewals',
		);
		if (amount === 0 && !belowUpcomingRenewals) {
			throw invalidParameter(
				node,
				undefined,
				'Threshold',
				'is 0 and Below Upcoming Renewals is off, so the funds can never be low',
				'Enter a threshold above 0, e.g. 50, or turn on Below Upcoming Renewals.',
			);
		}
		return {
			event: 'lowFunds',
			threshold: amount > 0 ? amount : undefined,
			belowUpcomingRenewals,
		};
	},
	loadState: (staticData) =>
		loadStored<LowFundsState>(staticData, 'lowFunds', (data) =>
			typeof data.below === 'boolean' ? { below: data.below } : null,
		),
	async observe(ctx, requestOptions) {
		const { result: funds, serverTime, dated } = await send(ctx, 'getFunds', requestOptions);
		return { funds, now: serverTime, dated };
	},
	detect: detectLowFunds,
	// The event as it would look now, low or not (its `reasons` say which limits it is below).
	samples: (observation, params) => [lowFundsItem(observation, params)],
	summary: lowFundsItem,
};
