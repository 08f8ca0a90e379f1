/*
 * Commands sent to a proxy's modem (Rotate IP, Reboot): one request per proxy named (items naming
 * the same proxy share it), a few at a time, and the service's throttles honoured: a proxy changed
 * too recently is skipped with the time of that change, or waited for within a bound, so a run never
 * meets a storm of 429s. The service's rate limit on the endpoint is kept to (devicePace.ts).
 * Never under Retry On Fail: an accepted command is never sent again.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { endpointPace, paceBounds, RATE_LIMIT_PAUSE_MAX_MS, seconds } from './devicePace';
import type { BatchedRun } from '../framework/batchedRun';
import type { ProxyRequest } from '../money/batches';
import { collectRequests } from '../money/batches';
import { asNodeError } from '../framework/itemLoop';
import { proxyNotFound } from '../framework/proxySource';
import type { RunOptions } from '../framework/runOptions';
import { retryRefusal } from '../guards/runGuards';
import type { ProxyRecord, RateLimitFacts } from '../../transport';
import { DEFAULT_TIMEOUT_MS, requestErrorFacts, send } from '../../transport';

export interface DeviceCommand {
	/** What the output and the messages call it, e.g. "IP change". */
	label: string;
	/** The proxy field the service moves, e.g. `last_ip_change`. */
	field: 'last_ip_change' | 'last_reboot';
	/** The service's throttle: at most one command per this many milliseconds per proxy. */
	intervalMs: number;
	/** How the throttle reads in a reason, e.g. "once a minute". */
	throttle: string;
	/** Sends the command for one proxy; its reply's `result` holds `field`. */
	send: (
		name: string,
		itemIndex: number,
	) => Promise<{ result: Record<string, unknown>; rateLimit?: RateLimitFacts }>;
	/** Only a Limited key: nothing is read first, so the service tells an unknown proxy or a throttle. */
	sendOnly?: boolean;
}

export interface DeviceOptions
	extends Pick<RunOptions, 'concurrency' | 'waitUntilAllowed' | 'maxWaitMs' | 'timeoutMs'> {
	/** Read the proxy again until `field` shows the change, at most this long (0: do not). */
	confirmMs: number;
}

/** Pause between reads while waiting for a change to show on the proxy. */
const CONFIRM_PAUSE_MS = 2_000;
/** Margin on a wait for the throttle, for the clocks of n8n and the service. */
const THROTTLE_MARGIN_MS = 1_000;

/** How many times in all a proxy is tried when 429s of the endpoint's rate limit refuse it. */
const RATE_LIMIT_ATTEMPTS = 4;

/** What the sending of one run shares: the command, its options, the endpoint's pace, the clock. */
interface Session {
	command: DeviceCommand;
	options: DeviceOptions;
	pace: ReturnType<typeof endpointPace>;
	/** The service's clock, from the list read and this machine's time since. */
	now: () => number;
}

/** Why a proxy is not sent the command now: its last one, at `at`, is within the throttle. */
function throttled({ command }: Session, at: string, agoMs: number, waitMs: number, about = '') {
	return `the last ${command.label} was made at ${about}${at}, ${about}${seconds(agoMs)} s ago (perhaps by an earlier run or attempt), and the service allows one ${command.throttle}: allowed again in ${seconds(waitMs)} s`;
}

function notWaited({ options }: Session, reason: string) {
	return options.waitUntilAllowed
		? `${reason}, longer than Max Wait; no new one was made`
		: `${reason}; no new one was made. Turn on Wait Until Allowed to wait for it`;
}

type Sent = { reply: Record<string, unknown> } | { skip: string } | { failed: unknown };
/** A 429: the wait it asked for, and what its rate-limit headers say is left of the quota. */
type Limited = { limited: { askedMs: number; remaining?: number } };

/** Sends the command once the pace allows: the reply, or what to make of the 429. */
async function sendPaced(
	{ command, pace }: Session,
	{ item, name }: ProxyRequest,
): Promise<Sent | Limited> {
	const ticket = await pace.acquire();
	if ('refused' in ticket) return { skip: ticket.refused };
	try {
		const { result, rateLimit } = await command.send(name, item);
		pace.settle(ticket, rateLimit, true);
		return { reply: result };
	} catch (error) {
		const facts = requestErrorFacts(error);
		pace.settle(ticket, facts?.rateLimit, false);
		if (facts?.kind !== 'rate-limited') return { failed: error };
		const asked = Math.max(0, facts.retryAfterSeconds ?? 60);
		// A wait that is no number is a long one.
		const askedMs = Number.isFinite(asked) ? Math.ceil(asked * 1000) : 1e12;
		return { limited: { askedMs, remaining: facts.rateLimit?.remaining } };
	}
}

