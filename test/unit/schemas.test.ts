import { fastAcceptance, isProxyRecord, proxyRecordSchema, responseSchemas } from '../../nodes/ProxyAccount/transport';
import { ProxyAccountSimulator } from '../simulator';

let sim: ProxyAccountSimulator;
beforeAll(async () => {
	sim = await ProxyAccountSimulator.start({ seed: 3, proxies: 30 });
});
afterAll(async () => await sim.stop());

const records = () => [...sim.account().proxies.values()].map((record) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>);

// Values of every JSON type, to put in place of each field.
const REPLACEMENTS: unknown[] = [undefined, null, 'text', '', 7, 7.5, -1, true, false, [], {}, ['a'], { a: 1 }];

describe('fast acceptance of proxy records agrees with the zod schema', () => {
	it('for every documented field, missing or of any JSON type', () => {
		const base = records()[0];
		let compared = 0;
		for (const field of Object.keys(proxyRecordSchema.shape)) {
			for (const value of REPLACEMENTS) {
				const record = { ...base };
				if (value === undefined) delete record[field];
				else record[field] = value;
				expect({ field, value, fast: isProxyRecord(record) }).toEqual({ field, value, fast: proxyRecordSchema.safeParse(record).success });
				compared++;
			}
		}
		expect(compared).toBe(25 * REPLACEMENTS.length);
	});

	it('accepts every simulator record with extra fields, as zod does', () => {
		const body = { ok: true, data: records().map((record) => ({ ...record, brand_new: 1 })) };
		expect(responseSchemas.proxyList.safeParse(body).success).toBe(true);
		expect(fastAcceptance.get(responseSchemas.proxyList)?.(body)).toBe(true);
		expect(fastAcceptance.get(responseSchemas.proxy)?.({ ok: true, data: body.data[0] })).toBe(true);
	});

	it.each([
		['ok false', { ok: false, data: [] }],
		['ok missing', { data: [] }],
		['message not a string', { ok: true, message: 5, data: [] }],
		['data not an array', { ok: true, data: {} }],
		['a record that is an array', { ok: true, data: [[]] }],
	])('leaves %s to zod, which refuses it too', (_label, body) => {
		expect(fastAcceptance.get(responseSchemas.proxyList)?.(body)).toBe(false);
		expect(responseSchemas.proxyList.safeParse(body).success).toBe(false);
	});
});
