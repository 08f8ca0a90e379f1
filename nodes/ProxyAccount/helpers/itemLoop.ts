/*
 * How an operation runs its items: one result per input item (an error item when the node
 * continues on fail), errors as NodeApiError / NodeOperationError naming their item, a parameter
 * read once when it is the same for every item, and the refusals of a whole run (a retry, an AI
 * agent without the builder's limit) and of an unknown proxy.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runsAsAgentTool } from './agent';
import { proxyNameReader } from './proxySource';

export type OperationExecute = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

/** Only NodeApiError and NodeOperationError leave the node, always with the item they belong to. */
export function asNodeError(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context && error.context.itemIndex === undefined)
			error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * The output item `continueOnFail` turns an error into: `error` says what happened, `message` how
 * to fix it. n8n tells a failed item from a good one by its json: `error` alone, or `error` and
 * `message` (n8n 1.x accepts no other shape; 2.x also `details`). Such an item leaves on the error
 * branch with *Continue (using error output)*, merged there with the input item it came from, and
 * stays readable on the regular output otherwise. Every fact a user needs (what was charged, what
 * to check) is in these two texts.
 */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.message = error.description;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * Runs `work` for every input item. A failing item becomes an error item when the node is set to
 * continue on fail; otherwise the node stops with an error naming the item.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	work: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			out.push(...(await work(i)));
		} catch (error) {
			const nodeError = asNodeError(ctx, error, i);
			if (!ctx.continueOnFail()) throw nodeError;
			out.push(errorItem(nodeError, i));
		}
	}
	return out;
}

/**
 * What an operation that runs one item at a time gets from the router besides the item's index:
 * the input items, each item's proxy name, and what has no parameters loaded once per run.
 */
export interface ItemRun {
	items: INodeExecutionData[];
	/** Item `i`'s proxy name, from the Proxy parameter or the Proxy Name Field (see proxyNameReader). */
	proxyName(itemIndex: number): string;
	/**
	 * What has no parameters (the proxy list, the stock, the funds), loaded once per run by the
	 * first item that asks (with that item's timeout); the others get the same.
	 */
	shared<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** An operation's work on one item; the router runs the items and routes each failure. */
export type ItemExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
) => Promise<INodeExecutionData[]>;

/** The ItemRun of one execution of the node. */
export function itemRun(ctx: IExecuteFunctions, items: INodeExecutionData[]): ItemRun {
	let proxyNameOf: ((itemIndex: number) => string) | undefined;
	const loaded = new Map<string, Promise<unknown>>();
	return {
		items,
		proxyName: (itemIndex) => (proxyNameOf ??= proxyNameReader(ctx, items))(itemIndex),
		shared: async <T>(key: string, load: () => Promise<T>) => {
			if (!loaded.has(key)) loaded.set(key, load());
			return (await loaded.get(key)) as T;
		},
	};
}

/** Fetches once per execution what has no parameters (the proxy list, the stock list). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
	let pending: Promise<T> | undefined;
	return async () => {
		pending ??= load();
		return await pending;
	};
}

/**
 * A reader of one parameter for item `i`: for each item when the parameter is an expression, and
 * once for all items when it is a plain value (the same for every item). n8n's own read of a
 * parameter costs time on thousands of items; the values returned are the same either way.
 */
export function itemParameter(
	ctx: IExecuteFunctions,
	name: string,
	fallback: unknown,
): (itemIndex: number) => unknown {
	const raw: unknown = ctx.getNode().parameters[name];
	if (typeof raw === 'string' && raw.startsWith('='))
		return (itemIndex) => ctx.getNodeParameter(name, itemIndex, fallback);
	let read: { value: unknown } | undefined;
	return (itemIndex) => (read ??= { value: ctx.getNodeParameter(name, itemIndex, fallback) }).value;
}

/**
 * An item naming a proxy an earlier item (`first`) already stands for. `same` says what the two
 * share ("proxy" unless said), `fields` what its skipped item adds.
 */
export interface Repeat {
	item: number;
	name: string;
	first: number;
	same?: string;
	fields?: IDataObject;
}

/**
 * The results of a run, one per input item, in item order. A failed item becomes an error item when
 * the node continues on fail; otherwise the node stops at the first failure.
 */
export function itemResults(ctx: IExecuteFunctions, count: number) {
	const continueOnFail = ctx.continueOnFail();
	const results: Array<INodeExecutionData | undefined> = new Array(count);
	const failures = new Map<number, NodeApiError | NodeOperationError>();
	const output = () =>
		results.filter((result): result is INodeExecutionData => result !== undefined);
	const fail = (itemIndex: number, error: unknown) => {
		const nodeError = asNodeError(ctx, error, itemIndex);
		if (!continueOnFail) throw nodeError;
		failures.set(itemIndex, nodeError);
		results[itemIndex] = errorItem(nodeError, itemIndex);
	};
	return {
		continueOnFail,
		failures,
		fail,
		/** A refusal of the whole run, before anything is sent: every item carries it. */
		failAll: (error: unknown) => {
			for (let i = 0; i < count; i++) fail(i, error);
			return output();
		},
		set: (itemIndex: number, json: INodeExecutionData['json']) => {
			results[itemIndex] = { json, pairedItem: { item: itemIndex } };
		},
		output,
		/**
		 * The items that named a proxy an earlier item already stands for: that item's failure, or
		 * `skipped`; then the output.
		 */
		finishRepeats(repeats: Repeat[]) {
			for (const repeat of repeats) {
				const failure = failures.get(repeat.first);
				if (failure) fail(repeat.item, failure);
				else
					results[repeat.item] = {
						json: {
							proxy_name: repeat.name,
							status: 'skipped',
							reason: `same ${repeat.same ?? 'proxy'} as item ${repeat.first} of this run, which stands for both`,
							...repeat.fields,
						},
						pairedItem: { item: repeat.item },
					};
			}
			return output();
		},
	};
}

