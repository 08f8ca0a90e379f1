/**
 * Seeded randomness and the generation of stock cities, proxies and keys.
 *
 * Every generator draws from its own stream derived from (seed, label), so changing the number of
 * proxies does not change the stock and vice versa.
 */
import { createHash } from 'node:crypto';

import { formatTimestamp, PERIOD_MS } from './time';
import type { Period, ProxyRecord, SimCarrier, SimStockCity } from './types';

/** FNV-1a over a string, 32-bit. */
function fnv1a(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h >>> 0;
}

export function deriveSeed(seed: number, label: string): number {
	return fnv1a(`${seed}\u0000${label}`);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const HEX_UPPER = '0123456789ABCDEF';

/** Small deterministic PRNG (a 32-bit splitmix-style generator). */
export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	static derive(seed: number, label: string): Rng {
		return new Rng(deriveSeed(seed, label));
	}

	/** Uniform float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x9e3779b9) >>> 0;
		let z = this.state;
		z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
		z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
		z = (z ^ (z >>> 16)) >>> 0;
		return z / 4294967296;
	}

	/** Integer in [min, max], both inclusive. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(p: number): boolean {
		return this.next() < p;
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	/** Picks by weight: [[value, weight], ...]. */
	weighted<T>(table: ReadonlyArray<readonly [T, number]>): T {
		let total = 0;
		for (const [, w] of table) total += w;
		let r = this.next() * total;
		for (const [value, w] of table) {
			r -= w;
			if (r < 0) return value;
		}
		return table[table.length - 1][0];
	}

	chars(alphabet: string, length: number): string {
		let out = '';
		for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
		return out;
	}

	hexUpper(length: number): string {
		return this.chars(HEX_UPPER, length);
	}
}

/** The demo account's API key for a seed: 'pa_live_' + 32 hex chars. */
/** The Limited key of an account (it may only change IPs), derived from the seed and its master key. */
export function limitedKeyFor(seed: number, apiKey: string): string {
	return `pa_lim_${createHash('sha256').update(`proxy-account-simulator:limited-key:${seed}:${apiKey}`).digest('hex').slice(0, 32)}`;
}

export function demoApiKeyForSeed(seed: number): string {
	return `pa_live_${createHash('sha256').update(`proxy-account-simulator:demo-key:${seed}`).digest('hex').slice(0, 32)}`;
}

export const DEFAULT_CARRIERS: readonly SimCarrier[] = [
	{ key: 'att', name: 'AT&T', code: 'AT' },
	{ key: 'verizon', name: 'Verizon', code: 'VR' },
	{ key: 'tmobile', name: 'T-Mobile', code: 'TM' },
];

/** Two upper-case letters for a city: initials of a multi-word name, else its first two letters. */
export function cityCode(city: string): string {
	const words = city
		.normalize('NFD')
		.replace(/[^A-Za-z\s]/g, '')
		.split(/\s+/)
		.filter((w) => w.length > 0);
	if (words.length === 0) return 'XX';
	const code = words.length >= 2 ? words[0][0] + words[1][0] : words[0].slice(0, 2);
	return code.toUpperCase().padEnd(2, 'X');
}

