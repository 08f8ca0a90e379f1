/* How an operation runs its items: errors as NodeApiError / NodeOperationError, error items, one read per run. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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
