/* eslint-disable @n8n/community-nodes/node-usable-as-tool -- test-only node types for the harness, never shipped and never offered as an AI tool */
import type {
	FieldType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, validateFieldType } from 'n8n-workflow';

/*
 * Stand-ins for the few n8n-nodes-base nodes the example workflows use (n8n-nodes-base is not a
 * dependency: it pulls in databases and cloud SDKs). Each honours the parameters the examples set,
 * with n8n's own machinery doing the work: expressions and filter conditions are evaluated by
 * n8n-core, field types by n8n-workflow. The end-to-end suite runs the same examples in a real n8n.
 */

const trigger = (name: string, displayName: string, version: number[]): INodeTypeDescription => ({
	displayName,
	name,
	group: ['trigger'],
	version,
	description: `Stand-in for n8n's ${displayName}`,
	defaults: { name: displayName },
	inputs: [],
	outputs: [NodeConnectionTypes.Main],
	properties: [{ displayName: 'Rule', name: 'rule', type: 'json', default: {} }],
});

/**
 * Schedule Trigger: a trigger node, so the engine treats it as n8n treats the real one. A run in
 * `trigger` mode starts with the items the test seeds; a manual run emits one timestamp item.
 */
export class ScheduleTriggerStandIn implements INodeType {
	description = trigger('scheduleTrigger', 'Schedule Trigger', [1, 1.1, 1.2]);

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([[{ json: { timestamp: new Date().toISOString() } }]]);
		};
		return { manualTriggerFunction };
	}
}

/** Filter (version 2.x): keeps the items whose conditions pass, evaluated by n8n's filter engine. */
export class FilterStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Filter',
		name: 'filter',
		group: ['transform'],
		version: [2, 2.1, 2.2],
		description: "Stand-in for n8n's Filter",
		defaults: { name: 'Filter' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {} },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const kept: INodeExecutionData[] = [];
		this.getInputData().forEach((item, index) => {
			if (this.getNodeParameter('conditions', index, false, { extractValue: true }) === true) {
				kept.push({ json: item.json, pairedItem: { item: index } });
			}
		});
		return [kept];
	}
}

/** Limit 1: keeps the first (or last) Max Items items, as n8n's Limit node does. */
export class LimitStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Limit',
		name: 'limit',
		group: ['transform'],
		version: 1,
		description: "Stand-in for n8n's Limit",
		defaults: { name: 'Limit' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Max Items', name: 'maxItems', type: 'number', default: 1 },
			{ displayName: 'Keep', name: 'keep', type: 'string', default: 'firstItems' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().map((item, index) => ({ json: item.json, pairedItem: { item: index } }));
		const max = this.getNodeParameter('maxItems', 0) as number;
		const last = this.getNodeParameter('keep', 0) === 'lastItems';
		return [items.length <= max ? items : last ? items.slice(-max) : items.slice(0, max)];
	}
}

interface Assignment {
	name: string;
	value: unknown;
	type: FieldType;
}

/** Edit Fields (Set) 3.4 in manual mode: sets the assigned fields, typed as n8n types them. */
export class SetStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Edit Fields (Set)',
		name: 'set',
		group: ['input'],
		version: [3.3, 3.4],
		description: "Stand-in for n8n's Edit Fields (Set)",
		defaults: { name: 'Edit Fields' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'manual' },
			{ displayName: 'Fields to Set', name: 'assignments', type: 'assignmentCollection', default: {} },
			{ displayName: 'Include Other Input Fields', name: 'includeOtherFields', type: 'boolean', default: false },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let index = 0; index < items.length; index++) {
			const assignments = this.getNodeParameter('assignments.assignments', index, []) as Assignment[];
			const json: IDataObject = this.getNodeParameter('includeOtherFields', index, false) ? { ...items[index].json } : {};
			for (const assignment of assignments) {
				const checked = validateFieldType(assignment.name, assignment.value, assignment.type);
				if (!checked.valid) throw new NodeOperationError(this.getNode(), checked.errorMessage ?? 'invalid field', { itemIndex: index });
				json[assignment.name] = checked.newValue as IDataObject[string];
			}
			out.push({ json, pairedItem: { item: index } });
		}
		return [out];
	}
}

/**
 * HTTP Request 4.2, the part the examples use: Method and URL, a request per item through n8n-core's
 * own `httpRequest` helper. A failed request throws (or, with On Error set to continue, becomes an
 * error item that n8n routes as it routes the real node's).
 */
export class HttpRequestStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'HTTP Request',
		name: 'httpRequest',
		group: ['output'],
		version: [4.2],
		description: "Stand-in for n8n's HTTP Request",
		defaults: { name: 'HTTP Request' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let index = 0; index < items.length; index++) {
			try {
				const body = (await this.helpers.httpRequest({
					method: this.getNodeParameter('method', index, 'GET') as 'GET',
					url: this.getNodeParameter('url', index) as string,
					json: true,
				})) as IDataObject;
				out.push({ json: typeof body === 'object' && body !== null ? body : { data: body }, pairedItem: { item: index } });
			} catch (error) {
				if (!this.continueOnFail()) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: index });
				out.push({ json: { error: (error as Error).message }, pairedItem: { item: index } });
			}
		}
		return [out];
	}
}
