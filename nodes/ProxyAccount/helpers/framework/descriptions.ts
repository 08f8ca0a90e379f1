import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS, PERIODS } from '../../transport';
import { MAX_INTERVAL, MAX_TIMEOUT_SECONDS } from './validation';

/* The parameter descriptions both nodes share, so the same filter reads the same everywhere. */

/** Periods as dropdown options: Hourly ("Interval counts hours"), Daily, Weekly, Monthly, Yearly. */
export const periodOptions = PERIODS.map((period) => ({
	name: period.charAt(0).toUpperCase() + period.slice(1),
	value: period,
	description: `Interval counts ${period === 'daily' ? 'day' : period.slice(0, -2)}s`,
}));

/** Return All and Limit of a Get Many (Limit shown only while Return All is off). */
export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		displayOptions: { show: { returnAll: [false] } },
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
	},
];

/** The proxy picker: From List first, then By Name. */
export function proxyLocator(description: string): INodeProperties {
	return {
		displayName: 'Proxy',
		name: 'proxyName',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a proxy...',
				typeOptions: { searchListMethod: 'searchProxies', searchable: true },
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. PRX-US-AU1-0001',
			},
		],
	};
}

/** The Options collection of an operation: settings that change how it runs, not what it asks for. */
export function optionsCollection(
	options: INodeProperties[],
	description?: string,
): INodeProperties {
	const collection: INodeProperties = {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		// Listed in alphabetical order under Add Option, as n8n's own nodes do.
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
	if (description !== undefined) collection.description = description;
	return collection;
}

/** A whole-number parameter from `min` to `max` ([display name, name]). */
export function wholeNumberField(
	[displayName, name]: [string, string],
	[minValue, maxValue]: [number, number],
	defaultValue: number,
	description: string,
): INodeProperties {
	const typeOptions = { minValue, maxValue, numberPrecision: 0 };
	return { displayName, name, type: 'number', typeOptions, default: defaultValue, description };
}

/** An amount of money, 0 or more, in the account's currency ([display name, name]). */
export function amountField(
	[displayName, name]: [string, string],
	defaultValue: number,
	description: string,
): INodeProperties {
	const typeOptions = { minValue: 0, numberPrecision: 2 };
	return { displayName, name, type: 'number', typeOptions, default: defaultValue, description };
}

/** Keep Wallet At Least: the floor every spending operation checks before it charges (helpers/money/wallet.ts). */
export const keepWalletAtLeastOption = amountField(
	['Keep Wallet At Least', 'keepWalletAtLeast'],
	0,
	"Read the wallet before charging and send nothing that would leave less than this amount, in your account's currency. Unlike Maximum Total Cost, it bounds what any number of runs (or an AI agent calling again and again) can spend. Required, above 0 and with Maximum Total Cost, when the node runs as an AI agent's tool.",
);

/** A notice only the node's AI tool variant shows (n8n's `@tool`): what the builder must set. */
export function asToolNotice(name: string, text: string): INodeProperties {
	return {
		displayName: `As an AI agent's tool: ${text}`,
		name,
		type: 'notice',
		default: '',
		displayOptions: { show: { '@tool': [true] } },
	};
}

/** The notices of an operation `value` that spends or destroys: its panel's, then its tool's. */
export function riskNotices(value: string, notices: { panel: string; tool: string }) {
	const notice: INodeProperties = {
		displayName: notices.panel,
		name: `${value}Notice`,
		type: 'notice',
		default: '',
	};
	return [notice, asToolNotice(`${value}ToolNotice`, notices.tool)];
}

/** Allow as AI Tool: what an AI agent may do with the node only when the builder turned it on. */
export function allowAsToolOption(what: string): INodeProperties {
	return {
		displayName: 'Allow as AI Tool',
		name: 'allowAsTool',
		type: 'boolean',
		default: false,
		description: `Whether an AI agent may ${what} with this node when it runs as a tool. Only a switch you set counts, never one the agent fills in.`,
	};
}

/** What the panel says of options that hold for the whole run (see helpers/framework/runOptions.ts). */
export const RUN_WIDE_NOTE =
	'These apply to the whole run: an expression must give every item the same value, or the run is refused before anything is sent';

/** The Options of an operation whose options hold for the whole run. */
export const runWideOptionsCollection = (options: INodeProperties[]) =>
	optionsCollection(options, RUN_WIDE_NOTE);

export function filtersCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options,
	};
}

/** Interval: a whole number of periods, 1 or more. */
export function intervalField(description: string): INodeProperties {
	const field = wholeNumberField(['Interval', 'interval'], [1, MAX_INTERVAL], 1, description);
	return { ...field, required: true };
}

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

