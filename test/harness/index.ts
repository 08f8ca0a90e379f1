import { ProxyAccountApi } from '../../credentials/ProxyAccountApi.credentials';
import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { TransportProbe } from '../fixtures/TransportProbe.node';
import type { NodeResult } from './workflow';
import { WorkflowHarness } from './workflow';

export * from './hostile';
export { capturedLogs } from './logger';
export { PollHarness } from './poll';
export { apiRequests, changeLocationInEngine, cityWith, credentialsFor, visibleText } from './simulator-helpers';
export type { NodeResult, NodeUnderTest, RunOptions, TestCredentials, WorkflowResult } from './workflow';
export { WorkflowHarness } from './workflow';

/** The action node as n8n offers it to AI agents: the same node, its type name ending in "Tool". */
export function asAgentTool(): ProxyAccount {
	const node = new ProxyAccount();
	node.description = { ...node.description, name: 'proxyAccountTool', displayName: 'Proxy Account Tool' };
	return node;
}

/**
 * As an AI agent's tool, a refusal's message begins with what is refused and carries its facts, as
 * n8n's AI Agent shows the model only the message: it ends with "Nothing was sent."
 */
export function expectAgentRefusal(result: NodeResult, head: string): void {
	expect(result.status).toBe('error');
	expect(result.error?.message.startsWith(`${head}${head.endsWith(']') ? '.' : ''}`)).toBe(true);
	expect(result.error?.message).toMatch(/Nothing was sent\.$/);
}

/** The package's nodes and credential, plus the transport probe, ready to run in workflows. */
export function createHarness(extraNodes: ConstructorParameters<typeof WorkflowHarness>[0] = []): WorkflowHarness {
	return new WorkflowHarness([new ProxyAccount(), new TransportProbe(), ...extraNodes], [new ProxyAccountApi()]);
}
