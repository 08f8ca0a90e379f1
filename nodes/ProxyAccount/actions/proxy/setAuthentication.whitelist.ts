/* IP addresses and CIDR ranges for the IP whitelist: parsed here, before anything is sent. */
import type { INode } from 'n8n-workflow';

import { invalidParameter, shown } from '../../helpers/framework/validation';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4_RE = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);
const HEX_GROUP_RE = /^[0-9a-f]{1,4}$/i;

/** A dotted IPv4 address, four decimal octets without leading zeros, e.g. 203.0.113.7. */
export const isIpv4 = (text: string): boolean => IPV4_RE.test(text);

/** An IPv6 address in any RFC 4291 text form (`::` once at most, an IPv4 tail allowed), no zone. */
export function isIpv6(text: string): boolean {
	if (!text.includes(':')) return false;
	const halves = text.split('::');
	if (halves.length > 2) return false;
	const groups = (half: string) => (half === '' ? [] : half.split(':'));
	const head = groups(halves[0]);
	const tail = halves.length === 2 ? groups(halves[1]) : [];
	const all = [...head, ...tail];
	let count = all.length;
	const last = all[all.length - 1];
	if (last !== undefined && last.includes('.')) {
		if (!isIpv4(last)) return false;
		all.pop();
		count += 1; // an IPv4 tail stands for two groups
	}
	if (!all.every((group) => HEX_GROUP_RE.test(group))) return false;
	return halves.length === 2 ? count <= 7 : count === 8;
}

/** Why `entry` is not an IP address or CIDR range (IPv4 or IPv6), or undefined when it is one. */
export function whitelistEntryProblem(entry: string): string | undefined {
	const slash = entry.indexOf('/');
	const address = slash === -1 ? entry : entry.slice(0, slash);
	const v4 = isIpv4(address);
	if (!v4 && !isIpv6(address)) return 'which is not an IP address or a CIDR range';
	if (slash === -1) return undefined;
	const prefix = entry.slice(slash + 1);
	const max = v4 ? 32 : 128;
	if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
		return `whose prefix length must be a whole number from 0 to ${max} for an ${v4 ? 'IPv4' : 'IPv6'} range`;
	return undefined;
}

const WHITELIST_FIX =
	'Enter IPv4 or IPv6 addresses or CIDR ranges separated by commas, e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32.';

/**
 * The entries of an IP whitelist: a text of entries separated by commas, spaces or line breaks,
 * or a list (from an expression). Each is checked; duplicates are dropped; at least one is needed.
 * A bad entry fails with the item, the field and the entry itself.
 */
export function parseWhitelist(node: INode, itemIndex: number, value: unknown): string[] {
	const refuse = (problem: string) =>
		invalidParameter(node, itemIndex, 'IP Whitelist', problem, WHITELIST_FIX);
	let parts: unknown[];
	if (typeof value === 'string') parts = value.split(/[\s,;]+/);
	else if (Array.isArray(value)) parts = value;
	else throw refuse(`must be a list of IP addresses or CIDR ranges, but it is ${shown(value)}`);
	const entries: string[] = [];
	for (const part of parts) {
		if (typeof part !== 'string')
			throw refuse(`holds ${shown(part)}, which is not an IP address or a CIDR range`);
		const entry = part.trim();
		if (entry === '') continue;
		const problem = whitelistEntryProblem(entry);
		if (problem) throw refuse(`holds ${shown(entry)}, ${problem}`);
		if (!entries.includes(entry)) entries.push(entry);
	}
	if (entries.length === 0)
		throw refuse('is empty: it needs at least one IP address or CIDR range');
	return entries;
}

/** The entries of a whitelist as the service returns it: a comma-separated string, or a list. */
export function whitelistList(value: unknown): string[] {
	if (Array.isArray(value))
		return value.filter((entry): entry is string => typeof entry === 'string');
	if (typeof value !== 'string') return [];
	return value
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}
