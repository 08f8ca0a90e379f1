/**
 * The trigger's stored state as the tests read and write it, for any event: the events' own
 * loaders and the poll's commit, looked up through the trigger's registry (the node itself only
 * ever handles the state of the event it is set to).
 */
import type { IDataObject } from 'n8n-workflow';

import type { TriggerEvent, TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import { TRIGGER } from '../../nodes/ProxyAccount/trigger/events';
import { commitState as commitStoredState } from '../../nodes/ProxyAccount/trigger/state';

/** The values of the Event parameter. */
export const TRIGGER_EVENTS = TRIGGER.events.map((module) => module.event.value) as readonly TriggerEvent[];

/** The keys any event's state writes (besides `v`, `event` and `gone`). */
const STATE_KEYS = TRIGGER.events.flatMap((module) => [...module.stateKeys]);

/** The stored state of `event`, or null (first poll, another event, damaged data, unknown event). */
export function loadState(staticData: IDataObject, event: string): TriggerState | null {
	const module = TRIGGER.events.find((candidate) => candidate.event.value === event);
	return module ? (module.loadState(staticData) as TriggerState | null) : null;
}

/** Replaces the stored state with `next`, as the poll does once it has succeeded. */
export function commitState(staticData: IDataObject, next: TriggerState, previous: TriggerState | null): void {
	commitStoredState(staticData, next, previous, STATE_KEYS);
}
