/* The refusals of a whole run that may spend or destroy: under n8n's retries, and as an AI tool. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsAgentTool } from '../framework/agent';

/**
 * n8n runs a node again after a failure with Retry On Fail (the whole node) and with Retry of a
 * failed execution (mode `retry`, the same input): either would send again a request that may have
 * reached the service (a second purchase). Such an operation refuses both, except for a dry run.
 */
export function retryRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode' | 'getMode'>,
	dryRun: boolean,
	what: { twice: string; check: string; instead?: string },
): NodeOperationError | undefined {
	if (dryRun) return undefined;
	const node = ctx.getNode();
	const retried = isRetry(ctx);
	if (retried)
		return new NodeOperationError(
			node,
			`This is a retry of a failed execution${retried === 'parent' ? ' (this node runs in a sub-workflow of it)' : ''}, which could ${what.twice}`,
			{
				description: `The failed execution may already have done it, and the service cannot tell a repeat from a new request. ${what.check.charAt(0).toUpperCase()}${what.check.slice(1)} first. To run it again on purpose, run the workflow anew (e.g. Execute Workflow in the editor, or wait for its trigger) instead of retrying the failed execution. Nothing was sent.`,
			},
		);
	if (node.retryOnFail !== true) return undefined;
	const instead = what.instead ?? 'Dry Run works with Retry On Fail.';
	return new NodeOperationError(node, `Retry On Fail is on, which could ${what.twice}`, {
		description: `Turn off Retry On Fail in this node\u2019s settings. Reads are retried inside the node already, and this request is never sent twice. To try again after a failure, ${what.check} first. ${instead}`,
	});
}

/**
 * Whether this run is n8n's Retry of a failed execution: this one (mode `retry`), or the one that
 * called this sub-workflow (which runs in mode `integrated`). n8n 2.x gives a sub-execution the
 * root's mode as `additionalData.rootExecutionMode` (public in n8n-core, not in IExecuteFunctions);
 * on 1.x a sub-workflow cannot tell, as the README says.
 */
function isRetry(ctx: Pick<IExecuteFunctions, 'getMode'>): 'execution' | 'parent' | undefined {
	if (ctx.getMode() === 'retry') return 'execution';
	const root = (ctx as { additionalData?: { rootExecutionMode?: unknown } }).additionalData
		?.rootExecutionMode;
	return root === 'retry' ? 'parent' : undefined;
}

/** As an AI agent's tool, the refusal of a run without the builder's limit that `missing` names. */
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

/**
 * The refusals of a run that spends (Buy, Extend), except a Dry Run: a retry, or an AI agent's tool
 * without the builder's Maximum Total Cost (one call) and Keep Wallet At Least (every call).
 */
export function spendingRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode' | 'getMode'>,
	operation: string,
	options: { dryRun: boolean; maxTotalCost?: number; floor?: number },
	what: { twice: string; check: string },
): NodeOperationError | undefined {
	if (options.dryRun) return undefined;
	const missing = [
		options.maxTotalCost === undefined && 'a Maximum Total Cost',
		options.floor === undefined && 'a Keep Wallet At Least',
	].filter((text): text is string => typeof text === 'string');
	const retry = retryRefusal(ctx, false, what);
	if (retry !== undefined) return retry;
	if (missing.length === 0) return zeroFloorRefusal(ctx, operation, options.floor);
	return agentRefusal(ctx, {
		operation,
		limit: `${missing.join(' and ')} set by the workflow\u2019s builder`,
		fix: 'Open the Proxy Account tool and set, in its Options, Maximum Total Cost (the most one call may charge) and Keep Wallet At Least (what every call must leave in the wallet, above 0) to fixed amounts: a value the agent fills in does not count. Or turn on Dry Run to let the agent only ask what it would cost.',
	});
}

/**
 * As an AI agent's tool, a Keep Wallet At Least of 0 (the value the option has when added) is no
 * floor: each call spends within its own limit, and calls may follow until the wallet is empty.
 */
export function zeroFloorRefusal(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	operation: string,
	floor: number | undefined,
): NodeOperationError | undefined {
	if (floor === undefined || floor > 0 || !runsAsAgentTool(ctx)) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`As an AI agent tool, ${operation} needs a Keep Wallet At Least above 0: a floor of ${floor} bounds nothing across calls`,
		{
			description: `Each call spends within its own limit, and an agent may call again and again until the wallet is empty; only a floor above 0 stops it. Open the Proxy Account tool and set Options > Keep Wallet At Least to what the wallet must always keep (e.g. 100), a fixed amount. Nothing was sent.`,
		},
	);
}

/**
 * The refusal of a change's run (a setting of a proxy) under n8n's retries: Retry On Fail would send
 * again a change that may already have been made (a generated password twice, a setting over one
 * made meanwhile), and so would a Retry of the failed execution. `what`: the change, e.g. "the IPv4
 * setting"; `field`: what a read of the proxy shows of it.
 */
export const changeRetryRefusal =
	(what: string, field: string) =>
	(ctx: Pick<IExecuteFunctions, 'getNode' | 'getMode'>): NodeOperationError | undefined =>
		retryRefusal(ctx, false, {
			twice: `send ${what} twice`,
			check: `read the proxy (Proxy Account > Get) to see its ${field}`,
			instead:
				'A change that may have reached the service is never sent again, by the node or by n8n: run the workflow anew to change it again on purpose.',
		});
