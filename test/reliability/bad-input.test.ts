/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- a jest test run by Node (timers, node: modules, console and the simulator's fake API keys); never shipped */
/**
 * Bad input, across every parameter of both nodes and the credential: each value is refused with a
 * message that names the field (and the item) before anything is sent, or is sent safely encoded.
 * Nothing is ever charged. Every case is a real workflow execution (or a real poll).
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { capturedLogs, createHarness, PollHarness } from '../harness';
import type { NodeResult, TestCredentials } from '../harness';
import type { ProxyAccountSimulator } from '../simulator';
import type { Observation } from './support';
import { auditCell, Results, SecretAudit, withSim } from './support';

const results = new Results('bad-input');
const audit = new SecretAudit();
const harness = createHarness([new ProxyAccountTrigger()]);

afterAll(() => results.write());

interface Run {
	parameters: Record<string, unknown>;
	items?: IDataObject[];
	continueOnFail?: boolean;
	/** Credential values; `{url}` stands for the simulator's address, `{key}` for its API key. */
	baseUrl?: string;
	apiKey?: string;
}

interface Case {
	row: string;
	value: string;
	expected: string;
	setup?: (sim: ProxyAccountSimulator) => void;
	run: (sim: ProxyAccountSimulator) => Run;
	check: (result: NodeResult, sim: ProxyAccountSimulator, obs: Observation) => void;
	/** A trigger case: polls with these parameters instead of running a workflow, and must be refused with `message`. */
	poll?: { parameters: Record<string, unknown>; message: string };
	/** n8n itself refuses to start the workflow (a required field left empty) with this message. */
	n8nRefuses?: string;
}

const cases: Case[] = [];

const names = (sim: ProxyAccountSimulator) => [...sim.account().proxies.keys()];
const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };

function credentials(sim: ProxyAccountSimulator, run: Run): TestCredentials {
	const fill = (text: string) => text.replace('{url}', sim.url).replace('{key}', sim.demoApiKey);
	return { baseUrl: fill(run.baseUrl ?? '{url}'), apiKey: fill(run.apiKey ?? '{key}') };
}

/** Refused before any request: the execution stops with exactly this message; nothing sent or charged. */
function refused(row: string, value: string, message: string, run: Case['run'], setup?: Case['setup']): void {
	cases.push({
		row,
		value,
		expected: `refused before any request: \u201c${message}\u201d`,
		setup,
		run,
		check(result, sim) {
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(message);
			expect(sim.requests).toHaveLength(0);
			expect(sim.ledger).toHaveLength(0);
		},
	});
}

// ----- Proxy > Extend: three items, the bad value in item 1; every item is checked before anything is sent

const extendRun = (item1: IDataObject, options: IDataObject = {}) => (sim: ProxyAccountSimulator): Run => {
	const [a, b, c] = names(sim);
	return {
		parameters: {
			resource: 'proxy',
			operation: 'extend',
			proxyName: byName,
			interval: '={{ $json.interval }}',
			period: '={{ $json.period }}',
			options,
		},
		items: [
			{ name: a, interval: 1, period: 'weekly' },
			{ name: b, interval: 1, period: 'weekly', ...item1 } as IDataObject,
			{ name: c, interval: 1, period: 'weekly' },
		],
	};
};

const INTERVALS: Array<[string, string | number | null, string]> = [
	['0', 0, '0'],
	['-1', -1, '-1'],
	['1.5', 1.5, '1.5'],
	['"abc"', 'abc', '\u201cabc\u201d'],
	['1e12', 1e12, '1000000000000'],
	['empty', '', 'empty'],
	['expression resolving to null', null, 'empty (null)'],
];

