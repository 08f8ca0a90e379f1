/**
 * Stock > Get Many in a real WorkflowExecute run against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { credentialsFor } from '../../harness';
import { ProxyAccountSimulator } from '../../simulator';
import { harness, sim, run } from '../../harness/suites/reads';

describe('Stock > Get Many', () => {
	const stock = (extra: IDataObject = {}) => run({ resource: 'stock', operation: 'getAll', returnAll: true, ...extra });

	it('without filters, lists only the open cities with stock (the sold-out and closed ones need Only Available off)', async () => {
		const available = sim.stock.filter((city) => city.open && Object.values(city.counts).some((count) => count > 0));
		expect(available.length).toBeLessThan(sim.stock.length);
		const result = await stock();
		expect(result.items.map((item) => item.json.city)).toEqual(available.map((city) => city.city));
		const everything = await stock({ filters: { onlyAvailable: false } });
		expect(everything.items).toHaveLength(sim.stock.length);
	});

	it('returns one item per city with a carriers map and a total', async () => {
		const result = await stock({ filters: { onlyAvailable: false } });
		expect(result.items).toHaveLength(sim.stock.length);
		result.items.forEach((item, n) => {
			const city = sim.stock[n];
			expect(item.json.city).toBe(city.city);
			expect(item.json.carriers).toEqual(city.counts);
			expect(item.json.total).toBe(Object.values(city.counts).reduce((a, b) => a + b, 0));
			expect(item.pairedItem).toEqual({ item: 0 });
		});
	});

	it('discovers a new carrier from the payload', async () => {
		const other = await ProxyAccountSimulator.start({ seed: 4, cities: 6 });
		try {
			other.addCarrier({ key: 'uscellular', name: 'US Cellular', code: 'UC' });
			other.setStockCount(other.stock[0].city, 'uscellular', 7);
			const result = await harness.runNode(
				{ type: 'proxyAccount', parameters: { resource: 'stock', operation: 'getAll', returnAll: true, filters: { carrier: 'uscellular', onlyAvailable: true } } },
				{ credentials: credentialsFor(other) },
			);
			expect(result.items.map((item) => item.json.city)).toEqual([other.stock[0].city]);
			expect((result.items[0].json.carriers as IDataObject).uscellular).toBe(7);
		} finally {
			await other.stop();
		}
	});

	it('filters: only available, carrier, state, city; and Limit', async () => {
		const available = await stock({ filters: { onlyAvailable: true } });
		expect(available.items.map((item) => item.json.city)).toEqual(
			sim.stock.filter((c) => c.open && Object.values(c.counts).some((n) => n > 0)).map((c) => c.city),
		);
		const key = sim.carriers[1].key;
		const byCarrier = await stock({ filters: { onlyAvailable: true, carrier: key } });
		expect(byCarrier.items.map((item) => item.json.city)).toEqual(sim.stock.filter((c) => c.open && c.counts[key] > 0).map((c) => c.city));
		// Several carriers: cities with stock for any of them, the total counting only them.
		const [a, b] = [sim.carriers[0].key, sim.carriers[2].key];
		const byTwo = await stock({ filters: { onlyAvailable: true, carrier: [a, sim.carriers[2].name] } });
		const wantTwo = sim.stock.filter((c) => c.open && (c.counts[a] > 0 || c.counts[b] > 0));
		expect(wantTwo.length).toBeGreaterThan(0);
		expect(byTwo.items.map((item) => item.json.city)).toEqual(wantTwo.map((c) => c.city));
		for (const item of byTwo.items) {
			const city = sim.stock.find((c) => c.city === item.json.city)!;
			expect(item.json.total).toBe(city.counts[a] + city.counts[b]);
		}
		const first = sim.stock[0];
		expect((await stock({ filters: { state: first.state } })).items.every((item) => item.json.state === first.state)).toBe(true);
		expect((await stock({ filters: { city: first.city.toLowerCase() } })).items.map((item) => item.json.city)).toEqual([first.city]);
		expect((await run({ resource: 'stock', operation: 'getAll', returnAll: false, limit: 2 })).items).toHaveLength(2);
	});
});
