/**
 * The transport's fast check of a proxy record (`isProxyRecord`, written out for speed) accepts
 * exactly what `proxyRecordSchema` (zod) accepts: every documented field, each given a value of
 * every other kind, and left out.
 */
import { isProxyRecord, proxyRecordSchema } from '../../nodes/ProxyAccount/transport/schemas';
import { proxy } from '../fixtures/records';

const VALUES: unknown[] = ['text', '', 5, 1.5, Number.NaN, true, null, undefined, [], {}];

describe('isProxyRecord agrees with proxyRecordSchema', () => {
	it('accepts a valid record, with extra fields', () => {
		expect(isProxyRecord({ ...proxy('A'), country: 'US' })).toBe(true);
		expect(proxyRecordSchema.safeParse(proxy('A')).success).toBe(true);
	});

	it.each(Object.keys(proxyRecordSchema.shape))('%s: every kind of value, and left out', (field) => {
		for (const value of VALUES) {
			const record: Record<string, unknown> = { ...proxy('A'), [field]: value };
			if (value === undefined) delete record[field];
			expect([field, value, isProxyRecord(record)]).toEqual([field, value, proxyRecordSchema.safeParse(record).success]);
		}
	});

	it('refuses what is not an object', () => {
		for (const value of [null, [], 'x', 5]) expect(isProxyRecord(value)).toBe(false);
	});
});
