/* The item loop, what an item-by-item operation gets, and errors that name their item. */
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
 * to fix it (what was charged, what to check). n8n tells a failed item by this json: `error` alone,
 * or `error` and `message` (1.x accepts no other shape; 2.x also `details`); it then leaves on the
 * error branch with *Continue (using error output)*, merged there with its input item.
 */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.message = error.description;
	return { json, pairedItem: { item: itemIndex } };
}

/** Runs `work` per item; a failure becomes an error item on continue-on-fail, else stops the node. */
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

/** What an operation that runs one item at a time gets from the router besides the item's index. */
export function itemRun(ctx: IExecuteFunctions, items: INodeExecutionData[]) {
	let proxyNameOf: ((itemIndex: number) => string) | undefined;
	const loaded = new Map<string, Promise<unknown>>();
	return {
		items,
		/** Item `i`'s proxy name (see proxyNameReader). */
		proxyName: (itemIndex: number) => (proxyNameOf ??= proxyNameReader(ctx, items))(itemIndex),
		/** What has no parameters (the proxy list), loaded once per run by the first item that asks. */
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
