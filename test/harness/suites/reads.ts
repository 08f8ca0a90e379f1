/**
 * The read operations' set-up (Proxy > Get, Proxy > Get Many, Stock > Get Many): one simulator with 40 proxies for the file, logs and faults cleared before each test.
 *
 * Importing this module registers its jest hooks in the importing test file (one simulator per file).
 */
import type { IDataObject } from 'n8n-workflow';
import { createHarness, credentialsFor } from '../index';
import type { NodeResult } from '../index';
import { ProxyAccountSimulator } from '../../simulator';

export const harness = createHarness();
export let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 8, proxies: 40, cities: 12, frozenClock: true });
});
afterAll(async () => await sim.stop());
beforeEach(() => {
	sim.clearFaults();
	sim.resetLogs();
});

export const proxies = () => [...sim.account().proxies.values()];

export function run(parameters: IDataObject, items?: IDataObject[], continueOnFail = false): Promise<NodeResult> {
	return harness.runNode({ type: 'proxyAccount', parameters, continueOnFail }, { credentials: credentialsFor(sim), items });
}

export const getProxy = (value: string, extra: IDataObject = {}) =>
	run({ resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'name', value }, ...extra });
