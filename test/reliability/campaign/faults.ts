/**
 * The campaign's fault menu: each fault by name, made by the simulator's fault injection or by the
 * hostile front server between the node and the simulator. The names are what a replay prints.
 */
import type { HostileFront, HostileRule } from '../../harness';
import type { FaultSpec, ProxyAccountSimulator, RouteKey } from '../../simulator';
import type { FaultRef, Op } from './model';

/** The request that acts (charges, removes, changes or commands), per operation. */
export const EFFECT_ROUTE: Record<Op, RouteKey> = {
	extend: 'POST /v1/proxies/allocate',
	buy: 'POST /v1/proxies/deploy',
	changeLocation: 'POST /v1/proxies/swap/:name',
	remove: 'DELETE /v1/proxies/remove',
	setAutoRenew: 'PATCH /v1/proxies/allocate/renew',
	rotateIp: 'POST /v1/proxies/changeip/:name',
	reboot: 'POST /v1/proxies/reboot/:name',
	quote: 'POST /v1/price',
};

const LIST: RouteKey = 'GET /v1/proxies';
const FUNDS: RouteKey = 'GET /v1/funds';
const PRICE: RouteKey = 'POST /v1/price';

type Made = { sim?: FaultSpec; front?: HostileRule; rateLimit?: boolean };

/** What a fault may read when it is made: the account, and the proxies the step names. */
interface Around {
	sim: ProxyAccountSimulator;
	named: string[];
}

/** A proxy the account already had that the step does not name (the last by name), if any. */
const thirdProxy = ({ sim, named }: Around) => [...sim.account().proxies.keys()].sort().reverse().find((n) => !named.includes(n));

/** What a fault does to the step's effect route `route` (or to the reads around it). */
const MENU: Record<string, (route: RouteKey, around: Around) => Made> = {
	'effect 500 before acting': (route) => ({ sim: { route, kind: 'status', status: 500 } }),
	'effect 503 after acting (front)': (route) => ({ front: { route, kind: 'rewrite', reply: 'status', status: 503 } }),
	'effect reset after acting': (route) => ({ sim: { route, kind: 'reset', when: 'after' } }),
	'effect reset before acting': (route) => ({ sim: { route, kind: 'reset', when: 'before' } }),
	'effect reset mid-body': (route) => ({ sim: { route, kind: 'reset', when: 'mid-body' } }),
	'effect answer late (1 s, within the timeout)': (route) => ({ sim: { route, kind: 'latency', delayMs: 1_000, when: 'after' } }),
	'effect hangs after acting (past a 2 s timeout)': (route) => ({ front: { route, kind: 'rewrite', reply: 'hang' } }),
	'effect trickled reply': (route) => ({ front: { route, kind: 'trickle', intervalMs: 20, bytes: 24 } }),
	'effect malformed after acting (front)': (route) => ({ front: { route, kind: 'rewrite', reply: 'malformed' } }),
	'effect redirected after acting': (route) => ({ front: { route, kind: 'redirect', status: 302, forward: true } }),
	'effect redirected before acting': (route) => ({ front: { route, kind: 'redirect', status: 307 } }),
	'effect 429 (retry-after 0)': (route) => ({ sim: { route, kind: 'rateLimit', retryAfter: 0 } }),
	'effect 429 whose headers lie (99 left)': (route) => ({
		sim: { route, kind: 'status', status: 429, body: { ok: false, message: 'Too Many Requests' }, headers: { 'Retry-After': '0', 'RateLimit-Limit': '100', 'RateLimit-Remaining': '99', 'RateLimit-Reset': '0' } },
	}),
	'effect 429 asking for an hour': (route) => ({ sim: { route, kind: 'rateLimit', retryAfter: 3_600 } }),
	'effect ok:false 402 (refused)': (route) => ({ sim: { route, kind: 'okFalse', status: 402, message: 'Insufficient funds', data: { funds: 1, diff: 9 } } }),
	'effect drift (no data)': (route) => ({ sim: { route, kind: 'drift', remove: ['data'] } }),
	'effect echo rewritten (another interval, no names)': (route) => ({
		front: {
			route,
			kind: 'rewrite',
			reply: 'transform',
			transform: (json: { data?: { proxies?: { time?: Array<{ interval?: number }> }; proxy_name?: string } }) => {
				for (const line of json?.data?.proxies?.time ?? []) line.interval = (line.interval ?? 1) + 1;
				if (json?.data && 'proxy_name' in json.data) delete json.data.proxy_name;
				return json;
			},
		},
	}),
	'swap reply names a third proxy': (route, around) => ({
		front: {
			route,
			kind: 'rewrite',
			reply: 'transform',
			transform: (json: { data?: { proxy_name?: string } }) => {
				const third = thirdProxy(around);
				if (json?.data && third !== undefined) json.data.proxy_name = third;
				return json;
			},
		},
	}),
	'list 500 (read retried)': () => ({ sim: { route: LIST, kind: 'status', status: 500 } }),
	'list empty': () => ({ sim: { route: LIST, kind: 'emptyList' } }),
	'list lagging behind the charge': () => ({ front: { route: LIST, kind: 'lag', reads: 1 } }),
	'list missing one proxy': () => ({ front: { route: LIST, kind: 'drop', count: 1 } }),
	'list trickled': () => ({ front: { route: LIST, kind: 'trickle', intervalMs: 5, bytes: 512 } }),
	'wallet unreadable (503 x6)': () => ({ sim: { route: FUNDS, kind: 'status', status: 503, times: 6 } }),
	'wallet read late (400 ms)': () => ({ sim: { route: FUNDS, kind: 'latency', delayMs: 400, when: 'before' } }),
	'quotes at half the price': () => ({
		front: {
			route: PRICE,
			kind: 'rewrite',
			reply: 'transform',
			times: Infinity,
			transform: (json: { data?: { total?: { due?: number } } }) => {
				if (json?.data?.total?.due !== undefined) json.data.total.due = Math.round(json.data.total.due * 50) / 100;
				return json;
			},
		},
	}),
	'quote 500': () => ({ sim: { route: PRICE, kind: 'status', status: 500 } }),
	'rate limit 2 a minute with headers': () => ({ rateLimit: true }),
};

