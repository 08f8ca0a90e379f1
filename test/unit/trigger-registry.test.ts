/**
 * The recipe for adding a trigger event (docs/contributing.md): one `events/<event>.event.ts`
 * exporting a `TriggerEventModule` (its dropdown entry, bare properties, parameter reader, state
 * loader, one request, pure detection and samples), and one line in `events/index.ts`. A fixture
 * event registered exactly that way appears in the Event dropdown, its properties show only for it,
 * the canvas subtitle and the node description name it, and the poll protocol runs it (samples in
 * manual mode, baseline, events, state committed). The shipped trigger is checked the same way:
 * its subtitle and description cover every registered event.
 */
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { TRIGGER } from '../../nodes/ProxyAccount/trigger/events';
import { TRIGGER_EVENTS } from '../harness/trigger-state';
import { stockChanged } from '../../nodes/ProxyAccount/trigger/events/stockChanged.event';
import { pollTrigger } from '../../nodes/ProxyAccount/trigger/poll';
import type { EventParams, TriggerEventModule } from '../../nodes/ProxyAccount/trigger/registry';
import {
	defineTrigger,
	eventSubtitle,
	triggerDescription,
	triggerProperties,
} from '../../nodes/ProxyAccount/trigger/registry';
import type { StoredState } from '../../nodes/ProxyAccount/trigger/state';
import { loadStored, STATE_VERSION } from '../../nodes/ProxyAccount/trigger/state';
import { createHarness } from '../harness';

interface TickParams extends EventParams {
	event: 'tick';
	every: number;
}
interface TickState extends StoredState {
	event: 'tick';
	count: number;
}
interface TickObservation {
	count: number;
	now: number;
}

/** The fixture: what a new `tick.event.ts` would export. */
const tick: TriggerEventModule<TickParams, TickState, TickObservation> = {
	event: { name: 'Tick', value: 'tick', action: 'On Tick', description: 'The counter moves' },
	properties: [
		{
			displayName: 'Every',
			name: 'every',
			type: 'number',
			default: 1,
			description: 'How many counts make a tick',
		},
	] as INodeProperties[],
	stateKeys: ['count'],
	readParameters: (ctx) => ({ event: 'tick', every: ctx.getNodeParameter('every', 1) as number }),
	loadState: (staticData) =>
		loadStored<TickState>(staticData, 'tick', (data) =>
			typeof data.count === 'number' ? { count: data.count } : null,
		),
	observe: async () => ({ count: counter, now: NOW }),
	detect: (previous, observation) => ({
		events:
			previous && observation.count !== previous.count
				? [{ event: 'tick', before: previous.count, after: observation.count }]
				: [],
		nextState: { v: STATE_VERSION, event: 'tick', count: observation.count },
	}),
	samples: (observation) => [
		{ event: 'tick', before: observation.count - 1, after: observation.count },
	],
	summary: (observation) => ({ event: 'tick', count: observation.count }),
};
/** The service's time: this machine's (a first reply dated far from it is not believed). */
const NOW = Date.now();
let counter = 1;

// The one line in trigger/events/index.ts, with the new module added to the list.
const trigger = defineTrigger([...TRIGGER.events, tick], stockChanged);

const harness = createHarness([new ProxyAccountTrigger()]);

function resolvedSubtitle(subtitle: string, event: string): unknown {
	const node = harness.toNode(
		{ type: 'proxyAccountTrigger', parameters: { event } },
		'Proxy Account Trigger',
		[0, 0],
	);
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: harness.nodeTypes,
	});
	return workflow.expression.getSimpleParameterValue(node, subtitle, 'internal', {});
}

