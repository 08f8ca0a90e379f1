/**
 * The batch pipeline shared by Extend and Set Auto-Renew (helpers/batches.ts): grouping the items
 * that name the same proxy, chunking, and the lists a batch's message names.
 */
import { addToDescription, chunk, groupByProxy, itemList, joinNames, repeatsOf } from '../../nodes/ProxyAccount/helpers/batches';

describe('batch pipeline', () => {
	it('chunks in order, the last batch holding the rest', () => {
		expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
		expect(chunk([], 3)).toEqual([]);
	});

	it('names up to 20 proxies, then counts the rest', () => {
		const names = Array.from({ length: 23 }, (_, i) => `P${i}`);
		expect(joinNames(names.slice(0, 2))).toBe('P0, P1');
		expect(joinNames(names)).toBe(`${names.slice(0, 20).join(', ')} and 3 more`);
	});

	it('lists items as a sentence does', () => {
		expect(itemList([0, 2])).toBe('0 and 2');
		expect(itemList([0, 2, 5])).toBe('0, 2 and 5');
	});

	it('groups the items of a proxy that agree, in first-named order, and sets apart the ones that disagree', () => {
		const wanted = [
			{ item: 0, name: 'A', n: 1 },
			{ item: 1, name: 'B', n: 1 },
			{ item: 2, name: 'A', n: 1 },
			{ item: 3, name: 'C', n: 1 },
			{ item: 4, name: 'C', n: 2 },
		];
		const { groups, conflicts } = groupByProxy(wanted, (a, b) => a.n === b.n);
		expect(groups.map((g) => [g.first.item, g.all.map((w) => w.item)])).toEqual([[0, [0, 2]], [1, [1]]]);
		expect(conflicts.map((all) => all.map((w) => w.item))).toEqual([[3, 4]]);
		expect(repeatsOf(groups)).toEqual([{ item: 2, name: 'A', first: 0, wanted: wanted[2] }]);
	});

	it('adds a batch\u2019s context to an error description, with or without one before', () => {
		const withOne = { description: 'It failed.' };
		addToDescription(withOne, 'This was batch 2 of 3.');
		expect(withOne.description).toBe('It failed. This was batch 2 of 3.');
		const without: { description?: string } = {};
		addToDescription(without, 'This was batch 2 of 3.');
		expect(without.description).toBe('This was batch 2 of 3.');
	});
});
