/*
 * Parameters that hold for the whole run (Dry Run, Maximum Total Cost, Batch Size, Timeout…). n8n
 * evaluates a parameter per item, so an expression could give item 3 a Dry Run that item 0 does not
 * have: the run is then refused before anything is sent, so no item acts against its own setting.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS } from '../../transport';
import { limitOption } from './agent';
import { DEFAULT_BATCH_SIZE, SENT_ONCE_TIMEOUT_SECONDS } from './descriptions';
import {
	hoursOption,
	isSet,
	parseTimeoutSeconds,
	parseWholeNumber,
	shown,
	switchOption,
} from './validation';

function hasExpression(raw: unknown): boolean {
	if (typeof raw === 'string') return raw.startsWith('=');
	if (raw === null || typeof raw !== 'object') return false;
	return Object.values(raw as Record<string, unknown>).some(hasExpression);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The declaration of option `name` in an operation's collection `collection`. */
function declared(
	properties: INodeProperties[],
	name: string,
	collection = 'options',
): INodeProperties | undefined {
	const parent = properties.find((property) => property.name === collection);
	return (parent?.options as INodeProperties[] | undefined)?.find((o) => o.name === name);
}

/** The display name of a parameter, or of an option inside a collection. */
function labelOf(properties: INodeProperties[], name: string, option?: string): string {
	if (option === undefined)
		return properties.find((property) => property.name === name)?.displayName ?? name;
	return declared(properties, option, name)?.displayName ?? option;
}

/** A run-wide parameter: read per item when it holds an expression, refused when the items disagree. */
export function runWideParameter<T = unknown>(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
	name: string,
	fallback: T,
): T {
	const first = ctx.getNodeParameter(name, 0, fallback) as T;
	if (itemCount < 2 || !hasExpression(ctx.getNode().parameters[name])) return first;
	for (let i = 1; i < itemCount; i++) {
		const value = ctx.getNodeParameter(name, i, fallback) as T;
		if (same(value, first)) continue;
		const key =
			first !== null && typeof first === 'object'
				? [...new Set([...Object.keys(first), ...Object.keys(value as object)])].find(
						(k) => !same((first as IDataObject)[k], (value as IDataObject)[k]),
					)
				: undefined;
		const label = labelOf(properties, name, key);
		const [at0, atI] =
			key === undefined
				? [first, value]
				: [(first as IDataObject)[key], (value as IDataObject)[key]];
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} must be the same for every item of the run, but it is ${shown(at0)} for item 0 and ${shown(atI)} for item ${i}`,
			{
				description: `${label} applies to the whole run, so its expression may not depend on the item. Use one value for all items, or split the items into separate runs (e.g. a Loop Over Items node with Batch Size 1). Nothing was sent.`,
			},
		);
	}
	return first;
}

/** The fix a refused whole-number option suggests; the others say "Enter a whole number from…". */
const WHOLE_HINTS: Record<string, (example: number) => string> = {
	batchSize: (example) => `Enter how many proxies to send per request, e.g. ${example}.`,
	waitTimeoutSeconds: (example) => `Enter how many seconds to wait, e.g. ${example}.`,
};

/** A whole-number option, within the bounds and with the default of its declaration. */
function wholeOption(
	node: INode,
	options: IDataObject,
	property: INodeProperties | undefined,
	fallback: number,
): number {
	const example = typeof property?.default === 'number' ? property.default : fallback;
	if (property === undefined || !isSet(options, property.name)) return example;
	const { name, displayName, typeOptions = {} } = property;
	const range = {
		min: Number(typeOptions.minValue ?? 0),
		max: Number(typeOptions.maxValue ?? Number.MAX_SAFE_INTEGER),
	};
	const hint =
		WHOLE_HINTS[name]?.(example) ??
		`Enter a whole number from ${range.min} to ${range.max}, e.g. ${example}.`;
	return parseWholeNumber(node, undefined, options[name], displayName, range, hint);
}

/**
 * The run-wide options every operation reads the same way (a refusal names no item): each parsed
 * when set, else the default its declaration gives, or its neutral value when not declared.
 */
export function readRunOptions(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
) {
	const options = runWideParameter<IDataObject>(ctx, itemCount, properties, 'options', {});
	const node = ctx.getNode();
	const timeout = declared(properties, 'timeoutSeconds')?.default;
	const fallback = typeof timeout === 'number' ? timeout : SENT_ONCE_TIMEOUT_SECONDS;
	const timeoutMs = parseTimeoutSeconds(node, undefined, options, fallback);
	const label = (name: string) => labelOf(properties, 'options', name);
	/** A switch of the operation's own, read as its declaration names it; off when not set. */
	const flag = (name: string) => switchOption(node, undefined, options, name, label(name));
	/** A whole-number option, within its declaration's bounds, or its default. */
	const whole = (name: string, neutral = 0) =>
		wholeOption(node, options, declared(properties, name), neutral);
	return {
		/** The Options collection as read, for an operation's own options. */
		raw: options,
		dryRun: flag('dryRun'),
		// The limits are undefined when not set or, as an AI agent's tool, not set by the builder.
		maxTotalCost: limitOption(ctx, options, 'maxTotalCost', 'Maximum Total Cost'),
		/** Keep Wallet At Least. */
		floor: limitOption(ctx, options, 'keepWalletAtLeast', 'Keep Wallet At Least'),
		batchSize: whole('batchSize', DEFAULT_BATCH_SIZE),
		timeoutMs,
		/** For the reads around a change (look-up, quote, read-back): at most the reads' default. */
		readTimeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
		/** Wait for New Proxies, and its Wait Timeout in milliseconds. */
		wait: flag('waitForNewProxies'),
		waitMs: whole('waitTimeoutSeconds') * 1000,
		concurrency: whole('concurrency', 1),
		waitUntilAllowed: flag('waitUntilAllowed'),
		maxWaitMs: whole('maxWaitSeconds') * 1000,
		flag,
		whole,
		/** A number of hours of the operation's own (e.g. a window): undefined when not set. */
		hours: (name: string) => hoursOption(node, undefined, options, name, label(name)),
	};
}

/** The run's options (see `readRunOptions`). */
export type RunOptions = ReturnType<typeof readRunOptions>;
