/**
 * Extend's plan of the proxies the look-up found (actions/proxy/extend.plan.ts), without a request: proxies
 * without an extendable period fail their item, proxies expiring later than the window are skipped with their expiry, and a window as long as the extension is flagged.
 */
import { planAgainstList, windowNotShorter } from '../../nodes/ProxyAccount/actions/proxy/extend.plan';
import { HOUR, iso, NODE, proxy, T0 } from '../fixtures/records';

describe('Extend: plan against the list', () => {
	const list = {
		serverTime: T0,
		proxies: [
			proxy('SOON', { expires_at: iso(T0 + 2 * HOUR), period: 'weekly' }),
			proxy('LATER', { expires_at: iso(T0 + 100 * HOUR), period: 'weekly' }),
			proxy('ODD', { expires_at: iso(T0 + 2 * HOUR), period: 'fortnightly' }),
		],
	};
	const wanted = [
		{ item: 0, name: 'SOON', interval: 1, period: 'same' as const },
		{ item: 1, name: 'LATER', interval: 1, period: 'daily' as const },
		{ item: 3, name: 'ODD', interval: 1, period: 'same' as const },
	];

	// The look-up (helpers/money/batches.ts) gives each request its record; an unknown proxy never gets here.
	const known = wanted.map((w) => ({ ...w, record: list.proxies.find((p) => p.proxy_name === w.name)! }));

	it('plans the expiring, skips the later, fails the unextendable', () => {
		const { planned, skipped, failed } = planAgainstList(NODE, known, list.serverTime, 24);
		expect(planned.map((p) => [p.name, p.period])).toEqual([['SOON', 'weekly']]);
		expect(skipped).toEqual([
			{ item: 1, json: expect.objectContaining({ proxy_name: 'LATER', status: 'skipped', charged: 0, reason: 'expires in 100 h, later than the 24 h window' }) },
		]);
		expect(failed.map((f) => [f.item, f.error.message])).toEqual([
			[3, expect.stringMatching(/^Proxy \u201cODD\u201d has no billing period the service extends by/)],
		]);
	});

	it('without a window plans every known proxy', () => {
		expect(planAgainstList(NODE, known, list.serverTime, undefined).planned.map((p) => p.name)).toEqual(['SOON', 'LATER']);
	});

	it('flags a window not shorter than the extension', () => {
		const { planned } = planAgainstList(NODE, known, list.serverTime, undefined);
		expect(windowNotShorter(planned, 23)).toBe(false);
		expect(windowNotShorter(planned, 24)).toBe(true);
		expect(windowNotShorter(planned, undefined)).toBe(false);
	});
});