/** Real US cities; the first three are the ones the service's documentation names. */
const REAL_CITIES: ReadonlyArray<readonly [string, string]> = [
	['Austin', 'TX'],
	['Cleveland', 'OH'],
	['New York', 'NY'],
	['Denver', 'CO'],
	['Miami', 'FL'],
	['Chicago', 'IL'],
	['Los Angeles', 'CA'],
	['Houston', 'TX'],
	['Phoenix', 'AZ'],
	['Philadelphia', 'PA'],
	['San Antonio', 'TX'],
	['San Diego', 'CA'],
	['Dallas', 'TX'],
	['San Jose', 'CA'],
	['Jacksonville', 'FL'],
	['Fort Worth', 'TX'],
	['Columbus', 'OH'],
	['Charlotte', 'NC'],
	['Indianapolis', 'IN'],
	['San Francisco', 'CA'],
	['Seattle', 'WA'],
	['Washington', 'DC'],
	['Boston', 'MA'],
	['El Paso', 'TX'],
	['Nashville', 'TN'],
	['Detroit', 'MI'],
	['Oklahoma City', 'OK'],
	['Portland', 'OR'],
	['Las Vegas', 'NV'],
	['Memphis', 'TN'],
	['Louisville', 'KY'],
	['Baltimore', 'MD'],
	['Milwaukee', 'WI'],
	['Albuquerque', 'NM'],
	['Tucson', 'AZ'],
	['Fresno', 'CA'],
	['Sacramento', 'CA'],
	['Kansas City', 'MO'],
	['Mesa', 'AZ'],
	['Atlanta', 'GA'],
	['Omaha', 'NE'],
	['Colorado Springs', 'CO'],
	['Raleigh', 'NC'],
	['Long Beach', 'CA'],
	['Virginia Beach', 'VA'],
	['Minneapolis', 'MN'],
	['Tampa', 'FL'],
	['New Orleans', 'LA'],
	['Arlington', 'TX'],
	['Wichita', 'KS'],
	['Bakersfield', 'CA'],
	['Aurora', 'CO'],
	['Anaheim', 'CA'],
	['Honolulu', 'HI'],
	['Santa Ana', 'CA'],
	['Riverside', 'CA'],
	['Corpus Christi', 'TX'],
	['Lexington', 'KY'],
	['Stockton', 'CA'],
	['Henderson', 'NV'],
	['Saint Paul', 'MN'],
	['St. Louis', 'MO'],
	['Cincinnati', 'OH'],
	['Pittsburgh', 'PA'],
	['Greensboro', 'NC'],
	['Anchorage', 'AK'],
	['Plano', 'TX'],
	['Lincoln', 'NE'],
	['Orlando', 'FL'],
	['Irvine', 'CA'],
	['Newark', 'NJ'],
	['Toledo', 'OH'],
	['Durham', 'NC'],
	['Chula Vista', 'CA'],
	['Fort Wayne', 'IN'],
	['Jersey City', 'NJ'],
	['St. Petersburg', 'FL'],
	['Laredo', 'TX'],
	['Madison', 'WI'],
	['Chandler', 'AZ'],
	['Buffalo', 'NY'],
	['Lubbock', 'TX'],
	['Scottsdale', 'AZ'],
	['Reno', 'NV'],
	['Glendale', 'AZ'],
	['Gilbert', 'AZ'],
	['Winston-Salem', 'NC'],
	['North Las Vegas', 'NV'],
	['Norfolk', 'VA'],
	['Chesapeake', 'VA'],
	['Garland', 'TX'],
	['Irving', 'TX'],
	['Hialeah', 'FL'],
	['Fremont', 'CA'],
	['Boise', 'ID'],
	['Richmond', 'VA'],
	['Baton Rouge', 'LA'],
	['Spokane', 'WA'],
	['Des Moines', 'IA'],
	['Tacoma', 'WA'],
	['San Bernardino', 'CA'],
	['Modesto', 'CA'],
	['Birmingham', 'AL'],
	['Salt Lake City', 'UT'],
	['Rochester', 'NY'],
	['Little Rock', 'AR'],
	['Providence', 'RI'],
	['Hartford', 'CT'],
	['Charleston', 'SC'],
	['Albany', 'NY'],
	['Burlington', 'VT'],
	['Manchester', 'NH'],
	['Portland', 'ME'],
	['Billings', 'MT'],
	['Fargo', 'ND'],
	['Sioux Falls', 'SD'],
	['Cheyenne', 'WY'],
	['Jackson', 'MS'],
	['Wilmington', 'DE'],
	['Charleston', 'WV'],
];

const US_STATES = [
	'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY',
	'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND',
	'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
] as const;

const NAME_HEADS = [
	'Spring', 'Oak', 'Maple', 'Cedar', 'Pine', 'River', 'Lake', 'Fair', 'Green', 'Clear', 'Red', 'Stone',
	'Silver', 'Golden', 'Elm', 'Ash', 'Willow', 'Brook', 'Glen', 'High', 'Rock', 'Sun', 'Bay', 'Mill',
	'Wood', 'Bright', 'Iron', 'Copper', 'Bell', 'Clay', 'Fox', 'Deer', 'Eagle', 'Hawk', 'Lin', 'Marl',
	'Haw', 'Ever', 'Blue', 'Hazel',
];
const NAME_TAILS = [
	'field', 'dale', 'ton', 'ville', 'wood', 'view', 'port', 'ford', 'burg', 'ridge', 'crest', 'haven',
	'brook', 'side', 'mont', 'land', 'worth', 'bury', 'stead', 'wick',
];
const NAME_FORMS: ReadonlyArray<readonly [(base: string) => string, number]> = [
	[(b) => b, 10],
	[(b) => `New ${b}`, 1],
	[(b) => `${b} Springs`, 1],
	[(b) => `${b} Heights`, 1],
	[(b) => `Fort ${b}`, 1],
	[(b) => `Lake ${b}`, 1],
	[(b) => `Mount ${b}`, 1],
	[(b) => `${b} Falls`, 1],
	[(b) => `${b} City`, 1],
	[(b) => `Port ${b}`, 1],
];

export const MIN_CITIES = 5;
export const MAX_CITIES = 1000;
export const MAX_PROXIES = 10_000;

