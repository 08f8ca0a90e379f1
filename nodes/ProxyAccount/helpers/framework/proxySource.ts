import type { IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { proxyLocator } from './descriptions';
import { invalidParameter, isSet, parseChoice, parseName, shown, valueAt } from './validation';

/*
 * Where an operation finds each item's proxy: the Proxy parameter, or a field of each input item
 * read without evaluating an expression per item, which is most of the node's own time on many
 * items (bench/breakdown.ts); the result is the same.
 */

const EXAMPLE_NAME = 'PRX-US-AU1-0001';

/** The "Proxy From" choice, the Proxy locator (for the parameter) and the field name (for the field). */
export function proxySourceProperties(locatorDescription: string): INodeProperties[] {
	return [
		{
			displayName: 'Proxy From',
			name: 'proxySource',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Proxy Parameter',
					value: 'parameter',
					description:
						'Pick the proxy from the list, enter its name, or use an expression that gives each item’s proxy name',
				},
				{
					name: 'Field of Each Input Item',
					value: 'field',
					description:
						'Read the proxy name from a field of each input item, without evaluating an expression per item: faster on thousands of items',
				},
			],
			default: 'parameter',
			description: 'Where each input item’s proxy name comes from',
		},
		{
			...proxyLocator(locatorDescription),
			displayOptions: { show: { proxySource: ['parameter'] } },
		},
		{
			displayName: 'Proxy Name Field',
			name: 'proxyNameField',
			type: 'string',
			noDataExpression: true,
			required: true,
			default: 'proxy_name',
			placeholder: 'e.g. proxy_name',
			description:
				'The field of each input item that holds the proxy name. A dot reaches into an object, e.g. proxy.name.',
			displayOptions: { show: { proxySource: ['field'] } },
		},
	];
}

/** A reader of item `i`'s proxy name, as Proxy From says; throws, naming the item, when it has none. */
export function proxyNameReader(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
): (itemIndex: number) => string {
	const node = ctx.getNode();
	const source = parseChoice(
		node,
		undefined,
		ctx.getNodeParameter('proxySource', 0, 'parameter'),
		'Proxy From',
		['parameter', 'field'] as const,
		'Proxy Parameter ("parameter") or Field of Each Input Item ("field")',
		'Open the node and pick where the proxy name comes from in Proxy From.',
	);
	if (source === 'parameter') {
		const nameOf = (i: number) => ctx.getNodeParameter('proxyName', i, '', { extractValue: true });
		return (i) => parseName(node, i, nameOf(i), 'Proxy', EXAMPLE_NAME);
	}
	const rawField = ctx.getNodeParameter('proxyNameField', 0, '');
	const field = typeof rawField === 'string' ? rawField.trim() : '';
	if (field === '') {
		const fix = 'Enter the name of the input field that holds the proxy name, e.g. proxy_name.';
		throw invalidParameter(node, undefined, 'Proxy Name Field', 'is empty', fix);
	}
	const label = `Proxy Name Field \u201c${field}\u201d`;
	return (i) => {
		const { json } = items[i];
		// The key itself when present, otherwise by dots.
		const value = isSet(json, field) ? json[field] : valueAt(json, field);
		if (value === undefined) {
			const fix = `Check the field name (names are case-sensitive; a dot reaches into an object, e.g. proxy.name), or set Proxy From to Proxy Parameter. Fields of this item: ${Object.keys(json).slice(0, 10).join(', ') || 'none'}.`;
			throw invalidParameter(node, i, label, 'is not a field of this item', fix);
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			const fix = `Point it at a field holding a name such as ${EXAMPLE_NAME}.`;
			throw invalidParameter(node, i, label, `holds ${shown(value)}, not a proxy name`, fix);
		}
		return parseName(node, i, value, label, EXAMPLE_NAME);
	};
}

/** A proxy the account's list does not hold: fails its own item, before anything is sent for it. */
export function proxyNotFound(node: INode, name: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		node,
		`Proxy \u201c${name}\u201d was not found in this Proxy Account [item ${itemIndex}]`,
		{
			description:
				'Check the name (names are case-sensitive) or pick the proxy from the list. Nothing was sent or charged for this proxy.',
			itemIndex,
		},
	);
}
