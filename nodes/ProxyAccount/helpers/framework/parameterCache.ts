/* Parameters and reads kept for the whole run: n8n's own read costs time on thousands of items. */
import type { IExecuteFunctions } from 'n8n-workflow';

/** Fetches once per execution what has no parameters (the proxy list, the stock list). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
	let pending: Promise<T> | undefined;
	return async () => {
		pending ??= load();
		return await pending;
	};
}

/** A reader of one parameter for item `i`: per item when it is an expression, else read once. */
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
