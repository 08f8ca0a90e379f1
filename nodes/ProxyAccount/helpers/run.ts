/* What the operations that act on the account share: per-item results and run-wide refusals. */
import type { IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runsAsAgentTool } from './agent';
import { asNodeError, errorItem } from './execution';

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
	};
}

/**
 * n8n's Retry On Fail runs the whole node again after a failure: a request that may have reached
 * the service would be sent again (a second purchase, a removal of what was bought since). Such an
 * operation refuses to run under it, except for a dry run (`instead` says what works instead).
 */
export function retryRefusal(
	node: INode,
	dryRun: boolean,
	what: { twice: string; check: string; instead?: string },
): NodeOperationError | undefined {
	if (node.retryOnFail !== true || dryRun) return undefined;
	const instead = what.instead ?? 'Dry Run works with Retry On Fail.';
	return new NodeOperationError(node, `Retry On Fail is on, which could ${what.twice}`, {
		description: `Turn off Retry On Fail in this node\u2019s settings. Reads are retried inside the node already, and this request is never sent twice. To try again after a failure, ${what.check} first. ${instead}`,
	});
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