for (const [label, value, shown] of INTERVALS) {
	refused('Extend > Interval', label, `Interval must be a whole number from 1 to 1000, but it is ${shown} [item 1]`, extendRun({ interval: value }));
}
refused(
	'Extend > Period',
	'unknown ("fortnightly")',
	'Period must be one of hourly, daily, weekly, monthly, yearly, but it is \u201cfortnightly\u201d [item 1]',
	extendRun({ period: 'fortnightly' }),
);
refused('Extend > Period', 'empty', 'Period must be one of hourly, daily, weekly, monthly, yearly, but it is empty [item 1]', extendRun({ period: '' }));
refused('Extend > Proxy', 'empty', 'Proxy is empty [item 1]', extendRun({ name: '' }));
refused('Extend > Proxy', 'whitespace', 'Proxy is empty [item 1]', extendRun({ name: ' \t ' }));
refused('Extend > Proxy', 'very long (500 characters)', 'Proxy is longer than 200 characters [item 1]', extendRun({ name: 'P'.repeat(500) }));
refused('Extend > Proxy', '".."', 'Proxy cannot be \u201c..\u201d [item 1]', extendRun({ name: '..' }));

const ODD_NAMES: Array<[string, string]> = [
	['unicode', 'PRX-Z\u00fcrich-\u6771\u4eac-\u2713'],
	['"../"', '../'],
	['"?"', '?'],
	['"#"', '#'],
	['"%2F"', '%2F'],
];

for (const [label, odd] of ODD_NAMES) {
	cases.push({
		row: 'Extend > Proxy',
		value: label,
		expected: 'sent as is inside the JSON body: exactly that proxy is extended, once',
		setup: (sim) => void sim.addProxy(null, { proxy_name: odd }),
		run: extendRun({ name: odd }),
		check(result, sim) {
			const [a, , c] = names(sim);
			expect(result.status).toBe('success');
			expect(result.items.map((item) => [item.json.proxy_name, item.json.status])).toEqual([
				[a, 'extended'],
				[odd, 'extended'],
				[c, 'extended'],
			]);
			expect(sim.ledger.map((charge) => charge.proxy_name)).toEqual([a, odd, c]);
			const allocates = sim.requests.filter((r) => r.route === 'POST /v1/proxies/allocate');
			expect(allocates).toHaveLength(1);
			expect((allocates[0].body as { proxies: { time: Array<{ proxy_name: string }> } }).proxies.time[1].proxy_name).toBe(odd);
		},
	});
}

