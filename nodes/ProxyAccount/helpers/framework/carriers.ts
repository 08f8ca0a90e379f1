/**
 * Stock lists carriers as keys (`att`); prices and proxy records use display names (`AT&T`), learned
 * from the account's proxies when possible: these fill in for carriers it has no proxy of yet.
 */
const KNOWN_DISPLAY_NAMES: Record<string, string> = {
	att: 'AT&T',
	verizon: 'Verizon',
	tmobile: 'T-Mobile',
};

export function carrierKey(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Whether a carrier key has a display name without asking the service (AT&T, Verizon, T-Mobile). */
export function hasKnownDisplayName(key: string): boolean {
	return Object.prototype.hasOwnProperty.call(KNOWN_DISPLAY_NAMES, key);
}

/** A carrier's display name: as `knownNames` spell it, else the known one, else `Uscellular`, `KT`. */
export function carrierDisplayName(key: string, knownNames: Iterable<string> = []): string {
	for (const name of knownNames) if (carrierKey(name) === key) return name;
	if (hasKnownDisplayName(key)) return KNOWN_DISPLAY_NAMES[key];
	if (key.length <= 3) return key.toUpperCase();
	return key.charAt(0).toUpperCase() + key.slice(1);
}
