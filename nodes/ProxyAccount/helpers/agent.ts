import type { IExecuteFunctions } from 'n8n-workflow';

/*
 * When the node runs as an AI agent's tool. n8n offers a node with `usableAsTool` to agents as a
 * copy of it whose type name ends in "Tool" (e.g. `n8n-nodes-proxy-account.proxyAccountTool`); newer
 * n8n also says so through `isToolExecution()`. An agent picks the operation and fills the
 * parameters itself, so the operations that spend or destroy ask for an explicit limit there.
 */
export function runsAsAgentTool(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	if (ctx.getNode().type.endsWith('Tool')) return true;
	const check = (ctx as Partial<Pick<IExecuteFunctions, 'isToolExecution'>>).isToolExecution;
	if (typeof check !== 'function') return false;
	try {
		return check.call(ctx) === true;
	} catch {
		return false;
	}
}
