/*
 * What a move costs, as the wallet showed it: the service publishes no price for a move and its
 * reply names none. The highest drop seen is kept per credential (and Base URL) while this n8n
 * process runs, and Change Location counts at least that much against Keep Wallet At Least before
 * every move, so a Maximum Cost per Move set too low is not trusted twice.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { credentialKey } from '../guards/oneAtATime';

/** Per credential: the most one move has taken from the wallet. */
const highest = new Map<string, number>();

/** The move prices of a run: the highest seen (in this run, or before it for the credential). */
export async function movePrices(ctx: IExecuteFunctions) {
	const key = await credentialKey(ctx);
	let inRun = 0;
	return {
		highest: () => Math.max(inRun, key === undefined ? 0 : (highest.get(key) ?? 0)),
		/** A move took `price` from the wallet. */
		saw(price: number): void {
			inRun = Math.max(inRun, price);
			if (key !== undefined) highest.set(key, Math.max(highest.get(key) ?? 0, price));
		},
	};
}
