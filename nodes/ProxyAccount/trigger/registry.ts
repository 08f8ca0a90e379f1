import type {
	IDataObject,
	INodeProperties,
	INodePropertyOptions,
	IPollFunctions,
} from 'n8n-workflow';

import { parseChoice } from '../helpers/framework/validation';
import type { CallOptions, ProxyRecord } from '../transport';
import type { Detection, StoredState } from './state';
import { sameJson } from './state';

/* The Event dropdown, display options, subtitle, description and dispatch, from the events. */

/** What an event shows: its entry in the Event dropdown. */
export interface EventInfo {
	value: string;
	name: string;
	/** How n8n's node creator lists it, in Title Case: "On IP Changed" (without it n8n 2.x shows "On ip changed"). */
	action: string;
	description: string;
}

export interface EventParams {
	event: string;
}

/** What every observation holds: the service's time when it answered (see clock.ts). */
export interface Observed {
	now: number;
	/** Whether the reply carried a `Date` header. */
	dated?: boolean;
}

/** One event, with its own parameters (`P`), state (`S`) and observation (`O`). */
export interface TriggerEventModule<P extends EventParams, S extends StoredState, O> {
	event: EventInfo;
	/** Declared bare: the registry shows them only for this event. */
	properties: INodeProperties[];
	/** The keys its state writes besides the common ones. */
	stateKeys: readonly string[];
	/** Reads and checks its parameters before anything is sent. */
	readParameters(ctx: IPollFunctions): P;
	loadState(staticData: IDataObject): S | null;
	/** One request to the one endpoint it needs. */
	observe(ctx: IPollFunctions, requestOptions: CallOptions): Promise<O>;
	/**
	 * Proxy events: its first state key is a map by proxy name, and the remembered proxies a reply
	 * leaves out are read by name before `detect` (confirm.ts).
	 */
	confirmsLeftOut?: boolean;
	/**
	 * Proxy events: the part of the reply's list that can name a remembered proxy, when the event
	 * knows the rest names none (the whole list when left out). The names read by name are those of
	 * the first state key's map missing from it: exactly those missing from the whole list. Pure.
	 */
	listToCompare?(previous: S, list: ProxyRecord[], params: P, now: number): ProxyRecord[];
	/** Pure. */
	detect(previous: S | null, observation: O, params: P): Detection<S>;
	/** Current examples of the event, for "Fetch Test Event"; `summary` when there is none. */
	samples(observation: O, params: P, limit: number): IDataObject[];
	summary(observation: O, params: P): IDataObject;
}

export type AnyTriggerEvent = TriggerEventModule<EventParams, StoredState, unknown>;

export interface TriggerEvents {
	/** The event a new node starts with. */
	defaultEvent: string;
	/** In the order they were listed (the node description names them in that order). */
	events: AnyTriggerEvent[];
}

/** The events, each once; `selected` is the one a new node starts with. */
export function defineTrigger(
	modules: AnyTriggerEvent[],
	selected: AnyTriggerEvent,
): TriggerEvents {
	const events: AnyTriggerEvent[] = [];
	for (const module of modules)
		if (!events.some((known) => known.event.value === module.event.value)) events.push(module);
	return { defaultEvent: selected.event.value, events };
}

export function stateKeys(trigger: TriggerEvents): string[] {
	return trigger.events.flatMap((module) => [...module.stateKeys]);
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** Every event's properties, shown for the events that declare it (one shared by several last). */
function eventProperties(trigger: TriggerEvents): INodeProperties[] {
	const shown: Array<{ property: INodeProperties; events: string[] }> = [];
	for (const module of trigger.events) {
		for (const property of module.properties) {
			const same = shown.find((entry) => sameJson(entry.property, property));
			if (same) same.events.push(module.event.value);
			else shown.push({ property, events: [module.event.value] });
		}
	}
	const own = shown.filter((entry) => entry.events.length === 1);
	const shared = shown.filter((entry) => entry.events.length > 1);
	return [...own, ...shared].map(({ property, events }) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { event: events, ...property.displayOptions?.show },
		},
	}));
}

/** The Event dropdown, sorted by name, then every event's properties. */
export function triggerProperties(trigger: TriggerEvents): INodeProperties[] {
	const selected = trigger.defaultEvent;
	const options = trigger.events
		.map(({ event }): INodePropertyOptions => ({ ...event }))
		.sort(byName);
	return [
		{
			displayName: 'Event',
			name: 'event',
			type: 'options',
			noDataExpression: true,
			default: selected,
			options,
		},
		...eventProperties(trigger),
	];
}

/** The canvas subtitle: the chosen event's name, for every event. */
export function eventSubtitle(trigger: TriggerEvents): string {
	const names: Record<string, string> = {};
	for (const event of trigger.events.map((module) => module.event).sort(byName))
		names[event.value] = event.name;
	return `={{ ${JSON.stringify(names)}[$parameter["event"]] }}`;
}

export function triggerDescription(trigger: TriggerEvents): string {
	const names = trigger.events.map(({ event }) => event.name);
	const last = names.pop();
	const listed = names.length > 0 ? `${names.join(', ')} or ${last}` : String(last);
	return `Starts the workflow on a Proxy Account event: ${listed}`;
}

/** The event the node is set to, or a clear error naming the Event field. */
export function chosenEvent(ctx: IPollFunctions, trigger: TriggerEvents): AnyTriggerEvent {
	const value = parseChoice(
		ctx.getNode(),
		undefined,
		ctx.getNodeParameter('event', trigger.defaultEvent),
		'Event',
		trigger.events.map((candidate) => candidate.event.value),
		'the events in the list',
		'Open the node and pick an event from the list.',
	);
	return trigger.events.find((candidate) => candidate.event.value === value) as AnyTriggerEvent;
}
