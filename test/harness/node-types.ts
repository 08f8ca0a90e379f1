/* eslint-disable @n8n/community-nodes/node-usable-as-tool -- test-only node types for the harness, never shipped and never offered as an AI tool */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

import { FilterStandIn, HttpRequestStandIn, LimitStandIn, ScheduleTriggerStandIn, SetStandIn } from './base-nodes';

export const PACKAGE = 'n8n-nodes-proxy-account';

/**
 * Stand-in for n8n's Manual Trigger (n8n-nodes-base is not a dependency): it starts the workflow
 * with the items the test seeds, one empty item by default, exactly as a trigger hands its items on.
 */
export class ManualTriggerStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow with the seeded items',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData().map((item, index) => ({ json: item.json, pairedItem: { item: index } }))];
	}
}

/** Passes its items on untouched: lets tests put a node between the trigger and the node under test. */
export class PassThroughNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Pass Through',
		name: 'passThrough',
		group: ['transform'],
		version: 1,
		description: 'Passes items on',
		defaults: { name: 'Pass Through' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData().map((item, index) => ({ json: item.json as IDataObject, pairedItem: { item: index } }))];
	}
}

/** Node types by full type name, as n8n registers a community package's nodes. */
export class TestNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(types: Record<string, INodeType | IVersionedNodeType>) {
		this.types.set('n8n-nodes-base.manualTrigger', new ManualTriggerStandIn());
		this.types.set('n8n-nodes-base.passThrough', new PassThroughNode());
		this.types.set('n8n-nodes-base.scheduleTrigger', new ScheduleTriggerStandIn());
		this.types.set('n8n-nodes-base.filter', new FilterStandIn());
		this.types.set('n8n-nodes-base.set', new SetStandIn());
		this.types.set('n8n-nodes-base.limit', new LimitStandIn());
		this.types.set('n8n-nodes-base.httpRequest', new HttpRequestStandIn());
		for (const [name, type] of Object.entries(types)) this.types.set(name, type);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new Error(`unknown node type ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes() {
		return {};
	}
}
