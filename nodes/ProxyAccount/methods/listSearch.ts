import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { timeLeftText } from '../helpers/framework/time';
import { send } from '../transport';

const expiryOf = (timestamp: string) => {
	const at = Date.parse(timestamp);
	return Number.isNaN(at) ? Infinity : at;
};

/** A nickname as a row shows it: in brackets, at most 30 characters. */
const nicknameText = (nickname: unknown) =>
	typeof nickname === 'string' && nickname.trim() !== ''
		? ` (${nickname.length > 30 ? `${nickname.slice(0, 29)}\u2026` : nickname})`
		: '';

/**
 * Proxies for the resource locator, searchable by name, nickname, carrier, city or state; soonest
 * expiry first, each row saying when it expires.
 */
export async function searchProxies(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { result: proxies, serverTime } = await send(this, 'listProxies');
	const text = (filter ?? '').trim().toLowerCase();
	const results = proxies
		.filter(
			(proxy) =>
				text === '' ||
				[proxy.proxy_name, proxy.nickname ?? '', proxy.isp, proxy.city, proxy.state]
					.join(' ')
					.toLowerCase()
					.includes(text),
		)
		.sort(
			(a, b) =>
				expiryOf(a.expires_at) - expiryOf(b.expires_at) || a.proxy_name.localeCompare(b.proxy_name),
		)
		.map((proxy) => ({
			// The expiry right after the name: the editor cuts a long row off at its end.
			name: `${proxy.proxy_name} \u2013 ${timeLeftText(proxy.expires_at, serverTime)} \u2013 ${proxy.isp}, ${proxy.city}${nicknameText(proxy.nickname)}`,
			value: proxy.proxy_name,
		}));
	return { results };
}
