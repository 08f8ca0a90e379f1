/**
 * Set-up shared by Proxy > Rotate IP, Reboot and Set Auto-Rotation: a fresh simulator for each test with nothing throttled at the start, the command runner.
 *
 * Importing this module registers its jest hooks in the importing test file (one simulator per file).
 */
import type { IDataObject } from 'n8n-workflow';
import { apiRequests, createHarness, credentialsFor } from '../index';
import type { NodeResult, TestCredentials } from '../index';
import { ProxyAccountSimulator } from '../../simulator';

export const harness = createHarness();
export let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 12, proxies: 10, frozenClock: true });
	// Every proxy's last IP change and reboot long ago: nothing is throttled at the start.
	const past = new Date(sim.clock.now() - 3_600_000).toISOString();
	for (const proxy of sim.account().proxies.values()) {
		proxy.last_ip_change = past;
		proxy.last_reboot = past;
		proxy.auto_change = false;
		proxy.auto_change_time = 0;
	}
});
afterEach(async () => await sim.stop());

export const names = () => [...sim.account().proxies.keys()];

export function command(operation: string, proxies: string[], options: IDataObject = {}, credentials: TestCredentials = credentialsFor(sim), extra: IDataObject = {}, continueOnFail = false): Promise<NodeResult> {
	return harness.runNode(
		{
			type: 'proxyAccount',
			continueOnFail,
			parameters: { resource: 'proxy', operation, proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' }, options, ...extra },
		},
		{ credentials, items: proxies.map((name) => ({ name })) },
	);
}

export const rotations = () => [...apiRequests(sim, 'POST /v1/proxies/changeip/:name'), ...apiRequests(sim, 'GET /v1/proxies/changeip/:key/:name')];
