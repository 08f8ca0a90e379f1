/**
 * The recipe for adding an operation (docs/contributing.md): one `<op>.operation.ts` exporting
 * `operation`, `properties` and `executeItem` (one item at a time) or `execute` (all items at once,
 * in the run the router opened),
 * and one line in its resource's index. A fixture
 * operation registered exactly that way appears in the node's Operation dropdown, its properties
 * show only for it, the canvas subtitle names it, and the router runs it.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { price } from '../../nodes/ProxyAccount/actions/price';
import { proxy } from '../../nodes/ProxyAccount/actions/proxy';
import * as extend from '../../nodes/ProxyAccount/actions/proxy/extend.operation';
import * as get from '../../nodes/ProxyAccount/actions/proxy/get.operation';
import * as getAll from '../../nodes/ProxyAccount/actions/proxy/getAll.operation';
import type { OperationInfo } from '../../nodes/ProxyAccount/actions/registry';
import type { BatchedRun } from '../../nodes/ProxyAccount/helpers/framework/batchedRun';
import { defineResource, nodeProperties, route, subtitleExpression } from '../../nodes/ProxyAccount/actions/registry';
import { stock } from '../../nodes/ProxyAccount/actions/stock';
import { createHarness } from '../harness';

/** The fixture: what a new `rotate.operation.ts` would export. */
const rotate = {
	operation: {
		value: 'rotateIp',
		name: 'Rotate IP',
		description: 'Give a proxy a new mobile IP',
		action: 'Rotate the IP of a proxy',
		subtitle: 'Rotate Proxy IP',
	} satisfies OperationInfo,
	properties: [{ displayName: 'Wait For New IP', name: 'waitForNewIp', type: 'boolean', default: false, description: 'Whether to wait' }] as INodeProperties[],
	async execute(this: IExecuteFunctions, { items }: BatchedRun<unknown>): Promise<INodeExecutionData[]> {
		return items.map((_item, i) => ({ json: { rotated: true }, pairedItem: { item: i } }));
	},
};

// The one line in actions/proxy/index.ts, with the new module added to the list.
const proxyWithRotate = defineResource({ value: 'proxy', name: 'Proxy' }, [extend, get, getAll, rotate], getAll);
const resources = [proxyWithRotate, price, stock];

describe('adding an operation: one file and one line in its resource index', () => {
	it('the shipped resources are built the same way', () => {
		expect(Object.keys(proxy.operations).sort()).toEqual(['buy', 'changeLocation', 'extend', 'get', 'getAll', 'reboot', 'remove', 'rotateIp', 'setAuthentication', 'setAutoRenew', 'setAutoRotation', 'setIpv4']);
		expect(proxy.defaultOperation).toBe('getAll');
	});

	it('appears in the Operation dropdown of its resource, sorted by name, with its action', () => {
		const properties = nodeProperties(resources, 'proxy');
		const dropdown = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.[0] === 'proxy')!;
		expect(dropdown.options).toEqual([
			{ name: 'Extend', value: 'extend', description: extend.operation.description, action: extend.operation.action },
			{ name: 'Get', value: 'get', description: get.operation.description, action: 'Get a proxy' },
			{ name: 'Get Many', value: 'getAll', description: getAll.operation.description, action: 'Get many proxies' },
			{ name: 'Rotate IP', value: 'rotateIp', description: 'Give a proxy a new mobile IP', action: 'Rotate the IP of a proxy' },
		]);
		const own = properties.filter((p) => p.displayOptions?.show?.operation?.[0] === 'rotateIp');
		expect(own.map((p) => [p.name, p.displayOptions?.show])).toEqual([['waitForNewIp', { resource: ['proxy'], operation: ['rotateIp'] }]]);
	});

	it('its canvas subtitle is derived, as n8n\u2019s expression engine resolves it', () => {
		const harness = createHarness();
		const node = harness.toNode({ type: 'proxyAccount', parameters: { resource: 'proxy', operation: 'rotateIp' } }, 'Proxy Account', [0, 0]);
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: harness.nodeTypes });
		expect(workflow.expression.getSimpleParameterValue(node, subtitleExpression(resources), 'internal', {})).toBe('Rotate Proxy IP');
	});

	it('the router runs it', async () => {
		const context = {
			getInputData: () => [{ json: {} }, { json: {} }],
			getNodeParameter: (name: string) => (name === 'resource' ? 'proxy' : 'rotateIp'),
			getNode: () => ({ name: 'Proxy Account' }),
			continueOnFail: () => false,
		} as unknown as IExecuteFunctions;
		const output = await route.call(context, resources);
		expect(output).toEqual([[{ json: { rotated: true }, pairedItem: { item: 0 } }, { json: { rotated: true }, pairedItem: { item: 1 } }]]);
	});

	it('an operation that runs one item at a time exports executeItem: the router runs the items and routes each failure', async () => {
		const perItem = {
			operation: { value: 'reboot', name: 'Reboot', description: 'Reboot a proxy', action: 'Reboot proxies (free)', subtitle: 'Reboot Proxy' } satisfies OperationInfo,
			properties: [] as INodeProperties[],
			async executeItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
				if (i === 1) throw new Error('item 1 is bad');
				return [{ json: { rebooted: i }, pairedItem: { item: i } }];
			},
		};
		const withReboot = [defineResource({ value: 'proxy', name: 'Proxy' }, [getAll, perItem], getAll)];
		const context = (continueOnFail: boolean) =>
			({
				getInputData: () => [{ json: {} }, { json: {} }, { json: {} }],
				getNodeParameter: (name: string) => (name === 'resource' ? 'proxy' : 'reboot'),
				getNode: () => ({ name: 'Proxy Account' }),
				continueOnFail: () => continueOnFail,
			}) as unknown as IExecuteFunctions;
		const output = await route.call(context(true), withReboot);
		expect(output).toEqual([
			[
				{ json: { rebooted: 0 }, pairedItem: { item: 0 } },
				{ json: { error: 'item 1 is bad' }, pairedItem: { item: 1 } },
				{ json: { rebooted: 2 }, pairedItem: { item: 2 } },
			],
		]);
		await expect(route.call(context(false), withReboot)).rejects.toThrow('item 1 is bad');
	});

	it('an operation unknown to its resource is a clear error', async () => {
		const context = {
			getInputData: () => [{ json: {} }],
			getNodeParameter: (name: string) => (name === 'resource' ? 'stock' : 'rotateIp'),
			getNode: () => ({ name: 'Proxy Account' }),
		} as unknown as IExecuteFunctions;
		await expect(route.call(context, resources)).rejects.toThrow('The operation \u201crotateIp\u201d of \u201cstock\u201d is not supported');
	});
});

