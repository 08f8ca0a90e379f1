/* How messages word a count, a quotation or a list of sentences, so that "1 proxies" or "valid.”." never appear. The lowest layer: imports nothing. */

/** "1 proxy", "2 proxies"; the plural defaults to the singular with an s ("1 item", "2 items"). */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
	return `${count} ${count === 1 ? singular : plural}`;
}

/** "1 batch was", "2 batches were". */
export const countWere = (count: number, singular: string, plural?: string) =>
	`${countOf(count, singular, plural)} ${count === 1 ? 'was' : 'were'}`;

/** "1 proxy", "3 proxies". */
export const proxiesCount = (count: number) => countOf(count, 'proxy', 'proxies');

/** "1 proxy was", "3 proxies were". */
export const proxiesWere = (count: number) => countWere(count, 'proxy', 'proxies');

/** "this proxy", "these 3 proxies". */
export const theseProxies = (count: number) =>
	count === 1 ? 'this proxy' : `these ${proxiesCount(count)}`;

/**
 * Quoted text that ends a sentence: “text”. with the period after the closing quote, unless the
 * quoted text ends a sentence itself (“Proxy not valid.”), which then needs no second period.
 */
export function quotedSentence(text: string): string {
	const quoted = `\u201c${text}\u201d`;
	return /[.!?…]$/.test(text.trim()) ? quoted : `${quoted}.`;
}

/** Sentences joined into one text: empty parts left out, the rest separated by one space. */
export function sentences(...parts: Array<string | false | undefined | null>): string {
	return parts
		.filter((part): part is string => typeof part === 'string')
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.join(' ');
}

/** A value as a trimmed text of at most `limit` characters, or undefined when it is none. */
export function textOf(value: unknown, limit = 300): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') {
		const trimmed = value.trim();
		return trimmed.length > limit ? `${trimmed.slice(0, limit)}…` : trimmed;
	}
	return undefined;
}
