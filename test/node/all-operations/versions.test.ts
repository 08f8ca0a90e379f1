/**
 * Version 1 against version 2 of both nodes (issue 37), in n8n-core's real WorkflowExecute and
 * PollContext against the simulator: a node saved as version 1, with the parameters n8n stored for
 * it (none equal to its default), keeps its behaviour; a version 2 node gets the new defaults.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { apiRequests, createHarness, credentialsFor, PollHarness } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';

const harness = createHarness([new ProxyAccountTrigger()]);
let sim: ProxyAccountSimulator;

beforeEach(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 37, proxies: 8, cities: 8, balance: 5_000, frozenClock: true });
});
afterEach(async () => await sim.stop());

const action = (typeVersion: 1 | 2, parameters: INodeParameters) =>
	harness.runNode({ type: 'proxyAccount', typeVersion, parameters }, { credentials: credentialsFor(sim) });

describe('Stock > Get Many: Only Available', () => {
	const stock = (typeVersion: 1 | 2, filters?: INodeParameters) =>
		action(typeVersion, { resource: 'stock', operation: 'getAll', returnAll: true, ...(filters ? { filters } : {}) });
	const cities = async (typeVersion: 1 | 2, filters?: INodeParameters) => (await stock(typeVersion, filters)).items.map((item) => item.json.city);
	const available = () => sim.stock.filter((city) => city.open && Object.values(city.counts).some((count) => count > 0)).map((city) => city.city);

	it('a version 1 node filters also when the filter is not added (as it always did)', async () => {
		expect(available().length).toBeGreaterThan(0);
		expect(available().length).toBeLessThan(sim.stock.length);
		expect(await cities(1)).toEqual(available());
		expect(await cities(1, {})).toEqual(available());
		expect(await cities(1, { onlyAvailable: false })).toHaveLength(sim.stock.length);
	});

	it('a version 2 node filters nothing until the filter is added, then filters as version 1', async () => {
		expect(await cities(2)).toEqual(sim.stock.map((city) => city.city));
		expect(await cities(2, {})).toHaveLength(sim.stock.length);
		expect(await cities(2, { onlyAvailable: true })).toEqual(available());
		expect(await cities(2, { onlyAvailable: false })).toHaveLength(sim.stock.length);
	});
});

describe('Proxy > Set Auto-Renew: the switch not stored (n8n stores no parameter equal to its default)', () => {
	const setAutoRenew = async (typeVersion: 1 | 2, on?: boolean) => {
		const proxy = [...sim.account().proxies.values()][typeVersion];
		proxy.auto_renew = on === undefined ? typeVersion === 2 : !on;
		const parameters: INodeParameters = { resource: 'proxy', operation: 'setAutoRenew', proxyName: { mode: 'name', value: proxy.proxy_name }, interval: 1 };
		if (on !== undefined) parameters.autoRenew = on;
		const result = await action(typeVersion, parameters);
		expect(result.status).toBe('success');
		const [patch] = apiRequests(sim).filter((request) => request.method === 'PATCH');
		return { sent: (patch.body as { proxies: { time: IDataObject[] } }).proxies.time, proxy };
	};

	it('a version 1 node turns auto-renew on, as saved workflows expect', async () => {
		const { sent, proxy } = await setAutoRenew(1);
		expect(sent).toEqual([{ proxy_name: proxy.proxy_name, auto_renew: true, interval: 1 }]);
		expect(proxy.auto_renew).toBe(true);
	});

	it('a version 2 node turns it off: a new node commits nothing until the switch is turned on', async () => {
		const { sent, proxy } = await setAutoRenew(2);
		expect(sent).toEqual([{ proxy_name: proxy.proxy_name, auto_renew: false, interval: 1 }]);
		expect(proxy.auto_renew).toBe(false);
	});

	it('a version 2 node with the switch on turns auto-renew on', async () => {
		const { sent, proxy } = await setAutoRenew(2, true);
		expect(sent).toEqual([{ proxy_name: proxy.proxy_name, auto_renew: true, interval: 1 }]);
		expect(proxy.auto_renew).toBe(true);
	});
});

describe('Proxy Account Trigger: Simplify', () => {
	let added = 0;
	/** The record a New Proxy event reports for a proxy added after the baseline. */
	const newProxyRecord = async (typeVersion: 1 | 2, parameters: INodeParameters) => {
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', typeVersion, parameters: { event: 'newProxy', ...parameters } }, credentialsFor(sim));
		expect(await poller.poll()).toBeNull();
		sim.addProxy(null, { proxy_name: `PRX-V${typeVersion}-NEW-${++added}` });
		const [item] = (await poller.poll())![0];
		return item.json.record as IDataObject;
	};
	const isRaw = (record: IDataObject) => 'h_threads' in record && 'last_reboot' in record;

	it.each([1, 2] as const)('version %i simplifies by default', async (typeVersion) => {
		expect(isRaw(await newProxyRecord(typeVersion, {}))).toBe(false);
	});

	it('version 1 reads Simplify from Options, as saved workflows have it', async () => {
		expect(isRaw(await newProxyRecord(1, { options: { simplify: false } }))).toBe(true);
		expect(isRaw(await newProxyRecord(1, { simplify: false }))).toBe(false);
	});

	it('version 2 reads Simplify at the top level, as the action node does', async () => {
		expect(isRaw(await newProxyRecord(2, { simplify: false }))).toBe(true);
		expect(isRaw(await newProxyRecord(2, { options: { simplify: false } }))).toBe(false);
	});
});
