import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Period } from '../../transport';
import { PERIODS } from '../../transport';

/** Largest interval accepted before anything is sent: ten years of hours is already absurd. */
export const MAX_INTERVAL = 1000;

/** A parameter value that is wrong, named the way the user sees it in the editor. */
export function invalidParameter(
	node: INode,
	itemIndex: number | undefined,
	field: string,
	problem: string,
	fix: string,
): NodeOperationError {
	// A trigger's parameters belong to no input item.
	if (itemIndex === undefined)
		return new NodeOperationError(node, `${field} ${problem}`, { description: fix });
	return new NodeOperationError(node, `${field} ${problem} [item ${itemIndex}]`, {
		description: fix,
		itemIndex,
	});
}

/** A value as a message shows it: quoted text, a number, or what kind of empty it is. */
export function shown(value: unknown): string {
	if (value === null) return 'empty (null)';
	if (value === undefined) return 'empty';
	if (typeof value === 'string')
		return value.trim() === ''
			? 'empty'
			: `\u201c${value.length > 60 ? `${value.slice(0, 60)}…` : value}\u201d`;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return typeof value;
}

/**
 * Whether an option is set in a collection. An option the user added whose expression resolves to
 * nothing is still set: a safety option must then fail, not quietly fall back to its default.
 */
export function isSet(collection: IDataObject, name: string): boolean {
	return Object.prototype.hasOwnProperty.call(collection, name);
}

/** The value at a dotted path (`options.maxTotalCost`) of own keys; undefined where it stops. */
export function valueAt(root: unknown, path: string): unknown {
	let value = root;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object' || !isSet(value as IDataObject, key))
			return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

/** A whole number of periods, 1 to MAX_INTERVAL. Accepts numeric strings from expressions. */
export function parseInterval(
	node: INode,
	itemIndex: number,
	value: unknown,
	field = 'Interval',
): number {
	const fix = `Enter how many periods to add, e.g. 1 for one week when Period is Weekly. If ${field} is an expression, make sure it resolves to a whole number for every item.`;
	return parseWholeNumber(node, itemIndex, value, field, { min: 1, max: MAX_INTERVAL }, fix);
}

export function parsePeriod(
	node: INode,
	itemIndex: number,
	value: unknown,
	field = 'Period',
): Period {
	const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
	if (typeof text === 'string' && (PERIODS as readonly string[]).includes(text))
		return text as Period;
	const list = PERIODS.join(', ');
	const fix = `Pick a period from the list, or make the expression resolve to one of: ${list}.`;
	const problem = `must be one of ${list}, but it is ${shown(value)}`;
	throw invalidParameter(node, itemIndex, field, problem, fix);
}

/** A non-empty name, kept exactly as given apart from surrounding spaces. */
export function parseName(
	node: INode,
	itemIndex: number,
	value: unknown,
	field: string,
	example: string,
): string {
	const text =
		typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	const refused = (problem: string, fix: string) =>
		invalidParameter(node, itemIndex, field, problem, fix);
	if (text === '')
		throw refused(
			'is empty',
			`Pick a value from the list, or enter one, e.g. ${example}. If it is an expression, check that it resolves for this item.`,
		);
	if (text.length > 200)
		throw refused('is longer than 200 characters', `Enter a shorter value, e.g. ${example}.`);
	if (text === '.' || text === '..')
		throw refused(`cannot be ${shown(text)}`, `Enter a real value, e.g. ${example}.`);
	return text;
}

/** A number, or a string of digits from an expression; NaN for anything else. */
function wholeNumberFrom(value: unknown): number {
	if (typeof value === 'number') return value;
	return typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
}

/** Plain decimal text, e.g. "12", "-3" or "49.90": no hexadecimal, exponent, or other notation. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A number, or plain decimal text from an expression; NaN for anything else. JavaScript's own
 * reading would take "0x10" as 16, "1e3" as 1000 and " " as 0: a limit is read as the user wrote it.
 */
export function numberFrom(value: unknown): number {
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && DECIMAL.test(value.trim())) return Number(value.trim());
	return Number.NaN;
}

/** A number of 0 or more (decimals allowed) up to `max`; `what` names it: "a number of hours". */
function parseNonNegative(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	{ field, what, max, fix }: { field: string; what: string; max: number; fix: string },
): number {
	const number = numberFrom(value);
	if (Number.isFinite(number) && number >= 0 && number <= max) return number;
	const problem = `must be ${what} of 0 or more, but it is ${shown(value)}`;
	throw invalidParameter(node, itemIndex, field, problem, fix);
}

/** A non-negative number of hours (ten years at most), e.g. for Expiring Within. */
export function parseHours(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
	fix = 'Enter a number of hours, e.g. 24 for one day or 168 for one week.',
): number {
	const max = 24 * 366 * 10;
	return parseNonNegative(node, itemIndex, value, { field, what: 'a number of hours', max, fix });
}

