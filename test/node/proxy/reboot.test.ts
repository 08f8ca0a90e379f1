/**
 * Proxy > Reboot through n8n-core's real WorkflowExecute against the simulator: once per 5 minutes per proxy, never sent again.
 */
import { apiRequests, credentialsFor } from '../../harness';
import { sim, names, command } from '../../harness/suites/device';

describe('Proxy > Reboot', () => {
	it('reboots once per 5 minutes per proxy: a second run within them skips, one 429 at most per proxy', async () => {
		const list = names().slice(0, 3);
		const first = await command('reboot', list);
		expect(first.items.map((i) => i.json.status)).toEqual(['sent', 'sent', 'sent']);
		expect(first.items[0].json.last_reboot).toBeDefined();
		sim.clock.advance(60_000);
		sim.resetLogs();
		const second = await command('reboot', list);
		expect(second.items.map((i) => i.json.status)).toEqual(['skipped', 'skipped', 'skipped']);
		expect(apiRequests(sim, 'POST /v1/proxies/reboot/:name').length).toBeLessThanOrEqual(3);
	});

	it('a reboot whose reply is lost is not sent again and says so; the other proxies go on', async () => {
		const [a, b] = names();
		sim.injectFault({ route: 'POST /v1/proxies/reboot/:name', kind: 'status', status: 503 });
		const result = await command('reboot', [a, b], { concurrency: 1 }, credentialsFor(sim), {}, true);
		expect(result.items[0].json.message).toMatch(/The reboot may have been made/);
		expect(result.items[1].json.status).toBe('sent');
		expect(apiRequests(sim, 'POST /v1/proxies/reboot/:name')).toHaveLength(2);
	});
});
