/**
 * Runs the campaign's steps: a seed's world (a fresh simulator and two hostile front servers, one
 * with the step's faults and one without, as a second n8n process's Base URL), and each step as real
 * workflow executions through n8n-core's WorkflowExecute (the harness's runNode).
 */
import type { IDataObject } from 'n8n-workflow';

import { asAgentTool, createHarness, HostileFront } from '../../harness';
import type { NodeResult, NodeUnderTest } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';
import { applyFaults, clearFaults, hangs } from './faults';
import type { Call, Step, World } from './model';

export const harness = createHarness([asAgentTool()]);

export interface Seeded {
	seed: number;
	world: World;
	sim: ProxyAccountSimulator;
	/** The front the step's first call goes through (it carries the step's faults). */
	front: HostileFront;
	/** A transparent front: a second n8n process's Base URL to the same account. */
	other: HostileFront;
}

export async function startWorld(seed: number, world: World): Promise<Seeded> {
	const sim = await ProxyAccountSimulator.start({ seed, proxies: world.proxies, cities: 6, balance: world.balance, frozenClock: true });
	sim.orders.swapPrice = world.swapPrice;
	sim.orders.swapReplyName = (['new', 'old', 'absent'] as const)[seed % 3];
	if (world.instantOrders) {
		sim.orders.deployDelayMs = 0;
		sim.orders.swapDelayMs = 0;
		sim.orders.removeDelayMs = 0;
	}
	const front = await HostileFront.start(sim.url);
	const other = await HostileFront.start(sim.url);
	return { seed, world, sim, front, other };
}

export async function stopWorld(w: Seeded): Promise<void> {
	await w.front.stop();
	await w.other.stop();
	await w.sim.stop();
}

/** The account's proxies, sorted by name: what a step's indices point into. */
export const proxyNames = (w: Seeded) => [...w.sim.account().proxies.keys()].sort();

/** Lets the service apply what is due (orders, removals) by reading the list, as any read does. */
export async function settle(w: Seeded): Promise<void> {
	await fetch(`${w.sim.url}/v1/proxies`, { headers: { authorization: `Bearer ${w.sim.demoApiKey}` } }).then((r) => r.text());
}

function carrierAndCity(w: Seeded, ref: { carrier: number; city: number }): { carrier: string; city: string } {
	const carrier = w.sim.carriers[ref.carrier % w.sim.carriers.length];
	const stocked = w.sim.stock.filter((c) => c.open && (c.counts[carrier.key] ?? 0) > 0);
	const cities = stocked.length > 0 ? stocked : w.sim.stock;
	return { carrier: carrier.name, city: cities[ref.city % cities.length].city };
}

/** A call made concrete: the node and its input items, and what was resolved for the checks. */
export interface Prepared {
	call: Call;
	node: NodeUnderTest;
	items: IDataObject[];
	/** The proxy each input item names (Buy: empty). */
	names: string[];
	/** Keep Wallet At Least as set, when set. */
	floor?: number;
	/** Remove: Confirm Number of Proxies as set. */
	confirmCount?: number;
	/** Change Location's destination, by name. */
	dest?: { carrier: string; city: string };
	/** Set Auto-Renew: Maximum Renewal Commitment as set (at the cap's edge: computed from the account). */
	maxRenewalCommitment?: number;
}

/**
 * The proxies a Set Auto-Renew at the cap's edge names: proxies of the first target's period, and
 * the cap: what the account would commit with all of them on at the call's interval, each at its own
 * (non-bulk) price as GET /v1/funds counts it, less `edge`.
 */
