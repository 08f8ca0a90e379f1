/*
 * Parameters that hold for the whole run (one order, one confirmation, one cap): Dry Run, Maximum
 * Total Cost, Confirm Number of Proxies, Batch Size, Timeout… n8n evaluates a parameter per item,
 * so an expression could give item 3 a Dry Run that item 0 does not have. Such a parameter is read
 * for every item when it is an expression, and the run is refused, naming it, when the items
 * disagree: nothing is sent, so no item is bought, charged or removed against its own setting.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { shown } from './validation';

function hasExpression(raw: unknown): boolean {
	if (typeof raw === 'string') return raw.startsWith('=');
	if (raw === null || typeof raw !== 'object') return false;
	return Object.values(raw as Record<string, unknown>).some(hasExpression);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function differs(
	ctx: IExecuteFunctions,
	label: string,
	first: unknown,
	other: unknown,
	item: number,
) {
	return new NodeOperationError(
		ctx.getNode(),
		`${label} must be the same for every item of the run, but it is ${shown(first)} for item 0 and ${shown(other)} for item ${item}`,
		{
			description: `${label} applies to the whole run, so its expression may not depend on the item. Use one value for all items, or split the items into separate runs (e.g. a Loop Over Items node with Batch Size 1). Nothing was sent.`,
		},
	);
}

/** The display name of a parameter (or of an option inside a collection) in an operation's properties. */
function labelOf(properties: INodeProperties[], name: string, option?: string): string {
	const parameter = properties.find((property) => property.name === name);
	if (option === undefined) return parameter?.displayName ?? name;
	const inner = (parameter?.options as INodeProperties[] | undefined)?.find(
		(candidate) => candidate.name === option,
	);
	return inner?.displayName ?? option;
}

/**
 * The value of a run-wide parameter: read once when it is a plain value; read for every item when
 * it is (or holds) an expression, and refused, naming the parameter, when the items disagree. A
 * collection (Options) is compared option by option, so the refusal names the option.
 */
export function runWideParameter<T = unknown>(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
	name: string,
	fallback: T,
): T {
	const first = ctx.getNodeParameter(name, 0, fallback) as T;
	if (itemCount < 2 || !hasExpression(ctx.getNode().parameters[name])) return first;
	for (let i = 1; i < itemCount; i++) {
		const value = ctx.getNodeParameter(name, i, fallback) as T;
		if (same(value, first)) continue;
		const isCollection = first !== null && typeof first === 'object';
		const key = isCollection
			? [...new Set([...Object.keys(first), ...Object.keys(value as object)])].find(
					(k) => !same((first as IDataObject)[k], (value as IDataObject)[k]),
				)
			: undefined;
		throw differs(
			ctx,
			labelOf(properties, name, key),
			key === undefined ? first : (first as IDataObject)[key],
			key === undefined ? value : (value as IDataObject)[key],
			i,
		);
	}
	return first;
}

/** The Options collection of a run, checked as `runWideParameter` does. */
export function runWideOptions(
	ctx: IExecuteFunctions,
	itemCount: number,
	properties: INodeProperties[],
): IDataObject {
	return runWideParameter<IDataObject>(ctx, itemCount, properties, 'options', {});
}
