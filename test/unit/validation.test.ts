/**
 * Parameter validation (no engine): what each reader accepts, and the exact message and fix of
 * what it refuses, named the way the user sees the field, with the item it belongs to.
 */
import { NodeOperationError } from 'n8n-workflow';

import {
	invalidParameter,
	isSet,
	MAX_INTERVAL,
	MAX_TIMEOUT_SECONDS,
	numberFrom,
	parseAmount,
	parseBoolean,
	parseChoice,
	parseHours,
	parseInterval,
	parseLimit,
	parseName,
	parsePeriod,
	parseTimeoutSeconds,
	parseWholeNumber,
	shown,
	switchOption,
} from '../../nodes/ProxyAccount/helpers/framework/validation';
import { NODE } from '../fixtures/records';

/** The error `run` throws, checked to be a NodeOperationError. */
function thrown(run: () => unknown): NodeOperationError {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('expected an error');
}

describe('invalidParameter', () => {
	it('with an item index: the item in the message and in the context', () => {
		const error = invalidParameter(NODE, 3, 'Interval', 'is wrong', 'Fix it.');
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Interval is wrong [item 3]');
		expect(error.description).toBe('Fix it.');
		expect(error.context.itemIndex).toBe(3);
		expect(error.node).toBe(NODE);
	});

	it('without an item index (a trigger parameter): no item anywhere', () => {
		const error = invalidParameter(NODE, undefined, 'Threshold', 'is wrong', 'Fix it.');
		expect(error.message).toBe('Threshold is wrong');
		expect(error.description).toBe('Fix it.');
		expect(error.context.itemIndex).toBeUndefined();
	});
});

describe('shown', () => {
	it.each([
		[null, 'empty (null)'],
		[undefined, 'empty'],
		['', 'empty'],
		['   ', 'empty'],
		['weekly', '\u201cweekly\u201d'],
		[' x ', '\u201c x \u201d'],
		['a'.repeat(60), `\u201c${'a'.repeat(60)}\u201d`],
		['a'.repeat(61), `\u201c${'a'.repeat(60)}…\u201d`],
		[0, '0'],
		[-1.5, '-1.5'],
		[Number.NaN, 'NaN'],
		[false, 'false'],
		[{}, 'object'],
		[[1], 'object'],
	])('%p is shown as %s', (value, expected) => {
		expect(shown(value)).toBe(expected);
	});
});

describe('isSet', () => {
	it('an option added whose value is empty is still set; an absent or inherited one is not', () => {
		expect(isSet({ timeoutSeconds: undefined }, 'timeoutSeconds')).toBe(true);
		expect(isSet({ timeoutSeconds: '' }, 'timeoutSeconds')).toBe(true);
		expect(isSet({}, 'timeoutSeconds')).toBe(false);
		expect(isSet({}, 'toString')).toBe(false);
	});
});

describe('parseInterval', () => {
	it.each([
		[1, 1],
		[MAX_INTERVAL, MAX_INTERVAL],
		['7', 7],
		[' 12 ', 12],
	])('%p is %p', (value, expected) => {
		expect(parseInterval(NODE, 0, value)).toBe(expected);
	});

	it.each([
		[0, '0'],
		[1001, '1001'],
		[1.5, '1.5'],
		[-2, '-2'],
		['1.5', '\u201c1.5\u201d'],
		['1e2', '\u201c1e2\u201d'],
		['', 'empty'],
		[null, 'empty (null)'],
		[true, 'true'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parseInterval(NODE, 2, value));
		expect(error.message).toBe(`Interval must be a whole number from 1 to 1000, but it is ${what} [item 2]`);
		expect(error.description).toBe(
			'Enter how many periods to add, e.g. 1 for one week when Period is Weekly. If Interval is an expression, make sure it resolves to a whole number for every item.',
		);
		expect(error.context.itemIndex).toBe(2);
	});

	it('names the field it was given', () => {
		expect(thrown(() => parseInterval(NODE, 0, 0, 'Weeks')).message).toBe('Weeks must be a whole number from 1 to 1000, but it is 0 [item 0]');
	});
});

