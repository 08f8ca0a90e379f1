import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { getStock, send } from '../transport';
import { carrierDisplayName, carrierKey, hasKnownDisplayName } from '../helpers/framework/carriers';

async function carrierNames(ctx: ILoadOptionsFunctions) {
	const { entries } = await getStock(ctx);
	const keys = [...new Set(entries.flatMap((entry) => Object.keys(entry.carriers)))];
	const unknown = keys.some((key) => !hasKnownDisplayName(key));
	// Only a carrier with no known display name costs a second request.
	const isps = unknown
		? new Set((await send(ctx, 'listProxies')).result.map((proxy) => proxy.isp))
		: [];
	return { keys, entries, names: keys.map((key) => carrierDisplayName(key, isps)) };
}

/** Carriers as the price and extension endpoints name them (e.g. AT&T), discovered from live stock. */
export async function getCarriers(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { names } = await carrierNames(this);
	return names.map((name) => ({ name, value: name }));
}

/** Carriers as stock names them (e.g. att), with their display names. */
export async function getStockCarriers(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const { keys, names } = await carrierNames(this);
	return keys.map((key, n) => ({ name: names[n], value: key }));
}

/**
 * The carrier chosen beside the city (a Quote line's, or the operation's), as a stock key; undefined
 * when none is chosen yet or it is an expression.
 */
function chosenCarrier(ctx: ILoadOptionsFunctions): string | undefined {
	for (const path of ['&carrier', 'carrier']) {
		let value: unknown;
		try {
			value = ctx.getCurrentNodeParameter(path);
		} catch {
			value = undefined;
		}
		if (typeof value === 'string' && value.trim() !== '' && !value.startsWith('=')) {
			return carrierKey(value);
		}
	}
	return undefined;
}

/**
 * Cities from live stock, with their counts per carrier. With a carrier chosen, the cities where it
 * has proxies in stock come first and the others say so; otherwise the cities with any stock first.
 */
export async function getCities(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { entries, keys, names } = await carrierNames(this);
	const carrier = chosenCarrier(this);
	const carrierName = names[keys.indexOf(carrier ?? '')] ?? carrier;
	const options = entries.map((entry) => {
		const counts = keys.map((key, n) => `${names[n]} ${entry.carriers[key] ?? 0}`).join(', ');
		const inStock = (count: number | undefined) => entry.open && (count ?? 0) > 0;
		const available =
			carrier === undefined
				? Object.values(entry.carriers).some(inStock)
				: inStock(entry.carriers[carrier]);
		let note = '';
		if (!entry.open) note = ' (coming)';
		else if (!available) note = carrier === undefined ? ' (out of stock)' : ` (no ${carrierName})`;
		return {
			name: `${entry.city}, ${entry.state}${note}`,
			value: entry.city,
			description: counts,
			available,
		};
	});
	options.sort((a, b) => Number(b.available) - Number(a.available) || a.name.localeCompare(b.name));
	return options.map(({ name, value, description }) => ({ name, value, description }));
}

/** The network statuses the service is known to send, then any other seen on the account's proxies. */
const KNOWN_STATUSES = ['online', 'offline'];

/** Network statuses for a filter: known ones and the ones the account's proxies show now. */
export async function getNetworkStatuses(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const seen = new Set(KNOWN_STATUSES);
	for (const proxy of (await send(this, 'listProxies')).result) {
		const status = String(proxy.network_status).trim().toLowerCase();
		if (status !== '') seen.add(status);
	}
	return [...seen].map((status) => ({
		name: status.charAt(0).toUpperCase() + status.slice(1),
		value: status,
		description: KNOWN_STATUSES.includes(status)
			? `The proxy is ${status}`
			: 'Seen on a proxy of this account',
	}));
}

/** The same, with Any first (no condition on the status). */
export async function getNetworkStatusesOrAny(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return [
		{ name: 'Any', value: '', description: 'Any network status' },
		...(await getNetworkStatuses.call(this)),
	];
}