export function carrierFilter(
	loadOptionsMethod: 'getCarriers' | 'getStockCarriers',
	what: string,
): INodeProperties {
	return {
		displayName: 'Carrier Names or IDs',
		name: 'carrier',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod },
		default: [],
		description: `${what}. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
	};
}

export function cityFilter(what: string): INodeProperties {
	return {
		displayName: 'City',
		name: 'city',
		type: 'string',
		default: '',
		placeholder: 'e.g. Austin, Cleveland',
		description: `Only ${what} in these cities, separated by commas (not case-sensitive)`,
	};
}

export function stateFilter(what: string): INodeProperties {
	return {
		displayName: 'State',
		name: 'state',
		type: 'string',
		default: '',
		placeholder: 'e.g. TX',
		description: `Only ${what} in these two-letter state or region codes, separated by commas`,
	};
}

export const nameContainsFilter: INodeProperties = {
	displayName: 'Name Contains',
	name: 'nameContains',
	type: 'string',
	default: '',
	placeholder: 'e.g. AU1',
	description: 'Only proxies whose name or nickname contains this text (not case-sensitive)',
};

/** Seconds a read waits for one answer by default: the transport's own default. */
export const DEFAULT_READ_TIMEOUT_SECONDS = DEFAULT_TIMEOUT_MS / 1000;

export const readTimeoutOption = timeoutOption(
	DEFAULT_READ_TIMEOUT_SECONDS,
	'The longest one request may take, its whole answer included (at most 600). A request that times out is tried again while the retry budget lasts: 30 s, or this timeout when it is longer.',
);

export const includePasswordOption: INodeProperties = {
	displayName: 'Include Password',
	name: 'includePassword',
	type: 'boolean',
	default: false,
	description:
		'Whether to include the proxy password in the output. Leave off unless a later step needs it: anyone who can see the execution can read it.',
};

/** Seconds a request that changes something (sent once) waits for its answer by default. */
export const SENT_ONCE_TIMEOUT_SECONDS = 60;

/** Timeout (Seconds): the longest one request may take; `description` says what a timeout does. */
export function timeoutOption(defaultSeconds: number, description: string): INodeProperties {
	const names: [string, string] = ['Timeout (Seconds)', 'timeoutSeconds'];
	return wholeNumberField(names, [1, MAX_TIMEOUT_SECONDS], defaultSeconds, description);
}

/** Timeout (Seconds) of a request sent once; `what` names it, e.g. "The purchase request". */
export function sentOnceTimeoutOption(defaultSeconds: number, what: string): INodeProperties {
	return timeoutOption(
		defaultSeconds,
		`The longest one request may take (at most 600). ${what} that times out is never sent again automatically.`,
	);
}

/** Batch Size: how many proxies go out per request (helpers/money/batches.ts), 1 to 1000. */
export const DEFAULT_BATCH_SIZE = 100;

export const batchSizeOption = (description: string) =>
	wholeNumberField(['Batch Size', 'batchSize'], [1, 1000], DEFAULT_BATCH_SIZE, description);

/** Dry Run: only say what would be done or charged. */
export function dryRunOption(description: string): INodeProperties {
	return { displayName: 'Dry Run', name: 'dryRun', type: 'boolean', default: false, description };
}

/** Maximum Total Cost: the most one run may charge (helpers/money/charges.ts). */
export const maxTotalCostOption = (description: string) =>
	amountField(['Maximum Total Cost', 'maxTotalCost'], 100, description);

/** Wait Timeout (Seconds): how long to read the list for what a change made; `min` 0 may skip it. */
export function waitTimeoutOption(
	defaultSeconds: number,
	min: 0 | 1,
	description: string,
): INodeProperties {
	const names: [string, string] = ['Wait Timeout (Seconds)', 'waitTimeoutSeconds'];
	return wholeNumberField(names, [min, MAX_TIMEOUT_SECONDS], defaultSeconds, description);
}

/** A carrier dropdown from live stock (display names, as prices and orders take them). */
export function carrierField(what: string): INodeProperties {
	return {
		displayName: 'Carrier Name or ID',
		name: 'carrier',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getCarriers' },
		default: '',
		required: true,
		description: `${what}. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
	};
}

/** A city dropdown from live stock that follows the carrier beside it. */
export function cityField(what: string): INodeProperties {
	return {
		displayName: 'City Name or ID',
		name: 'city',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getCities', loadOptionsDependsOn: ['carrier'] },
		default: '',
		required: true,
		description: `${what} (cities without stock for the chosen carrier say so). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
	};
}

/* The options of the device commands (Rotate IP, Reboot). */
export const concurrencyOption = wholeNumberField(
	['Concurrency', 'concurrency'],
	[1, 20],
	5,
	'How many proxies are sent the command at the same time (1 to 20)',
);

/** The device commands' Wait Until Allowed and Max Wait, and their timeout. */
export const waitUntilAllowedOptions: INodeProperties[] = [
	{
		displayName: 'Wait Until Allowed',
		name: 'waitUntilAllowed',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait for a proxy the service does not allow the command yet (it was sent one too recently), within Max Wait, instead of skipping it',
	},
	wholeNumberField(
		['Max Wait (Seconds)', 'maxWaitSeconds'],
		[1, MAX_TIMEOUT_SECONDS],
		90,
		'The longest to wait for one proxy with Wait Until Allowed (at most 600); a proxy that would need longer is skipped',
	),
	sentOnceTimeoutOption(30, 'A command'),
];
