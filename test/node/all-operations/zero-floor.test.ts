/**
 * Issue 35: as an AI agent's tool, a Keep Wallet At Least of 0 (the value the option has when
 * added) is no floor. Extend, Buy and Change Location refuse it before any request, with a message
 * that says why and what to set; a floor above 0 is taken. Real WorkflowExecute, the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, asAgentTool, createHarness, credentialsFor, expectAgentRefusal, cityWith as stockCity } from '../../harness';
import type { NodeResult } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([asAgentTool()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 35, proxies: 8, cities: 8, balance: 400, frozenClock: true });
});
afterEach(async () => await sim.stop());

const chosen = (name: string) => ({ __rl: true, mode: 'name', value: `={{ $fromAI('${name}', '', 'string') }}` });
const tool = (parameters: IDataObject, items: IDataObject[]): Promise<NodeResult> =>
	harness.runNode({ type: 'proxyAccountTool', parameters }, { credentials: credentialsFor(sim), items });

const extend = (keepWalletAtLeast: unknown, name: string) =>
	tool({ resource: 'proxy', operation: 'extend', proxyName: chosen('name'), interval: 1, period: 'weekly', options: { maxTotalCost: 100, keepWalletAtLeast } }, [{ name }]);
const buy = (keepWalletAtLeast: unknown) => {
	const city = stockCity(sim, 'att', 1).city;
	return tool(
		{ resource: 'proxy', operation: 'buy', carrier: 'AT&T', city, quantity: 1, interval: 1, period: 'weekly', options: { maxTotalCost: 100, keepWalletAtLeast } },
		[{}],
	);
};
const move = (keepWalletAtLeast: unknown, name: string) =>
	tool(
		{
			resource: 'proxy',
			operation: 'changeLocation',
			proxyName: chosen('name'),
			carrier: 'AT&T',
			city: stockCity(sim, 'att', 1).city,
			copySettings: true,
			options: { allowAsTool: true, keepWalletAtLeast, maxMoveCost: 10, waitTimeoutSeconds: 0 },
		},
		[{ name }],
	);

const why = (operation: string) =>
	new RegExp(
		`^As an AI agent tool, ${operation} needs a Keep Wallet At Least above 0: a floor of 0 bounds nothing across calls\\. .*an agent may call again and again until the wallet is empty.* set Options > Keep Wallet At Least to what the wallet must always keep \\(e\\.g\\. 100\\), a fixed amount\\. Nothing was sent\\.$`,
	);

describe('As an AI agent tool, Keep Wallet At Least 0 is refused before any request', () => {
	const names = () => [...sim.account().proxies.keys()];

	it.each([
		['Extend', (floor: unknown) => extend(floor, names()[0])],
		['Buy', (floor: unknown) => buy(floor)],
		['Change Location', (floor: unknown) => move(floor, names()[0])],
	] as const)('%s: a floor of 0, typed or from the builder\u2019s expression, is refused; nothing is sent', async (operation, call) => {
		for (const floor of [0, '={{ 0 }}']) {
			const result = await call(floor);
			expectAgentRefusal(result, `As an AI agent tool, ${operation} needs a Keep Wallet At Least above 0`);
			expect(result.error?.message).toMatch(why(operation));
		}
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.account().balance).toBe(400);
	});

	it('the issue\u2019s case: Extend with cap 100 and floor 0 over four calls leaves the wallet at 400; with floor 300 it stops at 300', async () => {
		const weekly = names();
		for (let call = 0; call < 4; call++) expect((await extend(0, weekly[call])).status).toBe('error');
		expect(sim.ledger).toHaveLength(0);
		expect(sim.account().balance).toBe(400);
		const outcomes: string[] = [];
		for (let call = 0; call < 6; call++) {
			const result = await extend(300, weekly[call]);
			outcomes.push(result.status === 'success' ? 'charged' : String(result.error?.message));
			expect(sim.account().balance).toBeGreaterThanOrEqual(300);
		}
		expect(outcomes[0]).toBe('charged');
		expect(outcomes.some((o) => /would take the wallet below Keep Wallet At Least/.test(o))).toBe(true);
	});

	it('outside a tool, a floor of 0 stays allowed (a builder\u2019s own workflow: Buy with floor 0)', async () => {
		const city = stockCity(sim, 'att', 1).city;
		const result = await harness.runNode(
			{ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'buy', carrier: 'AT&T', city, quantity: 1, interval: 1, period: 'weekly', options: { keepWalletAtLeast: 0, waitForNewProxies: false } } },
			{ credentials: credentialsFor(sim), items: [{}] },
		);
		expect(result.error?.message).toBeUndefined();
		expect(apiRequests(sim, 'POST /v1/proxies/deploy')).toHaveLength(1);
	});
});
