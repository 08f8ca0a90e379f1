/*
 * Commands sent to a proxy's modem (Rotate IP, Reboot): one request per proxy, a few at a time, and
 * the service's throttles honoured: a proxy changed too recently is skipped with the reason, or
 * waited for within a bound, so a run never meets a storm of 429s; the service's rate limit on the
 * endpoint (a 429 asking for a few seconds) pauses the whole run, the proxy is tried again, and the
 * requests after it go out at the rate the service accepted.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { asNodeError } from './execution';
import { itemResults, proxyNotFound } from './run';
import { parseName } from './validation';
import type { ProxyRecord } from '../transport';
import { DEFAULT_TIMEOUT_MS, getProxy, listProxies, requestErrorFacts } from '../transport';

export interface DeviceCommand {
	/** What the output and the messages call it, e.g. "IP change". */
	label: string;
	/** The proxy field the service moves, e.g. `last_ip_change`. */
	field: 'last_ip_change' | 'last_reboot';
	/** The service's throttle: at most one command per this many milliseconds per proxy. */
	intervalMs: number;
	/** How the throttle reads in a reason, e.g. "once a minute". */
	throttle: string;
	/** Sends the command for one proxy; its reply holds `field`. */
	send: (name: string, itemIndex: number) => Promise<Record<string, unknown>>;
	/**
	 * The credential can only send the command (a Limited key, through the rotation link): the
	 * proxies are not read first, so an unknown proxy is told by the service, the throttle by its 429.
	 */
	sendOnly?: boolean;
}

export interface DeviceOptions {
	concurrency: number;
	waitUntilAllowed: boolean;
	maxWaitMs: number;
	timeoutMs: number;
	/** Read the proxy again until `field` shows the change, at most this long (0: do not). */
	confirmMs: number;
}

/** Pause between reads while waiting for a change to show on the proxy. */
const CONFIRM_PAUSE_MS = 2_000;
/** Margin on a wait for the throttle, for the clocks of n8n and the service. */
const THROTTLE_MARGIN_MS = 1_000;

/**
 * A 429 that asks to wait at most this long is the service's rate limit on the endpoint, not the
 * proxy's own throttle (a minute or more): every request of the run pauses for it, and the proxy is
 * tried again, up to RATE_LIMIT_ATTEMPTS times in all. A 429 proves nothing was done.
 */