/** The faults that mean something for an operation. */
export function faultNames(op: Op): string[] {
	const names = Object.keys(MENU);
	return names.filter((name) => {
		if (name.startsWith('quote')) return op === 'extend' || op === 'buy' || op === 'setAutoRenew' || op === 'quote';
		if (name === 'swap reply names a third proxy') return op === 'changeLocation';
		if (op === 'quote') return !name.startsWith('wallet') && !name.startsWith('effect echo') && !name.startsWith('rate limit');
		if (name === 'list lagging behind the charge') return op === 'extend';
		if (name === 'rate limit 2 a minute with headers') return op === 'rotateIp' || op === 'reboot';
		if (name.startsWith('wallet')) return op === 'extend' || op === 'buy' || op === 'changeLocation' || op === 'setAutoRenew';
		if (name === 'effect echo rewritten (another interval, no names)') return op === 'extend' || op === 'setAutoRenew' || op === 'changeLocation';
		return true;
	});
}

/** Whether a fault holds the effect's answer past its timeout (the step then runs with a 2 s timeout). */
export const hangs = (fault: FaultRef) => fault.name.includes('hangs');

/** Whether a fault makes a quote lie (the cap and the floor may then be passed by one request's charge). */
export const misquotes = (fault: FaultRef) => fault.name === 'quotes at half the price';

/** Queues a step's faults on the simulator and on the front the step's first call goes through. */
export function applyFaults(faults: FaultRef[], op: Op, sim: ProxyAccountSimulator, front: HostileFront, named: string[] = []): void {
	for (const fault of faults) {
		const make = MENU[fault.name];
		if (!make) throw new Error(`unknown fault ${fault.name}`);
		const made = make(EFFECT_ROUTE[op], { sim, named });
		if (made.rateLimit) sim.setRateLimit(EFFECT_ROUTE[op], { limit: 2, windowMs: 60_000, headers: 'draft' });
		if (made.sim) {
			for (let i = 0; i < (fault.skip ?? 0); i++) sim.injectFault({ route: made.sim.route, kind: 'latency', delayMs: 0, when: 'before' });
			sim.injectFault(made.sim);
		}
		if (made.front) {
			if (made.front.kind !== 'lag') {
				for (let i = 0; i < (fault.skip ?? 0); i++) front.add({ route: made.front.route, kind: 'delay', ms: 0 });
			}
			front.add(made.front);
		}
	}
}

/** Lifts what a step's faults left behind (unused faults and rules, rate limits). */
export function clearFaults(sim: ProxyAccountSimulator, fronts: HostileFront[], op?: Op): void {
	sim.clearFaults();
	for (const front of fronts) front.clear();
	if (op) sim.setRateLimit(EFFECT_ROUTE[op], null);
}
