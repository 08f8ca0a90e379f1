/*
 * The item loop: one result per input item (an error item when the node continues on fail), errors
 * as NodeApiError / NodeOperationError naming their item, and what an item-by-item operation gets.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { proxyNameReader } from './proxySource';

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
export function itemRun(ctx: IExecuteFunctions, items: INodeExecutionData[]) {
	let proxyNameOf: ((itemIndex: number) => string) | undefined;
	const loaded = new Map<string, Promise<unknown>>();
	return {
		items,
		/** Item `i`'s proxy name, from the Proxy parameter or the Proxy Name Field (see proxyNameReader). */
		proxyName: (itemIndex: number) => (proxyNameOf ??= proxyNameReader(ctx, items))(itemIndex),
		/**
		 * What has no parameters (the proxy list, the stock, the funds), loaded once per run by the
		 * first item that asks (with that item's timeout); the others get the same.
		 */
		shared: async <T>(key: string, load: () => Promise<T>) => {
			if (!loaded.has(key)) loaded.set(key, load());
			return (await loaded.get(key)) as T;
		},
	};
}

/** An operation's work on one item; the router runs the items and routes each failure. */
export type ItemExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	run: ReturnType<typeof itemRun>,
) => Promise<INodeExecutionData[]>;