/**
 * Sends the command to one proxy, its throttle honoured: waited for within Max Wait when Wait Until
 * Allowed is on, else skipped with the time of its last change. A 429 is read as the endpoint's
 * rate limit (the run pauses, the proxy goes again) or as the proxy's own throttle.
 */
async function sendWithinThrottle(
	session: Session,
	wanted: ProxyRequest,
	last: number,
	lastText: string,
	listed: boolean,
): Promise<Sent> {
	const { command, options, pace, now } = session;
	const waitMs = Number.isNaN(last) ? 0 : last + command.intervalMs - now();
	if (waitMs > 0) {
		const reason = throttled(session, lastText, now() - last, waitMs);
		if (!options.waitUntilAllowed || waitMs + THROTTLE_MARGIN_MS > options.maxWaitMs)
			return { skip: notWaited(session, reason) };
		await sleep(waitMs + THROTTLE_MARGIN_MS);
	}
	let waited = waitMs > 0 ? waitMs + THROTTLE_MARGIN_MS : 0;
	for (let attempt = 1; ; attempt++) {
		const sent = await sendPaced(session, wanted);
		if (!('limited' in sent)) return sent;
		const { askedMs: asked, remaining } = sent.limited;
		// The endpoint's rate limit, not the proxy's own throttle, when the 429 asks to wait at most
		// RATE_LIMIT_PAUSE_MAX_MS or longer than the throttle can last, when its headers say the
		// quota is spent, or (without them) when the list showed the proxy free of its throttle and
		// the endpoint has accepted requests of this run: the whole run pauses, the proxy goes again.
		const endpointLimited =
			asked <= RATE_LIMIT_PAUSE_MAX_MS ||
			asked > command.intervalMs + THROTTLE_MARGIN_MS ||
			(remaining !== undefined ? remaining === 0 : listed && pace.acceptedAny());
		if (endpointLimited) {
			const stopped = pace.hold(asked);
			if (stopped !== undefined) return { skip: stopped };
			if (attempt < RATE_LIMIT_ATTEMPTS) continue;
			return {
				skip: `the service refused it for now (429) and asked to wait ${seconds(asked)} s, ${RATE_LIMIT_ATTEMPTS} times`,
			};
		}
		// The proxy's own throttle: a command was accepted for it within the interval, perhaps by
		// an earlier run or attempt the list does not show yet (a 429 proves nothing was done).
		// Waited for once, within the bound.
		const agoMs = Math.max(0, command.intervalMs - asked);
		const reason = `the service refused another ${command.label} (429): ${throttled(session, new Date(now() - agoMs).toISOString(), agoMs, asked, 'about ')}`;
		// Refused again after the wait: another run or attempt came first.
		if (attempt > 1) return { skip: `${reason}; no new one was made` };
		if (!options.waitUntilAllowed || waited + asked + THROTTLE_MARGIN_MS > options.maxWaitMs)
			return { skip: notWaited(session, reason) };
		await sleep(asked + THROTTLE_MARGIN_MS);
		waited += asked + THROTTLE_MARGIN_MS;
	}
}

/** The refusal of a device command's run under Retry On Fail (accepted commands would go again). */
export function deviceRefusal(command: Pick<DeviceCommand, 'label' | 'field'>) {
	return (ctx: IExecuteFunctions) =>
		retryRefusal(ctx, false, {
			twice: `send the ${command.label} twice`,
			check: `read the proxies (Proxy Account > Get) to see their ${command.field}`,
			instead: `Running the node again is safe: a proxy whose last ${command.label} is within the service\u2019s throttle is skipped with the time of that ${command.label}, unless Wait Until Allowed is on.`,
		});
}

