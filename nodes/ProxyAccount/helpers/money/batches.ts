/*
 * The per-proxy batch pipeline of Extend, Set Auto-Renew and Remove (Change Location takes its
 * first step): every item's request read before anything is sent (a bad item fails alone), the
 * items naming one proxy grouped (the first stands for the others), one look-up of the proxy list,
 * then the known proxies sent in batches, each request once. Every step words its failures the
 * same way for every operation.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ProxyRecord } from '../../transport';
import { requestErrorFacts, send } from '../../transport';
import type { ItemResults, Repeat } from '../framework/batchedRun';
import { asNodeError } from '../framework/itemLoop';
import { proxyNotFound } from '../framework/proxySource';
import { proxiesCount } from '../../common/wording';

/** Proxies named in a message before the rest is only counted. */
const NAMES_SHOWN = 20;

/** `list` cut into runs of at most `size`, in order. */
export function chunk<T>(list: T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

/** Up to NAMES_SHOWN names, then how many more: "A, B and 3 more". */
export function joinNames(names: string[]): string {
	const shown = names.slice(0, NAMES_SHOWN).join(', ');
	return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

/** Item numbers as a sentence lists them: "0 and 2", "0, 2 and 5". */
export function itemList(items: number[]): string {
	return items.length === 2
		? `${items[0]} and ${items[1]}`
		: `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "This was batch 2 of 3." style context, added to a failed batch's description. */
export function addToDescription(error: { description?: string | null }, text: string): void {
	error.description = [error.description, text].filter(Boolean).join(' ');
}

/** What one item asks of one proxy. */
export interface ProxyRequest {
	item: number;
	name: string;
}

/**
 * Every item's request (`read`), one per proxy: the items asking the same of a proxy (`asked`) are
 * sent once, the later ones reported as repeats (with `repeatFields`); the items asking different
 * things of one proxy all fail before anything is sent (`fields` names what they must share).
 */
export function collectRequests<W extends ProxyRequest>(
	ctx: IExecuteFunctions,
	run: ItemResults,
	count: number,
	spec: {
		read: (itemIndex: number) => W;
		asked: (w: W) => string;
		fields: string;
		repeatFields?: (w: W) => IDataObject;
	},
): { unique: W[]; repeats: Repeat[] } {
	const byName = new Map<string, W[]>();
	for (let i = 0; i < count; i++) {
		if (run.failures.has(i)) continue;
		try {
			const w = spec.read(i);
			byName.set(w.name, [...(byName.get(w.name) ?? []), w]);
		} catch (error) {
			run.fail(i, error);
		}
	}
	const unique: W[] = [];
	const repeats: Repeat[] = [];
	for (const [name, all] of byName) {
		const asked = [...new Set(all.map(spec.asked))];
		if (asked.length === 1) {
			unique.push(all[0]);
			for (const w of all.slice(1))
				repeats.push({ item: w.item, name, first: all[0].item, fields: spec.repeatFields?.(w) });
			continue;
		}
		const list = itemList(all.map((w) => w.item));
		const description = `A proxy is sent once per run: give every item that names it the same ${spec.fields}, or remove the extra items. Nothing was sent or charged for this proxy.`;
		for (const { item } of all) {
			const message = `Proxy \u201c${name}\u201d is named by items ${list} with different requests (${asked.join(' and ')}) [item ${item}]`;
			run.fail(
				item,
				new NodeOperationError(ctx.getNode(), message, { description, itemIndex: item }),
			);
		}
	}
	return { unique, repeats };
}

/** A request whose proxy the look-up found, with its record as the list showed it. */
export type Known<W extends ProxyRequest> = W & { record: ProxyRecord };

/**
 * One read of the account's proxies: each request with its proxy's record. A proxy the list does
 * not hold fails its own item; a failed read fails every item (nothing was sent).
 */
export async function lookUpProxies<W extends ProxyRequest>(
	ctx: IExecuteFunctions,
	run: ItemResults,
	unique: W[],
	timeoutMs: number,
): Promise<{ known: Array<Known<W>>; serverTime: number }> {
	if (unique.length === 0) return { known: [], serverTime: 0 };
	let list: Awaited<ReturnType<typeof send<'listProxies'>>>;
	try {
		list = await send(ctx, 'listProxies', { itemIndex: unique[0].item, timeoutMs });
	} catch (error) {
		for (const w of unique) run.fail(w.item, error);
		return { known: [], serverTime: 0 };
	}
	const byName = new Map(list.result.map((proxy) => [proxy.proxy_name, proxy]));
	const known: Array<Known<W>> = [];
	for (const w of unique) {
		const record = byName.get(w.name);
		if (record) known.push({ ...w, record });
		else run.fail(w.item, proxyNotFound(ctx.getNode(), w.name, w.item));
	}
	return { known, serverTime: list.serverTime };
}

/**
 * What the batches before a failed or stopped one did: "Before it in this run, the service
 * extended 2 proxies: A, B, charged 9 in all." (`did` the verb, `spent` what it cost).
 */
export function doneBefore(done: string[], did: string, spent = ''): string {
	const what = done.length === 0 ? 'no proxy' : `${proxiesCount(done.length)}: ${joinNames(done)}`;
	return `Before it in this run, the service ${did} ${what}${spent}.`;
}

/** How a run sends its batches (see `sendInBatches`). */
interface BatchSteps<W extends ProxyRequest> {
	/** What the service does to the proxies of a sent batch, as a verb: "extended". */
	did: string;
	/** Sends one batch, once, and sets its items' results. */
	send: (batch: W[], b: number) => Promise<void>;
	/** Before batch `b`: the batch as it stands now, or why it is not sent (its items fail with it). */
	before?: (batch: W[], b: number, done: string[]) => Promise<W[] | Error>;
	/** What the earlier batches (`done`) cost, added to `doneBefore` (Extend: ", charged 9 in all"). */
	spent?: (done: string[]) => string;
	/** After a batch failed: what it may have done, for the run's own accounts. */
	afterFailure?: (error: unknown, b: number) => void;
	/** No batch is sent after a failed one: what to check before running again. */
	stopAfterFailure?: string;
}

/**
 * The batches, one request each, never repeated. A failed batch fails its own items; with more
 * than one batch it says which it was, whether it may have been applied and what the batches
 * before it did. The proxies the service acted on are returned, in order.
 */
export async function sendInBatches<W extends ProxyRequest>(
	ctx: IExecuteFunctions,
	run: ItemResults,
	batches: W[][],
	steps: BatchSteps<W>,
): Promise<string[]> {
	const done: string[] = [];
	let stopped: NodeOperationError | undefined;
	for (let b = 0; b < batches.length; b++) {
		const batch = stopped ?? (steps.before ? await steps.before(batches[b], b, done) : batches[b]);
		if (batch instanceof Error) {
			for (const w of batches[b]) run.fail(w.item, batch);
			continue;
		}
		if (batch.length === 0) continue;
		try {
			await steps.send(batch, b);
			done.push(...batch.map((w) => w.name));
		} catch (error) {
			const failed = asNodeError(ctx, error, batch[0].item);
			const acted = requestErrorFacts(error)?.mayHaveActed !== false;
			const context = `This was batch ${b + 1} of ${batches.length} (${proxiesCount(batch.length)}), which ${acted ? 'may have been applied' : 'was not applied'}.`;
			const before = doneBefore(done, steps.did, steps.spent?.(done));
			if (batches.length > 1) addToDescription(failed, `${context} ${before}`);
			steps.afterFailure?.(error, b);
			for (const w of batch) run.fail(w.item, failed);
			if (steps.stopAfterFailure === undefined) continue;
			const description = `Nothing was sent for this proxy: batch ${b + 1} failed${acted ? ' and may have been applied' : ''}, and no later batch is sent. ${before} ${steps.stopAfterFailure}`;
			const notSent = 'Not sent: an earlier batch of this run failed';
			stopped = new NodeOperationError(ctx.getNode(), notSent, { description });
		}
	}
	return done;
}
