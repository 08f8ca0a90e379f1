import { LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionStatus,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	IVersionedNodeType,
	IConnections,
	IRun,
	IWorkflowBase,
	WorkflowExecuteMode,
	ExecutionError,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { TestCredentialsHelper } from './credentials-helper';
import { installCapturingLogger } from './logger';
import { PACKAGE, TestNodeTypes } from './node-types';

export interface TestCredentials {
	baseUrl: string;
	apiKey: string;
	/** The credential's optional Limited API key (the rotation link). */
	limitedApiKey?: string;
}

export interface NodeUnderTest {
	/** Short type name (`proxyAccount`) or a full one (`n8n-nodes-base.x`). */
	type: string;
	name?: string;
	typeVersion?: number;
	/** Node parameters as in a workflow's JSON. */
	parameters: Record<string, unknown>;
	continueOnFail?: boolean;
	/** n8n's On Error setting; wins over `continueOnFail`. `continueErrorOutput` adds the error output (index 1). */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	alwaysOutputData?: boolean;
}

export interface RunOptions {
	credentials: TestCredentials;
	/** Items the Manual Trigger starts the workflow with; one empty item by default. */
	items?: IDataObject[];
	mode?: WorkflowExecuteMode;
	/**
	 * As in a sub-workflow (mode `integrated`) of an execution in this mode: n8n 2.x gives a
	 * sub-execution the root execution's mode as `additionalData.rootExecutionMode`.
	 */
	rootMode?: WorkflowExecuteMode;
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

	/**
	 * `extraTypes`: further node types under their full type names (e.g. n8n's own
	 * `n8n-nodes-base.httpRequest` for the benchmarks); they replace a stand-in of the same name.
	 */
	constructor(
		nodes: INodeType[],
		credentials: ICredentialType[],
		extraTypes: Record<string, INodeType | IVersionedNodeType> = {},
	) {
		const byName: Record<string, INodeType | IVersionedNodeType> = {};
		for (const node of nodes) byName[`${PACKAGE}.${node.description.name}`] = node;
		Object.assign(byName, extraTypes);
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
			parameters: node.parameters as INodeParameters,
			credentials: { [CREDENTIAL_NAME]: { id: 'cred-1', name: 'Proxy Account account' } },
			continueOnFail: node.continueOnFail,
			onError: node.onError ?? (node.continueOnFail ? 'continueRegularOutput' : undefined),
			retryOnFail: node.retryOnFail,
			maxTries: node.maxTries,
			waitBetweenTries: node.waitBetweenTries,
			alwaysOutputData: node.alwaysOutputData,
		};
	}

	/**
	 * Calls one of a node's editor methods (a `loadOptions` dropdown or a `listSearch` of a resource
	 * locator) through n8n-core's LoadOptionsContext, as the editor does.
	 */
	async callMethod(
		node: NodeUnderTest,
		kind: 'loadOptions' | 'listSearch',
		method: string,
		credentials: TestCredentials,
		filter?: string,
		/** Where the editor asks from, e.g. 'parameters.lines.line[0].city' (relative '&' lookups). */
		path = '',
	): Promise<INodePropertyOptions[] | INodeListSearchResult> {
		const inode = this.toNode(node, node.name ?? 'Node Under Test', [0, 0]);
		const workflow = new Workflow({ nodes: [inode], connections: {}, active: false, nodeTypes: this.nodeTypes });
		const helper = new TestCredentialsHelper(this.credentialTypes, {
			[CREDENTIAL_NAME]: { ...credentials },
		});
		const additionalData = buildAdditionalData(helper, 'internal', `method-${++executionCounter}`, {});
		additionalData.currentNodeParameters = inode.parameters;
		const context = new LoadOptionsContext(workflow, inode, additionalData, path);
		const type = this.nodeTypes.getByNameAndVersion(inode.type, inode.typeVersion);
		const fn = (type.methods?.[kind] as Record<string, (this: LoadOptionsContext, filter?: string) => Promise<unknown>>)[method];
		if (!fn) throw new Error(`${inode.type} has no ${kind} method ${method}`);
		return (await fn.call(context, filter)) as INodePropertyOptions[] | INodeListSearchResult;
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
			[CREDENTIAL_NAME]: { ...options.credentials },
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
		const additionalData = buildAdditionalData(credentialsHelper, mode, executionId, workflowBase);
		if (options.rootMode) additionalData.rootExecutionMode = options.rootMode;
		let resolveRun!: (run: IRun) => void;
		const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
		additionalData.hooks!.addHandler('workflowExecuteAfter', (run) => resolveRun(run));

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
