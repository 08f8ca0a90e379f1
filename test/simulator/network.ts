/* eslint-disable @n8n/community-nodes/no-restricted-imports -- the service simulator, run by Node under jest and ts-node; never shipped */
/**
 * Address checks of the simulator's IP-whitelist endpoint: an entry is an IPv4 or IPv6 address, or
 * one with a CIDR prefix length (0-32 for IPv4, 0-128 for IPv6). Written independently of the
 * node's own check, so a test compares two implementations.
 */
import { isIP } from 'node:net';

/** Whether `entry` is an IP address or a CIDR range; the reason when it is not. */
export function whitelistEntryProblem(entry: string): string | null {
	if (entry === '') return 'is empty';
	const slash = entry.indexOf('/');
	const address = slash === -1 ? entry : entry.slice(0, slash);
	const family = isIP(address);
	if (family === 0 || address.includes('%')) return 'is not an IP address';
	if (slash === -1) return null;
	const prefix = entry.slice(slash + 1);
	const max = family === 4 ? 32 : 128;
	if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `has a prefix length that is not 0 to ${max}`;
	return null;
}

/** The entries of an `authorize_ip` string: split on commas, trimmed. */
export function whitelistEntries(text: string): string[] {
	return text.split(',').map((entry) => entry.trim());
}
