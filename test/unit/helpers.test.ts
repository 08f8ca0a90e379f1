/**
 * Small pure helpers (no engine, no HTTP): matching quote lines to the quote's items, the quote
 * coverage check, carrier counts of a stock entry, display options of an operation's properties,
 * proxy and stock output items, and hours until an expiry.
 */

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { properties as getAllProperties } from '../../nodes/ProxyAccount/actions/proxy/getAll.operation';
import { proxyOutput, SIMPLE_PROXY_FIELDS, stockOutput } from '../../nodes/ProxyAccount/helpers/framework/output';
import { linesWithPrices } from '../../nodes/ProxyAccount/helpers/money/quote';
import { expiresWithin, hoursUntil, timeLeftText } from '../../nodes/ProxyAccount/helpers/framework/time';
import type { QuoteLine } from '../../nodes/ProxyAccount/transport/catalogue';
import { quoteCoverage } from '../../nodes/ProxyAccount/transport/catalogue';
import { carrierCounts } from '../../nodes/ProxyAccount/transport/schemas';
import type { QuoteData } from '../../nodes/ProxyAccount/transport/schemas';
import { HOUR, iso, proxy, stockEntry, T0 } from '../fixtures/records';

/** A quote whose periods hold items priced 1, 2, 3… under the given keys. */
function quote(periods: Record<string, string[]>): QuoteData {
	const amounts = { standard: 0, member: 0, due: 0 };
	return {
		member: false,
		periods: Object.fromEntries(
			Object.entries(periods).map(([period, keys]) => [
				period,
				{
					individual: Object.fromEntries(keys.map((key, i) => [key, { interval: 1, standard: i + 1, member: i + 1, total: i + 1 }])),
					bulk: { individual: 0, price: null },
					total: amounts,
				},
			]),
		),
		savings: { member: {}, bulk: {}, interval: 0, total: 0 },
		total: amounts,
	};
}

const line = (isp: string, period: string): QuoteLine => ({ isp, location: 'Austin, TX', interval: 1, period });

describe('linesWithPrices', () => {
	it('lines of two periods interleaved: the n-th line of a period gets the n-th item of that period', () => {
		const lines = [line('AT&T', 'weekly'), line('Verizon', 'monthly'), line('T-Mobile', 'weekly'), line('AT&T', 'monthly')];
		const q = quote({ weekly: ['w-a', 'w-b'], monthly: ['m-a', 'm-b'] });
		const paired = linesWithPrices(lines, q);
		expect(paired.map((entry) => [entry.line.isp, entry.line.period, entry.key, entry.item?.total])).toEqual([
			['AT&T', 'weekly', 'w-a', 1],
			['Verizon', 'monthly', 'm-a', 1],
			['T-Mobile', 'weekly', 'w-b', 2],
			['AT&T', 'monthly', 'm-b', 2],
		]);
		expect(paired[0].line).toBe(lines[0]);
		expect(paired[1].period).toBe(q.periods.monthly);
	});

	it('a missing period or a missing item leaves the line without a key or an item', () => {
		const lines = [line('AT&T', 'weekly'), line('Verizon', 'weekly'), line('T-Mobile', 'daily')];
		const paired = linesWithPrices(lines, quote({ weekly: ['w-a'] }));
		expect(paired.map((entry) => [entry.key, entry.item?.total])).toEqual([
			['w-a', 1],
			[undefined, undefined],
			[undefined, undefined],
		]);
		expect(paired[1].period).toBeDefined();
		expect(paired[2].period).toBeUndefined();
	});

	it('no lines, no pairs', () => {
		expect(linesWithPrices([], quote({ weekly: ['w-a'] }))).toEqual([]);
	});
});

