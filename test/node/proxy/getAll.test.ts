/**
 * Proxy > Get Many in a real WorkflowExecute run against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests } from '../../harness';
import { sim, proxies, run } from '../../harness/suites/reads';

describe('Proxy > Get Many', () => {
	const getMany = (extra: IDataObject = {}, items?: IDataObject[]) =>
		run({ resource: 'proxy', operation: 'getAll', returnAll: true, ...extra }, items);

	it('returns every proxy, simplified, without passwords', async () => {
		const result = await getMany();
		expect(result.items).toHaveLength(sim.account().proxies.size);
		expect(result.items.every((item) => !('password' in item.json) && typeof item.json.expires_in_hours === 'number')).toBe(true);
		const text = JSON.stringify(result.items);
		expect(proxies().some((p) => text.includes(p.password))).toBe(false);
	});

	it('respects Limit', async () => {
		const result = await run({ resource: 'proxy', operation: 'getAll', returnAll: false, limit: 3 });
		expect(result.items).toHaveLength(3);
	});

	it('filters by city, state, carrier, network status, name and expiry window', async () => {
		const sample = proxies()[5];
		const now = sim.clock.now();
		const cases: Array<[IDataObject, (p: ReturnType<typeof proxies>[number]) => boolean]> = [
			[{ city: sample.city.toUpperCase() }, (p) => p.city === sample.city],
			[{ state: sample.state.toLowerCase() }, (p) => p.state === sample.state],
			[{ carrier: sample.isp }, (p) => p.isp === sample.isp],
			[{ carrier: ['AT&T', 'Verizon'] }, (p) => p.isp === 'AT&T' || p.isp === 'Verizon'],
			[{ networkStatus: 'online' }, (p) => p.network_status === 'online'],
			[{ nameContains: sample.proxy_name.slice(-4) }, (p) => `${p.proxy_name} ${p.nickname ?? ''}`.includes(sample.proxy_name.slice(-4))],
			[{ expiringWithinHours: 24 }, (p) => Date.parse(p.expires_at) - now <= 24 * 3_600_000],
		];
		for (const [filters, expected] of cases) {
			const result = await getMany({ filters });
			const want = proxies().filter(expected).map((p) => p.proxy_name).sort();
			expect(want.length).toBeGreaterThan(0);
			expect(result.items.map((item) => item.json.proxy_name).sort()).toEqual(want);
		}
	});

	it('sorts by expiry', async () => {
		const result = await getMany({ sort: 'expiresAsc' });
		const times = result.items.map((item) => Date.parse(item.json.expires_at as string));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		const desc = await getMany({ sort: 'expiresDesc', returnAll: false, limit: 1 });
		expect(Date.parse(desc.items[0].json.expires_at as string)).toBe(Math.max(...times));
	});

	it('reads the list once for many input items, each item getting its own filtered results', async () => {
		const cities = [...new Set(proxies().map((p) => p.city))].slice(0, 3);
		const result = await getMany({ filters: { city: '={{ $json.city }}' } }, cities.map((city) => ({ city })));
		expect(apiRequests(sim, 'GET /v1/proxies')).toHaveLength(1);
		cities.forEach((city, i) => {
			const mine = result.items.filter((item) => (item.pairedItem as { item: number }).item === i);
			expect(mine.length).toBe(proxies().filter((p) => p.city === city).length);
			expect(mine.every((item) => item.json.city === city)).toBe(true);
		});
	});

	it('refuses a negative expiry window, naming the field', async () => {
		const result = await getMany({ filters: { expiringWithinHours: -1 } });
		expect(result.error?.message).toBe('Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1 [item 0]');
	});
});
