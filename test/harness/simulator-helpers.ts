/**
 * Small helpers for tests that run the nodes against the simulator: the credentials for a simulator,
 * the requests it received on a route, and every string a result shows.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { ProxyAccountSimulator } from '../simulator';
import { simClient } from '../simulator/testkit';
import type { TestCredentials, WorkflowHarness } from './workflow';

export function credentialsFor(sim: ProxyAccountSimulator, apiKey = sim.demoApiKey): TestCredentials {
	return { baseUrl: sim.url, apiKey };
}

/** Every string a user or a log could see in a result: items, error messages and descriptions. */
export function visibleText(items: INodeExecutionData[], error?: unknown): string {
	const parts: string[] = [JSON.stringify(items.map((item) => item.json))];
	if (error && typeof error === 'object') {
		const e = error as { message?: unknown; description?: unknown };
		parts.push(String(e.message ?? ''), String(e.description ?? ''));
		parts.push(JSON.stringify(error));
	}
	return parts.join('\n');
}

/** The requests the simulator received on routes other than its control API. */
export function apiRequests(sim: ProxyAccountSimulator, route?: string) {
	return sim.requests.filter((entry) => route === undefined || entry.route === route);
}

/** An open city with at least `count` proxies of the carrier in stock. */
export function cityWith(sim: ProxyAccountSimulator, carrierKey: string, count: number) {
	const city = sim.stock.find((c) => c.open && c.counts[carrierKey] >= count);
	if (!city) throw new Error(`no city with ${count} ${carrierKey}`);
	return city;
}

/**
 * Proxy > Change Location run in the engine on `name`, to T-Mobile in an open city that has it;
 * returns the new name the node reported. The simulator applies a move when its list is next read,
 * so the list is read once, as the service would show it.
 */
export async function changeLocationInEngine(harness: WorkflowHarness, sim: ProxyAccountSimulator, name: string): Promise<string> {
	const city = sim.stock.find((c) => c.open && c.counts.tmobile > 0)!;
	const result = await harness.runNode(
		{
			type: 'proxyAccount',
			parameters: { resource: 'proxy', operation: 'changeLocation', proxyName: { __rl: true, mode: 'name', value: name }, carrier: 'T-Mobile', city: city.city, copySettings: true, options: {} },
		},
		{ credentials: credentialsFor(sim) },
	);
	expect(result.status).toBe('success');
	expect(result.items[0].json).toMatchObject({ status: 'moved', old_proxy_name: name });
	expect((await simClient(sim.url, sim.demoApiKey).call('GET', '/v1/proxies')).status).toBe(200);
	return String(result.items[0].json.new_proxy_name);
}
