/**
 * Set-up shared by Proxy > Set IPv4 and Proxy > Set Authentication: one simulator for the file, the parameter builders.
 *
 * Importing this module registers its jest hooks in the importing test file (one simulator per file).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { createHarness, credentialsFor } from '../index';
import type { NodeResult, NodeUnderTest } from '../index';
import { ProxyAccountSimulator } from '../../simulator';

export const harness = createHarness();
export let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 12, proxies: 30, cities: 8, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

export type OnError = NonNullable<NodeUnderTest['onError']>;
export const names = () => [...sim.account().proxies.keys()];
export const record = (name: string) => sim.account().proxies.get(name)!;
export const byName = (value: string) => ({ __rl: true, mode: 'name', value });
export const paired = (items: INodeExecutionData[]) => items.map((item) => (item.pairedItem as { item: number }).item);

export function run(parameters: IDataObject, items: IDataObject[] = [{}], node: Partial<NodeUnderTest> = {}): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, ...node }, { credentials: credentialsFor(sim), items });
}

export const ipv4 = (extra: IDataObject = {}) => ({ resource: 'proxy', operation: 'setIpv4', proxyName: byName('={{ $json.name }}'), ...extra });
export const auth = (extra: IDataObject = {}) => ({ resource: 'proxy', operation: 'setAuthentication', proxyName: byName('={{ $json.name }}'), ...extra });