describe('quoteCoverage', () => {
	it('a quote with an item for every line of every period covers them', () => {
		const lines = [line('AT&T', 'weekly'), line('Verizon', 'monthly'), line('T-Mobile', 'weekly')];
		expect(quoteCoverage(lines, quote({ weekly: ['a', 'b'], monthly: ['c'] }))).toBeUndefined();
		expect(quoteCoverage(lines, quote({ weekly: ['a', 'b', 'c'], monthly: ['d'], daily: ['e'] }))).toBeUndefined();
		expect(quoteCoverage([], quote({}))).toBeUndefined();
	});

	it('a requested period missing from the quote', () => {
		expect(quoteCoverage([line('AT&T', 'weekly'), line('AT&T', 'monthly')], quote({ weekly: ['a'] }))).toEqual({ field: 'data.periods.monthly', issue: 'is missing' });
	});

	it('a period name inherited from Object.prototype is missing too', () => {
		expect(quoteCoverage([line('AT&T', 'constructor')], quote({}))).toEqual({ field: 'data.periods.constructor', issue: 'is missing' });
	});

	it('fewer items than lines in a period', () => {
		const lines = [line('AT&T', 'weekly'), line('Verizon', 'weekly'), line('T-Mobile', 'weekly')];
		expect(quoteCoverage(lines, quote({ weekly: ['a'] }))).toEqual({ field: 'data.periods.weekly.individual', issue: 'has 1 item for 3 lines' });
		expect(quoteCoverage(lines, quote({ weekly: ['a', 'b'] }))).toEqual({ field: 'data.periods.weekly.individual', issue: 'has 2 items for 3 lines' });
		expect(quoteCoverage(lines.slice(0, 2), quote({ weekly: [] }))).toEqual({ field: 'data.periods.weekly.individual', issue: 'has 0 items for 2 lines' });
	});
});

describe('carrierCounts', () => {
	it('every integer field that is not a documented one is a carrier count', () => {
		expect(carrierCounts({ city: 'Austin', state: 'TX', status: 'available', open: true, visible: false, att: 3, verizon: 0, newco: -1 })).toEqual({ att: 3, verizon: 0, newco: -1 });
	});

	it('ignores values that are not whole numbers, and documented fields whatever their type', () => {
		expect(carrierCounts({ att: 2.5, verizon: '3', tmobile: null, uscellular: true, other: [1], open: 1, visible: 0, city: 1, state: 2, status: 3 })).toEqual({});
	});
});

describe("each operation's properties show only for it (n8n's updateDisplayOptions in the registry)", () => {
	const properties = new ProxyAccount().description.properties;

	it('adds the resource and the operation, keeping each property’s own conditions', () => {
		const limit = properties.find((p) => p.name === 'limit' && p.displayOptions?.show?.resource?.[0] === 'proxy');
		expect(limit?.displayOptions).toEqual({ show: { returnAll: [false], resource: ['proxy'], operation: ['getAll'] } });
		const extendDryRunNotice = properties.find((p) => p.name === 'extendToolNotice');
		expect(extendDryRunNotice?.displayOptions).toEqual({ show: { '@tool': [true], resource: ['proxy'], operation: ['extend'] } });
	});

	it('leaves the operation’s own declarations unchanged', () => {
		expect(getAllProperties.find((p) => p.name === 'limit')?.displayOptions).toEqual({ show: { returnAll: [false] } });
	});
});

describe('proxyOutput', () => {
	const record = proxy('PRX-1', { expires_at: iso(T0 + 36 * HOUR), country: 'US' } as Partial<ReturnType<typeof proxy>>);

	it('simplified: the listed fields, then the hours left; no password', () => {
		const out = proxyOutput(record, { simplify: true, includePassword: false, now: T0 });
		expect(Object.keys(out)).toEqual([...SIMPLE_PROXY_FIELDS, 'expires_in_hours']);
		expect(out).toMatchObject({ proxy_name: 'PRX-1', isp: 'AT&T', username: 'u_PRX-1', expires_in_hours: 36 });
		expect(out).not.toHaveProperty('password');
		expect(out).not.toHaveProperty('country');
	});

	it('simplified with the password when asked', () => {
		const out = proxyOutput(record, { simplify: true, includePassword: true, now: T0 });
		expect(out.password).toBe('secret');
		expect(Object.keys(out)).toEqual([...SIMPLE_PROXY_FIELDS, 'expires_in_hours', 'password']);
	});

	it('raw: every field, extra ones included, without the password unless asked, plus the hours left', () => {
		const out = proxyOutput(record, { simplify: false, includePassword: false, now: T0 });
		const rest: Record<string, unknown> = { ...record };
		delete rest.password;
		expect(out).toEqual({ ...rest, expires_in_hours: 36 });
		expect(proxyOutput(record, { simplify: false, includePassword: true, now: T0 })).toEqual({ ...record, expires_in_hours: 36 });
		// The record itself keeps its password.
		expect(record.password).toBe('secret');
	});

	it('the hours left are negative once expired and null when the expiry cannot be read', () => {
		expect(proxyOutput(proxy('P', { expires_at: iso(T0 - 90 * 60_000) }), { simplify: true, includePassword: false, now: T0 }).expires_in_hours).toBe(-1.5);
		expect(proxyOutput(proxy('P', { expires_at: 'never' }), { simplify: false, includePassword: false, now: T0 }).expires_in_hours).toBeNull();
	});
});

