/**
 * Set-up shared by Proxy > Buy, Remove and Change Location: a fresh simulator for each test (money moves), the order builder.
 *
 * Importing this module registers its jest hooks in the importing test file (one simulator per file).
 */
import type { IDataObject } from 'n8n-workflow';
import { apiRequests, asAgentTool, cityWith as stockCity, createHarness, credentialsFor } from '../index';
import type { NodeResult } from '../index';
import { ProxyAccountSimulator } from '../../simulator';

export const harness = createHarness([asAgentTool()]);
export const cityWith = (carrierKey: string, count: number) => stockCity(sim, carrierKey, count);
export let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 9, proxies: 8, cities: 8, balance: 5_000, frozenClock: true });
});
afterEach(async () => await sim.stop());

export type Order = { carrier: string; city: string; quantity?: number; interval?: number; period?: string };

export function buy(orders: Order[], options: IDataObject = {}, node: { type?: string; continueOnFail?: boolean; onError?: string; retryOnFail?: boolean } = {}): Promise<NodeResult> {
	return harness.runNode(
		{
			type: node.type ?? 'proxyAccount',
			continueOnFail: node.continueOnFail,
			retryOnFail: node.retryOnFail,
			parameters: {
				resource: 'proxy',
				operation: 'buy',
				// As a tool, the fields are the agent's declared choice: nothing is read from the tool call's input item.
				...Object.fromEntries(
					['carrier', 'city', 'quantity', 'interval', 'period'].map((field) => [field, node.type?.endsWith('Tool') ? `={{ $fromAI('${field}') }}` : `={{ $json.${field} }}`]),
				),
				options,
			},
		},
		{ credentials: credentialsFor(sim), items: orders.map((o) => ({ quantity: 1, interval: 1, period: 'weekly', ...o })) },
	);
}

export const deploys = () => apiRequests(sim, 'POST /v1/proxies/deploy');
