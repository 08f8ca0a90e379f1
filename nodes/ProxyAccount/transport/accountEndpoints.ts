/*
 * The account operations beyond the interface document (account-operations.md #1-#12): changes to a
 * proxy, purchases, moves, removals, device commands, funds and auto-renew. Each is sent once: never
 * repeated once it may have reached the service.
 */
import type { ActionReply, CallOptions, QuoteLine } from './endpoints';
import { proxyPath, sendFor } from './endpoints';
import type { ProxyAccountContext } from './connection';
import { apiRequest } from './request';
import type {
	AutoChangeData,
	AutoRenewData,
	BasicAuthData,
	DeployData,
	FundsData,
	IpChangeData,
	Ipv4Data,
	RebootData,
	SwapData,
	WhitelistData,
} from './schemas';
import { autoRenewResponseSchema, fundsResponseSchema, responseSchemas } from './schemas';
/** The path of a per-proxy action, e.g. `/v1/proxies/ipv4/PRX%2F1`, checked like `proxyPath`. */
function actionPath(
	ctx: ProxyAccountContext,
	action: string,
	proxyName: string,
	itemIndex = 0,
): string {
	return proxyPath(ctx, proxyName, itemIndex).replace(/^\/v1\/proxies\//, `/v1/proxies/${action}/`);
}

const CHECK_PROXY = 'Read the proxy (Proxy Account > Get) to see whether it was';

/**
 * `POST /v1/proxies/ipv4/{name}` (202: sent to the device, applied shortly after). A change:
 * never repeated once it may have reached the service. Sends a real boolean.
 */
export async function setIpv4(
	ctx: ProxyAccountContext,
	proxyName: string,
	enable: boolean,
	options: CallOptions = {},
): Promise<{ result: Ipv4Data; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'POST',
		path: actionPath(ctx, 'ipv4', proxyName, options.itemIndex),
		endpoint: 'POST /v1/proxies/ipv4/{proxyName}',
		proxyName,
		body: { enable },
		schema: responseSchemas.ipv4,
		idempotency: 'sent-once',
		change: { what: 'The IPv4 setting', check: CHECK_PROXY },
		...options,
	});
}

/**
 * `PATCH /v1/proxies/auth/basic/{name}`: username/password authentication (whitelist off). A
 * null field lets the service generate it. The reply holds the password: a secret.
 */
export async function setBasicAuth(
	ctx: ProxyAccountContext,
	proxyName: string,
	credentials: { username: string | null; password: string | null },
	options: CallOptions = {},
): Promise<{ result: BasicAuthData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'PATCH',
		path: actionPath(ctx, 'auth/basic', proxyName, options.itemIndex),
		endpoint: 'PATCH /v1/proxies/auth/basic/{proxyName}',
		proxyName,
		body: { username: credentials.username, password: credentials.password },
		schema: responseSchemas.basicAuth,
		idempotency: 'sent-once',
		change: { what: 'The authentication change', check: CHECK_PROXY },
		...options,
	});
}

/** `PATCH /v1/proxies/auth/whitelist/{name}`: IP-whitelist authentication (username/password off). */
export async function setWhitelist(
	ctx: ProxyAccountContext,
	proxyName: string,
	entries: string[],
	options: CallOptions = {},
): Promise<{ result: WhitelistData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'PATCH',
		path: actionPath(ctx, 'auth/whitelist', proxyName, options.itemIndex),
		endpoint: 'PATCH /v1/proxies/auth/whitelist/{proxyName}',
		proxyName,
		body: { authorize_ip: entries.join(',') },
		schema: responseSchemas.whitelist,
		idempotency: 'sent-once',
		change: { what: 'The authentication change', check: CHECK_PROXY },
		...options,
	});
}

/** One proxy to buy: the same line as a quote's. */
export type DeployLine = QuoteLine;

/**
 * `POST /v1/proxies/deploy` (202): buys proxies, charged to the wallet. The service has no
 * idempotency key and no dry run: never repeated once it may have reached the service; callers must
 * not retry it either. The reply does not name the new proxies: they appear in the list later.
 */
