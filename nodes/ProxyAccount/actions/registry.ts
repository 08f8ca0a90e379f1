import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	agentInputRefusal,
	forAgentError,
	forAgentOutput,
	runsAsAgentTool,
} from '../helpers/framework/agent';
import { riskNotices } from '../helpers/framework/descriptions';
import { oneAtATime } from '../helpers/guards/oneAtATime';
import type { ItemExecute } from '../helpers/framework/itemLoop';
import type { BatchedExecute, BatchedRun } from '../helpers/framework/batchedRun';
import { forEachItem, itemRun } from '../helpers/framework/itemLoop';
import { itemResults, openRun } from '../helpers/framework/batchedRun';
import { testEventRefusal, testItemRefusals } from '../helpers/guards/testEvent';

/*
 * How the action node is put together from its operations (docs/contributing.md, "Adding an
 * operation"): dropdowns, display options, subtitle and dispatch are derived here.
 */

/** What an operation shows: its dropdown entry and its canvas subtitle. */
export interface OperationInfo {
	value: string;
	name: string;
	/** Sentence case, e.g. "Get many proxies". */
	action: string;
	description: string;
	/** The canvas subtitle, e.g. "Get Many Proxies". */
	subtitle: string;
	/** What it spends or destroys, first in its panel, and what its AI agent's tool needs. */
	notices?: { panel: string; tool: string };
}

export interface OperationModule {
	operation: OperationInfo;
	/** Declared bare: the resource and operation are added here. */
	properties: INodeProperties[];
	/** One item at a time: the router runs the items and routes each failure to its item. */
	executeItem?: ItemExecute;
	/** All items at once, in the run `openRun` (helpers/framework/batchedRun.ts) opened. */
	execute?: BatchedExecute;
	/** The run-wide options of `execute`, read once; a failure fails every item. */
	readOptions?: (ctx: IExecuteFunctions, itemCount: number) => unknown;
	/** The refusals of `execute`'s whole run, given its options: every item carries one. */
	guards?: (ctx: IExecuteFunctions, options: never) => Error | undefined;
	/** A refusal of the whole run, before any item (e.g. an AI agent's tool the builder did not allow). */
	refuseRun?: (ctx: IExecuteFunctions) => Error | undefined;
	/** It spends from the wallet: one run at a time per credential (helpers/guards/oneAtATime.ts). */
	spendsMoney?: true;
	/** It destroys paid time (Remove). With `spendsMoney`: never on a made-up test event. */
	destroysPaidTime?: true;
}

export interface Resource {
	value: string;
	name: string;
	/** Operation chosen for a new node. */
	defaultOperation: string;
	operations: Record<string, OperationModule>;
}

/** A resource with its operations keyed by value; `selected` is the one a new node starts with. */
export function defineResource(
	info: { value: string; name: string },
	modules: OperationModule[],
	selected: OperationModule,
): Resource {
	const operations = Object.fromEntries(modules.map((module) => [module.operation.value, module]));
	return { ...info, defaultOperation: selected.operation.value, operations };
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** The Resource dropdown, each resource's Operation dropdown, then every operation's properties. */
export function nodeProperties(resources: Resource[], defaultResource: string): INodeProperties[] {
	const properties: INodeProperties[] = [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: resources.map(({ name, value }) => ({ name, value })).sort(byName),
			default: defaultResource,
		},
	];
	for (const resource of resources) {
		const modules = Object.values(resource.operations);
		const selected = resource.defaultOperation;
		properties.push({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.value] } },
			options: modules
				.map(({ operation: { name, value, description, action } }): INodePropertyOptions => {
					return { name, value, description, action };
				})
				.sort(byName),
			default: selected,
		});
	}
	for (const resource of resources) {
		for (const module of Object.values(resource.operations)) {
			// Each property keeps its own conditions (e.g. `returnAll: [false]` on Limit) and gains these.
			const only = { show: { resource: [resource.value], operation: [module.operation.value] } };
			const { value, notices } = module.operation;
			const own = [...(notices ? riskNotices(value, notices) : []), ...module.properties];
			properties.push(...updateDisplayOptions(only, own));
		}
	}
	return properties;
}