const extendOption = (options: IDataObject) => extendRun({}, options);
refused('Extend > Batch Size', '0', 'Batch Size must be a whole number from 1 to 1000, but it is 0', extendOption({ batchSize: 0 }));
refused('Extend > Batch Size', '1.5', 'Batch Size must be a whole number from 1 to 1000, but it is 1.5', extendOption({ batchSize: 1.5 }));
refused('Extend > Batch Size', '5000', 'Batch Size must be a whole number from 1 to 1000, but it is 5000', extendOption({ batchSize: 5000 }));
refused('Extend > Timeout (Seconds)', '0', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is 0', extendOption({ timeoutSeconds: 0 }));
refused(
	'Extend > Timeout (Seconds)',
	'2\u00b3\u00b9 ms (beyond Node\u2019s timer limit)',
	'Timeout (Seconds) must be a whole number from 1 to 600, but it is 2147484',
	extendOption({ timeoutSeconds: 2_147_484 }),
);
// Safety options set by expressions that resolve to nothing or to another type: never "off".
refused('Extend > Dry Run', 'expression resolving to "yes"', 'Dry Run must be true or false, but it is \u201cyes\u201d', extendOption({ dryRun: '={{ "yes" }}' }));
refused('Extend > Dry Run', 'expression resolving to nothing', 'Dry Run must be true or false, but it is empty', extendOption({ dryRun: '={{ $json.nothing }}' }));
refused(
	'Extend > Maximum Total Cost',
	'expression resolving to nothing',
	'Maximum Total Cost must be an amount of 0 or more, but it is empty',
	extendOption({ maxTotalCost: '={{ $json.nothing }}' }),
);
refused('Extend > Maximum Total Cost', 'expression resolving to NaN', 'Maximum Total Cost must be an amount of 0 or more, but it is NaN', extendOption({ maxTotalCost: '={{ NaN }}' }));
refused(
	'Extend > Only If Expiring Within (Hours)',
	'expression resolving to nothing',
	'Only If Expiring Within (Hours) must be a number of hours of 0 or more, but it is empty',
	extendOption({ onlyIfExpiringWithinHours: '={{ $json.nothing }}' }),
);
refused('Extend > Batch Size', 'expression resolving to nothing', 'Batch Size must be a whole number from 1 to 1000, but it is empty', extendOption({ batchSize: '={{ $json.nothing }}' }));
refused(
	'Extend > Timeout (Seconds)',
	'expression resolving to nothing',
	'Timeout (Seconds) must be a whole number from 1 to 600, but it is empty',
	extendOption({ timeoutSeconds: '={{ $json.nothing }}' }),
);
refused('Extend > Maximum Total Cost', '-1', 'Maximum Total Cost must be an amount of 0 or more, but it is -1', extendOption({ maxTotalCost: -1 }));
// Plain decimal text only: JavaScript would read "0x10" as 16 and "1e3" as 1000.
refused('Extend > Maximum Total Cost', 'text "0x10"', 'Maximum Total Cost must be an amount of 0 or more, but it is \u201c0x10\u201d', extendOption({ maxTotalCost: '={{ "0x10" }}' }));
refused('Extend > Maximum Total Cost', 'text "1e3"', 'Maximum Total Cost must be an amount of 0 or more, but it is \u201c1e3\u201d', extendOption({ maxTotalCost: '={{ "1e3" }}' }));
refused('Extend > Keep Wallet At Least', 'text "0x10"', 'Keep Wallet At Least must be an amount of 0 or more, but it is \u201c0x10\u201d', extendOption({ keepWalletAtLeast: '={{ "0x10" }}' }));
refused('Extend > Timeout (Seconds)', 'text "0x10"', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is \u201c0x10\u201d', extendOption({ timeoutSeconds: '={{ "0x10" }}' }));
refused(
	'Extend > Maximum Total Cost',
	'"abc"',
	'Maximum Total Cost must be an amount of 0 or more, but it is \u201cabc\u201d',
	extendOption({ maxTotalCost: 'abc' }),
);
refused(
	'Extend > Only If Expiring Within (Hours)',
	'-1',
	'Only If Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1',
	extendOption({ onlyIfExpiringWithinHours: -1 }),
);
refused(
	'Extend > Only If Expiring Within (Hours)',
	'"abc"',
	'Only If Expiring Within (Hours) must be a number of hours of 0 or more, but it is \u201cabc\u201d',
	extendOption({ onlyIfExpiringWithinHours: 'abc' }),
);

// With Continue On Fail, the bad item becomes an error item paired with it; the others are extended.
cases.push({
	row: 'Extend > Interval',
	value: '0, with Continue On Fail',
	expected: 'item 1 becomes an error item paired with it; items 0 and 2 are extended, charged once each',
	run: (sim) => ({ ...extendRun({ interval: 0 })(sim), continueOnFail: true }),
	check(result, sim) {
		const [a, b, c] = names(sim);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items.map((item) => item.json.status ?? 'error')).toEqual(['extended', 'error', 'extended']);
		expect(result.items[1].json.error).toBe('Interval must be a whole number from 1 to 1000, but it is 0 [item 1]');
		expect(result.items[1].json.proxy_name).toBeUndefined();
		expect(sim.ledger.map((charge) => charge.proxy_name)).toEqual([a, c]);
		expect(sim.ledger.some((charge) => charge.proxy_name === b)).toBe(false);
	},
});

// ----- Proxy > Get: one item

/** One item; the name comes from the item, as in a workflow (`{{ $json.name }}`). */
const getRun = (name: string | null, options: IDataObject = {}) => (): Run => ({
	parameters: { resource: 'proxy', operation: 'get', proxyName: byName, options },
	items: [{ name }],
});

refused('Get > Proxy', 'empty', 'Proxy is empty [item 0]', getRun(''));
refused('Get > Proxy', 'whitespace', 'Proxy is empty [item 0]', getRun('   '));
refused('Get > Proxy', 'very long (500 characters)', 'Proxy is longer than 200 characters [item 0]', getRun('P'.repeat(500)));
refused('Get > Proxy', 'expression resolving to null', 'Proxy is empty [item 0]', getRun(null));
refused('Get > Proxy', '".."', 'Proxy cannot be \u201c..\u201d [item 0]', getRun('..'));
refused('Get > Proxy', '"."', 'Proxy cannot be \u201c.\u201d [item 0]', getRun('.'));
/** Left empty in the editor, a required field stops the run in n8n itself, before the node runs. */
function refusedByN8n(row: string, field: string, run: Case['run']): void {
	const message = `The 'Node Under Test' node has issues:\n- Parameter "${field}" is required.`;
	cases.push({ row, value: 'left empty in the editor', expected: `n8n does not start the run: \u201c${message}\u201d`, run, n8nRefuses: message, check() {} });
}

refusedByN8n('Get > Proxy', 'Proxy', () => ({ parameters: { resource: 'proxy', operation: 'get', proxyName: { __rl: true, mode: 'name', value: '' } } }));
refused('Get > Include Password', '"yes"', 'Include Password must be true or false, but it is \u201cyes\u201d [item 0]', (sim) => getRun(names(sim)[0], { includePassword: 'yes' })());
refused('Get > Timeout (Seconds)', '0', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is 0 [item 0]', (sim) => getRun(names(sim)[0], { timeoutSeconds: 0 })());

for (const [label, odd] of ODD_NAMES) {
	cases.push({
		row: 'Get > Proxy',
		value: label,
		expected: `encoded as one path segment (/v1/proxies/${encodeURIComponent(odd)}): that proxy is returned`,
		setup: (sim) => void sim.addProxy(null, { proxy_name: odd }),
		run: getRun(odd),
		check(result, sim) {
			expect(result.status).toBe('success');
			expect(result.items.map((item) => item.json.proxy_name)).toEqual([odd]);
			expect(sim.requests.map((r) => r.path)).toEqual([`/v1/proxies/${encodeURIComponent(odd)}`]);
			expect(sim.ledger).toHaveLength(0);
		},
	});
}

// ----- Price > Quote: one item, one line

const quoteRun = (line: IDataObject, extra: IDataObject = {}) => (): Run => ({
	parameters: {
		resource: 'price',
		operation: 'quote',
		lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: 1, period: 'weekly', ...line }] },
		...extra,
	},
});

