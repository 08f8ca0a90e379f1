/*
 * Parameters that hold for the whole run (one order, one confirmation, one cap): Dry Run, Maximum
 * Total Cost, Confirm Number of Proxies, Batch Size, Timeout… n8n evaluates a parameter per item,
 * so an expression could give item 3 a Dry Run that item 0 does not have. Such a parameter is read
 * for every item when it is an expression, and the run is refused, naming it, when the items
 * disagree: nothing is sent, so no item is bought, charged or removed against its own setting.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
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

function differs(
	ctx: IExecuteFunctions,
	label: string,
	first: unknown,
	other: unknown,
	item: number,
) {
	return new NodeOperationError(
		ctx.getNode(),
		`${label} must be the same for every item of the run, but it is ${shown(first)} for item 0 and ${shown(other)} for item ${item}`,
		{
			description: `${label} applies to the whole run, so its expression may not depend on the item. Use one value for all items, or split the items into separate runs (e.g. a Loop Over Items node with Batch Size 1). Nothing was sent.`,
		},
	);
}

/** The declaration of option `name` in the collection `collection` of an operation's properties. */
function declared(
	properties: INodeProperties[],
	name: string,
	collection = 'options',
): INodeProperties | undefined {
	const parent = properties.find((property) => property.name === collection);
	return (parent?.options as INodeProperties[] | undefined)?.find((o) => o.name === name);
}

/** The display name of a parameter (or of an option inside a collection) in an operation's properties. */
function labelOf(properties: INodeProperties[], name: string, option?: string): string {
	if (option === undefined)
		return properties.find((property) => property.name === name)?.displayName ?? name;
	return declared(properties, option, name)?.displayName ?? option;
}

/**
 * The value of a run-wide parameter: read once when it is a plain value; read for every item when
 * it is (or holds) an expression, and refused, naming the parameter, when the items disagree. A
 * collection (Options) is compared option by option, so the refusal names the option.
 */
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
		const isCollection = first !== null && typeof first === 'object';
		const key = isCollection
			? [...new Set([...Object.keys(first), ...Object.keys(value as object)])].find(
					(k) => !same((first as IDataObject)[k], (value as IDataObject)[k]),
				)
			: undefined;
		throw differs(
			ctx,
			labelOf(properties, name, key),
			key === undefined ? first : (first as IDataObject)[key],
			key === undefined ? value : (value as IDataObject)[key],
			i,
		);
	}
	return first;
}

/** The Options collection of a run, checked as `runWideParameter` does. */
export function runWideOptions(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
): IDataObject {
	return runWideParameter<IDataObject>(ctx, itemCount, properties, 'options', {});
}

/**
 * The run-wide options every operation reads the same way, typed. Each is parsed when set; when
 * not set it takes the default its declaration in the operation's Options gives (helpers/
 * descriptions.ts), and an option the operation does not declare its neutral value. The amount
 * limits are undefined when not set or, as an AI agent's tool, not set by the builder.
 */
export interface RunOptions {
	/** The Options collection as read, for an operation's own options. */
	raw: IDataObject;
	dryRun: boolean;
	maxTotalCost?: number;
	/** Keep Wallet At Least. */
	floor?: number;
	batchSize: number;
	timeoutMs: number;
	/** For the reads around a change (look-up, quote, read-back): the timeout, at most the reads' default. */
	readTimeoutMs: number;
	/** Wait for New Proxies. */
	wait: boolean;
	/** Wait Timeout, in milliseconds. */
	waitMs: number;
	/** How many proxies a device command is sent to at the same time. */
	concurrency: number;
	waitUntilAllowed: boolean;
	/** Max Wait, in milliseconds. */
	maxWaitMs: number;
	/** A switch of the operation's own, read as its declaration names it; off when not set. */
	flag(name: string): boolean;
	/** A whole-number option of the operation's own, within its declaration's bounds, or its default. */
	whole(name: string): number;
	/** A number of hours of the operation's own (e.g. a window): undefined when not set. */
	hours(name: string): number | undefined;
}

/** The fix a refused whole-number option suggests; the others say "Enter a whole number from…". */
const WHOLE_HINTS: Record<string, (example: number) => string> = {
	batchSize: (example) => `Enter how many proxies to send per request, e.g. ${example}.`,
	waitTimeoutSeconds: (example) => `Enter how many seconds to wait, e.g. ${example}.`,
};

/** A whole-number option, within the bounds and with the default of its declaration. */
function wholeOption(
	ctx: IExecuteFunctions,
	options: IDataObject,
	property: INodeProperties | undefined,
	fallback: number,
): number {
	const example = typeof property?.default === 'number' ? property.default : fallback;
	if (property === undefined || !isSet(options, property.name)) return example;
	const bounds = property.typeOptions ?? {};
	const range = {
		min: Number(bounds.minValue ?? 0),
		max: Number(bounds.maxValue ?? Number.MAX_SAFE_INTEGER),
	};
	const hint =
		WHOLE_HINTS[property.name]?.(example) ??
		`Enter a whole number from ${range.min} to ${range.max}, e.g. ${example}.`;
	return parseWholeNumber(
		ctx.getNode(),
		undefined,
		options[property.name],
		property.displayName,
		range,
		hint,
	);
}

/** The run's options (see `RunOptions`), the same for every item: a refusal names no item. */
export function readRunOptions(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
): RunOptions {
	const options = runWideOptions(ctx, itemCount, properties);
	const timeout = declared(properties, 'timeoutSeconds')?.default;
	const timeoutMs = parseTimeoutSeconds(
		ctx.getNode(),
		undefined,
		options,
		typeof timeout === 'number' ? timeout : SENT_ONCE_TIMEOUT_SECONDS,
	);
	const node = ctx.getNode();
	const label = (name: string) => labelOf(properties, 'options', name);
	const flag = (name: string) => switchOption(node, undefined, options, name, label(name));
	const whole = (name: string, neutral = 0) =>
		wholeOption(ctx, options, declared(properties, name), neutral);
	return {
		raw: options,
		dryRun: flag('dryRun'),
		// As an AI agent's tool, a limit the agent filled in counts as none.
		maxTotalCost: limitOption(ctx, options, 'maxTotalCost', 'Maximum Total Cost'),
		floor: limitOption(ctx, options, 'keepWalletAtLeast', 'Keep Wallet At Least'),
		batchSize: whole('batchSize', DEFAULT_BATCH_SIZE),
		timeoutMs,
		readTimeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
		wait: flag('waitForNewProxies'),
		waitMs: whole('waitTimeoutSeconds') * 1000,
		concurrency: whole('concurrency', 1),
		waitUntilAllowed: flag('waitUntilAllowed'),
		maxWaitMs: whole('maxWaitSeconds') * 1000,
		flag,
		whole,
		hours: (name) => hoursOption(node, undefined, options, name, label(name)),
	};
}
