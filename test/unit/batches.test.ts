/**
 * The per-proxy batch pipeline of Extend, Set Auto-Renew and Remove (helpers/money/batches.ts): grouping
 * the items that name the same proxy, chunking, and the lists a batch's message names.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { itemResults } from '../../nodes/ProxyAccount/helpers/framework/batchedRun';
import { addToDescription, chunk, collectRequests, doneBefore, itemList, joinNames } from '../../nodes/ProxyAccount/helpers/money/batches';
import { NODE } from '../fixtures/records';

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

	it('collects one request per proxy in first-named order: repeats stand behind the first, disagreeing items all fail', () => {
		const wanted = [
			{ item: 0, name: 'A', n: 1 },
			{ item: 1, name: 'B', n: 1 },
			{ item: 2, name: 'A', n: 1 },
			{ item: 3, name: 'C', n: 1 },
			{ item: 4, name: 'C', n: 2 },
		];
		// Only what collectRequests and the run's results read of the node's context.
		const ctx = { getNode: () => NODE, continueOnFail: () => true } as unknown as IExecuteFunctions;
		const run = itemResults(ctx, wanted.length);
		const { unique, repeats } = collectRequests(ctx, run, wanted.length, {
			read: (i) => wanted[i],
			asked: (w) => `n ${w.n}`,
			fields: 'N',
		});
		expect(unique.map((w) => w.item)).toEqual([0, 1]);
		expect(repeats).toEqual([{ item: 2, name: 'A', first: 0, fields: undefined }]);
		expect([...run.failures.keys()]).toEqual([3, 4]);
		expect(run.failures.get(4)?.message).toBe('Proxy \u201cC\u201d is named by items 3 and 4 with different requests (n 1 and n 2) [item 4]');
		expect(run.failures.get(3)?.description).toBe('A proxy is sent once per run: give every item that names it the same N, or remove the extra items. Nothing was sent or charged for this proxy.');
	});

	it('says what the batches before a failed one did', () => {
		expect(doneBefore([], 'extended')).toBe('Before it in this run, the service extended no proxy.');
		expect(doneBefore(['A', 'B'], 'extended', ', charged 9 in all')).toBe('Before it in this run, the service extended 2 proxies: A, B, charged 9 in all.');
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