type CityStatus = 'available' | 'out' | 'coming';

/**
 * Generates `count` distinct stock cities. The first three (Austin, Cleveland, New York) are open
 * with stock for every carrier, the fourth is open and sold out, the fifth is coming; the rest is a
 * seeded mix.
 */
export function generateStock(seed: number, count: number, carriers: readonly SimCarrier[]): SimStockCity[] {
	if (!Number.isInteger(count) || count < MIN_CITIES || count > MAX_CITIES) {
		throw new RangeError(`cities must be an integer from ${MIN_CITIES} to ${MAX_CITIES}, got ${count}`);
	}
	const rng = Rng.derive(seed, 'stock');
	const names: Array<readonly [string, string]> = [];
	const taken = new Set<string>();
	for (const entry of REAL_CITIES) {
		if (names.length >= count) break;
		if (taken.has(entry[0])) continue; // same name in two states (Portland, Charleston): keep the first
		taken.add(entry[0]);
		names.push(entry);
	}
	const nameRng = Rng.derive(seed, 'city-names');
	while (names.length < count) {
		let name = '';
		for (let attempt = 0; attempt < 50; attempt++) {
			const base = nameRng.pick(NAME_HEADS) + nameRng.pick(NAME_TAILS);
			name = nameRng.weighted(NAME_FORMS)(base);
			if (!taken.has(name)) break;
		}
		if (taken.has(name)) name = `${name} ${names.length}`; // never reached in practice, keeps names unique
		taken.add(name);
		names.push([name, nameRng.pick(US_STATES)]);
	}

	return names.map(([city, state], index) => {
		let status: CityStatus;
		if (index < 3) status = 'available';
		else if (index === 3) status = 'out';
		else if (index === 4) status = 'coming';
		else status = rng.weighted<CityStatus>([['available', 65], ['out', 18], ['coming', 17]]);

		const counts: Record<string, number> = {};
		for (const carrier of carriers) counts[carrier.key] = 0;
		if (status === 'available') {
			for (const carrier of carriers) {
				counts[carrier.key] = index < 3 || rng.chance(0.75) ? rng.int(1, 80) : 0;
			}
			if (carriers.length > 0 && carriers.every((c) => counts[c.key] === 0)) {
				counts[rng.pick(carriers).key] = rng.int(1, 40);
			}
		} else if (status === 'coming' && index > 4 && rng.chance(0.3)) {
			// Stock already loaded for a city that is not open yet: still 'coming'.
			for (const carrier of carriers) counts[carrier.key] = rng.int(0, 15);
		}
		const open = status !== 'coming';
		const visible = open ? index < 5 || rng.chance(0.97) : index === 4 || rng.chance(0.5);
		return { city, state, counts, open, visible };
	});
}

export interface ProxyGenerationContext {
	now: number;
	utcOffsetMinutes: number;
	carriers: readonly SimCarrier[];
	cities: readonly SimStockCity[];
	/** Sequence number of the first generated proxy (names are PRX-US-<city><node>-<seq>). */
	firstSeq: number;
}

const PERIOD_WEIGHTS: ReadonlyArray<readonly [Period, number]> = [
	['weekly', 45],
	['monthly', 40],
	['daily', 7],
	['yearly', 5],
	['hourly', 3],
];

const NICKNAMES = ['scraper', 'checkout', 'ads-verify', 'social', 'monitor', 'sneakers', 'seo', 'qa', 'backup'];

/** First octets of each default carrier's mobile address space (for realistic-looking exit IPs). */
const CARRIER_OCTETS: Record<string, readonly number[]> = {
	att: [107, 166, 32],
	verizon: [174, 97, 70],
	tmobile: [172, 100, 208],
};