describe('parsePeriod', () => {
	it('accepts every period, trimmed and in any case', () => {
		expect(parsePeriod(NODE, 0, ' Weekly ')).toBe('weekly');
		for (const period of ['hourly', 'daily', 'weekly', 'monthly', 'yearly']) expect(parsePeriod(NODE, 0, period.toUpperCase())).toBe(period);
	});

	it.each([
		['fortnightly', '\u201cfortnightly\u201d'],
		['', 'empty'],
		[7, '7'],
		[undefined, 'empty'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parsePeriod(NODE, 1, value));
		expect(error.message).toBe(`Period must be one of hourly, daily, weekly, monthly, yearly, but it is ${what} [item 1]`);
		expect(error.description).toBe('Pick a period from the list, or make the expression resolve to one of: hourly, daily, weekly, monthly, yearly.');
	});
});

describe('parseName', () => {
	const parse = (value: unknown) => parseName(NODE, 4, value, 'Proxy', 'PRX-US-AU1-0001');

	it('keeps the name as given apart from surrounding spaces; a number becomes its text', () => {
		expect(parse('  PRX-us AU1 ')).toBe('PRX-us AU1');
		expect(parse(1234)).toBe('1234');
		expect(parse('x'.repeat(200))).toBe('x'.repeat(200));
	});

	it.each([[''], ['   '], [null], [undefined], [{}], [true]])('%p is empty', (value) => {
		const error = thrown(() => parse(value));
		expect(error.message).toBe('Proxy is empty [item 4]');
		expect(error.description).toBe('Pick a value from the list, or enter one, e.g. PRX-US-AU1-0001. If it is an expression, check that it resolves for this item.');
	});

	it('more than 200 characters is refused', () => {
		const error = thrown(() => parse('x'.repeat(201)));
		expect(error.message).toBe('Proxy is longer than 200 characters [item 4]');
		expect(error.description).toBe('Enter a shorter value, e.g. PRX-US-AU1-0001.');
	});

	it.each([['.'], [' .. ']])('%p is refused', (value) => {
		const error = thrown(() => parse(value));
		expect(error.message).toBe(`Proxy cannot be \u201c${value.trim()}\u201d [item 4]`);
		expect(error.description).toBe('Enter a real value, e.g. PRX-US-AU1-0001.');
	});
});

describe('numberFrom and parseHours', () => {
	it.each([
		[5, 5],
		['2.5', 2.5],
		[' 24 ', 24],
		['', Number.NaN],
		['  ', Number.NaN],
		['24h', Number.NaN],
		[null, Number.NaN],
		[true, Number.NaN],
	])('numberFrom(%p) is %p', (value, expected) => {
		expect(numberFrom(value)).toBe(expected);
	});

	it('accepts 0 to ten years of hours, decimals included', () => {
		expect(parseHours(NODE, 0, 0, 'Hours')).toBe(0);
		expect(parseHours(NODE, 0, '1.5', 'Hours')).toBe(1.5);
		expect(parseHours(NODE, 0, 87_840, 'Hours')).toBe(87_840);
	});

	it.each([
		[-1, '-1'],
		[87_841, '87841'],
		['soon', '\u201csoon\u201d'],
		[Infinity, 'Infinity'],
		['', 'empty'],
	])('%p is refused, with the default fix', (value, what) => {
		const error = thrown(() => parseHours(NODE, 5, value, 'Hours'));
		expect(error.message).toBe(`Hours must be a number of hours of 0 or more, but it is ${what} [item 5]`);
		expect(error.description).toBe('Enter a number of hours, e.g. 24 for one day or 168 for one week.');
	});

	it('for a trigger (no item) with its own fix', () => {
		const error = thrown(() => parseHours(NODE, undefined, -1, 'Expiring Within (Hours)', 'Enter hours.'));
		expect(error.message).toBe('Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1');
		expect(error.description).toBe('Enter hours.');
	});
});

