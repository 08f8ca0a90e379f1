import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isSet, parseAmount, switchOption, valueAt } from './validation';

/*
 * When the node runs as an AI agent's tool: n8n offers a node with `usableAsTool` to agents as a
 * copy whose type name ends in "Tool"; newer n8n also says so through `isToolExecution()`. The agent
 * fills the parameters that call `$fromAI(...)`, and its arguments are the tool's input item.
 */
export function runsAsAgentTool(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	const { type } = ctx.getNode();
	if (typeof type === 'string' && type.endsWith('Tool')) return true;
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

const isFromAi = (name: string) => /^\$fromai$/i.test(name);

/**
 * Whether a raw parameter value may stand in a tool: the builder's own (see `isBuilderValue`), or
 * the agent's declared choice, an expression whose only agent input is `$fromAI(…)` (n8n declares it
 * to the model as an argument of the tool). Anything reading the tool call's input item (`$json`,
 * `$input`, …) is neither: n8n's AI Agent merges the model's arguments into that item, declared or not.
 */
export function isBuilderOrDeclared(raw: unknown): boolean {
	if (raw === undefined || isBuilderValue(raw)) return true;
	if (typeof raw !== 'string') return false;
	const reads = readsOf(raw.slice(1));
	return reads.some(isFromAi) && reads.every((name) => isFromAi(name) || BUILDER_READS.has(name));
}

/** The raw value of a parameter at a dotted path (e.g. `options.maxTotalCost`), as the builder saved it. */
export function rawParameter(ctx: Pick<IExecuteFunctions, 'getNode'>, path: string): unknown {
	return valueAt(ctx.getNode().parameters, path);
}

/** A limit as it counts: as an AI agent's tool, undefined unless the builder (not the agent) set it. */
export function builderLimit<T>(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	path: string,
	value: T | undefined,
): T | undefined {
	if (value === undefined || !runsAsAgentTool(ctx)) return value;
	return isBuilderValue(rawParameter(ctx, path)) ? value : undefined;
}

/** An amount limit of the Options (Maximum Total Cost, …), parsed, as `builderLimit` counts it. */
export function limitOption(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	options: IDataObject,
	name: string,
	label: string,
): number | undefined {
	if (!isSet(options, name)) return undefined;
	const value = parseAmount(ctx.getNode(), undefined, options[name], label);
	return builderLimit(ctx, `options.${name}`, value);
}

/** The parameters whose expression reads the tool call's input item (see `isBuilderOrDeclared`). */
function inputReads(value: unknown, path: string[]): Array<{ path: string[]; raw: string }> {
	if (typeof value === 'string') return isBuilderOrDeclared(value) ? [] : [{ path, raw: value }];
	if (value === null || typeof value !== 'object') return [];
	return Object.entries(value as IDataObject).flatMap(([key, entry]) =>
		inputReads(
			entry,
			/^\d+$/.test(key) || key === 'value' || key === '__rl' ? path : [...path, key],
		),
	);
}

/**
 * As an AI agent's tool, nothing may be read from the tool call's input item: n8n's AI Agent merges
 * every argument of the model into it, declared or not, so such a value could pick another proxy,
 * buy another quantity or show a password. `labelOf` names a parameter by its path.
 */
export function agentInputRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	labelOf: (path: string[]) => string,
): NodeOperationError | undefined {
	if (!runsAsAgentTool(ctx)) return undefined;
	const { parameters } = ctx.getNode();
	const fromField = parameters.proxySource === 'field';
	const [found] = fromField ? [{ path: ['proxyName'], raw: '' }] : inputReads(parameters, []);
	if (found === undefined) return undefined;
	const { path, raw } = found;
	const label = path.join('.') === 'proxyName' ? 'the Proxy' : labelOf(path);
	const source = fromField
		? 'Proxy From: Field of Each Input Item reads it'
		: `Its expression ${raw.length > 60 ? `${raw.slice(0, 60)}\u2026` : raw} reads it`;
	return new NodeOperationError(
		ctx.getNode(),
		`As an AI agent tool, ${label} may not be read from the tool call\u2019s input item`,
		{
			description: `${source}, and the agent can overwrite that item with any argument, declared or not. Open the Proxy Account tool and type the value or read it from your own data ($vars, another node by name); for a field the agent may choose, use Let the model define this parameter (the \u2728 button), which declares it to the agent. A limit must be yours. Nothing was sent.`,
		},
	);
}

/** How long a text of the service (a nickname, a status) may reach an agent; longer ones are cut. */
const SERVICE_TEXT_LIMIT = 100;
/** How long any other text of a tool's output may be. */
const OUTPUT_TEXT_LIMIT = 1000;
/** Free-text fields the service fills and its users write: data, never instructions. */
const FREE_TEXT_FIELDS = new Set(['nickname']);

function bounded(value: unknown, limit: number): unknown {
	if (typeof value === 'string' && value.length > limit)
		return `${value.slice(0, limit)}\u2026 [cut: ${value.length - limit} more characters]`;
	if (Array.isArray(value)) return value.map((entry) => bounded(entry, limit));
	if (value === null || typeof value !== 'object') return value;
	const out: IDataObject = {};
	for (const [key, entry] of Object.entries(value as IDataObject)) {
		const entryLimit = FREE_TEXT_FIELDS.has(key) ? SERVICE_TEXT_LIMIT : limit;
		out[key] = bounded(entry, entryLimit) as IDataObject;
	}
	return out;
}

/** What an agent reads of a tool's output: every text bounded, so a hostile text is bounded data. */
export function forAgentOutput(items: INodeExecutionData[]): INodeExecutionData[] {
	const json = (item: INodeExecutionData) => bounded(item.json, OUTPUT_TEXT_LIMIT) as IDataObject;
	return items.map((item) => ({ ...item, json: json(item) }));
}

/** n8n's AI Agent shows the model only an error's message: as a tool, add the description to it. */
export function forAgentError(error: unknown): unknown {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	const description = error.description?.trim();
	if (!description || error.message.includes(description)) return error;
	const message = error.message.trim().replace(/[.:]$/, '');
	error.message = `${message}. ${description}`;
	return error;
}

/** As an AI agent's tool, the refusal of an operation unless the builder turned on Allow as AI Tool. */
export function agentPermissionRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>,
	what: { operation: string; risk: string },
): NodeOperationError | undefined {
	// Read, and so checked, in every workflow: a switch is true or false wherever it runs.
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const node = ctx.getNode();
	const allowed = switchOption(node, undefined, options, 'allowAsTool', 'Allow as AI Tool');
	if (!runsAsAgentTool(ctx)) return undefined;
	if (builderLimit(ctx, 'options.allowAsTool', allowed) === true) return undefined;
	return new NodeOperationError(
		node,
		`As an AI agent tool, ${what.operation} needs Allow as AI Tool turned on by the workflow\u2019s builder`,
		{
			description: `${what.risk} Open the Proxy Account tool and turn on Options > Allow as AI Tool if an agent may do this (a value the agent fills in does not count). Nothing was sent.`,
		},
	);
}

/** The `refuseRun` of an operation that needs the builder's Allow as AI Tool (see above). */
export const permissionNeeded = (operation: string, risk: string) => (ctx: IExecuteFunctions) =>
	agentPermissionRefusal(ctx, { operation, risk });
