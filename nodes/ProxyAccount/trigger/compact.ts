/* Compact encodings of the stored state: instants as epoch ms, repeated texts as table indexes. */

/** Instants already read, by their text: a list repeats the same timestamps poll after poll. */
const instants = new Map<string, number>();
const INSTANT_CACHE_LIMIT = 200_000;

/** A timestamp's epoch milliseconds (the same instant written two ways compares equal), or NaN. */
export function epochMs(value: unknown): number {
	if (typeof value !== 'string') return Number.NaN;
	const known = instants.get(value);
	if (known !== undefined) return known;
	const at = Date.parse(value);
	if (instants.size >= INSTANT_CACHE_LIMIT) instants.clear();
	instants.set(value, at);
	return at;
}

/** The same second: the service writes a timestamp with milliseconds once, truncated the next time. */
export function sameSecond(a: number | null | undefined, b: number | null | undefined): boolean {
	return (
		typeof a === 'number' && typeof b === 'number' && Math.floor(a / 1000) === Math.floor(b / 1000)
	);
}

/** Epoch milliseconds as the ISO text reports carry (null when unknown). */
export function isoOf(ms: number | null | undefined): string | null {
	return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** A stored instant: a finite number, or null for an unreadable one. */
export function storedInstant(value: unknown): value is number | null {
	return value === null || (typeof value === 'number' && Number.isFinite(value));
}

/** An instant to store: its epoch milliseconds, or null when unreadable (JSON has no NaN). */
export function instantToStore(value: unknown): number | null {
	const at = epochMs(value);
	return Number.isNaN(at) ? null : at;
}

/**
 * A table of texts written once in the state, referred to by index, looked up part by part:
 * building and hashing a text per proxy would cost more than the detection at 10,000 proxies.
 */
export class TextTable {
	readonly texts: string[] = [];

	/** By the number of parts, so that texts of two parts never meet texts of five. */
	private readonly roots = new Map<number, Map<string, unknown>>();

	/** The index of the text made of `parts`, added when new. */
	ref(...parts: string[]): number {
		let node = this.roots.get(parts.length);
		if (node === undefined) {
			node = new Map<string, unknown>();
			this.roots.set(parts.length, node);
		}
		const last = parts.length - 1;
		for (let i = 0; i < last; i++) {
			let next = node.get(parts[i]) as Map<string, unknown> | undefined;
			if (next === undefined) {
				next = new Map<string, unknown>();
				node.set(parts[i], next);
			}
			node = next;
		}
		const known = node.get(parts[last]);
		if (typeof known === 'number') return known;
		this.texts.push(parts.join(PART));
		node.set(parts[last], this.texts.length - 1);
		return this.texts.length - 1;
	}
}

/** Joins the parts of a table entry (a character no field of the service carries). */
export const PART = '\u0001';

/** The text at `index` of a stored table, or undefined when out of range. */
export function tableText(table: readonly string[], index: unknown): string | undefined {
	return typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < table.length
		? table[index]
		: undefined;
}

/** A stored table: an array of texts, or null when damaged. */
export function readTable(value: unknown): string[] | null {
	if (!Array.isArray(value)) return null;
	for (const text of value) if (typeof text !== 'string') return null;
	return value as string[];
}

const packedIps = new Map<string, number | string>();

/** An IPv4 address as one number (smaller stored), or the text itself for anything else. */
export function packIp(ip: unknown): number | string | null {
	if (typeof ip !== 'string') return null;
	const known = packedIps.get(ip);
	if (known !== undefined) return known;
	const parts = ip.split('.');
	const ipv4 =
		parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
	const out = ipv4 ? parts.reduce((sum, part) => sum * 256 + Number(part), 0) : ip;
	if (packedIps.size >= INSTANT_CACHE_LIMIT) packedIps.clear();
	packedIps.set(ip, out);
	return out;
}

export function unpackIp(packed: number | string | null): string | null {
	if (typeof packed !== 'number') return packed;
	const bytes: number[] = [];
	let rest = packed;
	for (let i = 0; i < 4; i++) {
		bytes.unshift(rest % 256);
		rest = Math.floor(rest / 256);
	}
	return bytes.join('.');
}

/** A proxy's plan as one text: its period and auto-renew (null when either is missing). */
export function planOf(period: unknown, autoRenew: unknown): string | null {
	return planParts(period, autoRenew)?.join(PART) ?? null;
}

/** The parts of a plan (null when either is missing). */
export function planParts(period: unknown, autoRenew: unknown): [string, string] | null {
	return typeof period === 'string' && typeof autoRenew === 'boolean'
		? [period, autoRenew ? '1' : '0']
		: null;
}

/** A table seeded with the stored one (stored indexes stay valid): it never grows with polls. */
export function seededTable(stored: readonly string[] | undefined): TextTable {
	const table = new TextTable();
	if (stored !== undefined) for (const text of stored) table.ref(...text.split(PART));
	return table;
}

/** Epoch ms in the UTC offset of `sample` (a `before` reads like its `after`), else ISO. */
export function formatLike(ms: number | null | undefined, sample: unknown): string | null {
	const minutes = typeof sample === 'string' ? offsetMinutes(sample) : undefined;
	// Not a date (null), or out of the range of dates (`isoOf` throws, as it always did).
	if (minutes === undefined || typeof ms !== 'number' || !(Math.abs(ms) <= MAX_DATE_MS))
		return isoOf(ms);
	const local = new Date(ms + minutes * 60_000).toISOString();
	return `${local.slice(0, -1)}${(sample as string).slice(-6)}`;
}

const MAX_DATE_MS = 8.64e15;

/** The UTC offset a timestamp ends with (`-06:00`), in minutes; undefined without one. */
function offsetMinutes(text: string): number | undefined {
	const at = text.length - 6;
	if (at < 0) return undefined;
	const sign = text.charCodeAt(at);
	if ((sign !== PLUS && sign !== MINUS) || text.charCodeAt(at + 3) !== COLON) return undefined;
	const digit = (offset: number) => {
		const value = text.charCodeAt(at + offset) - ZERO;
		return value >= 0 && value <= 9 ? value : Number.NaN;
	};
	const minutes = (digit(1) * 10 + digit(2)) * 60 + digit(4) * 10 + digit(5);
	if (Number.isNaN(minutes)) return undefined;
	return sign === MINUS ? -minutes : minutes;
}

const [PLUS, MINUS, COLON, ZERO] = ['+', '-', ':', '0'].map((c) => c.charCodeAt(0));
