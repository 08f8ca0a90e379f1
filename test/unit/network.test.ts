/**
 * The IP whitelist's checks (actions/proxy/setAuthentication.whitelist.ts): IPv4 and IPv6 addresses, CIDR ranges, the
 * parser's errors (item, field, the bad entry, how to fix it), compared with Node's own isIP.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (node:net as the reference); never shipped */
import { isIP } from 'node:net';

import { isIpv4, isIpv6, parseWhitelist, whitelistEntryProblem, whitelistList } from '../../nodes/ProxyAccount/actions/proxy/setAuthentication.whitelist';
import { NODE } from '../fixtures/records';

const V4 = ['0.0.0.0', '1.2.3.4', '255.255.255.255', '203.0.113.7', '10.0.0.1'];
const NOT_V4 = ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.4 ', 'a.b.c.d', '', '1..2.3', '-1.2.3.4'];
const V6 = ['::', '::1', '2001:db8::', '2001:db8::1', 'fe80::1:2:3:4', '2001:0db8:0000:0000:0000:ff00:0042:8329', '::ffff:192.0.2.128', '1:2:3:4:5:6:7::', '1::8', '64:ff9b::192.0.2.33'];
const NOT_V6 = [':', ':::', '1:2:3:4:5:6:7:8:9', '2001:db8:::1', '1::2::3', 'g::1', '12345::1', '1:2:3:4:5:6:7', '::ffff:999.0.2.1', 'fe80::1%eth0', '1.2.3.4'];

describe('IP addresses', () => {
	it.each(V4)('%s is IPv4', (text) => expect(isIpv4(text)).toBe(true));
	it.each(NOT_V4)('%j is not IPv4', (text) => expect(isIpv4(text)).toBe(false));
	it.each(V6)('%s is IPv6 (as for node:net)', (text) => {
		expect(isIpv6(text)).toBe(true);
		expect(isIP(text)).toBe(6);
	});
	it.each(NOT_V6)('%j is not IPv6', (text) => expect(isIpv6(text)).toBe(false));
});

describe('whitelist entries', () => {
	it.each(['1.2.3.4', '5.6.7.0/24', '0.0.0.0/0', '1.2.3.4/32', '2001:db8::/32', '::/0', '::1/128'])('%s is accepted', (entry) => {
		expect(whitelistEntryProblem(entry)).toBeUndefined();
	});
	it.each([
		['1.2.3.4/33', /from 0 to 32 for an IPv4 range/],
		['2001:db8::/129', /from 0 to 128 for an IPv6 range/],
		['1.2.3.4/', /prefix length/],
		['1.2.3.4/x', /prefix length/],
		['example.com', /not an IP address/],
		['1.2.3.4/24/8', /prefix length/],
	])('%s is refused: %s', (entry, problem) => {
		expect(whitelistEntryProblem(entry)).toMatch(problem);
	});
});

describe('parseWhitelist', () => {
	it('reads commas, spaces and line breaks, trims, drops duplicates and empty entries', () => {
		expect(parseWhitelist(NODE, 0, ' 1.2.3.4, 5.6.7.0/24\n2001:db8::/32,,1.2.3.4 ')).toEqual(['1.2.3.4', '5.6.7.0/24', '2001:db8::/32']);
		expect(parseWhitelist(NODE, 0, ['1.2.3.4', ' ::1 '])).toEqual(['1.2.3.4', '::1']);
	});

	it.each([
		['1.2.3.4, 1.2.3.999', 3, /^IP Whitelist holds \u201c1\.2\.3\.999\u201d, which is not an IP address or a CIDR range \[item 3\]$/],
		['10.0.0.0/40', 1, /^IP Whitelist holds \u201c10\.0\.0\.0\/40\u201d, whose prefix length must be a whole number from 0 to 32 for an IPv4 range \[item 1\]$/],
		['', 0, /^IP Whitelist is empty: it needs at least one IP address or CIDR range \[item 0\]$/],
		[' , ', 0, /^IP Whitelist is empty/],
		[42, 2, /^IP Whitelist must be a list of IP addresses or CIDR ranges, but it is 42 \[item 2\]$/],
		[['1.2.3.4', 7], 0, /^IP Whitelist holds 7, which is not/],
	])('%j at item %i is refused before any request: %s', (value, item, message) => {
		let thrown: unknown;
		try {
			parseWhitelist(NODE, item, value);
		} catch (error) {
			thrown = error;
		}
		expect((thrown as Error).message).toMatch(message);
		expect((thrown as { description?: string }).description).toMatch(/^Enter IPv4 or IPv6 addresses or CIDR ranges separated by commas, e\.g\./);
	});
});

describe('whitelistList (the reply\u2019s whitelist)', () => {
	it('reads a comma-separated string, a list, and nothing', () => {
		expect(whitelistList('1.2.3.4, 5.6.7.0/24')).toEqual(['1.2.3.4', '5.6.7.0/24']);
		expect(whitelistList(['1.2.3.4', 5])).toEqual(['1.2.3.4']);
		expect(whitelistList(null)).toEqual([]);
		expect(whitelistList('')).toEqual([]);
	});
});