/** Runs `command` for every input item's proxy; the output is one item per input item, in order. */
export async function runDeviceCommand(
	ctx: IExecuteFunctions,
	{ run, options, items, proxyNameOf }: BatchedRun<DeviceOptions>,
	command: DeviceCommand,
): Promise<INodeExecutionData[]> {
	const { unique: wanted, repeats } = collectRequests(ctx, run, items.length, {
		read: (i): ProxyRequest => ({ item: i, name: proxyNameOf(i) }),
		asked: () => command.label,
		fields: 'proxy',
	});
	const finish = () => run.finishRepeats(repeats);
	if (wanted.length === 0) return finish();

	// One read of the list (none with `sendOnly`): unknown proxies fail before anything is sent, and
	// each proxy's last command says whether the throttle allows another one now.
	const readAt = Date.now();
	let serverNow = readAt;
	let byName: Map<string, ProxyRecord> | undefined;
	if (!command.sendOnly) {
		try {
			const itemIndex = wanted[0].item;
			const listed = await send(ctx, 'listProxies', { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS });
			byName = new Map(listed.result.map((proxy) => [proxy.proxy_name, proxy]));
			serverNow = listed.serverTime;
		} catch (error) {
			for (const w of wanted) run.fail(w.item, error);
			return finish();
		}
	}
	const session: Session = {
		command,
		options,
		pace: endpointPace(paceBounds(options.waitUntilAllowed, options.maxWaitMs)),
		now: () => serverNow + (Date.now() - readAt),
	};

	const one = async (w: ProxyRequest) => {
		const record = byName?.get(w.name);
		if (byName && !record) return run.fail(w.item, proxyNotFound(ctx.getNode(), w.name, w.item));
		const lastText = String(record?.[command.field] ?? '');
		const last = Date.parse(lastText);
		const sent = await sendWithinThrottle(session, w, last, lastText, record !== undefined);
		if ('failed' in sent) return run.fail(w.item, asNodeError(ctx, sent.failed, w.item));
		if ('skip' in sent) {
			return run.set(w.item, {
				proxy_name: w.name,
				status: 'skipped',
				reason: sent.skip,
				[command.field]: record?.[command.field] ?? null,
			});
		}
		run.set(w.item, await outcome(ctx, session, w, sent.reply, last));
	};

	// A few at a time: each proxy is its own request.
	await inPool(wanted, options.concurrency, one);
	return finish();
}

/**
 * Runs `work` on each of `list`, `concurrency` at a time. When one throws (the node stops on the
 * first failure), no further one is started, the others finish, and the first error is thrown.
 */
async function inPool<T>(list: T[], concurrency: number, work: (entry: T) => Promise<void>) {
	let next = 0;
	let stopped: unknown;
	const worker = async () => {
		while (next < list.length && stopped === undefined) {
			const entry = list[next++];
			try {
				await work(entry);
			} catch (error) {
				stopped ??= error;
			}
		}
	};
	await Promise.all(
		Array.from({ length: Math.min(concurrency, list.length) }, async () => await worker()),
	);
	if (stopped !== undefined) throw stopped;
}

/** The item of a command the service accepted: sent, or (Wait for New IP) whether it shows. */
async function outcome(
	ctx: IExecuteFunctions,
	{ command, options }: Session,
	{ item, name }: ProxyRequest,
	reply: Record<string, unknown>,
	last: number,
): Promise<IDataObject> {
	const json: IDataObject = {
		proxy_name: name,
		status: 'sent',
		[command.field]: (reply[command.field] as string | undefined) ?? null,
		note: `The ${command.label} was sent to the device; it takes effect shortly.`,
	};
	if (options.confirmMs <= 0) return json;
	const sent = Date.parse(String(reply[command.field] ?? ''));
	const read = { proxyName: name, itemIndex: item, timeoutMs: DEFAULT_TIMEOUT_MS };
	const started = Date.now();
	let seen = false;
	for (;;) {
		try {
			const { result: proxy } = await send(ctx, 'getProxy', read);
			const shown = Date.parse(String(proxy[command.field] ?? ''));
			seen = !Number.isNaN(shown) && (Number.isNaN(sent) || shown >= sent) && shown !== last;
		} catch {
			seen = false;
		}
		if (seen || Date.now() - started + CONFIRM_PAUSE_MS > options.confirmMs) break;
		await sleep(CONFIRM_PAUSE_MS);
	}
	json.status = seen ? 'confirmed' : 'not_yet_visible';
	json.note = seen
		? `The ${command.label} shows on the proxy.`
		: `The ${command.label} was sent to the device but did not show on the proxy within ${seconds(options.confirmMs)} s; read it again later (Proxy Account > Get).`;
	return json;
}