export async function deployProxies(
	ctx: ProxyAccountContext,
	lines: DeployLine[],
	options: CallOptions = {},
): Promise<{ result: DeployData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'POST',
		path: '/v1/proxies/deploy',
		endpoint: 'POST /v1/proxies/deploy',
		body: { proxies: lines.map((line) => ({ ...line })) },
		schema: responseSchemas.deploy,
		idempotency: 'sent-once',
		change: {
			what: 'The purchase',
			check:
				'Read the proxy list (Proxy Account > Get Many) and the wallet to see whether new proxies were bought',
			money: true,
		},
		walletUse: { what: 'this purchase', less: 'buy fewer proxies or for a shorter time' },
		...options,
	});
}

/**
 * `POST /v1/proxies/swap/{name}` (202): moves a proxy to another carrier and/or city; its name and
 * port change shortly after. Never repeated once it may have reached the service.
 */
export async function swapProxy(
	ctx: ProxyAccountContext,
	proxyName: string,
	target: { isp: string; location: string; copy_settings: boolean },
	options: CallOptions = {},
): Promise<{ result: SwapData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'POST',
		path: actionPath(ctx, 'swap', proxyName, options.itemIndex),
		endpoint: 'POST /v1/proxies/swap/{proxyName}',
		proxyName,
		body: { ...target },
		schema: responseSchemas.swap,
		idempotency: 'sent-once',
		change: {
			what: 'The change of location',
			check: 'Read the proxy list (Proxy Account > Get Many) to see whether the proxy moved',
		},
		walletUse: { what: 'this change of location' },
		...options,
	});
}

/**
 * `DELETE /v1/proxies/remove` (202): removes proxies, their paid time included. Irreversible: never
 * repeated once it may have reached the service.
 */
export async function removeProxies(
	ctx: ProxyAccountContext,
	proxyNames: string[],
	options: CallOptions = {},
): Promise<{ message?: string; serverTime: number }> {
	const response = await apiRequest(ctx, {
		method: 'DELETE',
		path: '/v1/proxies/remove',
		endpoint: 'DELETE /v1/proxies/remove',
		body: { proxies: [...proxyNames] },
		schema: responseSchemas.remove,
		idempotency: 'sent-once',
		change: {
			what: 'The removal',
			check: 'Read the proxy list (Proxy Account > Get Many) to see which proxies are gone',
		},
		...options,
	});
	return { message: response.body.message, serverTime: response.serverTime };
}

const CHECK_DEVICE = 'Read the proxy (Proxy Account > Get) to see whether it was';

/**
 * `POST /v1/proxies/changeip/{name}` (202: sent to the device). At most once a minute per proxy: a
 * 429 says how long to wait. Never repeated once it may have reached the service; the caller
 * decides what to do about a 429 (`retry: {maxAttempts: 1}` leaves it to the caller).
 */
export async function rotateIp(
	ctx: ProxyAccountContext,
	proxyName: string,
	options: CallOptions = {},
): Promise<ActionReply<IpChangeData>> {
	return await sendFor(ctx, {
		method: 'POST',
		path: actionPath(ctx, 'changeip', proxyName, options.itemIndex),
		endpoint: 'POST /v1/proxies/changeip/{proxyName}',
		proxyName,
		schema: responseSchemas.ipChange,
		idempotency: 'sent-once',
		change: { what: 'The IP change', check: CHECK_DEVICE },
		...options,
	});
}

/**
 * The rotation link of a Limited key: `GET /v1/proxies/changeip/{limitedKey}/{name}`. The key is in
 * the path, so it is a secret of the URL: it is kept out of every message. The master key is neither
 * needed nor sent: a credential with only a Limited key can rotate IPs this way.
 */
