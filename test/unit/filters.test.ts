/**
 * Filters as both nodes read them (no engine): comma lists, carrier keys and display names, and
 * which proxies and stock places match.
 */
import type { IDataObject } from 'n8n-workflow';

import { carrierDisplayName, carrierKey } from '../../nodes/ProxyAccount/helpers/framework/carriers';
import { FILTER_NODE } from '../harness/filter-node';
import { matchesProxyFilters, matchesStockPlace, splitNames, readPlaceFilters, readProxyFilters } from '../../nodes/ProxyAccount/helpers/framework/filters';
import { proxy, stockEntry } from '../fixtures/records';

describe('carrierKey and carrierDisplayName', () => {
	it.each([
		['AT&T', 'att'],
		['att', 'att'],
		['T-Mobile', 'tmobile'],
		[' Verizon ', 'verizon'],
		['US Cellular 5G', 'uscellular5g'],
		['&-', ''],
	])('%p has the key %p', (name, key) => {
		expect(carrierKey(name)).toBe(key);
	});

	it('a name learned from the account wins, then the known names, then the key made readable', () => {
		expect(carrierDisplayName('att', ['Verizon', 'At&T', 'AT&T'])).toBe('At&T');
		expect(carrierDisplayName('att')).toBe('AT&T');
		expect(carrierDisplayName('verizon')).toBe('Verizon');
		expect(carrierDisplayName('tmobile', new Set(['Verizon']))).toBe('T-Mobile');
		expect(carrierDisplayName('uscellular', ['US Cellular'])).toBe('US Cellular');
		expect(carrierDisplayName('newco')).toBe('Newco');
		expect(carrierDisplayName('kt')).toBe('KT');
	});
});

describe('splitNames', () => {
	it.each<[unknown, string[]]>([
		['Austin, Cleveland', ['austin', 'cleveland']],
		[' TX ,, ,ok,', ['tx', 'ok']],
		['', []],
		[' , ', []],
		[12, ['12']],
		[null, []],
		[undefined, []],
		[['Austin'], []],
		[{ city: 'Austin' }, []],
	])('%p is %p', (value, expected) => {
		expect(splitNames(value)).toEqual(expected);
	});
});

describe('readPlaceFilters and readProxyFilters', () => {
	it('reads an empty collection as no filter', () => {
		expect(readPlaceFilters(FILTER_NODE, undefined, {})).toEqual({ cities: [], states: [], carriers: [] });
		expect(readProxyFilters(FILTER_NODE, undefined, {})).toEqual({ cities: [], states: [], carriers: [], nameContains: '' });
	});

	it('lower-cases the lists, keys the carrier and trims the name text', () => {
		expect(readProxyFilters(FILTER_NODE, undefined, { city: 'Austin, San Antonio', state: 'TX', carrier: 'AT&T', nameContains: '  AU1 ' })).toEqual({
			cities: ['austin', 'san antonio'],
			states: ['tx'],
			carriers: ['att'],
			nameContains: 'au1',
		});
		expect(readProxyFilters(FILTER_NODE, undefined, { nameContains: 42 }).nameContains).toBe('42');
	});

	it('a carrier without letters or digits is no carrier filter', () => {
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: '' }).carriers).toEqual([]);
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: ' - ' }).carriers).toEqual([]);
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: null }).carriers).toEqual([]);
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: [] }).carriers).toEqual([]);
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: ['', ' - '] }).carriers).toEqual([]);
	});

	it('a filter that is not text (an object, an array, a number for Carrier) is refused, naming it, instead of read as no filter', () => {
		expect(() => readPlaceFilters(FILTER_NODE, 1, { carrier: 7 })).toThrow('Carrier Names or IDs must be carrier names, but it holds 7 [item 1]');
		expect(() => readPlaceFilters(FILTER_NODE, 1, { carrier: [7] })).toThrow('Carrier Names or IDs must be carrier names, but it holds 7 [item 1]');
		expect(() => readPlaceFilters(FILTER_NODE, 0, { city: {} })).toThrow(/^City must be text, but it is /);
		expect(() => readProxyFilters(FILTER_NODE, undefined, { state: ['TX'] })).toThrow(/^State must be text, but it is /);
		expect(() => readProxyFilters(FILTER_NODE, undefined, { nameContains: true })).toThrow(/^Name Contains must be text, but it is /);
	});

	it('several carriers: a list from the dropdown, or a comma-separated text from an expression, without repeats', () => {
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: ['AT&T', 'tmobile', 'att'] }).carriers).toEqual(['att', 'tmobile']);
		expect(readPlaceFilters(FILTER_NODE, undefined, { carrier: 'Verizon, T-Mobile' }).carriers).toEqual(['verizon', 'tmobile']);
	});
});

