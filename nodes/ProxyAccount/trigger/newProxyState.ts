import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../common/objects';
import type { ProxyRecord } from '../transport';
import type { TextTable } from './compact';
import { instantToStore, planOf, planParts, readTable, storedInstant, tableText } from './compact';
import type { Identity } from './moves';
import type { MissingMarks } from './state';
import { isTrusted, loadStored, STATE_VERSION } from './state';

/*
 * What New Proxy stores: by name, what says whose paid time the proxy is (to recognize a move),
 * in about 50 bytes a proxy.
 */

/** [added_at, expires_at] as epoch ms, and the index of its plan (period, auto-renew) in `plans`. */
export type IdTuple = [added: number | null, expires: number | null, plan: number | null];

export interface NewProxyState {
	v: typeof STATE_VERSION;
	event: 'newProxy';
	/**
	 * Every name listed at the last poll, then the names kept while missing: its paid time, or 0
	 * once it was found moved (its return is not new, but it moved once).
	 */
	ids: Record<string, IdTuple | 0>;
	/** The plans the tuples refer to. */
	plans: string[];
	gone?: MissingMarks;
}

function isIdTuple(value: unknown, plans: number): boolean {
	if (value === 0) return true;
	if (!Array.isArray(value) || value.length !== 3) return false;
	const [added, expires, plan] = value as unknown[];
	return (
		storedInstant(added) &&
		storedInstant(expires) &&
		(plan === null || (typeof plan === 'number' && Number.isInteger(plan) && plan < plans))
	);
}

/** A version 1 or 2 state: `names`, and `paid` tuples of timestamps (left out before moves). */
function upgradeNewProxy(data: IDataObject): Pick<NewProxyState, 'ids' | 'plans'> | null {
	const names = data.names;
	if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) return null;
	const paid = data.paid === undefined ? {} : data.paid;
	if (!isRecord(paid)) return null;
	const plans: string[] = [];
	const ids: Record<string, IdTuple | 0> = {};
	for (const name of names as string[]) {
		const tuple = Object.prototype.hasOwnProperty.call(paid, name) ? paid[name] : undefined;
		if (!Array.isArray(tuple) || tuple.length !== 4) {
			ids[name] = 0;
			continue;
		}
		const [expiresAt, addedAt, period, autoRenew] = tuple as unknown[];
		const plan = planOf(period, autoRenew);
		if (plan !== null && !plans.includes(plan)) plans.push(plan);
		ids[name] = [
			instantToStore(addedAt),
			instantToStore(expiresAt),
			plan === null ? null : plans.indexOf(plan),
		];
	}
	return { ids, plans };
}

/** The stored New Proxy state (older layouts converted), or null. */
export function loadNewProxyState(staticData: IDataObject): NewProxyState | null {
	return loadStored<NewProxyState>(staticData, 'newProxy', (data) => {
		if (data.ids === undefined) return upgradeNewProxy(data);
		const plans = readTable(data.plans);
		if (plans === null) return null;
		if (isTrusted(data.ids)) return { ids: data.ids as NewProxyState['ids'], plans };
		if (!isRecord(data.ids)) return null;
		for (const name in data.ids) if (!isIdTuple(data.ids[name], plans.length)) return null;
		return { ids: data.ids as NewProxyState['ids'], plans };
	});
}

/** A proxy's identity, as the moves compare it. */
export function identityOf(proxy: ProxyRecord): Identity {
	return {
		added: instantToStore(proxy.added_at),
		expires: instantToStore(proxy.expires_at),
		plan: planOf(proxy.period, proxy.auto_renew),
	};
}

/** What New Proxy stores of a listed proxy, its plan added to `table`. */
export function idTuple(proxy: ProxyRecord, table: TextTable): IdTuple {
	const plan = planParts(proxy.period, proxy.auto_renew);
	return [
		instantToStore(proxy.added_at),
		instantToStore(proxy.expires_at),
		plan === null ? null : table.ref(...plan),
	];
}

/** A stored tuple's identity (null for a name found moved). */
export function storedIdentity(tuple: IdTuple | 0, plans: readonly string[]): Identity | null {
	if (tuple === 0) return null;
	return { added: tuple[0], expires: tuple[1], plan: tableText(plans, tuple[2]) ?? null };
}

export function sameTuple(a: IdTuple | 0 | undefined, b: IdTuple): boolean {
	return a !== undefined && a !== 0 && a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}