describe('stockOutput', () => {
	const entry = stockEntry('Austin', 'TX', 'available', { att: 3, verizon: 4, tmobile: 0 });

	it('the entry as returned, its carriers as a map, and their total', () => {
		expect(stockOutput(entry)).toEqual({ city: 'Austin', state: 'TX', status: 'available', open: true, visible: true, att: 3, verizon: 4, tmobile: 0, carriers: { att: 3, verizon: 4, tmobile: 0 }, total: 7 });
	});

	it('with carriers, the total counts those carriers only (0 for one the entry has not)', () => {
		expect(stockOutput(entry, ['verizon']).total).toBe(4);
		expect(stockOutput(entry, ['att', 'verizon']).total).toBe(7);
		expect(stockOutput(entry, ['tmobile']).total).toBe(0);
		expect(stockOutput(entry, ['uscellular']).total).toBe(0);
		expect(stockOutput(entry, ['verizon']).carriers).toEqual({ att: 3, verizon: 4, tmobile: 0 });
	});

	it('no carriers: a total of 0', () => {
		expect(stockOutput(stockEntry('Miami', 'FL', 'out', {})).total).toBe(0);
	});
});

describe('hoursUntil and expiresWithin', () => {
	it.each<[unknown, number | null]>([
		[iso(T0 + 24 * HOUR), 24],
		[iso(T0 + 90 * 60_000), 1.5],
		[iso(T0 + 20_000), 0.01],
		[iso(T0 + 17_000), 0],
		[iso(T0), 0],
		[iso(T0 - 3 * HOUR), -3],
		['2025-03-01T08:00:00-06:00', 2],
		['tomorrow', null],
		['', null],
		[null, null],
		[Date.now(), null],
	])('hoursUntil(%p) is %p', (timestamp, expected) => {
		expect(hoursUntil(timestamp, T0)).toBe(expected);
	});

	it('within the window to the millisecond, an expired proxy included; never for an unreadable expiry', () => {
		expect(expiresWithin(iso(T0 + 24 * HOUR), T0, 24)).toBe(true);
		expect(expiresWithin(iso(T0 + 24 * HOUR + 1), T0, 24)).toBe(false);
		expect(expiresWithin(iso(T0 - 100 * HOUR), T0, 24)).toBe(true);
		expect(expiresWithin(iso(T0), T0, 0)).toBe(true);
		expect(expiresWithin(iso(T0 + 1), T0, 0)).toBe(false);
		expect(expiresWithin(iso(T0 + 30 * 60_000), T0, 0.5)).toBe(true);
		expect(expiresWithin('soon', T0, 1e9)).toBe(false);
		expect(expiresWithin(undefined, T0, 1e9)).toBe(false);
	});
});

describe('timeLeftText', () => {
	const now = Date.parse('2025-03-01T12:00:00.000Z');
	const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
	it.each([
		[at(-5), 'expired'],
		[at(0), 'expired'],
		[at(45), 'expires in 45 min'],
		[at(60 * 5 + 10), 'expires in 5 h'],
		[at(1440 * 3), 'expires in 3 d'],
		[at(1440 * 3 + 60 * 4 + 59), 'expires in 3 d 4 h'],
		['not a date', 'expiry unknown'],
		[null, 'expiry unknown'],
	])('%s -> %s', (timestamp, text) => {
		expect(timeLeftText(timestamp, now)).toBe(text);
	});
});