describe('matchesProxyFilters', () => {
	const austin = proxy('PRX-US-AU1-0001', { nickname: 'Office Router', city: 'Austin', state: 'TX', isp: 'T-Mobile' });
	const match = (filters: IDataObject) => matchesProxyFilters(austin, readProxyFilters(FILTER_NODE, undefined, filters));

	it('no filter matches every proxy', () => {
		expect(match({})).toBe(true);
	});

	it('city and state: any listed, not case-sensitive, the record trimmed', () => {
		expect(match({ city: 'cleveland, AUSTIN' })).toBe(true);
		expect(match({ city: 'Cleveland' })).toBe(false);
		expect(match({ state: 'tx' })).toBe(true);
		expect(match({ state: 'OK' })).toBe(false);
		expect(matchesProxyFilters(proxy('P', { city: ' Austin ' }), readProxyFilters(FILTER_NODE, undefined, { city: 'austin' }))).toBe(true);
		// Both must match.
		expect(match({ city: 'Austin', state: 'OK' })).toBe(false);
	});

	it('carrier: by key, from the display name or the key', () => {
		expect(match({ carrier: 'tmobile' })).toBe(true);
		expect(match({ carrier: 'T-Mobile' })).toBe(true);
		expect(match({ carrier: 'AT&T' })).toBe(false);
		expect(match({ carrier: ['AT&T', 'T-Mobile'] })).toBe(true);
		expect(match({ carrier: ['att', 'verizon'] })).toBe(false);
	});

	it('name contains: in the name or the nickname, not case-sensitive', () => {
		expect(match({ nameContains: 'au1' })).toBe(true);
		expect(match({ nameContains: 'ROUTER' })).toBe(true);
		expect(match({ nameContains: 'denver' })).toBe(false);
		expect(matchesProxyFilters(proxy('PRX-1', { nickname: null }), readProxyFilters(FILTER_NODE, undefined, { nameContains: 'null' }))).toBe(false);
	});

	it('every filter must match', () => {
		expect(match({ city: 'Austin', state: 'TX', carrier: 'tmobile', nameContains: 'office' })).toBe(true);
		expect(match({ city: 'Austin', state: 'TX', carrier: 'verizon', nameContains: 'office' })).toBe(false);
	});
});

describe('matchesStockPlace', () => {
	const entry = stockEntry('Austin', 'TX', 'available', { att: 1 });

	it('city and state only: a carrier filter is left to the caller', () => {
		expect(matchesStockPlace(entry, readPlaceFilters(FILTER_NODE, undefined, {}))).toBe(true);
		expect(matchesStockPlace(entry, readPlaceFilters(FILTER_NODE, undefined, { city: 'austin', state: 'tx' }))).toBe(true);
		expect(matchesStockPlace(entry, readPlaceFilters(FILTER_NODE, undefined, { city: 'denver' }))).toBe(false);
		expect(matchesStockPlace(entry, readPlaceFilters(FILTER_NODE, undefined, { state: 'co' }))).toBe(false);
		expect(matchesStockPlace(entry, readPlaceFilters(FILTER_NODE, undefined, { carrier: 'verizon' }))).toBe(true);
	});
});