function atTheEdge(w: Seeded, call: Call, all: string[]): { names: string[]; cap: number } {
	const proxies = w.sim.account().proxies;
	const first = proxies.get(all[(call.targets?.[0] ?? 0) % all.length]);
	// Of the first target's period, those not renewing yet (each then adds its own price to the commitment).
	const samePeriod = all.filter((n) => proxies.get(n)?.period === first?.period);
	const off = samePeriod.filter((n) => !proxies.get(n)?.auto_renew);
	// The account holds enough of them (bought earlier, as the others' doings of a step): several proxies of one period.
	const wanted = new Set(call.targets ?? []).size;
	for (let k = off.length; k < wanted; k++) off.push(w.sim.addProxy(null, { period: first?.period ?? 'weekly', auto_renew: false }).proxy_name);
	const mates = off.sort();
	const start = call.targets?.[0] ?? 0;
	const names = (call.targets ?? []).map((_, k) => mates[(start + k) % mates.length]);
	const saved = names.map((n) => {
		const p = proxies.get(n)!;
		return [p, p.auto_renew, p.auto_renew_interval] as const;
	});
	for (const [p] of saved) Object.assign(p, { auto_renew: true, auto_renew_interval: call.interval ?? 1 });
	const committed = w.sim.commitment();
	for (const [p, on, interval] of saved) Object.assign(p, { auto_renew: on, auto_renew_interval: interval });
	const added = committed - w.sim.commitment();
	return { names, cap: Math.max(0, Math.round((committed - (call.commitmentEdge ?? 0) * added) * 100) / 100) };
}

const byItem = (tool: boolean | undefined, key: string) => (tool ? `={{ $fromAI('${key}') }}` : `={{ $json.${key} }}`);

export function prepare(w: Seeded, call: Call, faults: Step['faults']): Prepared {
	const all = proxyNames(w);
	const edge = call.commitmentEdge !== undefined && all.length > 0 ? atTheEdge(w, call, all) : undefined;
	const names = all.length === 0 ? [] : (edge?.names ?? (call.targets ?? []).map((i) => all[i % all.length]));
	const lines = call.op === 'buy' || call.op === 'quote';
	let items: IDataObject[] = lines ? (call.lines ?? []).map((line) => ({ ...carrierAndCity(w, line), quantity: line.quantity })) : names.map((name) => ({ name }));
	if (items.length === 0) items = [{ name: 'PRX-NONE-0000' }];
	if (call.perItem && items.length === 1) items = [items[0], { ...items[0] }];
	const options: IDataObject = {};
	const balance = w.sim.account().balance;
	const floor = call.floorZero ? 0 : call.floorBelow === undefined ? undefined : Math.max(0, Math.round((balance - call.floorBelow) * 100) / 100);
	const maxRenewalCommitment = edge?.cap ?? call.maxRenewalCommitment;
	if (call.dryRun) options.dryRun = true;
	if (call.maxTotalCost !== undefined) options.maxTotalCost = call.maxTotalCost;
	if (floor !== undefined) options.keepWalletAtLeast = floor;
	if (call.onlyIfExpiringWithinHours !== undefined) options.onlyIfExpiringWithinHours = call.onlyIfExpiringWithinHours;
	if (call.batchSize !== undefined) options.batchSize = call.batchSize;
	if (call.maxMoveCost !== undefined) options.maxMoveCost = call.maxMoveCost;
	if (maxRenewalCommitment !== undefined) options.maxRenewalCommitment = maxRenewalCommitment;
	if (call.allowAsTool !== undefined) options.allowAsTool = call.allowAsTool;
	if (faults.some(hangs)) options.timeoutSeconds = 2;
	const distinct = new Set(names).size;
	const confirmCount = call.op === 'remove' ? Math.max(0, distinct + (call.confirmOff ?? 0)) : undefined;
	const parameters: Record<string, unknown> = { resource: 'proxy', operation: call.op };
	const proxyName = { __rl: true, mode: 'name', value: byItem(call.tool, 'name') };
	const dest = call.op === 'changeLocation' ? carrierAndCity(w, call.dest ?? { carrier: 0, city: 0 }) : undefined;
	switch (call.op) {
		case 'extend':
			Object.assign(parameters, { proxyName, interval: call.interval ?? 1, period: call.period ?? 'weekly' });
			if (call.fromField) Object.assign(parameters, { proxySource: 'field', proxyNameField: 'name' });
			break;
		case 'quote':
			Object.assign(parameters, { resource: 'price', lines: { line: [{ carrier: byItem(call.tool, 'carrier'), city: byItem(call.tool, 'city'), interval: call.interval ?? 1, period: 'weekly' }] } });
			break;
		case 'buy':
			Object.assign(parameters, { carrier: byItem(call.tool, 'carrier'), city: byItem(call.tool, 'city'), quantity: byItem(call.tool, 'quantity'), interval: call.interval ?? 1, period: 'weekly' });
			Object.assign(options, { waitForNewProxies: true, waitTimeoutSeconds: 1 });
			break;
		case 'changeLocation':
			Object.assign(parameters, { proxyName, ...dest, copySettings: call.copySettings ?? true });
			options.waitTimeoutSeconds = 1;
			break;
		case 'remove':
			Object.assign(parameters, { proxyName, confirmCount });
			break;
		case 'setAutoRenew':
			Object.assign(parameters, { proxyName, autoRenew: call.autoRenew ?? true, interval: call.interval ?? 1 });
			break;
		default:
			Object.assign(parameters, { proxyName });
			options.concurrency = 2;
	}
	if (call.perItem) {
		// The option differs between the first item and the others: refused before anything is sent.
		const values: Record<string, [number | boolean, number | boolean]> = { dryRun: [true, false], maxTotalCost: [1_000, 5], batchSize: [1, 2], confirmCount: [distinct, distinct + 1], maxMoveCost: [100, 0], concurrency: [1, 3] };
		const [first, rest] = values[call.perItem];
		items = items.map((item, i) => ({ ...item, v: i === 0 ? first : rest }));
		if (call.perItem === 'confirmCount') parameters.confirmCount = '={{ $json.v }}';
		else options[call.perItem] = '={{ $json.v }}';
	}
	parameters.options = options;
	const node: NodeUnderTest = { type: call.tool ? 'proxyAccountTool' : 'proxyAccount', onError: call.onError, parameters };
	if (call.retryOnFail) Object.assign(node, { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 });
	return { call, node, items, names: lines ? [] : items.map((item) => String(item.name)), floor, confirmCount, dest, maxRenewalCommitment };
}

