/**
 * Account > Get Funds in real WorkflowExecute runs against the simulator: outputs, one read per run, all three On Error modes.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests } from '../../harness';
import { formatTimestamp } from '../../simulator';
import { sim, DAY, MODES, pairedOf, run, fundsParams } from '../../harness/suites/account';

describe('Account > Get Funds', () => {
	it('reads once per run and returns one simplified item per input item, paired', async () => {
		sim.account().balance = 321.5;
		const result = await run(fundsParams(), [{ a: 1 }, { a: 2 }, { a: 3 }]);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(3);
		expect(pairedOf(result.items)).toEqual([0, 1, 2]);
		expect(apiRequests(sim).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/funds']);
		const json = result.items[0].json;
		expect(Object.keys(json)).toEqual([
			'funds',
			'renewing_count',
			'renewing_amount',
			'expiring_count',
			'expiring_amount',
			'renewal_required',
			'total_required',
			'total_commitment',
		]);
		expect(json.funds).toBe(321.5);
		expect(json.renewal_required).toBe(json.renewing_amount);
		expect(json.total_required).toBeCloseTo(Number(json.renewing_amount) + Number(json.expiring_amount), 2);
	});

	it('returns the service data as is with Simplify off, a copy per item', async () => {
		const result = await run(fundsParams({ simplify: false }), [{}, {}]);
		const json = result.items[0].json as { funds: number; upcoming: { total: IDataObject } };
		expect(json.funds).toBe(321.5);
		expect(Object.keys(json.upcoming.total).sort()).toEqual(['renewal_required', 'total_commitment', 'total_required']);
		expect(result.items[0].json).not.toBe(result.items[1].json);
		expect(result.items[0].json).toEqual(result.items[1].json);
	});

	it('accepts an integer balance and an upcoming renewal the sim clock puts in the window', async () => {
		sim.account().balance = 40;
		sim.addProxy(null, {
			proxy_name: 'FUNDS-SOON',
			isp: 'AT&T',
			period: 'daily',
			auto_renew: true,
			auto_renew_interval: 2,
			expires_at: formatTimestamp(sim.clock.now() + DAY, sim.utcOffsetMinutes),
		});
		const result = await run(fundsParams(), [{}]);
		expect(result.items[0].json.funds).toBe(40);
		expect(Number(result.items[0].json.renewing_count)).toBeGreaterThanOrEqual(1);
		sim.account().proxies.delete('FUNDS-SOON');
		sim.account().balance = 321.5;
	});

	it.each(MODES)('a failed read under On Error %s', async (mode) => {
		sim.injectFault({ route: 'GET /v1/funds', kind: 'status', status: 500 });
		const result = await run(fundsParams(), [{}, {}], { onError: mode });
		const message = 'The Proxy Account service could not handle the request (HTTP 500, GET /v1/funds)';
		if (mode === 'stopWorkflow') {
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(message);
			return;
		}
		expect(result.status).toBe('success');
		const failed = mode === 'continueErrorOutput' ? result.output('Node Under Test', 1) : result.output('Node Under Test', 0);
		expect(pairedOf(failed)).toEqual([0, 1]);
		for (const item of failed) {
			expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
			expect(item.json.error).toBe(message);
		}
		if (mode === 'continueErrorOutput') expect(result.output('Node Under Test', 0)).toEqual([]);
		expect(apiRequests(sim)).toHaveLength(1); // one read for the run, not one per item
	});
});