function pollContext(mode: 'manual' | 'trigger', staticData: IDataObject): IPollFunctions {
	return {
		getNodeParameter: (name: string, fallback: unknown) =>
			name === 'event' ? 'tick' : name === 'every' ? 2 : fallback,
		getNode: () => ({ id: 'n1', name: 'Proxy Account Trigger' }),
		getWorkflow: () => ({ id: '' }),
		getMode: () => mode,
		getWorkflowStaticData: () => staticData,
		helpers: { returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
	} as unknown as IPollFunctions;
}

describe('adding a trigger event: one file and one line in events/index.ts', () => {
	it('appears in the Event dropdown, sorted by name, with its action; its properties show only for it', () => {
		const properties = triggerProperties(trigger);
		const dropdown = properties.find((p) => p.name === 'event')!;
		const options = dropdown.options as Array<{ name: string; value: string; action: string }>;
		expect(options.map((o) => o.name)).toEqual(
			[...options.map((o) => o.name)].sort((a, b) => a.localeCompare(b)),
		);
		expect(options.find((o) => o.value === 'tick')).toEqual({
			name: 'Tick',
			value: 'tick',
			action: 'On Tick',
			description: 'The counter moves',
		});
		expect(
			properties
				.filter((p) => p.displayOptions?.show?.event?.includes('tick'))
				.map((p) => [p.name, p.displayOptions?.show]),
		).toEqual([['every', { event: ['tick'] }]]);
	});

	it('the canvas subtitle and the node description name it', () => {
		expect(resolvedSubtitle(eventSubtitle(trigger), 'tick')).toBe('Tick');
		expect(triggerDescription(trigger)).toMatch(/ or Tick$/);
	});

	it('the poll protocol runs it: samples in manual mode, then a baseline, then its events, the state committed', async () => {
		const staticData: IDataObject = {};
		counter = 1;
		expect(await pollTrigger(pollContext('manual', staticData), {}, trigger)).toEqual([
			[{ json: { event: 'tick', before: 0, after: 1, sample: true, sample_note: 'A test event, made up from the account as it is now: it reports no real change, so its before is empty. Extend, Buy, Change Location, Set Auto-Renew and Remove refuse to act on it (a Dry Run previews).' } }],
		]);
		expect(staticData).toEqual({});
		expect(await pollTrigger(pollContext('trigger', staticData), {}, trigger)).toBeNull();
		// With the service's clock (see trigger/clock.ts) and the settling of the new baseline.
		expect(staticData).toMatchObject({ v: STATE_VERSION, event: 'tick', count: 1, settle: [1, NOW] });
		expect(Object.keys(staticData).sort()).toEqual(['clock', 'count', 'event', 'settle', 'v']);
		counter = 3;
		expect(await pollTrigger(pollContext('trigger', staticData), {}, trigger)).toEqual([
			[{ json: { event: 'tick', before: 1, after: 3 } }],
		]);
		expect(staticData).toMatchObject({ v: STATE_VERSION, event: 'tick', count: 3 });
	});

	it('an event that is not registered is a clear error naming the Event field', async () => {
		await expect(pollTrigger(pollContext('trigger', {}), {}, TRIGGER)).rejects.toThrow(
			/Event.*must be one of the events in the list, but it is .*tick/,
		);
	});
});

describe('the shipped trigger covers every registered event', () => {
	const description = new ProxyAccountTrigger().description;
	const events = TRIGGER.events.map((module) => module.event);

	it('registers the seven events, each once', () => {
		expect([...TRIGGER_EVENTS].sort()).toEqual([
			'ipChanged',
			'lowFunds',
			'newProxy',
			'proxyExpiring',
			'proxyRemoved',
			'proxyStatusChanged',
			'stockChanged',
		]);
	});

	it.each(events.map((event) => [event.name, event]))(
		'%s: in the dropdown (with its Title Case action), the subtitle and the description',
		(_name, event) => {
			const dropdown = description.properties.find((p) => p.name === 'event')!;
			expect(dropdown.options).toContainEqual(event);
			expect(event.action).toBe(`On ${event.name}`);
			expect(resolvedSubtitle(String(description.subtitle), event.value)).toBe(event.name);
			expect(description.description).toContain(event.name);
		},
	);

	it('every property but the Event dropdown shows only for registered events', () => {
		for (const property of description.properties.filter((p) => p.name !== 'event')) {
			const shown = property.displayOptions?.show?.event as string[];
			expect(shown.length).toBeGreaterThan(0);
			for (const value of shown) expect(TRIGGER_EVENTS).toContain(value);
		}
	});
});
