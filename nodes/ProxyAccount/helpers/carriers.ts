/**
 * Stock lists carriers as lowercase keys without punctuation (`att`); prices and proxy records use
 * display names (`AT&T`). Display names are learned from the account's proxies when possible; the
 * known ones below only fill in for carriers the account has no proxy of yet.
 */
const KNOWN_DISPLAY_NAMES: Record<string, string> = {
	att: 'AT&T',
	verizon: 'Verizon',
	tmobile: 'T-Mobile',
};

export function carrierKey(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function carrierDisplayName(key: string, knownNames: Iterable<string> = []): string {
	for (const name of knownNames) if (carrierKey(name) === key) return name;
	return KNOWN_DISPLAY_NAMES[key] ?? key;
}
