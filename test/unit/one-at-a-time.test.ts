/**
 * helpers/guards/oneAtATime.ts: runs of one credential (id and Base URL) go one at a time in a process; a
 * failed run does not hold up the next; other credentials or Base URLs do not wait.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { oneAtATime } from '../../nodes/ProxyAccount/helpers/guards/oneAtATime';

const ctx = (id: string, baseUrl: string) =>
	({
		getNode: () => ({ credentials: { proxyAccountApi: { id, name: id } } }),
		getCredentials: async () => ({ baseUrl, apiKey: 'k' }),
	}) as unknown as IExecuteFunctions;

const tick = async () => await Promise.resolve();

describe('oneAtATime', () => {
	it('runs of one credential never overlap, in the order they came; a failure does not hold up the next', async () => {
		const log: string[] = [];
		let open = 0;
		const work = (name: string, fail = false) => async () => {
			open++;
			expect(open).toBe(1);
			log.push(`start ${name}`);
			await tick();
			await tick();
			log.push(`end ${name}`);
			open--;
			if (fail) throw new Error(name);
			return name;
		};
		const a = ctx('cred-1', 'http://127.0.0.1:1');
		const results = await Promise.allSettled([oneAtATime(a, work('one')), oneAtATime(a, work('two', true)), oneAtATime(a, work('three'))]);
		expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
		expect(log).toEqual(['start one', 'end one', 'start two', 'end two', 'start three', 'end three']);
	});

	it('another credential, or the same one at another Base URL, does not wait', async () => {
		let release!: () => void;
		const held = new Promise<void>((resolve) => (release = resolve));
		const first = oneAtATime(ctx('cred-1', 'http://127.0.0.1:1'), async () => await held);
		const other = await oneAtATime(ctx('cred-2', 'http://127.0.0.1:1'), async () => 'other credential');
		const elsewhere = await oneAtATime(ctx('cred-1', 'http://127.0.0.1:2'), async () => 'other Base URL');
		expect([other, elsewhere]).toEqual(['other credential', 'other Base URL']);
		release();
		await first;
	});
});