export interface Ran {
	prepared: Prepared;
	result: NodeResult;
	ms: number;
}

/** Runs a step: its faults, the others' doings, then one execution, or two at once as two processes. */
export async function runStep(w: Seeded, step: Step): Promise<Ran[]> {
	if (step.wallet !== undefined) w.sim.account().balance = step.wallet;
	if (step.foreign) w.sim.addProxyOnNextOrder(step.foreign, null, { nickname: 'someone else\u2019s' });
	if (step.priceMove) w.sim.changePricesAfterNextQuote(step.priceMove);
	const calls: Array<[Call, HostileFront]> = [[step.call, w.front]];
	// Another process has another Base URL to the account; the same process, the same credential.
	if (step.twin) calls.push([step.twin, step.twinSameProcess ? w.front : w.other]);
	const prepared = calls.map(([call]) => prepare(w, call, step.faults));
	applyFaults(step.faults, step.call.op, w.sim, w.front, prepared.flatMap((p) => p.names));
	try {
		return await Promise.all(
			prepared.map(async (p, i) => {
				const started = Date.now();
				const result = await harness.runNode(p.node, {
					credentials: { baseUrl: calls[i][1].url, apiKey: w.sim.demoApiKey },
					items: p.items,
					mode: p.call.retryMode ? 'retry' : p.call.subWorkflow ? 'integrated' : 'manual',
					...(p.call.subWorkflow && { rootMode: p.call.subWorkflow === 'retry' ? 'retry' : 'trigger' }),
				});
				return { prepared: p, result, ms: Date.now() - started };
			}),
		);
	} finally {
		clearFaults(w.sim, [w.front, w.other], step.call.op);
		if (step.priceMove) w.sim.changePricesAfterNextQuote(1);
	}
}
