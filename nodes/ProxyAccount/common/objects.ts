/* Small checks of plain values, shared by every layer. The lowest layer: imports nothing. */

/** A plain object (not null, not an array), to read fields from. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
