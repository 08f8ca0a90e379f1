/* The run of an operation that takes all items at once: its results and its opening. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { asNodeError, errorItem } from './itemLoop';
import { proxyNameReader } from './proxySource';

/** An item naming a proxy an earlier item (`first`) already stands for; `fields`: what its skipped item adds. */
export interface Repeat {
	item: number;
	name: string;
	first: number;
	fields?: IDataObject;
}

/** The results of a run, one per input item in item order; a failure as `forEachItem` routes it. */
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
	const set = (itemIndex: number, json: INodeExecutionData['json']) => {
		results[itemIndex] = { json, pairedItem: { item: itemIndex } };
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
		set,
		output,
		/** Each repeat gets its first item's failure, or `skipped`; then the output. */
		finishRepeats(repeats: Repeat[]) {
			for (const { item, name, first, fields } of repeats) {
				const failure = failures.get(first);
				if (failure) fail(item, failure);
				else
					set(item, {
						proxy_name: name,
						status: 'skipped',
						reason: `same proxy as item ${first} of this run, which stands for both`,
						...fields,
					});
			}
			return output();
		},
	};
}

/** The results of a run (see `itemResults`). */
export type ItemResults = ReturnType<typeof itemResults>;

/** A run of all items at once, opened: its results, its run-wide options, its items and their proxies. */
export interface BatchedRun<O> {
	run: ItemResults;
	options: O;
	items: INodeExecutionData[];
	/** Item `i`'s proxy name (see proxyNameReader), read when asked. */
	proxyNameOf: (itemIndex: number) => string;
}

/** An operation's work on all its items, in the run the router opened (options of type `O`). */
export type BatchedExecute<O = never> = (
	this: IExecuteFunctions,
	opened: BatchedRun<O>,
) => Promise<INodeExecutionData[]>;

/**
 * The opening of a run of all items at once: its results, its run-wide options (`read`), then the
 * refusals of the whole run (`refuse`); a failure of either is the whole run's `output`. The items
 * in `refusedItems` fail with their refusal; the operation passes over them (`run.failures`).
 */
export async function openRun<O>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	read: (ctx: IExecuteFunctions, itemCount: number) => O | Promise<O>,
	refuse?: (ctx: IExecuteFunctions, options: O) => Error | undefined,
	refusedItems?: Map<number, Error>,
): Promise<BatchedRun<O> | { output: INodeExecutionData[] }> {
	const run = itemResults(ctx, items.length);
	try {
		const options = await read(ctx, items.length);
		const refusal = refuse?.(ctx, options);
		if (refusal) return { output: run.failAll(refusal) };
		// Items refused alone (a test event): failed first, then passed over by the operation.
		for (const [i, error] of refusedItems ?? []) run.fail(i, error);
		let reader: ((itemIndex: number) => string) | undefined;
		const proxyNameOf = (i: number) => (reader ??= proxyNameReader(ctx, items))(i);
		return { run, options, items, proxyNameOf };
	} catch (error) {
		return { output: run.failAll(error) };
	}
}
