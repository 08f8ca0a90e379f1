import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listProxies } from '../transport';

/** Proxies for the resource locator, searchable by name, nickname or city; soonest expiry first. */
export async function searchProxies(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { proxies } = await listProxies(this);
	const text = (filter ?? '').trim().toLowerCase();
	const results = proxies
		.filter(
			(proxy) =>
				text === '' ||
				`${proxy.proxy_name} ${proxy.nickname ?? ''} ${proxy.city}`.toLowerCase().includes(text),
		)
		.sort(
			(a, b) =>
				a.expires_at.localeCompare(b.expires_at) || a.proxy_name.localeCompare(b.proxy_name),
		)
		.map((proxy) => ({
			name: `${proxy.proxy_name}${proxy.nickname ? ` (${proxy.nickname})` : ''} \u2013 ${proxy.isp}, ${proxy.city}`,
			value: proxy.proxy_name,
		}));
	return { results };
}
