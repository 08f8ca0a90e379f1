/** Small numeric and formatting helpers of the benchmark. */

export function median(values: number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The first and third quartiles (nearest rank). */
export function quartiles(values: number[]): [number, number] {
	if (values.length === 0) return [Number.NaN, Number.NaN];
	const sorted = [...values].sort((a, b) => a - b);
	const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
	return [at(0.25), at(0.75)];
}

export function min(values: number[]): number {
	return values.length === 0 ? Number.NaN : Math.min(...values);
}

export function max(values: number[]): number {
	return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** Milliseconds: one decimal below 100, none above. */
export function ms(value: number): string {
	if (!Number.isFinite(value)) return '–';
	return value < 100 ? value.toFixed(1) : value.toFixed(0);
}

export function ratio(value: number): string {
	if (!Number.isFinite(value)) return '–';
	return `${value < 10 ? value.toFixed(2) : value.toFixed(1)}x`;
}

export function mb(kb: number): string {
	return Number.isFinite(kb) ? (kb / 1024).toFixed(0) : '–';
}

export function kb(bytes: number): string {
	return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function thousands(n: number): string {
	return n.toLocaleString('en-US');
}

/** A markdown table: header row, separator, rows; cells padded so it also reads as plain text. */
export function markdownTable(header: string[], rows: string[][], align: Array<'l' | 'r'> = []): string {
	const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
	const pad = (cell: string, i: number) => (align[i] === 'r' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]));
	const line = (cells: string[]) => `| ${cells.map((cell, i) => pad(cell ?? '', i)).join(' | ')} |`;
	const separator = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
	return [line(header), separator, ...rows.map(line)].join('\n');
}