describe('parseLimit', () => {
	it('accepts whole numbers of 1 or more, digit strings included', () => {
		expect(parseLimit(NODE, 0, 1)).toBe(1);
		expect(parseLimit(NODE, 0, '50')).toBe(50);
		expect(parseLimit(NODE, 0, 1_000_000)).toBe(1_000_000);
	});

	it.each([
		[0, '0'],
		[2.5, '2.5'],
		['-1', '\u201c-1\u201d'],
		['', 'empty'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parseLimit(NODE, 0, value));
		expect(error.message).toBe(`Limit must be a whole number of 1 or more, but it is ${what} [item 0]`);
		expect(error.description).toBe('Enter how many results to return at most, e.g. 50, or turn on Return All.');
	});
});

describe('parseTimeoutSeconds', () => {
	it('not set: the fallback, in milliseconds', () => {
		expect(parseTimeoutSeconds(NODE, 0, {}, 30)).toBe(30_000);
		expect(parseTimeoutSeconds(NODE, 0, { other: 1 }, 12.5)).toBe(12_500);
	});

	it('set: 1 to 600 whole seconds, numeric strings included, in milliseconds', () => {
		expect(parseTimeoutSeconds(NODE, 0, { timeoutSeconds: 1 }, 30)).toBe(1000);
		expect(parseTimeoutSeconds(NODE, 0, { timeoutSeconds: '25' }, 30)).toBe(25_000);
		expect(parseTimeoutSeconds(NODE, 0, { timeoutSeconds: MAX_TIMEOUT_SECONDS }, 30)).toBe(600_000);
	});

	it.each([
		[0, '0'],
		[0.5, '0.5'],
		['2.5', '\u201c2.5\u201d'],
		[601, '601'],
		['slow', '\u201cslow\u201d'],
		// Set but empty: an expression that resolved to nothing fails rather than falling back.
		['', 'empty'],
		[undefined, 'empty'],
		[null, 'empty (null)'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parseTimeoutSeconds(NODE, 6, { timeoutSeconds: value }, 30));
		expect(error.message).toBe(`Timeout (Seconds) must be a whole number from 1 to 600, but it is ${what} [item 6]`);
		expect(error.description).toBe('Enter a whole number of seconds, e.g. 30. If it is an expression, make sure it resolves to a whole number.');
	});
});

describe('parseBoolean', () => {
	it.each([
		[true, true],
		[false, false],
		['true', true],
		[' FALSE ', false],
		['True', true],
	])('%p is %p', (value, expected) => {
		expect(parseBoolean(NODE, 0, value, 'Dry Run')).toBe(expected);
	});

	it.each([
		['yes', '\u201cyes\u201d'],
		['flase', '\u201cflase\u201d'],
		[1, '1'],
		[0, '0'],
		['', 'empty'],
		[null, 'empty (null)'],
	])('%p is refused, never read as off', (value, what) => {
		const error = thrown(() => parseBoolean(NODE, 7, value, 'Dry Run'));
		expect(error.message).toBe(`Dry Run must be true or false, but it is ${what} [item 7]`);
		expect(error.description).toBe('Turn Dry Run on or off, or make its expression resolve to true or false.');
	});
});

describe('parseWholeNumber', () => {
	const parse = (value: unknown) => parseWholeNumber(NODE, 1, value, 'Batch Size', { min: 2, max: 10 }, 'Enter 2 to 10.');

	it('accepts the range, both ends included, digit strings too', () => {
		expect(parse(2)).toBe(2);
		expect(parse('10')).toBe(10);
	});

	it.each([
		[1, '1'],
		[11, '11'],
		[3.5, '3.5'],
		['3.0', '\u201c3.0\u201d'],
		[undefined, 'empty'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parse(value));
		expect(error.message).toBe(`Batch Size must be a whole number from 2 to 10, but it is ${what} [item 1]`);
		expect(error.description).toBe('Enter 2 to 10.');
	});
});