/** The results of a run (see `itemResults`). */
export type ItemResults = ReturnType<typeof itemResults>;

/**
 * Two ways n8n runs a node again after a failure: its Retry On Fail setting runs the whole node
 * again, and its Retry of a failed execution (execution mode `retry`) runs the failed node again
 * with the same input. Either would send again a request that may have reached the service (a
 * second purchase or extension, a removal of what was bought since). Such an operation refuses to
 * run under either, except for a dry run (`instead` says what works instead).
 */
export function retryRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode' | 'getMode'>,
	dryRun: boolean,
	what: { twice: string; check: string; instead?: string },
): NodeOperationError | undefined {
	if (dryRun) return undefined;
	const node = ctx.getNode();
	const retried = isRetry(ctx);
	if (retried) {
		return new NodeOperationError(
			node,
			`This is a retry of a failed execution${retried === 'parent' ? ' (this node runs in a sub-workflow of it)' : ''}, which could ${what.twice}`,
			{
				description: `The failed execution may already have done it, and the service cannot tell a repeat from a new request. ${capitalized(what.check)} first. To run it again on purpose, run the workflow anew (e.g. Execute Workflow in the editor, or wait for its trigger) instead of retrying the failed execution. Nothing was sent.`,
			},
		);
	}
	if (node.retryOnFail !== true) return undefined;
	const instead = what.instead ?? 'Dry Run works with Retry On Fail.';
	return new NodeOperationError(node, `Retry On Fail is on, which could ${what.twice}`, {
		description: `Turn off Retry On Fail in this node\u2019s settings. Reads are retried inside the node already, and this request is never sent twice. To try again after a failure, ${what.check} first. ${instead}`,
	});
}

/**
 * Whether this run is n8n's Retry of a failed execution: the execution itself (mode `retry`), or
 * the execution that called this sub-workflow. n8n runs every sub-workflow (Execute Workflow) in
 * mode `integrated`; since n8n 2.x it hands a sub-execution the root execution's mode as
 * `rootExecutionMode` of the execution's additional data, which the node context holds
 * (`additionalData`, public in n8n-core though not part of IExecuteFunctions). Where n8n does not
 * give it (1.x), a sub-workflow cannot tell: the README says so.
 */
function isRetry(ctx: Pick<IExecuteFunctions, 'getMode'>): 'execution' | 'parent' | undefined {
	if (ctx.getMode() === 'retry') return 'execution';
	const root = (ctx as { additionalData?: { rootExecutionMode?: unknown } }).additionalData
		?.rootExecutionMode;
	return root === 'retry' ? 'parent' : undefined;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * What a spending operation lacks to run as an AI agent's tool: a Maximum Total Cost (one call)
 * and a Keep Wallet At Least (every call), both set by the builder. A Dry Run needs neither.
 */
export function spendingLimitMissing(
	operation: string,
	limits: { dryRun: boolean; maxTotalCost?: number; floor?: number },
): { operation: string; limit: string; fix: string } | undefined {
	if (limits.dryRun) return undefined;
	const missing = [
		limits.maxTotalCost === undefined && 'a Maximum Total Cost',
		limits.floor === undefined && 'a Keep Wallet At Least',
	].filter((text): text is string => typeof text === 'string');
	if (missing.length === 0) return undefined;
	return {
		operation,
		limit: `${missing.join(' and ')} set by the workflow\u2019s builder`,
		fix: 'Open the Proxy Account tool and set, in its Options, Maximum Total Cost (the most one call may charge) and Keep Wallet At Least (what every call must leave in the wallet) to fixed amounts: a value the agent fills in does not count. Or turn on Dry Run to let the agent only ask what it would cost.',
	};
}

/**
 * As an AI agent's tool, an operation that spends or destroys runs only within a limit the
 * workflow's builder set (`missing` names it when it is not set).
 */
export function agentRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	missing: { operation: string; limit: string; fix: string } | undefined,
): NodeOperationError | undefined {
	if (missing === undefined || !runsAsAgentTool(ctx)) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`As an AI agent tool, ${missing.operation} needs ${missing.limit}`,
		{ description: `${missing.fix} Nothing was sent.` },
	);
}

/** A proxy the account's list does not hold: fails its own item, before anything is sent for it. */
export function proxyNotFound(
	node: INode,
	name: string,
	itemIndex: number,
	nothing: string,
): NodeOperationError {
	return new NodeOperationError(
		node,
		`Proxy \u201c${name}\u201d was not found in this Proxy Account [item ${itemIndex}]`,
		{
			description: `Check the name (names are case-sensitive) or pick the proxy from the list. ${nothing}`,
			itemIndex,
		},
	);
}

/**
 * The opening of an operation that takes one proxy per item: its item results, its run-wide options
 * (`read`), the refusals of the whole run (`refuse`) and its proxy-name reader. A failure of any
 * refuses the whole run before anything is sent: `output` is then the run's result.
 */
export function openRun<O>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	read: (ctx: IExecuteFunctions, itemCount: number) => O,
	refuse: (ctx: IExecuteFunctions, options: O) => Error | undefined,
):
	| { run: ReturnType<typeof itemResults>; options: O; proxyNameOf: (itemIndex: number) => string }
	| { output: INodeExecutionData[] } {
	const run = itemResults(ctx, items.length);
	try {
		const options = read(ctx, items.length);
		const refusal = refuse(ctx, options);
		if (refusal) return { output: run.failAll(refusal) };
		return { run, options, proxyNameOf: proxyNameReader(ctx, items) };
	} catch (error) {
		return { output: run.failAll(error) };
	}
}
