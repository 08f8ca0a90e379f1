/**
 * Proxy > Set Auto-Rotation through n8n-core's real WorkflowExecute against the simulator.
 */
import { apiRequests, credentialsFor } from '../../harness';
import { sim, names, command } from '../../harness/suites/device';

describe('Proxy > Set Auto-Rotation', () => {
	it('turns automatic rotation on every N minutes and off; minutes outside 1 to 1440 are refused before sending', async () => {
		const [name] = names();
		const on = await command('setAutoRotation', [name], {}, credentialsFor(sim), { autoRotationEnabled: true, rateMinutes: 15 });
		expect(on.items[0].json).toMatchObject({ proxy_name: name, auto_change: true, auto_change_time: 15 });
		expect(sim.account().proxies.get(name)).toMatchObject({ auto_change: true, auto_change_time: 15 });
		const off = await command('setAutoRotation', [name], {}, credentialsFor(sim), { autoRotationEnabled: false });
		expect(off.items[0].json).toMatchObject({ auto_change: false, auto_change_time: 0 });
		sim.resetLogs();
		const bad = await command('setAutoRotation', [name], {}, credentialsFor(sim), { autoRotationEnabled: true, rateMinutes: 2000 }, true);
		expect(bad.items[0].json.error).toBe('Every (Minutes) must be a whole number from 1 to 1440, but it is 2000 [item 0]');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});
