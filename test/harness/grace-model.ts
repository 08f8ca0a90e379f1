/**
 * The model behind the grace-period tests (unit and randomized): hand-built records, one adapter per
 * trigger event around the pure detect functions, and a runner over timed steps (no engine, no HTTP).
 */
import { withConfirmed } from '../../nodes/ProxyAccount/trigger/confirm';
import type { IDataObject } from 'n8n-workflow';

import { readPlaceFilters, readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { FILTER_NODE } from './filter-node';
import type { ProxyRecord, StockEntry } from '../../nodes/ProxyAccount/transport';
import type { StockChange } from '../../nodes/ProxyAccount/trigger/events/stockChanged.event';
import { detectExpiring } from '../../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectNewProxies } from '../../nodes/ProxyAccount/trigger/events/newProxy.event';
import { detectStatusChanges } from '../../nodes/ProxyAccount/trigger/events/proxyStatusChanged.event';
import type { TriggerState } from '../../nodes/ProxyAccount/trigger/events';
import type { Detection } from '../../nodes/ProxyAccount/trigger/state';
import { detectStockChanges } from '../../nodes/ProxyAccount/trigger/events/stockChanged.event';

export const MINUTE = 60_000;
export { HOUR, T0, iso, proxy } from '../fixtures/records';
import { HOUR, T0, iso, proxy } from '../fixtures/records';

export function city(
	name: string,
	state: string,
	counts: Record<string, number>,
	open = true,
): StockEntry {
	const any = Object.values(counts).some((count) => count > 0);
	return {
		city: name,
		state,
		status: !open ? 'coming' : any ? 'available' : 'out',
		open,
		visible: true,
		...counts,
		carriers: { ...counts },
	};
}

/** An emitted item as a comparable key. */
export function eventKey(item: IDataObject): string {
	const before = item.before as IDataObject | null;
	const after = item.after as IDataObject | null;
	switch (item.event) {
		case 'stock_changed':
			return `${item.change}|${item.city}|${item.carrier}|${before?.count}|${before?.status}|${after?.count}|${after?.status}`;
		case 'proxy_expiring':
			return `proxy_expiring|${item.proxy_name}|${item.expires_at}`;
		case 'proxy_status_changed':
			return `proxy_status_changed|${item.proxy_name}|${before?.network_status}|${after?.network_status}`;
		default:
			return `new_proxy|${item.proxy_name}`;
	}
}

// ----- one adapter per event -------------------------------------------------------------------------

export type Item = ProxyRecord | StockEntry;

export interface Adapter {
	label: string;
	/** The list at the start; the entry keyed `subject` is the one that goes missing. */
	list(): Item[];
	subject: string;
	key(item: Item): string;
	/** `gone`: the names the service answered not found for by name (proxies; see `withReads`). */
	detect(previous: TriggerState | null, items: Item[], now: number, gone?: ReadonlySet<string>): Detection<TriggerState>;
	/** The subject as it comes back changed, and what that poll emits. */
	changed(item: Item): Item;
	changedEvents: string[];
	/** What the poll emits that sees the subject come back, unchanged, once it was forgotten. */
	returnEvents: string[];
	/** The keys of the entries a state stores. */
	stored(state: TriggerState): string[];
}

export const proxyOutput = { simplify: true, includePassword: false };
export const proxyFilters = readProxyFilters(FILTER_NODE, undefined, {});
export const cityKeyOf = (item: Item) =>
	`${(item as StockEntry).city}|${(item as StockEntry).state}`;
export const nameOf = (item: Item) => (item as ProxyRecord).proxy_name;

export function stockAdapter(
	change: StockChange,
	changedEvents: string[],
	returnEvents: string[],
): Adapter {
	return {
		label: `stockChanged/${change}`,
		list: () => [
			city('Austin', 'TX', { att: 10, verizon: 0 }),
			city('Denver', 'CO', { att: 4, verizon: 0 }),
			city('Miami', 'FL', { att: 0, verizon: 0 }),
		],
		subject: 'Denver|CO',
		key: cityKeyOf,
		detect: (previous, items, now) =>
			detectStockChanges(
				previous as never,
				{ entries: items as StockEntry[], now },
				{ event: 'stockChanged', change, threshold: 3, filters: readPlaceFilters(FILTER_NODE, undefined, {}) },
			),
		changed: () =>
			city('Denver', 'CO', {
				att: change === 'anyChange' ? 5 : 4,
				verizon: change === 'anyChange' ? 0 : 3,
			}),
		changedEvents,
		returnEvents,
		stored: (state) => Object.keys((state as { stock: object }).stock),
	};
}

export const ADAPTERS: Adapter[] = [
	stockAdapter(
		'becameAvailable',
		['became_available|Denver|verizon|0|available|3|available'],
		['became_available|Denver|att|0|null|4|available'],
	),
	stockAdapter(
		'anyChange',
		['count_changed|Denver|att|4|available|5|available'],
		['count_changed|Denver|att|0|null|4|available'],
	),
	stockAdapter(
		'reachedThreshold',
		['reached_threshold|Denver|verizon|0|available|3|available'],
		['reached_threshold|Denver|att|0|null|4|available'],
	),
	{
		label: 'proxyExpiring',
		// PRX-X is inside the 24 h window from the start: recorded as seen at the baseline.
		list: () => [
			proxy('PRX-A'),
			proxy('PRX-X', { expires_at: iso(T0 + 2 * HOUR) }),
			proxy('PRX-B', { expires_at: iso(T0 + 30 * HOUR) }),
		],
		subject: 'PRX-X',
		key: nameOf,
		// The grace model runs without a settling baseline (the poll adds it): the entries a baseline
		// keeps only while it settles (listed outside the window, stored as -expiry) are left out.
		detect: (previous, items, now, gone) =>
			reportedOnly(
				detectExpiring(
					previous as never,
					{ proxies: items as ProxyRecord[], now, gone },
					{ event: 'proxyExpiring', withinHours: 24, filters: proxyFilters, output: proxyOutput },
				),
			),
		changed: (item) => ({ ...(item as ProxyRecord), expires_at: iso(T0 + 6 * HOUR) }),
		changedEvents: [`proxy_expiring|PRX-X|${iso(T0 + 6 * HOUR)}`],
		returnEvents: [`proxy_expiring|PRX-X|${iso(T0 + 2 * HOUR)}`],
		stored: (state) => Object.keys((state as { reported: object }).reported),
	},
	{
		label: 'proxyStatusChanged',
		list: () => [proxy('PRX-A'), proxy('PRX-X'), proxy('PRX-B', { network_status: 'offline' })],
		subject: 'PRX-X',
		key: nameOf,
		detect: (previous, items, now, gone) =>
			detectStatusChanges(
				previous as never,
				{ proxies: items as ProxyRecord[], now, gone },
				{
					event: 'proxyStatusChanged',
					fromStatus: '',
					toStatus: '',
					filters: proxyFilters,
					output: proxyOutput,
				},
			),
		changed: (item) => ({ ...(item as ProxyRecord), network_status: 'offline' }),
		changedEvents: ['proxy_status_changed|PRX-X|online|offline'],
		// A proxy that is not stored is recorded without an event (there is no status before).
		returnEvents: [],
		stored: (state) => Object.keys((state as { status: object }).status),
	},
	{
		label: 'newProxy',
		list: () => [proxy('PRX-A'), proxy('PRX-X'), proxy('PRX-B')],
		subject: 'PRX-X',
		key: nameOf,
		detect: (previous, items, now, gone) =>
			detectNewProxies(
				previous as never,
				{ proxies: items as ProxyRecord[], now, gone },
				{ event: 'newProxy', filters: proxyFilters, output: proxyOutput },
			),
		// Only names matter to New Proxy: a changed record is not new.
		changed: (item) => ({ ...(item as ProxyRecord), network_status: 'offline' }),
		changedEvents: [],
		returnEvents: ['new_proxy|PRX-X'],
		stored: (state) => Object.keys((state as { ids: object }).ids),
	},
];

/**
 * What poll.ts hands detection when the service answers every read by name truthfully (issue 36):
 * the stored proxies that `items` leaves out are read; those the account (`all`) holds are added to
 * the list, the others are gone (as `withConfirmed` rules: at once, or, when the reply is known
 * partial, after GRACE_POLLS polls and PARTIAL_WAIT_MS). Cities are not read. (The bound of 10 reads a poll is left out.)
 */
export function withReads(
	adapter: Adapter,
	previous: TriggerState | null,
	items: Item[],
	all: Item[],
	now: number,
): { items: Item[]; gone: ReadonlySet<string> } {
	if (previous === null || adapter.label.startsWith('stock')) return { items, gone: new Set() };
	const listed = new Set(items.map(adapter.key));
	const held = new Map(all.map((item) => [adapter.key(item), item]));
	const confirmed = { found: [] as ProxyRecord[], gone: new Set<string>(), turn: undefined };
	for (const key of adapter.stored(previous)) {
		if (listed.has(key)) continue;
		const item = held.get(key);
		if (item === undefined) confirmed.gone.add(key);
		else confirmed.found.push(item as ProxyRecord);
	}
	const seen = withConfirmed({ proxies: items as ProxyRecord[], now }, confirmed, previous.gone);
	return { items: seen.proxies, gone: seen.gone ?? new Set() };
}

/** One poll's list: the full list, without the subject (`missing`) or with it changed (`changed`). */
export type Step = { at: number; list: 'full' | 'missing' | 'changed' };

/** Runs the adapter from a baseline at T0 through `steps`; returns each step's events and the states. */
/** A Proxy Expiring detection without the entries listed outside the window (negative values). */
function reportedOnly<D extends { nextState: { reported: Record<string, number> } }>(detection: D): D {
	const reported = Object.fromEntries(Object.entries(detection.nextState.reported).filter(([, at]) => at >= 0));
	return { ...detection, nextState: { ...detection.nextState, reported } };
}

export function run(adapter: Adapter, steps: Step[]) {
	const full = adapter.list();
	let state = adapter.detect(null, full, T0).nextState;
	const baseline = state;
	const events: string[][] = [];
	const states: TriggerState[] = [];
	for (const step of steps) {
		const items =
			step.list === 'full'
				? full
				: step.list === 'missing'
					? full.filter((item) => adapter.key(item) !== adapter.subject)
					: full.map((item) =>
							adapter.key(item) === adapter.subject ? adapter.changed(item) : item,
						);
		const result = adapter.detect(state, items, step.at);
		events.push(result.events.map(eventKey));
		state = result.nextState;
		states.push(state);
	}
	return { baseline, events, states, state };
}

export const missing = (...minutes: number[]): Step[] =>
	minutes.map((m) => ({ at: T0 + m * MINUTE, list: 'missing' as const }));
export const back = (minutes: number, list: 'full' | 'changed' = 'full'): Step => ({
	at: T0 + minutes * MINUTE,
	list,
});

// ----- moves (Proxy > Change Location) ---------------------------------------------------------------

/**
 * The reference model of an account whose proxies are bought, removed and moved, with the truth of
 * what happened to each proxy: its `identity` (the purchase it comes from) across its names, the
 * identities `removed` (each to be reported by Proxy Removed exactly once, under one of its names)
 * and the names `moved` (moved on, so never to be reported unless that proxy is removed later: a
 * trigger that went back to an older state may only know it by an older name). Every proxy has its own paid time (no two bought in one order), so a move is
 * never ambiguous. A move keeps `expires_at`, `period` and `auto_renew`; it keeps `added_at` or not
 * (at random: open for the live service); its new name shows at the next poll or the one after. Only a
 * proxy in the last poll's list is removed or moved (`lastListed`): the trigger has seen it, and a
 * moved one cannot reach the end of its grace period (3 polls) before its new name shows.
 */
export function movesAccount(rnd: { chance(p: number): boolean; int(min: number, max: number): number }) {
	const listed = new Map<string, ProxyRecord>();
	/** New names not shown yet, with the polls they still wait. */
	const hidden = new Map<string, { record: ProxyRecord; polls: number }>();
	const removed = new Set<number>();
	const moved = new Set<string>();
	const identity = new Map<string, number>();
	let next = 0;
	const buy = () => {
		const i = next++;
		const name = `PRX-${i}`;
		identity.set(name, i);
		listed.set(name, proxy(name, { expires_at: iso(T0 + (200 + i) * HOUR), added_at: iso(T0 - (200 + i) * HOUR) }));
	};
	for (let i = 0; i < 20; i++) buy();
	return {
		removed,
		moved,
		identity: (name: string) => identity.get(name)!,
		/** Changes the account before a poll: shows due moves, then maybe a purchase, a removal, a move. */
		step(now: number, lastListed: ReadonlySet<string>) {
			for (const [name, entry] of hidden) {
				if (entry.polls-- > 0) continue;
				hidden.delete(name);
				listed.set(name, entry.record);
			}
			if (rnd.chance(0.05)) buy();
			// Only what the last poll listed is removed or moved: the trigger has seen it.
			const seen = () => [...listed.keys()].filter((name) => lastListed.has(name));
			const pick = (names: string[]) => names[rnd.int(0, names.length - 1)];
			if (seen().length > 0 && listed.size > 10 && rnd.chance(0.05)) {
				const name = pick(seen());
				listed.delete(name);
				removed.add(identity.get(name)!);
			}
			if (seen().length > 0 && listed.size > 10 && rnd.chance(0.08)) {
				const name = pick(seen());
				const record = listed.get(name)!;
				listed.delete(name);
				moved.add(name);
				const newName = `PRX-${next++}`;
				identity.set(newName, identity.get(name)!);
				const added_at = rnd.chance(0.5) ? record.added_at : iso(now);
				const copy = { ...record, proxy_name: newName, added_at, city: 'Denver', h_port: 9_000 + next };
				hidden.set(newName, { record: copy, polls: rnd.int(0, 1) });
			}
		},
		/** Shows the new names of the moves under way at once. */
		showMoves() {
			for (const [name, entry] of hidden) listed.set(name, entry.record);
			hidden.clear();
		},
		/** The proxies the account holds and shows now (a partial list may leave some out). */
		list: () => [...listed.values()],
	};
}

/**
 * Lists as a lagging service shows them: a name already shown is hidden at random (`p`), never from
 * more than 2 lists in a row. `lastListed` is the names the last list held (what `movesAccount` may
 * remove or move).
 */
export function partialLists(rnd: { chance(p: number): boolean }, first: ProxyRecord[], p = 0.3) {
	const shown = new Set(first.map(nameOf));
	const streak = new Map<string, number>();
	let lastListed: ReadonlySet<string> = new Set(shown);
	return {
		get lastListed() {
			return lastListed;
		},
		of(full: ProxyRecord[]): ProxyRecord[] {
			const list = full.filter((record) => {
				const name = record.proxy_name;
				const drop = shown.has(name) && (streak.get(name) ?? 0) < 2 && rnd.chance(p);
				streak.set(name, drop ? (streak.get(name) ?? 0) + 1 : 0);
				return !drop;
			});
			for (const record of list) shown.add(record.proxy_name);
			lastListed = new Set(list.map(nameOf));
			return list;
		},
	};
}
