import { ExecutionLifecycleHooks } from 'n8n-core';
import type { IWorkflowBase, IWorkflowExecuteAdditionalData, WorkflowExecuteMode } from 'n8n-workflow';

import type { TestCredentialsHelper } from './credentials-helper';

const BASE = 'http://127.0.0.1:5678';

/**
 * What n8n-core needs around an execution: lifecycle hooks, absolute base URLs and the
 * credentials helper. Features a test never reaches (sub-workflows, task runners) refuse loudly.
 */
export function buildAdditionalData(
	credentialsHelper: TestCredentialsHelper,
	mode: WorkflowExecuteMode,
	executionId: string,
	workflowData: Partial<IWorkflowBase>,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData as IWorkflowBase),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${BASE}/rest`,
		instanceBaseUrl: `${BASE}/`,
		formBaseUrl: `${BASE}/form`,
		formWaitingBaseUrl: `${BASE}/form-waiting`,
		formTestBaseUrl: `${BASE}/form-test`,
		webhookBaseUrl: `${BASE}/webhook`,
		webhookWaitingBaseUrl: `${BASE}/webhook-waiting`,
		webhookTestBaseUrl: `${BASE}/webhook-test`,
		mcpBaseUrl: `${BASE}/mcp`,
		mcpTestBaseUrl: `${BASE}/mcp-test`,
		variables: {},
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not available in tests');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not available in tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}
