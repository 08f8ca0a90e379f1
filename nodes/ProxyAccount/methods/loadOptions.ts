import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { getStock, listProxies } from '../transport';
import { carrierDisplayName } from '../helpers/carriers';

async function carrierNames(ctx: ILoadOptionsFunctions) {
	const { entries } = await getStock(ctx);
	const keys: string[] = [];
	for (const entry of entries)
		for (const key of Object.keys(entry.carriers)) if (!keys.includes(key)) keys.push(key);
	const unknown = keys.some((key) => carrierDisplayName(key) === key);
	// Only a carrier with no known display name costs a second request.
	const isps = unknown ? new Set((await listProxies(ctx)).proxies.map((proxy) => proxy.isp)) : [];
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

/** Cities from live stock, the ones with proxies in stock first, with their counts per carrier. */
export async function getCities(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { entries, keys, names } = await carrierNames(this);
	const options = entries.map((entry) => {
		const counts = keys.map((key, n) => `${names[n]} ${entry.carriers[key] ?? 0}`).join(', ');
		const available = entry.open && Object.values(entry.carriers).some((count) => count > 0);
		return {
			name: `${entry.city}, ${entry.state}${available ? '' : entry.open ? ' (out of stock)' : ' (coming)'}`,
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

async function networkStatuses(ctx: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const seen = new Set(KNOWN_STATUSES);
	for (const proxy of (await listProxies(ctx)).proxies) {
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

/** Network statuses for a filter: known ones and the ones the account's proxies show now. */
export async function getNetworkStatuses(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return await networkStatuses(this);
}

/** The same, with Any first (no condition on the status). */
export async function getNetworkStatusesOrAny(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return [
		{ name: 'Any', value: '', description: 'Any network status' },
		...(await networkStatuses(this)),
	];
}
