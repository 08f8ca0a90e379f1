import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionStatus,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IConnections,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
	ExecutionError,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials-helper';
import { installCapturingLogger } from './logger';
import { PACKAGE, TestNodeTypes } from './node-types';

export interface TestCredentials {
	baseUrl: string;
	apiKey: string;
}

export interface NodeUnderTest {
	/** Short type name (`proxyAccount`) or a full one (`n8n-nodes-base.x`). */
	type: string;
	name?: string;
	typeVersion?: number;
	parameters: INodeParameters;
	continueOnFail?: boolean;
	retryOnFail?: boolean;
	alwaysOutputData?: boolean;
}

export interface RunOptions {
	credentials: TestCredentials;
	/** Items the Manual Trigger starts the workflow with; one empty item by default. */
	items?: IDataObject[];
	mode?: WorkflowExecuteMode;
}

export interface WorkflowResult {
	run: IRun;
	status: ExecutionStatus;
	/** The execution's error, when a node stopped it. */
	error?: ExecutionError;
	/** Output items of a node's first run, output 0 unless said otherwise. */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** Error a node ended with (set whether or not the run stopped). */
	nodeError(nodeName: string): ExecutionError | undefined;
}

export interface NodeResult extends WorkflowResult {
	/** Output 0 of the node under test. */
	items: INodeExecutionData[];
}

export const CREDENTIAL_NAME = 'proxyAccountApi';

let executionCounter = 0;

export class WorkflowHarness {
	readonly nodeTypes: TestNodeTypes;

	readonly credentialTypes: Record<string, ICredentialType> = {};

	constructor(nodes: INodeType[], credentials: ICredentialType[]) {
		const byName: Record<string, INodeType> = {};
		for (const node of nodes) byName[`${PACKAGE}.${node.description.name}`] = node;
		this.nodeTypes = new TestNodeTypes(byName);
		for (const credential of credentials) this.credentialTypes[credential.name] = credential;
		installCapturingLogger();
	}

	fullType(type: string): string {
		return type.includes('.') ? type : `${PACKAGE}.${type}`;
	}

	/** A workflow Manual Trigger -> node under test, executed by n8n-core's WorkflowExecute. */
	async runNode(node: NodeUnderTest, options: RunOptions): Promise<NodeResult> {
		const name = node.name ?? 'Node Under Test';
		const nodes: INode[] = [
			{
				id: 'trigger',
				name: 'Manual Trigger',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			this.toNode(node, name, [220, 0]),
		];
		const connections: IConnections = {
			'Manual Trigger': { main: [[{ node: name, type: 'main', index: 0 }]] },
		};
		const result = await this.runWorkflow({ nodes, connections }, options);
		return { ...result, items: result.output(name) };
	}

	toNode(node: NodeUnderTest, name: string, position: [number, number]): INode {
		return {
			id: name.toLowerCase().replace(/\W+/g, '-'),
			name,
			type: this.fullType(node.type),
			typeVersion: node.typeVersion ?? 1,
			position,
			parameters: node.parameters,
			credentials: { [CREDENTIAL_NAME]: { id: 'cred-1', name: 'Proxy Account account' } },
			continueOnFail: node.continueOnFail,
			onError: node.continueOnFail ? 'continueRegularOutput' : undefined,
			retryOnFail: node.retryOnFail,
			alwaysOutputData: node.alwaysOutputData,
		};
	}

	/**
	 * Executes a whole workflow (nodes and connections, as in an exported workflow's JSON) from
	 * its Manual Trigger, with the test credentials bound to every node that asks for them.
	 */
	async runWorkflow(
		workflowData: { nodes: INode[]; connections: IConnections; settings?: IWorkflowBase['settings'] },
		options: RunOptions,
	): Promise<WorkflowResult> {
		const mode = options.mode ?? 'manual';
		const executionId = `test-${++executionCounter}`;
		const credentialsHelper = new TestCredentialsHelper(this.credentialTypes, {
			[CREDENTIAL_NAME]: { baseUrl: options.credentials.baseUrl, apiKey: options.credentials.apiKey },
		});
		const workflow = new Workflow({
			id: 'wf-test',
			name: 'Test workflow',
			nodes: workflowData.nodes,
			connections: workflowData.connections,
			active: false,
			nodeTypes: this.nodeTypes,
			settings: workflowData.settings ?? { executionOrder: 'v1' },
			staticData: {},
		});
		const workflowBase: IWorkflowBase = {
			id: 'wf-test',
			name: 'Test workflow',
			active: false,
			isArchived: false,
			activeVersionId: null,
			nodes: workflowData.nodes,
			connections: workflowData.connections,
			createdAt: new Date(),
			updatedAt: new Date(),
		} as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowBase);
		let resolveRun!: (run: IRun) => void;
		const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
		hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));

		const additionalData = {
			credentialsHelper,
			hooks,
			executionId,
			currentNodeExecutionIndex: 0,
			restApiUrl: 'http://127.0.0.1:5678/rest',
			instanceBaseUrl: 'http://127.0.0.1:5678/',
			formBaseUrl: 'http://127.0.0.1:5678/form',
			formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
			formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
			mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
			mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
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

		const startNode = workflow.getStartNode();
		if (!startNode) throw new Error('the workflow has no start node');
		const items = (options.items ?? [{}]).map((json) => ({ json }));
		const runExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node: startNode, data: { main: [items] }, source: null }],
			},
		});
		const execution = new WorkflowExecute(additionalData, mode, runExecutionData);
		await execution.processRunExecutionData(workflow);
		const run = await finished;
		const runData = run.data.resultData.runData;
		return {
			run,
			status: run.status,
			error: run.data.resultData.error,
			output: (nodeName, outputIndex = 0) => runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [],
			nodeError: (nodeName) => runData[nodeName]?.[0]?.error,
		};
	}
}
