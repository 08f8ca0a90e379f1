/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- benchmark tooling run by Node from the command line (node: modules, console output); never shipped, the package holds dist/ only */
/**
 * The trigger's own work per poll, as the benchmark's polls change the account, for a profiler:
 *
 *   node --expose-gc [--cpu-prof] -r ts-node/register/transpile-only bench/profile.ts [--events newProxy,...] [--polls N]
 *
 * Per event: a fresh simulator (10,000 proxies, 1,000 cities, seed 7, frozen clock) in this
 * process; before each poll the benchmark's changes (bench/changes.ts), then the list fetched bare
 * (untimed: the records as the transport hands them over). Timed: what the poll does after the
 * reply (the event's loadState; for a proxy event, which left-out proxies to read by name and the
 * observation completed by the reads, the reads themselves answered from the simulator's account
 * without HTTP; detect, the next state's commit, n8n's `returnJsonArray` of the events), each stage
 * and their sum (`names`: which left-out proxies to read, part of `confirm`): medians over the polls
 * after the baseline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { carrierCounts } from '../nodes/ProxyAccount/transport/schemas';
import { TRIGGER } from '../nodes/ProxyAccount/trigger/events';
import type { AnyTriggerEvent } from '../nodes/ProxyAccount/trigger/registry';
import { stateKeys } from '../nodes/ProxyAccount/trigger/registry';
import { commitState, nextSettle } from '../nodes/ProxyAccount/trigger/state';
import type { Confirmed } from '../nodes/ProxyAccount/trigger/confirm';
import { namesToConfirm, withConfirmed } from '../nodes/ProxyAccount/trigger/confirm';
import type { ProxyObservation } from '../nodes/ProxyAccount/trigger/proxies';
import type { ProxyRecord } from '../nodes/ProxyAccount/transport';
import { FILTER_NODE } from '../test/harness/filter-node';
import { readPlaceFilters, readProxyFilters } from '../nodes/ProxyAccount/helpers/framework/filters';
import { ProxyAccountSimulator } from '../test/simulator';
import { changeBetweenPolls, lcg } from './changes';
import type { TriggerEvent } from './sides';
import { bareFetch, PROXY_EVENTS, triggerPath } from './sides';
import { median, ms } from './stats';

const arg = (flag: string): string | undefined => {
	const at = process.argv.indexOf(flag);
	return at >= 0 ? process.argv[at + 1] : undefined;
};
const EVENTS = (arg('--events')?.split(',') ?? [...PROXY_EVENTS, 'stockChanged']) as TriggerEvent[];
const POLLS = Number(arg('--polls') ?? 60);
const KEYS = stateKeys(TRIGGER);

const filters = readProxyFilters(FILTER_NODE, undefined, {});
const output = { simplify: true, includePassword: false };
const PARAMS: Record<string, IDataObject> = {
	stockChanged: { change: 'becameAvailable', threshold: 1, filters: readPlaceFilters(FILTER_NODE, undefined, {}) },
	proxyExpiring: { withinHours: 24, filters, output },
	proxyStatusChanged: { fromStatus: '', toStatus: '', filters, output },
	newProxy: { filters, output },
	proxyRemoved: { filters },
	ipChanged: { onlyAutoRotating: true, filters, output },
};

/**
 * This process's CPU time in ms (user + system): the machine is shared, and wall time counts the
 * time other processes run; the profiled work is synchronous, so its CPU time is its time.
 */
const clock = process.argv.includes('--wall')
	? (): number => Number(process.hrtime.bigint()) / 1e6
	: (): number => {
			const { user, system } = process.cpuUsage();
			return (user + system) / 1000;
		};

/** What the poll does with a reply, timed stage by stage. */
function afterReply(
	module: AnyTriggerEvent,
	staticData: IDataObject,
	reply: { now: number },
	params: IDataObject,
	times: Record<string, number[]>,
	account: Map<string, ProxyRecord>,
): number {
	const t0 = clock();
	const previous = module.loadState(staticData);
	const t1 = clock();
	let observation = reply;
	let turn = previous?.turn;
	let tn = t1;
	if (module.confirmsLeftOut && previous !== null) {
		// As poll.ts: the left-out names to read, the reads (here from the account itself), the observation completed.
		const remembered = (previous as unknown as Record<string, unknown>)[module.stateKeys[0]] as Record<string, unknown> | undefined;
		const { proxies } = reply as ProxyObservation;
		const compared = module.listToCompare?.(previous, proxies, params as never, reply.now) ?? proxies;
		const names = namesToConfirm(remembered, compared, previous.turn);
		tn = clock();
		const confirmed: Confirmed = { found: [], gone: new Set(), turn };
		for (const name of names) {
			confirmed.turn = name;
			const record = account.get(name);
			if (record === undefined) confirmed.gone.add(name);
			else confirmed.found.push(JSON.parse(JSON.stringify(record)) as ProxyRecord);
		}
		turn = confirmed.turn;
		observation = withConfirmed(reply as ProxyObservation, confirmed, previous.gone);
	}
	const tc = clock();
	const detection = module.detect(previous, observation, params as never);
	const t2 = clock();
	const next = { ...detection.nextState };
	if (turn === undefined) delete next.turn;
	else next.turn = turn;
	const settle = nextSettle(previous, observation.now);
	if (settle === undefined) delete next.settle;
	else next.settle = settle;
	commitState(staticData, next, previous, KEYS);
	const t3 = clock();
	const items = detection.events.map((json) => ({ json }));
	const t4 = clock();
	const add = (label: string, a: number, b: number) => (times[label] ??= []).push(b - a);
	add('load', t0, t1);
	add('names', t1, tn);
	add('confirm', t1, tc);
	add('detect', tc, t2);
	add('commit', t2, t3);
	add('items', t3, t4);
	add('sum', t0, t4);
	return items.length;
}

async function main(): Promise<void> {
	for (const event of EVENTS) {
		const module = TRIGGER.events.find((candidate) => candidate.event.value === event) as AnyTriggerEvent;
		const sim = await ProxyAccountSimulator.start({ seed: 7, proxies: 10_000, cities: 1000, balance: 1_000_000_000, frozenClock: true });
		const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
		const random = lcg(7);
		const staticData: IDataObject = {};
		const times: Record<string, number[]> = {};
		let events = 0;
		try {
			for (let poll = 1; poll <= POLLS; poll++) {
				if (poll > 1) changeBetweenPolls(sim, random);
				const body = await bareFetch(credentials, triggerPath(event));
				const now = sim.clock.now();
				const observation =
					event === 'stockChanged'
						? { entries: (body.data as Array<Record<string, unknown>>).map((entry) => ({ ...entry, carriers: carrierCounts(entry) })), now }
						: { proxies: body.data, now };
				if (process.argv.includes("--gc")) global.gc?.();
				const round: Record<string, number[]> = {};
				events += afterReply(module, staticData, observation, { event, ...PARAMS[event] }, poll === 1 ? round : times, sim.account().proxies);
			}
		} finally {
			await sim.stop();
		}
		const parts = Object.entries(times).map(([label, list]) => `${label} ${ms(median(list))}`).join(', ');
		console.log(`${event.padEnd(20)} ${parts} (max sum ${ms(Math.max(...times.sum))}); ${events} events`);
	}
}

const userFolder = mkdtempSync(join(tmpdir(), 'n8n-proxy-account-profile-'));
process.env.N8N_USER_FOLDER = userFolder;
main()
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	})
	.finally(() => rmSync(userFolder, { recursive: true, force: true }));