/** The canvas subtitle: an expression that looks up each operation's own subtitle. */
export function subtitleExpression(resources: Resource[]): string {
	const subtitles: Record<string, string> = {};
	for (const resource of resources) {
		for (const { operation } of Object.values(resource.operations))
			subtitles[`${resource.value}:${operation.value}`] = operation.subtitle;
	}
	return `={{ ${JSON.stringify(subtitles)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}

/** A parameter's name as the panel shows it, by its path, e.g. "Options > Include Password". */
function parameterLabel(properties: INodeProperties[], path: string[]): string {
	const labels: string[] = [];
	let level: Array<INodeProperties | INodePropertyCollection> = properties;
	for (const key of path) {
		const found = level.find((property) => property.name === key);
		labels.push(found?.displayName ?? key);
		const inner = found && ('values' in found ? found.values : (found as INodeProperties).options);
		level = Array.isArray(inner) ? (inner as Array<INodeProperties | INodePropertyCollection>) : [];
	}
	return labels.join(' > ');
}

/** The operation's items: one at a time (`executeItem`) or all at once (`execute`). */
async function runItems(
	ctx: IExecuteFunctions,
	module: OperationModule,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const refusal = module.refuseRun?.(ctx);
	if (refusal) throw refusal;
	const { executeItem, execute } = module;
	if (executeItem) {
		const run = itemRun(ctx, items);
		return await forEachItem(ctx, items, async (i) => await executeItem.call(ctx, i, run));
	}
	if (!execute) throw new NodeOperationError(ctx.getNode(), 'The operation has nothing to run');
	const refuse = module.guards as ((ctx: IExecuteFunctions, options: unknown) => Error) | undefined;
	// Money is never spent on an item of a test event, whatever node passed it on.
	const actsOnMoney = module.spendsMoney || module.destroysPaidTime;
	const name = module.operation.name;
	const madeUp = actsOnMoney && testItemRefusals(ctx, name, items, () => dryRunOn(ctx));
	const read = module.readOptions ?? (() => undefined);
	const opened = await openRun(ctx, items, read, refuse, madeUp || undefined);
	return 'output' in opened ? opened.output : await execute.call(ctx, opened as BatchedRun<never>);
}

/** Whether Options > Dry Run is on (for item 0: an operation refuses a Dry Run that differs per item). */
function dryRunOn(ctx: IExecuteFunctions): boolean {
	try {
		const value = ctx.getNodeParameter('options.dryRun', 0, false);
		return value === true || value === 'true';
	} catch {
		return false;
	}
}

/**
 * Runs the operation the node is set to, over all input items. As an AI agent's tool, nothing is
 * read from the tool call's input item but what the agent was handed with $fromAI, what the agent
 * reads is bounded, and every error's message carries its facts (see helpers/framework/agent.ts).
 */
export async function route(
	this: IExecuteFunctions,
	resources: Resource[],
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resourceValue = this.getNodeParameter('resource', 0) as string;
	const operationValue = this.getNodeParameter('operation', 0) as string;
	const resource = resources.find((candidate) => candidate.value === resourceValue);
	const module =
		resource && Object.hasOwn(resource.operations, operationValue)
			? resource.operations[operationValue]
			: undefined;
	if (!module) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation \u201c${operationValue}\u201d of \u201c${resourceValue}\u201d is not supported`,
			{ description: 'Pick a resource and an operation from the lists.' },
		);
	}
	const asTool = runsAsAgentTool(this);
	const madeUp =
		module.spendsMoney || module.destroysPaidTime
			? testEventRefusal(this, module.operation.name, () => dryRunOn(this), asTool)
			: undefined;
	const run = madeUp
		? async () => itemResults(this, items.length).failAll(madeUp)
		: async () => await runItems(this, module, items);
	const execute = module.spendsMoney ? async () => await oneAtATime(this, run) : run;
	if (!asTool) return [await execute()];
	try {
		const refusal = agentInputRefusal(this, (path) => parameterLabel(module.properties, path));
		if (refusal) throw refusal;
		return [forAgentOutput(await execute())];
	} catch (error) {
		throw forAgentError(error);
	}
}