/** A positive amount of money, e.g. for Maximum Total Cost. */
export function parseAmount(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
	fix = 'Enter the most the run may spend, in the currency of your wallet, e.g. 500.',
): number {
	return parseNonNegative(node, itemIndex, value, { field, what: 'an amount', max: Infinity, fix });
}

/** Limit of a Get Many: a whole number of 1 or more (a numeric string from an expression too). */
export function parseLimit(node: INode, itemIndex: number, value: unknown): number {
	const fix = 'Enter how many results to return at most, e.g. 50, or turn on Return All.';
	return parseWholeNumber(node, itemIndex, value, 'Limit', { min: 1 }, fix);
}

/** The longest Timeout (Seconds) accepted: ten minutes. */
export const MAX_TIMEOUT_SECONDS = 600;

/** Timeout (Seconds) of the Options, 1 to 600, in ms; the fallback only when not set (see `isSet`). */
export function parseTimeoutSeconds(
	node: INode,
	itemIndex: number | undefined,
	options: IDataObject,
	fallbackSeconds: number,
): number {
	if (!isSet(options, 'timeoutSeconds')) return fallbackSeconds * 1000;
	const range = { min: 1, max: MAX_TIMEOUT_SECONDS };
	const fix =
		'Enter a whole number of seconds, e.g. 30. If it is an expression, make sure it resolves to a whole number.';
	const value = options.timeoutSeconds;
	return wholeIn(numberFrom(value), node, itemIndex, value, 'Timeout (Seconds)', range, fix) * 1000;
}

/** A whole number from `min` to `max` (no `max`: `min` or more), a string of digits too. */
export function parseWholeNumber(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
	range: { min: number; max?: number },
	fix: string,
): number {
	return wholeIn(wholeNumberFrom(value), node, itemIndex, value, field, range, fix);
}

/** `number` (as read from `value`) when it is whole and within `range`; else the error. */
function wholeIn(
	number: number,
	...[node, itemIndex, value, field, range, fix]: Parameters<typeof parseWholeNumber>
): number {
	const max = range.max ?? Number.MAX_SAFE_INTEGER;
	if (Number.isInteger(number) && number >= range.min && number <= max) return number;
	const bounds =
		range.max === undefined ? `of ${range.min} or more` : `from ${range.min} to ${range.max}`;
	const problem = `must be a whole number ${bounds}, but it is ${shown(value)}`;
	throw invalidParameter(node, itemIndex, field, problem, fix);
}

/**
 * A text filter (a city, a status): text or a number, trimmed; empty when not set. Anything else is
 * refused rather than read as no filter, which would act on every proxy.
 */
export function filterText(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
	const fix =
		'Enter a name, or several separated by commas; if it is an expression, make it give text.';
	throw invalidParameter(node, itemIndex, field, `must be text, but it is ${shown(value)}`, fix);
}

/**
 * A switch that may come from an expression: a boolean, or the text "true" or "false". Anything
 * else is an error, so a safety switch such as Dry Run never reads a typo as "off".
 */
export function parseBoolean(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
): boolean {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true') return true;
	if (text === 'false') return false;
	const problem = `must be true or false, but it is ${shown(value)}`;
	const fix = `Turn ${field} on or off, or make its expression resolve to true or false.`;
	throw invalidParameter(node, itemIndex, field, problem, fix);
}

/** One of `choices`; `what` names them in the message, e.g. "the events in the list". */
export function parseChoice<T extends string>(
	node: INode,
	itemIndex: number | undefined,
	value: unknown,
	field: string,
	choices: readonly T[],
	what: string,
	fix: string,
): T {
	if (typeof value === 'string' && (choices as readonly string[]).includes(value))
		return value as T;
	const problem = `must be one of ${what}, but it is ${shown(value)}`;
	throw invalidParameter(node, itemIndex, field, problem, fix);
}

/** A switch of a collection (Options, Filters): `fallback` when not set, else as `parseBoolean`. */
export function switchOption(
	node: INode,
	itemIndex: number | undefined,
	collection: IDataObject,
	name: string,
	field: string,
	fallback = false,
): boolean {
	if (!isSet(collection, name)) return fallback;
	return parseBoolean(node, itemIndex, collection[name], field);
}

/** A number of hours of a collection (Options, Filters), e.g. a window: undefined when not set. */
export function hoursOption(
	node: INode,
	itemIndex: number | undefined,
	collection: IDataObject,
	name: string,
	field: string,
): number | undefined {
	return isSet(collection, name) ? parseHours(node, itemIndex, collection[name], field) : undefined;
}