const RATE_LIMIT_PAUSE_MAX_MS = 5_000;
const RATE_LIMIT_ATTEMPTS = 4;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Runs `command` for every input item's proxy; the output is one item per input item, in order. */
export async function runDeviceCommand(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	command: DeviceCommand,
	options: DeviceOptions,
): Promise<INodeExecutionData[]> {
	const node = ctx.getNode();
	const run = itemResults(ctx, items.length);
	const wanted: Array<{ item: number; name: string }> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const name = parseName(
				node,
				i,
				ctx.getNodeParameter('proxyName', i, '', { extractValue: true }),
				'Proxy',
				'PRX-US-AU1-0001',
			);
			wanted.push({ item: i, name });
		} catch (error) {
			run.fail(i, error);
		}
	}
	if (wanted.length === 0) return run.output();

	// One read of the list: unknown proxies fail before anything is sent, and each proxy's last
	// command says whether the throttle allows another one now.
	let byName: Map<string, ProxyRecord> | undefined;
	let serverNow = Date.now();
	const readAt = Date.now();
	try {
		if (!command.sendOnly) {
			const listed = await listProxies(ctx, {
				itemIndex: wanted[0].item,
				timeoutMs: DEFAULT_TIMEOUT_MS,
			});
			byName = new Map(listed.proxies.map((proxy) => [proxy.proxy_name, proxy]));
			serverNow = listed.serverTime;
		}
	} catch (error) {
		for (const w of wanted) run.fail(w.item, error);
		return run.output();
	}
	const now = () => serverNow + (Date.now() - readAt);
	// After the service's rate limit answered 429: every request of the run holds back until
	// `resumeAt`, then they go out evenly spaced, at the rate the service accepted before the 429
	// (so many per the wait it asked for, with 5% to spare; 10% slower after each further 429).
	let resumeAt = 0;
	let acceptedSincePause = 0;
	let spacingMs = 0;
	let nextSendAt = 0;
	const holdBeforeSend = async () => {
		const now = Date.now();
		let at = Math.max(now, resumeAt);
		if (spacingMs > 0) {
			at = Math.max(at, nextSendAt);
			nextSendAt = at + spacingMs;
		}
		if (at > now) await sleep(at - now);
	};
	const rateLimited = (askedMs: number) => {
		const now = Date.now();
		// The first 429 of a pause sets the pace; the others of the same burst only join the pause.
		if (now >= resumeAt) {
			spacingMs =
				spacingMs === 0
					? Math.ceil((askedMs / Math.max(1, acceptedSincePause)) * 1.05)
					: Math.ceil(spacingMs * 1.1);
			acceptedSincePause = 0;
		}
		resumeAt = Math.max(resumeAt, now + askedMs);
	};

	const one = async ({ item, name }: { item: number; name: string }) => {
		const record = byName?.get(name);
		if (byName && !record) {
			run.fail(item, proxyNotFound(node, name, item, 'Nothing was sent.'));
			return;
		}
		const skip = (reason: string) =>
			run.set(item, {
				proxy_name: name,
				status: 'skipped',
				reason,
				[command.field]: record?.[command.field] ?? null,
			});
		const last = Date.parse(String(record?.[command.field] ?? ''));
		const waitMs = Number.isNaN(last) ? 0 : last + command.intervalMs - now();
		if (waitMs > 0) {
			const reason = `the last ${command.label} was ${seconds(now() - last)} s ago and the service allows one ${command.throttle} (allowed again in ${seconds(waitMs)} s)`;
			if (!options.waitUntilAllowed)
				return skip(`${reason}; turn on Wait Until Allowed to wait for it`);
			if (waitMs + THROTTLE_MARGIN_MS > options.maxWaitMs)
				return skip(`${reason}, longer than Max Wait`);
			await sleep(waitMs + THROTTLE_MARGIN_MS);
		}
		let reply: Record<string, unknown> | undefined;
		let waited = waitMs > 0 ? waitMs + THROTTLE_MARGIN_MS : 0;
		for (let attempt = 1; reply === undefined; attempt++) {
			await holdBeforeSend();
			try {
				reply = await command.send(name, item);
				acceptedSincePause++;
			} catch (error) {
				const facts = requestErrorFacts(error);
				// A 429 proves nothing was done.
				if (facts?.kind === 'rate-limited') {
					const asked = Math.ceil((facts.retryAfterSeconds ?? 60) * 1000);
					const reason = `the service refused it for now (429) and asked to wait ${seconds(asked)} s`;
					// The endpoint's rate limit: the whole run pauses, then this proxy goes again.
					if (asked <= RATE_LIMIT_PAUSE_MAX_MS) {
						rateLimited(asked);
						if (attempt < RATE_LIMIT_ATTEMPTS) continue;
						return skip(`${reason}, ${RATE_LIMIT_ATTEMPTS} times`);
					}
					// The proxy's own throttle: waited for once, when allowed and within the bound.
					if (attempt > 1 || !options.waitUntilAllowed) return skip(reason);
					if (waited + asked + THROTTLE_MARGIN_MS > options.maxWaitMs)
						return skip(`${reason}, longer than Max Wait`);
					await sleep(asked + THROTTLE_MARGIN_MS);
					waited += asked + THROTTLE_MARGIN_MS;
					continue;
				}
				const failed = asNodeError(ctx, error, item);
				run.fail(item, failed);
				return;
			}
		}
		const json: IDataObject = {
			proxy_name: name,
			status: 'sent',
			[command.field]: (reply[command.field] as string | undefined) ?? null,
			note: `The ${command.label} was sent to the device; it takes effect shortly.`,
		};
		if (options.confirmMs > 0) {
			const sent = Date.parse(String(reply[command.field] ?? ''));
			const started = Date.now();
			let seen = false;
			for (;;) {
				try {
					const { proxy } = await getProxy(ctx, name, {
						itemIndex: item,
						timeoutMs: DEFAULT_TIMEOUT_MS,
					});
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
		}
		run.set(item, json);
	};

	// A few at a time: each proxy is its own request.
	// When the node stops on the first failure, no further proxy is started and the others finish.
	let next = 0;
	let stopped: unknown;
	const worker = async () => {
		while (next < wanted.length && stopped === undefined) {
			const w = wanted[next++];
			try {
				await one(w);
			} catch (error) {
				stopped ??= error;
			}
		}
	};
	await Promise.all(
		Array.from(
			{ length: Math.min(options.concurrency, wanted.length) },
			async () => await worker(),
		),
	);
	if (stopped !== undefined) throw stopped;
	return run.output();
}
