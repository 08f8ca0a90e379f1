import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isSet, parseAmount } from './validation';

/*
 * When the node runs as an AI agent's tool. n8n offers a node with `usableAsTool` to agents as a
 * copy of it whose type name ends in "Tool" (e.g. `n8n-nodes-proxy-account.proxyAccountTool`); newer
 * n8n also says so through `isToolExecution()`. The builder picks the operation; the agent fills
 * the parameters whose value calls `$fromAI(...)`, and its arguments are the tool node's input item
 * (what `$json` reads there). A limit counts only when the builder set it.
 */
export function runsAsAgentTool(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	if (ctx.getNode().type.endsWith('Tool')) return true;
	const check = (ctx as Partial<Pick<IExecuteFunctions, 'isToolExecution'>>).isToolExecution;
	if (typeof check !== 'function') return false;
	try {
		return check.call(ctx) === true;
	} catch {
		return false;
	}
}

/**
 * What an expression may read and still be the builder's own value: the workflow's variables,
 * secrets and environment, other nodes' output by name, the workflow and execution, the clock, and
 * n8n's pure helpers. Everything else (`$fromAI` in any spelling, `$json`, `$input`, `$binary`,
 * `$item`, `$parameter`, …) can carry what the agent passed to the tool.
 */
const BUILDER_READS = new Set([
	'$',
	'$vars',
	'$secrets',
	'$env',
	'$node',
	'$workflow',
	'$execution',
	'$now',
	'$today',
	'$jmespath',
	'$min',
	'$max',
	'$ifEmpty',
]);

/** The `$names` an expression reads, outside its string literals. */
function readsOf(expression: string): string[] {
	// Template literals stay: what they interpolate is code.
	const code = expression.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "''");
	return [...code.matchAll(/\$[A-Za-z_0-9]*/g)].map((match) => match[0]);
}

/** Whether a raw parameter value (before n8n evaluates it) is the builder's own: a literal, or an expression that reads no agent input. */
export function isBuilderValue(raw: unknown): boolean {
	if (raw === undefined) return false;
	if (typeof raw !== 'string' || !raw.startsWith('=')) return true;
	// `$fromAI` is read case-insensitively by n8n, also inside a string literal of a nested expression.
	if (/\$fromai/i.test(raw)) return false;
	return readsOf(raw.slice(1)).every((name) => BUILDER_READS.has(name));
}

/** The raw value of a parameter at a dotted path (e.g. `options.maxTotalCost`), as the builder saved it. */
export function rawParameter(ctx: Pick<IExecuteFunctions, 'getNode'>, path: string): unknown {
	let value: unknown = ctx.getNode().parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = Object.prototype.hasOwnProperty.call(value, key)
			? (value as Record<string, unknown>)[key]
			: undefined;
	}
	return value;
}

/**
 * A limit as it counts: its value, unless the node runs as an AI agent's tool and the builder did
 * not set it (left out, or filled by the agent): then undefined, as if it were not set at all.
 */
export function builderLimit<T>(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	path: string,
	value: T | undefined,
): T | undefined {
	if (value === undefined || !runsAsAgentTool(ctx)) return value;
	return isBuilderValue(rawParameter(ctx, path)) ? value : undefined;
}

/**
 * An amount limit of the run's Options (Maximum Total Cost, Keep Wallet At Least, …) as it counts:
 * parsed when set, and undefined when not set or, as an AI agent's tool, not set by the builder.
 */
export function limitOption(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	options: IDataObject,
	name: string,
	label: string,
): number | undefined {
	if (!isSet(options, name)) return undefined;
	return builderLimit(
		ctx,
		`options.${name}`,
		parseAmount(ctx.getNode(), undefined, options[name], label),
	);
}