describe('the node description', () => {
	it('describes every option of every dropdown', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { ProxyAccount } = require('../../nodes/ProxyAccount/ProxyAccount.node') as typeof import('../../nodes/ProxyAccount/ProxyAccount.node');
		const missing: string[] = [];
		const walk = (properties: Array<Record<string, unknown>>, path: string) => {
			for (const property of properties) {
				const here = `${path}${String(property.displayName ?? property.name)}`;
				const options = property.options as Array<Record<string, unknown>> | undefined;
				if (!Array.isArray(options)) continue;
				if (property.type === 'options' && property.name !== 'resource') {
					for (const option of options) if (!option.description) missing.push(`${here} > ${String(option.name)}`);
				}
				walk(options.filter((o) => typeof o === 'object' && o !== null && ('type' in o || 'values' in o)) as Array<Record<string, unknown>>, `${here} > `);
				for (const o of options) if (Array.isArray(o.values)) walk(o.values as Array<Record<string, unknown>>, `${here} > `);
			}
		};
		walk(new ProxyAccount().description.properties as unknown as Array<Record<string, unknown>>, '');
		expect(missing).toEqual([]);
	});
});

describe('hour fields', () => {
	it('show whole hours as typed (24, not 24.00): no fixed decimals on any field counted in hours', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { ProxyAccount } = require('../../nodes/ProxyAccount/ProxyAccount.node') as typeof import('../../nodes/ProxyAccount/ProxyAccount.node');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { ProxyAccountTrigger } = require('../../nodes/ProxyAccount/ProxyAccountTrigger.node') as typeof import('../../nodes/ProxyAccount/ProxyAccountTrigger.node');
		const hourFields: string[] = [];
		const walk = (properties: Array<Record<string, unknown>>) => {
			for (const property of properties) {
				if (/hours/i.test(String(property.displayName))) {
					hourFields.push(String(property.name));
					expect((property.typeOptions as { numberPrecision?: number } | undefined)?.numberPrecision).toBeUndefined();
				}
				if (Array.isArray(property.options)) walk(property.options as Array<Record<string, unknown>>);
			}
		};
		walk(new ProxyAccount().description.properties as unknown as Array<Record<string, unknown>>);
		walk(new ProxyAccountTrigger().description.properties as unknown as Array<Record<string, unknown>>);
		expect(hourFields.sort()).toEqual(['expiringWithinHours', 'onlyIfExpiringWithinHours', 'withinHours']);
	});
});
