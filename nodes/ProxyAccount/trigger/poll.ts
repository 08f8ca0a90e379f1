import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError } from '../helpers/framework/itemLoop';
import type { CallOptions } from '../transport';
import { serviceNow } from './clock';
import { TRIGGER } from './events';
import type { AnyTriggerEvent, TriggerEvents } from './registry';
import { chosenEvent, stateKeys } from './registry';
import type { MissingMarks, StoredState } from './state';
import { commitState, nextSettle, sameJson, withoutMarks } from './state';

/** Items "Fetch Test Event" returns at most. */
export const SAMPLE_LIMIT = 5;

/*
 * The poll protocol, the same for every event (each event's own parts are in events/, put together
 * by registry.ts).
 */

/**
 * The missing marks this process last stored, by trigger (workflow and node): one small entry per
 * trigger that polled.
 *
 * n8n 2.x saves a polling trigger's static data only when a poll emits: the changes of a poll
 * that emits nothing stay in memory, and after a restart the state is the one saved at the last
 * emitting poll. Going back to that state is harmless for the entries themselves (the polls in
 * between emitted nothing, so it is as if they had not happened), but not for the missing marks:
 * an entry marked missing then may have come back at a poll that was lost, and counting on from
 * the old mark could forget it too early, and report it again when it returns. So the marks are
 * used only when they are exactly the ones this process stored last for this trigger (as they
 * are whenever n8n kept or saved the latest static data); otherwise they are restarted: the
 * entries are kept and count as missing from this poll on.
 *
 * n8n 2.41.1's durable scheduler saves every poll's state, yet a restart restarts the marks too:
 * the state a poll gets is a copy of what the database holds, which can still be older than the
 * last one written (a write dropped because the poll lost its lease or the workflow was published
 * again meanwhile, or a kill between the poll and its commit), and nothing in the state, nor
 * anything n8n shows a node, says whether a later write was lost (docs/trigger.md, Restarts).
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
 * One poll of the Proxy Account Trigger.
 *
 * - Scheduled poll: observes, compares with the stored state, stores the new state only once
 *   everything succeeded, and returns one item per event (null when there is none). Without a
 *   stored state it records the baseline and returns null.
 * - "Fetch Test Event" (manual mode): returns up to SAMPLE_LIMIT current examples of the event
 *   (items shaped like the real ones, marked `sample: true`), or one item describing the current
 *   state when nothing matches; it never reads or changes the stored state.
 *
 * A failed request throws the transport's NodeApiError unchanged and leaves the state as it was,
 * so the next good poll emits what was pending. A city or proxy missing from a list (a partial or
 * an empty one) is kept for a grace period (see `withGrace` in state.ts), so a partial list does
 * not make the trigger report it again, and the removal of the last proxy is reported once the
 * grace period is over. The service's time is checked against the previous replies (clock.ts).
 * `requestOptions` is for tests (timeouts, retries); `trigger` too (the events the node has).
 */
export async function pollTrigger(
	ctx: IPollFunctions,
	requestOptions: CallOptions = {},
	trigger: TriggerEvents = TRIGGER,
): Promise<INodeExecutionData[][] | null> {
	try {
		return await pollEvent(ctx, requestOptions, chosenEvent(ctx, trigger), stateKeys(trigger));
	} catch (error) {
		throw asNodeError(ctx, error);
	}
}

/** What every test event says of itself. */
const SAMPLE_NOTE =
	'A test event, made up from the account as it is now: it reports no real change, so its before is empty. Extend, Buy, Change Location, Set Auto-Renew and Remove refuse to act on it (a Dry Run previews).';

/**
 * A test event as the editor shows it: marked `sample: true`, with a note, and with an empty
 * `before` (its keys kept for mapping, its values null): nothing changed, so no value it could
 * hold would be true of the account.
 */
function madeUp(item: IDataObject): IDataObject {
	const before = item.before;
	const emptied =
		before !== null && typeof before === 'object' && !Array.isArray(before)
			? Object.fromEntries(Object.keys(before).map((key) => [key, null]))
			: before;
	return {
		...item,
		...(before === undefined ? {} : { before: emptied }),
		sample: true,
		sample_note: SAMPLE_NOTE,
	};
}

async function pollEvent(
	ctx: IPollFunctions,
	requestOptions: CallOptions,
	module: AnyTriggerEvent,
	keys: readonly string[],
): Promise<INodeExecutionData[][] | null> {
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
	const timed = observation as { now: number; dated?: boolean };
	const clock = serviceNow(
		stored?.clock,
		timed.dated === false ? undefined : timed.now,
		Date.now(),
	);
	timed.now = clock.now;
	const key = triggerKey(ctx);
	const previous = comparedState(stored, key);
	const detection = module.detect(previous, observation, params);
	const { events } = detection;
	const nextState: StoredState = { ...detection.nextState, clock: clock.clock };
	const settle = nextSettle(previous, clock.now);
	if (settle === undefined) delete nextState.settle;
	else nextState.settle = settle;
	const output = events.length > 0 ? [ctx.helpers.returnJsonArray(events)] : null;
	commitState(staticData, nextState, stored, keys);
	if (key !== undefined) storedMarks.set(key, nextState.gone);
	return output;
}
