/**
 * Set-up shared by Account > Get Funds and Proxy > Set Auto-Renew: one simulator with a frozen clock for the file, the On Error modes and the parameter builders.
 *
 * Importing this module registers its jest hooks in the importing test file (one simulator per file).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { createHarness, credentialsFor } from '../index';
import type { NodeResult, NodeUnderTest } from '../index';
import { ProxyAccountSimulator } from '../../simulator';

export const harness = createHarness();
export let sim: ProxyAccountSimulator;
export const DAY = 86_400_000;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 12, proxies: 30, balance: 321.5, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

export type OnError = NonNullable<NodeUnderTest['onError']>;
export const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
export const names = () => [...sim.account().proxies.keys()];
export const byName = (value: string) => ({ __rl: true, mode: 'name', value });
export const pairedOf = (items: INodeExecutionData[]) => items.map((item) => (item.pairedItem as { item: number }).item);

export function run(parameters: IDataObject, items: IDataObject[], node: Partial<NodeUnderTest> = {}): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, ...node }, { credentials: credentialsFor(sim), items });
}

export const fundsParams = (extra: IDataObject = {}) => ({ resource: 'account', operation: 'getFunds', ...extra });
export const renewParams = (options: IDataObject = {}) => ({
	resource: 'proxy',
	operation: 'setAutoRenew',
	proxyName: byName('={{ $json.name }}'),
	autoRenew: '={{ $json.on ?? true }}',
	interval: '={{ $json.interval ?? 1 }}',
	options,
});
