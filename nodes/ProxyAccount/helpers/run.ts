/* What the operations that act on the account share: per-item results and run-wide refusals. */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runsAsAgentTool } from './agent';
import { asNodeError, errorItem } from './execution';

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
	if (ctx.getMode() === 'retry') {
		return new NodeOperationError(
			node,
			`This is a retry of a failed execution, which could ${what.twice}`,
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