function publicIp(rng: Rng, firstOctets?: readonly number[]): string {
	let first: number;
	if (firstOctets && firstOctets.length > 0) first = rng.pick(firstOctets);
	else {
		do {
			first = rng.int(23, 223);
		} while (first === 127 || first === 100 || first === 169 || first === 172 || first === 192 || first === 198);
	}
	return `${first}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Builds a proxy name from its city, server node and sequence number. */
export function proxyName(city: string, node: number, seq: number): string {
	return `PRX-US-${cityCode(city)}${node}-${String(seq).padStart(4, '0')}`;
}

/** A generated name (PRX-US-<city><node>-<seq>) with the code of another city. */
function renamedForCity(name: string, city: string): string {
	const parts = /^PRX-US-[A-Z]{2}(\d+)-(\d+)$/.exec(name);
	return parts ? proxyName(city, Number(parts[1]), Number(parts[2])) : name;
}

/**
 * Generates `count` proxies. Expiry spread: one in eight already expired, two in eight within the
 * next 24 hours, the rest from one to sixty days ahead.
 */
export function generateProxies(rng: Rng, count: number, ctx: ProxyGenerationContext): ProxyRecord[] {
	if (!Number.isInteger(count) || count < 0 || count > MAX_PROXIES) {
		throw new RangeError(`proxies must be an integer from 0 to ${MAX_PROXIES}, got ${count}`);
	}
	const openCities = ctx.cities.filter((c) => c.open);
	const cities = openCities.length > 0 ? openCities : ctx.cities;
	const ts = (ms: number) => formatTimestamp(ms, ctx.utcOffsetMinutes);
	const out: ProxyRecord[] = new Array(count);
	for (let i = 0; i < count; i++) {
		const city = rng.pick(cities);
		const carrier = rng.pick(ctx.carriers);
		const node = rng.int(1, 3);
		const period = rng.weighted(PERIOD_WEIGHTS);

		const slot = i % 8;
		let expiresAt: number;
		if (slot === 0) expiresAt = ctx.now - rng.int(1 * HOUR, 10 * DAY);
		else if (slot <= 2) expiresAt = ctx.now + rng.int(10 * MINUTE, 23 * HOUR + 30 * MINUTE);
		else expiresAt = ctx.now + rng.int(1 * DAY, 60 * DAY);
		const addedAt = Math.min(ctx.now, expiresAt) - PERIOD_MS[period] - rng.int(0, 300 * DAY);

		const autoChange = rng.chance(0.4);
		const autoChangeTime = autoChange ? rng.pick([5, 10, 15, 30, 60]) : 0;
		const lastIpChange = ctx.now - (autoChange ? rng.int(0, autoChangeTime * MINUTE) : rng.int(0, 3 * DAY));
		const lastReboot = Math.max(addedAt, ctx.now - rng.int(1 * HOUR, 20 * DAY));
		const hPort = rng.int(10_000, 39_999);

		let whitelist: string[] | null = null;
		if (rng.chance(0.35)) {
			whitelist = [];
			const n = rng.int(1, 3);
			for (let k = 0; k < n; k++) whitelist.push(publicIp(rng));
		}

		out[i] = {
			proxy_name: proxyName(city.city, node, ctx.firstSeq + i),
			nickname: rng.chance(0.3) ? `${rng.pick(NICKNAMES)}-${rng.int(1, 99)}` : null,
			isp: carrier.name,
			period,
			auto_renew: rng.chance(0.6),
			auto_renew_interval: rng.int(1, 4),
			added_at: ts(addedAt),
			expires_at: ts(expiresAt),
			network_status: rng.weighted([['online', 85], ['offline', 10], ['rebooting', 5]]),
			server_ip: publicIp(rng),
			h_port: hPort,
			s_port: hPort + 20_000,
			auth_method: 'basic',
			username: `pa${rng.chars(LOWER_ALNUM, 8)}`,
			password: rng.chars(ALNUM, 16),
			whitelist,
			auto_change: autoChange,
			auto_change_time: autoChangeTime,
			last_ip_change: ts(lastIpChange),
			last_reboot: ts(lastReboot),
			traffic: Math.floor(rng.next() * 60 * 1024 ** 3),
			h_threads: rng.int(0, 120),
			s_threads: rng.int(0, 80),
			city: city.city,
			state: city.state,
			country: 'US',
			ipv4: publicIp(rng, CARRIER_OCTETS[carrier.key]),
			next_ip_change: autoChange ? ts(lastIpChange + autoChangeTime * MINUTE) : null,
			product: 'mobile',
		};
	}
	return out;
}

/**
 * A complete proxy record for `partial`: seeded defaults for every field not given, documented
 * fields first in the documented order, then extra fields (given extra fields are appended).
 */
export function completeProxyRecord(
	rng: Rng,
	partial: Partial<ProxyRecord>,
	ctx: ProxyGenerationContext,
): ProxyRecord {
	const [generated] = generateProxies(rng, 1, { ...ctx });
	const record: ProxyRecord = { ...generated };
	// Defaults that make an added proxy predictable: active for 30 days from now.
	record.expires_at = formatTimestamp(ctx.now + 30 * DAY, ctx.utcOffsetMinutes);
	if (partial.city !== undefined && partial.state === undefined) {
		const city = ctx.cities.find((c) => c.city === partial.city);
		if (city) record.state = city.state;
	}
	// A proxy bought or moved into a city is named after it, as seeded ones are (PRX-US-AU1-0001).
	if (partial.city !== undefined && partial.proxy_name === undefined)
		record.proxy_name = renamedForCity(generated.proxy_name, partial.city);
	for (const [key, value] of Object.entries(partial)) {
		if (value !== undefined) record[key] = value;
	}
	return record;
}
