import type { IPollFunctions } from 'n8n-workflow';

import type { CallOptions, ProxyRecord } from '../transport';
import { findProxy } from '../transport';
import { leftOut } from './listing';
import type { ProxyObservation } from './proxies';
import type { MissingMarks } from './state';
import { GRACE_POLLS, hasOwn } from './state';

/*
 * A reply that leaves out a proxy the trigger remembers says nothing of it: the proxy events ask
 * the service by name (`GET /v1/proxies/{name}`, docs/trigger.md "Partial lists") before they
 * detect anything. Found: it counts as listed, with the record read. Not found (the service's
 * clear answer): it is gone, now. Anything else (a 5xx, a timeout, a 429, an answer that cannot be
 * read): nothing is decided; it is kept as missing and read again at a later poll.
 */

/** Proxies read by name at most in one poll; the others wait for the next polls, in turn. */
export const CONFIRMATIONS_PER_POLL = 10;

/** What the reads of one poll found. */
export interface Confirmed {
	/** The records of the remembered proxies the service still has. */
	found: ProxyRecord[];
	/** The names the service said it does not have. */
	gone: Set<string>;
	/** The last name read (the next poll starts after it), or the previous turn when none was. */
	turn: string | undefined;
}

/**
 * The remembered names (`remembered`: a map by proxy name) that the list leaves out, `limit` of
 * them at most: in name order, starting after `turn` (the last name read) and wrapping around, so
 * that every one gets its turn however many are left out. The list is matched against the map's
 * keys in order (listing.ts `leftOut`: a full list in the usual order costs no lookup by name).
 */
export function namesToConfirm(
	remembered: Record<string, unknown> | undefined,
	proxies: ProxyRecord[],
	turn: string | undefined,
	limit: number = CONFIRMATIONS_PER_POLL,
): string[] {
	if (remembered === undefined) return [];
	const missing = leftOut(remembered, proxies);
	if (missing.length === 0) return missing;
	missing.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
	const after = turn === undefined ? -1 : missing.findIndex((name) => name > turn);
	const start = after < 0 ? 0 : after;
	return [...missing.slice(start), ...missing.slice(0, start)].slice(0, limit);
}

/**
 * Reads `names` one after the other. The first read in doubt ends the round (a service in trouble
 * is not pressed further): it and the names after it wait for the next poll, which starts after it.
 */
export async function confirmByName(
	ctx: IPollFunctions,
	names: string[],
	requestOptions: CallOptions,
	turn: string | undefined,
): Promise<Confirmed> {
	const confirmed: Confirmed = { found: [], gone: new Set(), turn };
	for (const name of names) {
		confirmed.turn = name;
		let record: ProxyRecord | undefined;
		try {
			record = await findProxy(ctx, { ...requestOptions, proxyName: name });
		} catch {
			break;
		}
		if (record === undefined) confirmed.gone.add(name);
		else if (record.proxy_name === name) confirmed.found.push(record);
		else break;
	}
	return confirmed;
}

/**
 * How long a proxy found gone may wait while replies stay mostly empty and known to be partial (see
 * below): a service that keeps answering so still gets its removals reported, a day late at most.
 */
export const PARTIAL_WAIT_MS = 24 * 3_600_000;

/**
 * The observation completed by the reads: the proxies found count as listed. A proxy found gone is
 * gone now, unless the reply is known to be partial (a proxy it left out was found): then a move's
 * new name may be left out too, and it is read again at the next polls. In a reply that lists a
 * few less, it is gone once missing from GRACE_POLLS polls in a row. In a mostly empty one (fewer
 * listed than the reads found or found gone: an empty reply hides every name, for an hour or more)
 * it waits for a reply that is not, where a move's new name shows; only if none comes is it gone
 * once missing from GRACE_POLLS polls and PARTIAL_WAIT_MS (`marks`: the stored ones).
 */
export function withConfirmed(
	observation: ProxyObservation,
	{ found, gone }: Confirmed,
	marks: MissingMarks | undefined,
): ProxyObservation {
	const mostlyEmpty = observation.proxies.length < found.length + gone.size;
	const waited = (name: string) => {
		if (marks === undefined || !hasOwn(marks, name)) return false;
		const [polls, since] = marks[name];
		return polls + 1 >= GRACE_POLLS && (!mostlyEmpty || observation.now - since >= PARTIAL_WAIT_MS);
	};
	const due = found.length === 0 ? gone : new Set([...gone].filter(waited));
	// The reply's own list when nothing was found: the walk then reuses what `leftOut` matched of it.
	const proxies = found.length === 0 ? observation.proxies : [...observation.proxies, ...found];
	return { ...observation, proxies, gone: due };
}
