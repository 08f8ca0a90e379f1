import type { IDataObject } from 'n8n-workflow';

import { defineTrigger, eventValues, loadEventState, stateKeys } from '../registry';
import { commitState as commitStoredState } from '../state';
import { ipChanged } from './ipChanged.event';
import { lowFunds } from './lowFunds.event';
import { newProxy } from './newProxy.event';
import { proxyExpiring } from './proxyExpiring.event';
import { proxyRemoved } from './proxyRemoved.event';
import { proxyStatusChanged } from './proxyStatusChanged.event';
import { stockChanged } from './stockChanged.event';

/** The trigger's events, in the order the node description names them: one line per event. */
const EVENTS = [
	stockChanged,
	proxyExpiring,
	proxyStatusChanged,
	newProxy,
	proxyRemoved,
	ipChanged,
	lowFunds,
] as const;

type Registered = (typeof EVENTS)[number];

/** Any event's stored state (the union of the events' own). */
export type TriggerState = Registered extends infer M
	? M extends { loadState(staticData: IDataObject): infer S | null }
		? S
		: never
	: never;

/** Any event's parameters. */
export type TriggerParams = ReturnType<Registered['readParameters']>;

/** The value of an event. */
export type TriggerEvent = TriggerState['event'];

export const TRIGGER = defineTrigger([...EVENTS], stockChanged);

/** The values of the Event parameter. */
export const TRIGGER_EVENTS = eventValues(TRIGGER) as readonly TriggerEvent[];

/** The keys the trigger writes into its static data. */
const STATE_KEYS = stateKeys(TRIGGER);

/**
 * The stored state for `event`, as plain data detached from the static data object, or null when
 * there is none that can be trusted (first poll, another event, another layout, damaged data).
 */
export function loadState(staticData: IDataObject, event: string): TriggerState | null {
	return loadEventState(TRIGGER, staticData, event) as TriggerState | null;
}

/**
 * Replaces the stored state with `next`. Called only once a poll has succeeded. Leaves the static
 * data untouched when `next` equals `previous` and the static data holds nothing but the trigger's
 * own keys.
 */
export function commitState(
	staticData: IDataObject,
	next: TriggerState,
	previous: TriggerState | null,
): void {
	commitStoredState(staticData, next, previous, STATE_KEYS);
}