export async function rotateIpWithLink(
	ctx: ProxyAccountContext,
	limitedKey: string,
	proxyName: string,
	options: CallOptions = {},
): Promise<ActionReply<IpChangeData>> {
	const path = actionPath(ctx, 'changeip', proxyName, options.itemIndex).replace(
		/^\/v1\/proxies\/changeip\//,
		`/v1/proxies/changeip/${encodeURIComponent(limitedKey)}/`,
	);
	return await sendFor(ctx, {
		method: 'GET',
		path,
		endpoint: 'GET /v1/proxies/changeip/{limitedApiKey}/{proxyName}',
		proxyName,
		schema: responseSchemas.ipChange,
		idempotency: 'sent-once',
		change: { what: 'The IP change', check: CHECK_DEVICE },
		// Sent without the master key: the credential's authenticate leaves it out of this request.
		key: 'limited',
		secrets: [limitedKey, encodeURIComponent(limitedKey)],
		...options,
	});
}

/** `POST /v1/proxies/reboot/{name}` (202): at most once every 5 minutes per proxy. */
export async function rebootProxy(
	ctx: ProxyAccountContext,
	proxyName: string,
	options: CallOptions = {},
): Promise<ActionReply<RebootData>> {
	return await sendFor(ctx, {
		method: 'POST',
		path: actionPath(ctx, 'reboot', proxyName, options.itemIndex),
		endpoint: 'POST /v1/proxies/reboot/{proxyName}',
		proxyName,
		schema: responseSchemas.reboot,
		idempotency: 'sent-once',
		change: { what: 'The reboot', check: CHECK_DEVICE },
		...options,
	});
}

/** `POST /v1/proxies/autochangeip/{name}` `{enable, rate}`: rate in minutes, 1 to 1440. */
export async function setAutoRotation(
	ctx: ProxyAccountContext,
	proxyName: string,
	enable: boolean,
	rateMinutes: number,
	options: CallOptions = {},
): Promise<{ result: AutoChangeData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'POST',
		path: actionPath(ctx, 'autochangeip', proxyName, options.itemIndex),
		endpoint: 'POST /v1/proxies/autochangeip/{proxyName}',
		proxyName,
		body: { enable, rate: rateMinutes },
		schema: responseSchemas.autoChange,
		idempotency: 'sent-once',
		change: { what: 'The automatic rotation setting', check: CHECK_DEVICE },
		...options,
	});
}

/** `GET /v1/funds`: the wallet balance and the upcoming renewals and expiries. A read. */
export async function getFunds(
	ctx: ProxyAccountContext,
	options: CallOptions = {},
): Promise<{ funds: FundsData; message?: string; serverTime: number; dated: boolean }> {
	const response = await apiRequest(ctx, {
		method: 'GET',
		path: '/v1/funds',
		endpoint: 'GET /v1/funds',
		schema: fundsResponseSchema,
		idempotency: 'read',
		...options,
	});
	return {
		funds: response.body.data,
		message: response.body.message,
		serverTime: response.serverTime,
		dated: response.dated,
	};
}

export interface AutoRenewLine {
	proxy_name: string;
	auto_renew: boolean;
	interval: number;
}

/**
 * `PATCH /v1/proxies/allocate/renew`: changes auto-renew settings (turning it off means the proxy
 * is removed at expiry). A change: never repeated once it may have reached the service.
 */
export async function setAutoRenew(
	ctx: ProxyAccountContext,
	lines: AutoRenewLine[],
	options: CallOptions = {},
): Promise<{ result: AutoRenewData; message?: string; serverTime: number }> {
	return await sendFor(ctx, {
		method: 'PATCH',
		path: '/v1/proxies/allocate/renew',
		endpoint: 'PATCH /v1/proxies/allocate/renew',
		body: { proxies: { time: lines.map((line) => ({ ...line })) } },
		schema: autoRenewResponseSchema,
		idempotency: 'sent-once',
		change: {
			what: 'The auto-renew change',
			check: 'Read the proxies (Proxy Account > Get or Get Many: auto_renew, auto_renew_interval)',
		},
		...options,
	});
}