describe('parseAmount', () => {
	it('accepts 0 and more, decimals and numeric strings included', () => {
		expect(parseAmount(NODE, 0, 0, 'Maximum Total Cost')).toBe(0);
		expect(parseAmount(NODE, 0, '12.50', 'Maximum Total Cost')).toBe(12.5);
		expect(parseAmount(NODE, 0, 500, 'Maximum Total Cost')).toBe(500);
	});

	it.each([
		[-0.01, '-0.01'],
		['', 'empty'],
		['lots', '\u201clots\u201d'],
		[Infinity, 'Infinity'],
		[null, 'empty (null)'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parseAmount(NODE, 8, value, 'Maximum Total Cost'));
		expect(error.message).toBe(`Maximum Total Cost must be an amount of 0 or more, but it is ${what} [item 8]`);
		expect(error.description).toBe('Enter the most the run may spend, in the currency of your wallet, e.g. 500.');
	});
});

describe('parseWholeNumber without a maximum (Limit, the trigger\'s Threshold)', () => {
	const parse = (value: unknown) => parseWholeNumber(NODE, undefined, value, 'Threshold', { min: 1 }, 'Enter a count, e.g. 5.');

	it('accepts 1 and more, digit strings too', () => {
		expect(parse(1)).toBe(1);
		expect(parse(' 250 ')).toBe(250);
	});

	it.each([
		[0, '0'],
		[1.5, '1.5'],
		['abc', '\u201cabc\u201d'],
		[Number.MAX_SAFE_INTEGER + 2, String(Number.MAX_SAFE_INTEGER + 2)],
	])('%p is refused, "of 1 or more", with no item for a trigger parameter', (value, what) => {
		const error = thrown(() => parse(value));
		expect(error.message).toBe(`Threshold must be a whole number of 1 or more, but it is ${what}`);
		expect(error.description).toBe('Enter a count, e.g. 5.');
	});
});

describe('parseAmount with its own fix (the trigger\'s Low Funds Threshold)', () => {
	it('says how to fix it in the words of the field', () => {
		const error = thrown(() => parseAmount(NODE, undefined, -5, 'Threshold', 'Enter a balance, e.g. 50.'));
		expect(error.message).toBe('Threshold must be an amount of 0 or more, but it is -5');
		expect(error.description).toBe('Enter a balance, e.g. 50.');
	});
});

describe('parseChoice', () => {
	const parse = (value: unknown) =>
		parseChoice(NODE, undefined, value, 'Event', ['proxyExpiring', 'newProxy'] as const, 'the events in the list', 'Pick an event.');

	it('accepts a value of the list, exactly', () => {
		expect(parse('newProxy')).toBe('newProxy');
	});

	it.each([
		['NewProxy', '\u201cNewProxy\u201d'],
		['', 'empty'],
		[3, '3'],
		[undefined, 'empty'],
	])('%p is refused', (value, what) => {
		const error = thrown(() => parse(value));
		expect(error.message).toBe(`Event must be one of the events in the list, but it is ${what}`);
		expect(error.description).toBe('Pick an event.');
	});
});

describe('switchOption', () => {
	it('is its fallback when not set, and read as parseBoolean does when set', () => {
		expect(switchOption(NODE, 0, {}, 'includePassword', 'Include Password')).toBe(false);
		expect(switchOption(NODE, 0, {}, 'simplify', 'Simplify', true)).toBe(true);
		expect(switchOption(NODE, 0, { simplify: 'false' }, 'simplify', 'Simplify', true)).toBe(false);
		expect(switchOption(NODE, 0, { includePassword: 'true' }, 'includePassword', 'Include Password')).toBe(true);
	});

	it('refuses a value that is not true or false, so a typo is never read as off or on', () => {
		const error = thrown(() => switchOption(NODE, 3, { includePassword: 'yes' }, 'includePassword', 'Include Password'));
		expect(error.message).toBe('Include Password must be true or false, but it is \u201cyes\u201d [item 3]');
	});
});

