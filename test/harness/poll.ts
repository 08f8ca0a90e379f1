import { PollContext } from 'n8n-core';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { withClockOf } from '../simulator/time';
import { buildAdditionalData } from './additional-data';
import { TestCredentialsHelper } from './credentials-helper';
import type { NodeUnderTest, TestCredentials, WorkflowHarness } from './workflow';
import { CREDENTIAL_NAME } from './workflow';

/** Each harness is its own workflow, with its own id, as each active workflow is in n8n. */
let harnesses = 0;

/**
 * Drives a polling trigger's `poll()` through n8n-core's PollContext over one Workflow object, so
 * `getWorkflowStaticData('node')` persists between polls as in an active workflow. `restart()`
 * saves the static data as JSON and loads it into a fresh Workflow, as n8n does across a restart
 * when it saved the latest static data; `restartFrom()` loads older static data instead, as n8n
 * 2.x does after a restart (it saves static data only when a poll emits).
 */
export class PollHarness {
	private workflow!: Workflow;

	private readonly workflowId = `wf-poll-${++harnesses}`;

	private readonly node: INode;

	private readonly baseUrl: string;

	readonly credentialsHelper: TestCredentialsHelper;

	/** Called with each poll's context before `poll()` runs (bench/sides.ts times its HTTP helper). */
	observeContext?: (context: PollContext) => void;

	constructor(
		private readonly harness: WorkflowHarness,
		spec: NodeUnderTest,
		credentials: TestCredentials,
		staticData: IDataObject = {},
	) {
		this.node = harness.toNode(spec, spec.name ?? 'Trigger Under Test', [0, 0]);
		this.baseUrl = credentials.baseUrl;
		this.credentialsHelper = new TestCredentialsHelper(
			harness.credentialTypes,
			{ [CREDENTIAL_NAME]: { baseUrl: credentials.baseUrl, apiKey: credentials.apiKey } },
		);
		this.load(staticData);
	}

	private load(staticData: IDataObject) {
		this.workflow = new Workflow({
			id: this.workflowId,
			name: 'Poll workflow',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: this.harness.nodeTypes,
			staticData,
			settings: { executionOrder: 'v1' },
		});
	}

	private additionalData(mode: 'trigger' | 'manual') {
		return buildAdditionalData(this.credentialsHelper, mode, 'poll', { id: this.workflowId, nodes: [this.node], connections: {} });
	}

	/**
	 * One poll. `activate` is a scheduled poll of an active workflow; `manual` is the editor's
	 * "Fetch Test Event". Returns what `poll()` returned; throws what it threw.
	 */
	async poll(kind: 'activate' | 'manual' = 'activate'): Promise<INodeExecutionData[][] | null> {
		const mode = kind === 'manual' ? 'manual' : 'trigger';
		const context = new PollContext(this.workflow, this.node, this.additionalData(mode), mode, kind);
		this.observeContext?.(context);
		const nodeType = this.harness.nodeTypes.getByNameAndVersion(this.node.type, this.node.typeVersion);
		const pollFunction = nodeType.poll;
		if (!pollFunction) throw new Error(`${this.node.type} has no poll()`);
		// n8n's clock moves with the simulator's frozen clock while the trigger polls (as in real time).
		return await withClockOf(this.baseUrl, async () => await pollFunction.call(context));
	}

	/** The trigger's static data as n8n would save it. */
	get staticData(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** Saves static data as JSON and loads it into a fresh Workflow, like an n8n restart. */
	restart(): void {
		this.load(this.staticData);
	}

	/**
	 * Loads `staticData` (e.g. a copy of `staticData` taken earlier) into a fresh Workflow of the
	 * same id, like an n8n restart that comes back with static data saved before the latest polls.
	 */
	restartFrom(staticData: IDataObject): void {
		this.load(JSON.parse(JSON.stringify(staticData)) as IDataObject);
	}
}
