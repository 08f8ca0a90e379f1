/**
 * What the README says of `npm ci`'s EBADENGINE warning for isolated-vm on Node.js 20: the engine
 * runs workflows with expressions here without ever loading isolated-vm (its native build is
 * skipped by .npmrc), so the warning is harmless for this package's tests and tools.
 */
import { createHarness, credentialsFor } from '../harness';
import { ProxyAccountSimulator } from '../simulator';

const harness = createHarness();
let sim: ProxyAccountSimulator;

beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 3, proxies: 4, cities: 5, frozenClock: true });
});
afterAll(async () => await sim.stop());

const loaded = (name: string) => Object.keys(require.cache).filter((path) => path.includes(`/node_modules/${name}/`));

it('evaluates expressions in a real workflow run without loading isolated-vm', async () => {
	const name = [...sim.account().proxies.keys()][0];
	const result = await harness.runNode(
		{
			type: 'proxyAccount',
			parameters: {
				resource: 'proxy',
				operation: 'get',
				proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
			},
		},
		{ credentials: credentialsFor(sim), items: [{ name }] },
	);
	expect(result.status).toBe('success');
	expect(result.items[0].json.proxy_name).toBe(name);
	// n8n-workflow's expression runtime is loaded, isolated-vm is not.
	expect(loaded('n8n-workflow').length).toBeGreaterThan(0);
	expect(loaded('isolated-vm')).toEqual([]);
});
