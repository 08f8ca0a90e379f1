/**
 * Unit tests of the trigger's grace period for entries missing from a list, on the pure detect
 * functions (no engine, no HTTP): a city or proxy that is stored but missing from a reply is kept
 * as it was and marked missing; a city is forgotten only once it has been missing from GRACE_POLLS
 * polls in a row AND for GRACE_MS (the service's clock), a proxy only once the service confirms it
 * gone by name (issue 36; detection is given the names, `gone`); when it comes back it is compared
 * with what was kept. Also: version 1 states are read, the state stays bounded, and going back to an
 * older state (n8n 2.x after a restart) with the marks restarted never repeats an event.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import { commitState, loadState } from '../harness/trigger-state';
import {
	GRACE_MS,
	GRACE_POLLS,
	sameJson,
	STATE_VERSION,
	stillMissing,
} from '../../nodes/ProxyAccount/trigger/state';
import {
	MINUTE,
	HOUR,
	T0,
	iso,
	type Adapter,
	ADAPTERS,
	run,
	missing,
	back,
} from '../harness/grace-model';

describe('grace period constants', () => {
	it('are 3 polls and one hour, and the state layout is version 3', () => {
		expect(GRACE_POLLS).toBe(3);
		expect(GRACE_MS).toBe(3_600_000);
		expect(STATE_VERSION).toBe(3);
	});

	it('stillMissing counts polls from the first miss and forgets only at 3 polls AND one hour', () => {
		expect(stillMissing(undefined, T0)).toEqual([1, T0]);
		expect(stillMissing([1, T0], T0 + 2 * HOUR)).toEqual([2, T0]);
		expect(stillMissing([2, T0], T0 + 59 * MINUTE)).toEqual([3, T0]);
		expect(stillMissing([2, T0], T0 + HOUR)).toBeUndefined();
		expect(stillMissing([9, T0], T0 + HOUR - 1)).toEqual([10, T0]);
		// The service's clock went back: the hour starts again from now.
		expect(stillMissing([5, T0], T0 - HOUR)).toEqual([6, T0 - HOUR]);
	});
});

describe.each(ADAPTERS.map((adapter) => [adapter.label, adapter] as const))(
	'%s with a grace period',
	(_label, adapter) => {
		it.each([1, 2])(
			'missing from %i poll(s), then back unchanged: no event, and the state is as before',
			(misses) => {
				const steps = [
					...missing(...Array.from({ length: misses }, (_, i) => 10 * (i + 1))),
					back(10 * (misses + 1)),
				];
				const { baseline, events, states, state } = run(adapter, steps);
				expect(events.flat()).toEqual([]);
				// While missing: kept, as it was, and marked.
				for (let i = 0; i < misses; i++) {
					expect(adapter.stored(states[i])).toContain(adapter.subject);
					expect(states[i].gone).toEqual({ [adapter.subject]: [i + 1, T0 + 10 * MINUTE] });
				}
				// Back: the mark is cleared and the state is the baseline again.
				expect(state.gone).toBeUndefined();
				expect(sameJson(state, baseline)).toBe(true);
			},
		);

		it('missing from 3 or more polls but for less than an hour: still kept; back unchanged: no event', () => {
			const { events, states } = run(adapter, [...missing(5, 10, 15, 20, 25, 64), back(65)]);
			expect(events.flat()).toEqual([]);
			expect(adapter.stored(states[5])).toContain(adapter.subject);
			expect(states[5].gone).toEqual({ [adapter.subject]: [6, T0 + 5 * MINUTE] });
		});

		it('missing for an hour or more but from fewer than 3 polls: still kept; back unchanged: no event', () => {
			const { events, states } = run(adapter, [...missing(10, 130), back(140)]);
			expect(events.flat()).toEqual([]);
			expect(states[1].gone).toEqual({ [adapter.subject]: [2, T0 + 10 * MINUTE] });
		});

		it('missing from 3 polls over an hour: a city is forgotten (its return is what the event defines for an unknown entry); a proxy not confirmed gone is kept (issue 36)', () => {
			const { events, states } = run(adapter, [...missing(10, 40, 70), back(80)]);
			expect(events.slice(0, 3).flat()).toEqual([]);
			expect(adapter.stored(states[1])).toContain(adapter.subject);
			const city = adapter.label.startsWith('stockChanged');
			expect(adapter.stored(states[2]).includes(adapter.subject)).toBe(!city);
			expect(states[2].gone).toEqual(city ? undefined : { [adapter.subject]: [3, T0 + 10 * MINUTE] });
			expect(events[3]).toEqual(city ? adapter.returnEvents : []);
			expect(adapter.stored(states[3])).toContain(adapter.subject);
		});

		it('back changed after missing: exactly the event of the change, against what was kept', () => {
			const { events, state } = run(adapter, [
				...missing(10, 20),
				back(30, 'changed'),
				back(40, 'changed'),
			]);
			expect(events).toEqual([[], [], adapter.changedEvents, []]);
			expect(state.gone).toBeUndefined();
		});

		it('an entry that comes back clears its mark: missing again counts from 1', () => {
			const { events, states } = run(adapter, [
				...missing(10, 40),
				back(50),
				...missing(60, 70, 80),
				back(90),
			]);
			expect(events.flat()).toEqual([]);
			expect(states[2].gone).toBeUndefined();
			expect(states[5].gone).toEqual({ [adapter.subject]: [3, T0 + 60 * MINUTE] });
		});

		it('only stored entries have marks, and the other entries are untouched', () => {
			const { states, baseline } = run(adapter, missing(10));
			const kept = states[0];
			expect(Object.keys(kept.gone ?? {})).toEqual([adapter.subject]);
			expect(adapter.stored(kept).sort()).toEqual(adapter.stored(baseline).sort());
		});
	},
);

describe('version 1 states (before the grace period)', () => {
	const V1: Array<[TriggerState['event'], IDataObject, Adapter]> = [
		[
			'stockChanged',
			{
				v: 1,
				event: 'stockChanged',
				stock: {
					'Austin|TX': { s: 'available', c: { att: 10 } },
					'Denver|CO': { s: 'available', c: { att: 4 } },
					'Miami|FL': { s: 'out', c: {} },
				},
			},
			ADAPTERS[0],
		],
		[
			'proxyExpiring',
			{ v: 1, event: 'proxyExpiring', reported: { 'PRX-X': iso(T0 + 2 * HOUR) } },
			ADAPTERS[3],
		],
		[
			'proxyStatusChanged',
			{
				v: 1,
				event: 'proxyStatusChanged',
				status: { 'PRX-A': 'online', 'PRX-X': 'online', 'PRX-B': 'offline' },
			},
			ADAPTERS[4],
		],
		['newProxy', { v: 1, event: 'newProxy', names: ['PRX-A', 'PRX-X', 'PRX-B'] }, ADAPTERS[5]],
	];

	it.each(V1)(
		'%s: a version 1 state is read as version 3 with nothing missing; the same list emits nothing and writes nothing (New Proxy: its paid times only)',
		(event, v1, adapter) => {
			const staticData = JSON.parse(JSON.stringify(v1)) as IDataObject;
			const previous = loadState(staticData, event);
			expect(previous).not.toBeNull();
			expect(previous).toMatchObject({ v: STATE_VERSION, event });
			expect(previous?.gone).toBeUndefined();
			const { events, nextState } = adapter.detect(previous, adapter.list(), T0);
			expect(events).toEqual([]);
			commitState(staticData, nextState, previous);
			if (event === 'proxyExpiring') {
				// Proxy Expiring adds, once, the paid time of each proxy inside the window (to carry its mark
				// through a move); the marks themselves stay.
				expect(staticData).toMatchObject({ v: STATE_VERSION, event, reported: { 'PRX-X': T0 + 2 * HOUR } });
				expect(Object.keys(staticData.paid as IDataObject)).toEqual(['PRX-X']);
				return;
			}
			if (event !== 'newProxy') {
				// Nothing changed, so n8n has nothing to save: the static data is still the version 1 state.
				expect(staticData).toEqual(v1);
				return;
			}
			// New Proxy adds, once, the paid time of each name (to recognize a move); nothing else.
			expect(staticData).toMatchObject({ v: STATE_VERSION, event });
			expect(Object.keys(staticData.ids as IDataObject).sort()).toEqual([...(v1.names as string[])].sort());
		},
	);

	it.each(V1)(
		'%s: a partial list after the upgrade keeps the missing entry and writes version 3 with its mark',
		(event, v1, adapter) => {
			const staticData = JSON.parse(JSON.stringify(v1)) as IDataObject;
			const partial = adapter.list().filter((item) => adapter.key(item) !== adapter.subject);
			const previous = loadState(staticData, event);
			const { events, nextState } = adapter.detect(previous, partial, T0);
			expect(events).toEqual([]);
			commitState(staticData, nextState, previous);
			expect(staticData).toMatchObject({ v: 3, event, gone: { [adapter.subject]: [1, T0] } });
			const reloaded = loadState(JSON.parse(JSON.stringify(staticData)) as IDataObject, event);
			expect(reloaded?.gone).toEqual({ [adapter.subject]: [1, T0] });
			expect(adapter.detect(reloaded, adapter.list(), T0 + MINUTE).events).toEqual([]);
		},
	);

	it('damaged marks, or an unknown version, are not trusted (a new baseline)', () => {
		const names = ['PRX-A'];
		expect(
			loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [0, T0] } }, 'newProxy'),
		).toBeNull();
		expect(
			loadState(
				{ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [1, 'yesterday'] } },
				'newProxy',
			),
		).toBeNull();
		expect(
			loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [1] } }, 'newProxy'),
		).toBeNull();
		expect(loadState({ v: 2, event: 'newProxy', names, gone: ['PRX-A'] }, 'newProxy')).toBeNull();
		expect(loadState({ v: 4, event: 'newProxy', names }, 'newProxy')).toBeNull();
		expect(
			loadState({ v: 2, event: 'newProxy', names, gone: { 'PRX-A': [2, T0] } }, 'newProxy'),
		).toEqual({ v: 3, event: 'newProxy', ids: { 'PRX-A': 0 }, plans: [], gone: { 'PRX-A': [2, T0] } });
	});
});
