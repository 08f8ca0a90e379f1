import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import { asNodeError } from '../helpers/framework/itemLoop';
import type { CallOptions } from '../transport';
import { serviceNow } from './clock';
import { TRIGGER } from './events';
import type { Confirmed } from './confirm';
import { confirmByName, namesToConfirm, withConfirmed } from './confirm';
import type { ProxyObservation } from './proxies';
import type { AnyTriggerEvent, EventParams, Observed, TriggerEvents } from './registry';
import { chosenEvent, stateKeys } from './registry';
import type { MissingMarks, StoredState } from './state';
import { commitState, nextSettle, sameJson, withoutMarks } from './state';

/** Items "Fetch Test Event" returns at most. */
export const SAMPLE_LIMIT = 5;

/**
 * The missing marks this process last stored, by trigger. After a restart n8n can hand over an
 * older state (docs/trigger.md, Restarts): its entries are fine, but an entry marked missing then
 * may have come back meanwhile, and counting on from that mark could forget it too early and report
 * it again. So marks count on only when they are the ones this process stored last.
 */
const storedMarks = new Map<string, MissingMarks | undefined>();

function triggerKey(ctx: IPollFunctions): string | undefined {
	const workflowId = ctx.getWorkflow().id;
	if (workflowId === undefined || workflowId === '') return undefined;
	const node = ctx.getNode();
	return `${workflowId}\u0000${node.id ?? node.name}`;
}

/** The stored state to compare with: its missing marks restarted unless this process stored them. */
function comparedState(stored: StoredState | null, key: string | undefined): StoredState | null {
	if (stored === null || stored.gone === undefined) return stored;
	const continued =
		key !== undefined && storedMarks.has(key) && sameJson(storedMarks.get(key), stored.gone);
	return continued ? stored : withoutMarks(stored);
}

/**
 * One poll: the next state is stored only once everything succeeded (a failed request changes
 * nothing); "Fetch Test Event" never reads or changes it. `requestOptions`, `trigger`: for tests.
 */
export async function pollTrigger(
	ctx: IPollFunctions,
	requestOptions: CallOptions = {},
	trigger: TriggerEvents = TRIGGER,
): Promise<INodeExecutionData[][] | null> {
	try {
		const module = chosenEvent(ctx, trigger);
		const params = module.readParameters(ctx);
		const observation = await module.observe(ctx, requestOptions);
		if (ctx.getMode() === 'manual') {
			// The stored state is not even read: asking n8n for it would create it.
			let items = module.samples(observation, params, SAMPLE_LIMIT);
			if (items.length === 0) items = [module.summary(observation, params)];
			return [ctx.helpers.returnJsonArray(items.map(madeUp))];
		}

		// Only now that the service has answered is the stored state read, compared and replaced.
		const staticData = ctx.getWorkflowStaticData('node');
		const stored = module.loadState(staticData);
		const timed = observation as Observed;
		const clock = serviceNow(
			stored?.clock,
			timed.dated === false ? undefined : timed.now,
			Date.now(),
		);
		timed.now = clock.now;
		const key = triggerKey(ctx);
		const previous = comparedState(stored, key);
		const confirmed = await confirmLeftOut(ctx, module, previous, timed, params, requestOptions);
		const seen = confirmed
			? withConfirmed(timed as ProxyObservation, confirmed, previous?.gone)
			: observation;
		const { events, nextState: detected } = module.detect(previous, seen, params);
		const nextState: StoredState = { ...detected, clock: clock.clock };
		const turn = confirmed ? confirmed.turn : previous?.turn;
		if (turn === undefined) delete nextState.turn;
		else nextState.turn = turn;
		const settle = nextSettle(previous, clock.now);
		if (settle === undefined) delete nextState.settle;
		else nextState.settle = settle;
		const output = events.length > 0 ? [ctx.helpers.returnJsonArray(events)] : null;
		commitState(staticData, nextState, stored, stateKeys(trigger));
		if (key !== undefined) storedMarks.set(key, nextState.gone);
		return output;
	} catch (error) {
		throw asNodeError(ctx, error);
	}
}

/** The reads by name of the remembered proxies this reply left out (confirm.ts), for a proxy event. */
async function confirmLeftOut(
	ctx: IPollFunctions,
	module: AnyTriggerEvent,
	previous: StoredState | null,
	observation: Observed,
	params: EventParams,
	requestOptions: CallOptions,
): Promise<Confirmed | undefined> {
	if (!module.confirmsLeftOut || previous === null) return undefined;
	const remembered = (previous as unknown as Record<string, unknown>)[module.stateKeys[0]];
	const { proxies, now } = observation as ProxyObservation;
	const compared = module.listToCompare?.(previous, proxies, params, now) ?? proxies;
	const names = namesToConfirm(
		isRecord(remembered) ? remembered : undefined,
		compared,
		previous.turn,
	);
	return await confirmByName(ctx, names, requestOptions, previous.turn);
}

const SAMPLE_NOTE =
	'A test event, made up from the account as it is now: it reports no real change, so its before is empty. Extend, Buy, Change Location, Set Auto-Renew and Remove refuse to act on it (a Dry Run previews).';

/** A test event: marked `sample: true`, with a note, its `before` emptied (keys kept for mapping). */
function madeUp(item: IDataObject): IDataObject {
	const before = item.before;
	const emptied = isRecord(before)
		? Object.fromEntries(Object.keys(before).map((key) => [key, null]))
		: before;
	return {
		...item,
		...(before === undefined ? {} : { before: emptied }),
		sample: true,
		sample_note: SAMPLE_NOTE,
	};
}
