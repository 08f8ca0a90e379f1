/**
 * The simulator as test:agent reads it: the service's API with the demo key, the control API
 * (state, ledger, request log, wallet, proxies, orders, faults) and what a scenario changed.
 */
export function simHelpers(sim) {
	async function api(method, path, body) {
		const response = await fetch(`${sim.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${sim.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const json = await response.json();
		if (!response.ok) throw new Error(`simulator ${method} ${path} → ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
		return json.data;
	}
	const control = sim.control;
	const helpers = {
		api,
		control,
		proxies: () => api('GET', '/v1/proxies'),
		funds: () => api('GET', '/v1/funds'),
		balance: async () => (await control('GET', '/__sim/state')).accounts.find((a) => a.demo).balance,
		setBalance: (balance) => control('POST', '/__sim/account', { balance }),
		ledger: () => control('GET', '/__sim/ledger'),
		requests: () => control('GET', '/__sim/requests'),
		/** The highest request seq so far: requests after it are a scenario's. */
		mark: async () => {
			const log = await control('GET', '/__sim/requests');
			return log.length === 0 ? 0 : log.at(-1).seq;
		},
		/** Requests after `mark`, optionally of one method and path prefix. */
		since: async (mark, method, prefix) =>
			(await control('GET', '/__sim/requests')).filter((r) => r.seq > mark && (!method || r.method === method) && (!prefix || decodeURIComponent(r.path).startsWith(prefix))),
		/** Charges after `mark`. */
		chargesSince: async (mark) => (await control('GET', '/__sim/ledger')).filter((c) => c.seq > mark),
		expireIn: (name, hours) => control('POST', '/__sim/proxy', { name, expiresInHours: hours }),
		setNickname: (name, nickname) => control('POST', '/__sim/proxy', { name, nickname }),
		orders: (settings) => control('POST', '/__sim/orders', settings),
		fault: (spec) => control('POST', '/__sim/faults', spec),
		clearFaults: () => control('DELETE', '/__sim/faults'),
		advanceClock: (ms) => control('POST', '/__sim/clock', { advanceMs: ms }),
		setStock: (city, carrier, count) => control('POST', '/__sim/stock', { city, carrier, count }),
		/** Sets auto-renew of proxies directly through the service (the scenario's starting point). */
		setAutoRenew: (names, on) => api('PATCH', '/v1/proxies/allocate/renew', { proxies: { time: names.map((proxy_name) => ({ proxy_name, auto_renew: on, interval: 1 })) } }),
		/** What one auto-renewal of every auto-renewing proxy costs (GET /v1/funds). */
		commitment: async () => (await api('GET', '/v1/funds')).upcoming.total.total_commitment,
		/** What a purchase line costs now (POST /v1/price). */
		price: async (line) => (await api('POST', '/v1/price', { proxies: [line] })).total.due,
	};
	return helpers;
}