for (const [label, value, shown] of INTERVALS) {
	refused(
		'Quote > Interval',
		label,
		`Interval must be a whole number from 1 to 1000, but it is ${shown} [item 0]`,
		quoteRun({ interval: value === null ? '={{ null }}' : value }),
	);
}
refused(
	'Quote > Period',
	'unknown ("fortnightly")',
	'Period must be one of hourly, daily, weekly, monthly, yearly, but it is \u201cfortnightly\u201d [item 0]',
	quoteRun({ period: 'fortnightly' }),
);
refused('Quote > Carrier', 'expression resolving to empty', 'Carrier is empty [item 0]', quoteRun({ carrier: "={{ '' }}" }));
refusedByN8n('Quote > Carrier', 'Carrier Name or ID', quoteRun({ carrier: '' }));
refused('Quote > City', 'expression resolving to null', 'City is empty [item 0]', quoteRun({ city: '={{ null }}' }));
refused('Quote > Lines', 'none', 'Lines is empty [item 0]', () => ({ parameters: { resource: 'price', operation: 'quote', lines: { line: [] } } }));
refused('Quote > Timeout (Seconds)', '0', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is 0 [item 0]', quoteRun({}, { options: { timeoutSeconds: 0 } }));

// Carriers and cities are the service's (a new one needs no release): an unknown one is refused by
// the service, which charges nothing for a quote; the message names the item and the field.
for (const [field, line, value] of [
	['Carrier', { carrier: 'Sprint' }, 'Sprint'],
	['City', { city: 'Atlantis' }, 'Atlantis'],
] as Array<[string, IDataObject, string]>) {
	cases.push({
		row: `Quote > ${field}`,
		value: `unknown ("${value}")`,
		expected: `refused by the service (one quote request; a quote charges nothing): the message names ${field}, its value and the item`,
		run: quoteRun(line),
		check(result, sim) {
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(
				new RegExp(`^The Proxy Account service rejected the request: proxies\\[0\\]\\.(isp|location) must be a known .*\\(${field} \u201c${value}\u201d\\) \\[item 0\\]$`),
			);
			expect(String(result.error?.description)).toMatch(new RegExp(`^Pick the ${field.toLowerCase()} from the list`));
			expect(sim.requests.map((r) => r.route)).toEqual(['POST /v1/price']);
			expect(sim.ledger).toHaveLength(0);
		},
	});
}

// ----- Proxy > Get Many and Stock > Get Many

const getManyRun = (extra: IDataObject) => (): Run => ({ parameters: { resource: 'proxy', operation: 'getAll', ...extra } });
const stockRun = (extra: IDataObject) => (): Run => ({ parameters: { resource: 'stock', operation: 'getAll', ...extra } });

for (const [label, value, shown] of [
	['0', 0, '0'],
	['-1', -1, '-1'],
	['1.5', 1.5, '1.5'],
	['"abc"', 'abc', '\u201cabc\u201d'],
] as Array<[string, string | number, string]>) {
	refused('Get Many > Limit', label, `Limit must be a whole number of 1 or more, but it is ${shown} [item 0]`, getManyRun({ returnAll: false, limit: value }));
}
refused('Stock > Limit', '0', 'Limit must be a whole number of 1 or more, but it is 0 [item 0]', stockRun({ returnAll: false, limit: 0 }));
refused('Stock > Limit', '-1', 'Limit must be a whole number of 1 or more, but it is -1 [item 0]', stockRun({ returnAll: false, limit: -1 }));
refused(
	'Get Many > Expiring Within (Hours)',
	'-1',
	'Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1 [item 0]',
	getManyRun({ filters: { expiringWithinHours: -1 } }),
);
refused(
	'Get Many > Expiring Within (Hours)',
	'"abc"',
	'Expiring Within (Hours) must be a number of hours of 0 or more, but it is \u201cabc\u201d [item 0]',
	getManyRun({ filters: { expiringWithinHours: 'abc' } }),
);
refused('Get Many > Timeout (Seconds)', '0', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is 0 [item 0]', getManyRun({ options: { timeoutSeconds: 0 } }));
refused('Stock > Only Available', '"maybe"', 'Only Available must be true or false, but it is \u201cmaybe\u201d [item 0]', stockRun({ filters: { onlyAvailable: 'maybe' } }));
// Switches are read strictly everywhere: true/false or the text "true"/"false".
refused('Stock > Return All', 'expression resolving to "yes"', 'Return All must be true or false, but it is \u201cyes\u201d [item 0]', stockRun({ returnAll: '={{ "yes" }}' }));
refused('Get Many > Return All', 'expression resolving to 1', 'Return All must be true or false, but it is 1 [item 0]', getManyRun({ returnAll: '={{ 1 }}' }));
refused('Get Many > Simplify', 'expression resolving to "no"', 'Simplify must be true or false, but it is \u201cno\u201d [item 0]', getManyRun({ simplify: '={{ "no" }}' }));
refused('Quote > Simplify', 'expression resolving to "no"', 'Simplify must be true or false, but it is \u201cno\u201d', quoteRun({}, { simplify: '={{ "no" }}' }));
refused('Quote > Combine All Items Into One Quote', 'expression resolving to 0', 'Combine All Items Into One Quote must be true or false, but it is 0', quoteRun({}, { combineItems: '={{ 0 }}' }));
refused('Stock > Timeout (Seconds)', '"abc"', 'Timeout (Seconds) must be a whole number from 1 to 600, but it is \u201cabc\u201d [item 0]', stockRun({ options: { timeoutSeconds: 'abc' } }));

// ----- the credential (through Stock > Get Many, the cheapest read)

const withCredential = (baseUrl: string, apiKey = '{key}') => (): Run => ({
	parameters: { resource: 'stock', operation: 'getAll', returnAll: true, filters: { onlyAvailable: false } },
	baseUrl,
	apiKey,
});

refused(
	'Credential > Base URL',
	'without a scheme',
	'The Base URL in the Proxy Account credential must start with http:// or https:// (it is \u201c127.0.0.1:9\u201d)',
	withCredential('127.0.0.1:9'),
);
refused('Credential > Base URL', 'empty', 'The Proxy Account credential has no Base URL', withCredential(''));
// The Base URL leaks nothing: a password in it, or the API key pasted into it, is never repeated.
const URL_PASSWORD = 'Hunter2-base-url-password';
refused(
	'Credential > Base URL',
	'with user:password@',
	'The Base URL in the Proxy Account credential must not contain a user name or password',
	() => ({ ...withCredential('')(), baseUrl: `http://admin:${URL_PASSWORD}@127.0.0.1:9` }),
	() => audit.addKey(URL_PASSWORD),
);
refused(
	'Credential > Base URL',
	'the API key pasted into it',
	'The Base URL in the Proxy Account credential must start with http:// or https:// (it is a value that looks like the API key, so it is not shown)',
	withCredential('{key}'),
);
refused(
	'Credential > Base URL',
	'a key-like token',
	'The Base URL in the Proxy Account credential must start with http:// or https:// (it is a value that looks like a key, so it is not shown)',
	withCredential('pa_live_0123456789abcdef0123456789abcdef'),
	() => audit.addKey('pa_live_0123456789abcdef0123456789abcdef'),
);
refused(
	'Credential > Base URL',
	'300 characters of text',
	'The Base URL in the Proxy Account credential must start with http:// or https:// (it is a value of 300 characters, not shown)',
	withCredential('x'.repeat(300)),
);
refused(
	'Credential > Base URL',
	'the API key in a query ("?key=\u2026")',
	'The Base URL in the Proxy Account credential must not contain ? or #',
	withCredential('{url}/?key={key}'),
);
refused('Credential > Base URL', 'with a query ("?a=1")', 'The Base URL in the Proxy Account credential must not contain ? or #', withCredential('{url}?a=1'));
for (const [label, suffix] of [
	['with a trailing slash', '/'],
	['with the /v1 path', '/v1'],
	['with /v1/ and spaces around', '/v1/  '],
] as Array<[string, string]>) {
	cases.push({
		row: 'Credential > Base URL',
		value: label,
		expected: 'normalised: requests go to /v1/stock and succeed',
		run: withCredential(`{url}${suffix}`),
		check(result, sim) {
			expect(result.status).toBe('success');
			expect(result.items).toHaveLength(sim.stock.length);
			expect(sim.requests.map((r) => r.path)).toEqual(['/v1/stock']);
		},
	});
}
cases.push({
	row: 'Credential > Base URL',
	value: 'with another path ("/api")',
	expected: 'kept (a service behind a prefix); the simulator has nothing there: one request, a message pointing at the Base URL',
	run: withCredential('{url}/api'),
	check(result, sim) {
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account service has no GET /v1/stock at this Base URL (HTTP 404)');
		expect(String(result.error?.description)).toMatch(/Check the Base URL in the Proxy Account credential/);
		expect(sim.requests.map((r) => r.path)).toEqual(['/api/v1/stock']);
	},
});
refused(
	'Credential > API Key',
	'with a space inside',
	'The API key in the Proxy Account credential contains a space, a line break or another invisible character',
	withCredential('{url}', 'pa_live_0123456789abcdef 0123456789abcdef'),
);
refused(
	'Credential > API Key',
	'with a line break inside',
	'The API key in the Proxy Account credential contains a space, a line break or another invisible character',
	withCredential('{url}', 'pa_live_0123456789abcdef\n0123456789abcdef'),
);
refused('Credential > API Key', 'empty', 'The Proxy Account credential has no API key', withCredential('{url}', '   '));
cases.push({
	row: 'Credential > API Key',
	value: 'with spaces and a line break around it',
	expected: 'trimmed: the request carries Bearer <key> and succeeds',
	run: withCredential('{url}', '  {key}\n'),
	check(result, sim) {
		expect(result.status).toBe('success');
		expect(sim.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${sim.demoApiKey}`]);
	},
});
cases.push({
	row: 'Credential > API Key',
	value: 'wrong key',
	expected: 'one request (a 401 is not retried): \u201cThe Proxy Account API key was not accepted\u201d, the key not echoed',
	run: withCredential('{url}', 'pa_live_ffffffffffffffffffffffffffffffff'),
	check(result, sim) {
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The Proxy Account API key was not accepted');
		expect(sim.requests.map((r) => r.status)).toEqual([401]);
	},
});

// ----- the trigger: parameters are checked before the poll sends anything

function triggerCase(value: string, parameters: Record<string, unknown>, message: string): void {
	cases.push({
		row: `Trigger > ${message.replace(/ must .*/, '')}`,
		value,
		expected: `the poll is refused before any request: \u201c${message}\u201d; no state written`,
		poll: { parameters, message },
		run: () => ({ parameters }),
		check() {},
	});
}

triggerCase('-1', { event: 'proxyExpiring', withinHours: -1 }, 'Expiring Within (Hours) must be a number of hours of 0 or more, but it is -1');
triggerCase('"abc"', { event: 'proxyExpiring', withinHours: 'abc' }, 'Expiring Within (Hours) must be a number of hours of 0 or more, but it is \u201cabc\u201d');
triggerCase('empty', { event: 'proxyExpiring', withinHours: '' }, 'Expiring Within (Hours) must be a number of hours of 0 or more, but it is empty');
triggerCase('0', { event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 0 }, 'Threshold must be a whole number of 1 or more, but it is 0');
triggerCase('1.5', { event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 1.5 }, 'Threshold must be a whole number of 1 or more, but it is 1.5');
triggerCase('"abc"', { event: 'stockChanged', stockChange: 'reachedThreshold', threshold: 'abc' }, 'Threshold must be a whole number of 1 or more, but it is \u201cabc\u201d');
triggerCase('unknown', { event: 'somethingElse' }, 'Event must be one of the events in the list, but it is \u201csomethingElse\u201d');
triggerCase('unknown', { event: 'stockChanged', stockChange: 'sometimes' }, 'Stock Change must be one of the options in the list, but it is \u201csometimes\u201d');
triggerCase('-1', { event: 'lowFunds', fundsThreshold: -1 }, 'Threshold must be an amount of 0 or more, but it is -1');
triggerCase('"no"', { event: 'ipChanged', onlyAutoRotating: 'no' }, 'Only Auto-Rotating Proxies must be true or false, but it is \u201cno\u201d');

// ----- running them

results.declare('bad-input', [...new Set(cases.map((c) => c.row))]);
results.plan(cases.length + 1);

/** How the value reaches the node, for the table. */
function scenarioOf(c: Case): string {
	const [where, field] = c.row.split(' > ');
	const value = `${field} = ${c.value}`;
	if (c.n8nRefuses) return `${where}: the required field ${field} left empty (a fixed value, not an expression)`;
	if (where === 'Extend' && ['Interval', 'Period', 'Proxy'].includes(field)) {
		return `Extend of 3 items; item 1 has ${value} (each item's own value, through an expression); items 0 and 2 are good`;
	}
	if (where === 'Extend') return `Extend of 3 good items with the option ${value}`;
	if (where === 'Get') return `Get of one item with ${value}${field === 'Proxy' ? ' (from {{ $json.name }})' : ''}`;
	if (where === 'Quote') return `Quote of one item, one line (AT&T, Austin, 1, Weekly) but ${value}`;
	if (where === 'Get Many' || where === 'Stock') return `${where === 'Stock' ? 'Stock > Get Many' : 'Proxy > Get Many'} of one item with ${value}`;
	if (where === 'Credential') return `Stock > Get Many with the credential's ${value}`;
	return `a scheduled poll of the trigger with ${value}`;
}

async function runCase(c: Case): Promise<void> {
	await results.cell(
		{ table: 'bad-input', row: c.row, column: c.value, scenario: scenarioOf(c), expected: c.expected },
		async (obs) => {
			await withSim({}, async (sim) => {
				c.setup?.(sim);
				const run = c.run(sim);
				const creds = credentials(sim, run);
				audit.addSim(sim);
				audit.addKey(creds.apiKey);
				if (c.poll) {
					const t = new PollHarness(harness, { type: 'proxyAccountTrigger', parameters: c.poll.parameters }, creds);
					let error: unknown;
					try {
						audit.poll(`${c.row} ${c.value}`, await t.poll());
					} catch (caught) {
						error = caught;
						audit.poll(`${c.row} ${c.value}`, null, caught);
					}
					obs.count(sim);
					obs.note(error instanceof Error ? `poll refused: \u201c${error.message}\u201d` : 'poll ran');
					expect(error).toBeInstanceOf(NodeOperationError);
					expect((error as Error).message).toBe(c.poll.message);
					expect(sim.requests).toHaveLength(0);
					expect(t.staticData).toEqual({});
					return;
				}
				const started = harness.runNode(
					{ type: 'proxyAccount', continueOnFail: run.continueOnFail, parameters: run.parameters },
					{ credentials: creds, items: run.items },
				);
				if (c.n8nRefuses !== undefined) {
					const error = await started.then(
						() => undefined,
						(caught: unknown) => caught,
					);
					audit.refused(`${c.row} ${c.value}`, error);
					obs.count(sim);
					obs.note(`n8n refused the run: \u201c${error instanceof Error ? error.message : String(error)}\u201d`);
					expect((error as Error | undefined)?.message).toBe(c.n8nRefuses);
					expect(sim.requests).toHaveLength(0);
					return;
				}
				const result = await started;
				audit.run(`${c.row} ${c.value}`, result);
				obs.count(sim);
				obs.note(
					result.status === 'error'
						? `stopped: \u201c${String(result.error?.message)}\u201d`
						: `${result.status}: ${result.items.length} item${result.items.length === 1 ? '' : 's'}${
								result.items.some((item) => item.json.error) ? ` (errors: ${result.items.filter((item) => item.json.error).map((item) => `\u201c${String(item.json.error)}\u201d`).join(', ')})` : ''
							}`,
				);
				if (sim.requests.length > 0) obs.note(`sent: ${sim.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`);
				c.check(result, sim, obs);
				// Whatever the input, nothing that moves money happens unless every item was good.
				if (!/extended/.test(c.expected)) expect(sim.ledger).toHaveLength(0);
			});
		},
	);
}

describe(`bad input: ${cases.length} values across every parameter, each refused clearly before any request or encoded safely`, () => {
	it.concurrent.each(cases.map((c): [string, string, Case] => [c.row, c.value, c]))('%s = %s', async (_row, _value, c) => {
		await runCase(c);
	});

	it('covers at least 40 cases and every parameter of both nodes and the credential', () => {
		expect(cases.length).toBeGreaterThanOrEqual(40);
		const rows = new Set(cases.map((c) => c.row));
		for (const parameter of [
			'Extend > Interval',
			'Extend > Period',
			'Extend > Proxy',
			'Extend > Batch Size',
			'Extend > Timeout (Seconds)',
			'Extend > Maximum Total Cost',
			'Extend > Only If Expiring Within (Hours)',
			'Get > Proxy',
			'Quote > Interval',
			'Quote > Period',
			'Quote > Carrier',
			'Quote > City',
			'Quote > Lines',
			'Get Many > Limit',
			'Get Many > Expiring Within (Hours)',
			'Stock > Limit',
			'Credential > Base URL',
			'Credential > API Key',
			'Trigger > Expiring Within (Hours)',
			'Trigger > Threshold',
		]) {
			expect(rows).toContain(parameter);
		}
	});

	it('secret audit of this file: no API key, no password that was not asked for', async () => {
		await auditCell(results, audit, capturedLogs, 'the bad-input table');
	});
});
