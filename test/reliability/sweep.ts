/**
 * The bad-input sweep's generator: every parameter of every operation and trigger event, read from
 * the nodes' own descriptions (displayOptions included), and the hostile values each one meets.
 * `bad-input-sweep.test.ts` runs the cases; this module only builds and classifies them.
 */
import type { IDataObject, INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';

/** How a parameter takes its value, which decides what a legitimate value is. */
export type Kind = 'number' | 'switch' | 'choice' | 'text' | 'list' | 'locator';

export interface SweepParam {
	/** `proxy/extend`, `price/quote`, `trigger/stockChanged`. */
	target: string;
	/** Where the value goes: `['interval']`, `['options', 'batchSize']`, `['lines', 'line', 0, 'city']`. */
	path: Array<string | number>;
	displayName: string;
	kind: Kind;
	required: boolean;
	min?: number;
	max?: number;
	whole?: boolean;
	choices?: string[];
	/** The field takes expressions (not `noDataExpression`). */
	expressions: boolean;
	/** The description's default: a valid value for the items that do not carry the hostile one. */
	fallback: unknown;
	/** Parameters (top-level) the displayOptions need, e.g. `{ returnAll: false }`. */
	shownWith: IDataObject;
}

const SKIPPED_TYPES = new Set(['notice', 'hidden']);

function kindOf(p: INodeProperties): Kind | undefined {
	switch (p.type) {
		case 'number':
			return 'number';
		case 'boolean':
			return 'switch';
		case 'options':
			return p.typeOptions?.loadOptionsMethod ? 'text' : 'choice';
		case 'multiOptions':
			return 'list';
		case 'string':
			return 'text';
		case 'resourceLocator':
			return 'locator';
		default:
			return undefined;
	}
}

/** The other parameters' values a displayOptions.show needs (the first value each one lists). */
function shownWith(p: INodeProperties, selectors: string[]): IDataObject {
	const needs: IDataObject = {};
	for (const [name, values] of Object.entries(p.displayOptions?.show ?? {})) {
		if (selectors.includes(name) || name.startsWith('@') || !Array.isArray(values)) continue;
		needs[name] = values[0] as IDataObject[keyof IDataObject];
	}
	return needs;
}

function leaf(target: string, path: SweepParam['path'], p: INodeProperties, shown: IDataObject): SweepParam | undefined {
	const kind = kindOf(p);
	if (kind === undefined) return undefined;
	const t = p.typeOptions ?? {};
	return {
		target,
		path,
		displayName: p.displayName,
		kind,
		required: p.required === true,
		min: typeof t.minValue === 'number' ? t.minValue : undefined,
		max: typeof t.maxValue === 'number' ? t.maxValue : undefined,
		whole: t.numberPrecision === 0,
		expressions: p.noDataExpression !== true,
		fallback: p.default,
		choices: kind === 'choice' ? (p.options ?? []).map((o) => String((o as { value: unknown }).value)) : undefined,
		shownWith: { ...shown, ...shownWith(p, []) },
	};
}

/** Every parameter a target shows, with every option of its collections and fixedCollections. */
function walk(target: string, properties: INodeProperties[], applies: (p: INodeProperties) => boolean, selectors: string[]): SweepParam[] {
	const out: SweepParam[] = [];
	for (const p of properties) {
		if (!applies(p) || selectors.includes(p.name) || SKIPPED_TYPES.has(p.type)) continue;
		const shown = shownWith(p, selectors);
		if (p.type === 'collection') {
			for (const child of p.options as INodeProperties[]) {
				const param = leaf(target, [p.name, child.name], child, shown);
				if (param) out.push(param);
			}
		} else if (p.type === 'fixedCollection') {
			for (const group of p.options as INodePropertyCollection[]) {
				for (const child of group.values) {
					const param = leaf(target, [p.name, group.name, 0, child.name], child, shown);
					if (param) out.push(param);
				}
			}
		} else {
			const param = leaf(target, [p.name], p, shown);
			if (param) out.push(param);
		}
	}
	return out;
}

const includes = (list: unknown, value: string) => list === undefined || (Array.isArray(list) && list.includes(value));

/** Whether a property is shown on a node of `version` (its `@version` display condition, if any). */
function shownAt(p: INodeProperties, version: number): boolean {
	const versions = p.displayOptions?.show?.['@version'];
	if (!Array.isArray(versions)) return true;
	return versions.some((v) => v === version || (typeof v === 'object' && v !== null && '_cnd' in v && typeof (v as { _cnd: { gte?: number } })._cnd.gte === 'number' && version >= (v as { _cnd: { gte: number } })._cnd.gte));
}

/** The node versions the sweep runs: the action node's version 1, the trigger's version 2 (a new node's; its Simplify is top level). */
export const SWEPT_VERSION = { action: 1, trigger: 2 } as const;

/** The action node's parameters, per `resource/operation`. */
export function actionParams(): Map<string, SweepParam[]> {
	const properties = new ProxyAccount().description.properties;
	const resources = (properties.find((p) => p.name === 'resource')?.options ?? []).map((o) => String((o as { value: unknown }).value));
	const byTarget = new Map<string, SweepParam[]>();
	for (const resource of resources) {
		for (const opProperty of properties.filter((p) => p.name === 'operation' && includes(p.displayOptions?.show?.resource, resource))) {
			for (const option of opProperty.options ?? []) {
				const operation = String((option as { value: unknown }).value);
				const applies = (p: INodeProperties) =>
					includes(p.displayOptions?.show?.resource, resource) && includes(p.displayOptions?.show?.operation, operation) && shownAt(p, SWEPT_VERSION.action);
				byTarget.set(`${resource}/${operation}`, walk(`${resource}/${operation}`, properties, applies, ['resource', 'operation', '@version']));
			}
		}
	}
	return byTarget;
}

/** The trigger's parameters, per `trigger/<event>`. */
export function triggerParams(): Map<string, SweepParam[]> {
	const properties = new ProxyAccountTrigger().description.properties;
	const events = (properties.find((p) => p.name === 'event')?.options ?? []).map((o) => String((o as { value: unknown }).value));
	const byTarget = new Map<string, SweepParam[]>();
	for (const event of events) {
		const applies = (p: INodeProperties) => includes(p.displayOptions?.show?.event, event) && shownAt(p, SWEPT_VERSION.trigger);
		byTarget.set(`trigger/${event}`, walk(`trigger/${event}`, properties, applies, ['event', '@version']));
	}
	return byTarget;
}

// ----- the hostile values ----------------------------------------------------------------------------

/** `absent` stands for an expression that resolves to undefined (`{{ $json.nothing }}`). */
export const ABSENT = Symbol('absent');

export interface Hostile {
	label: string;
	value: unknown;
}

export const LONG = '9'.repeat(10_000);

/** Values whose label is not their JSON text. */
const NAMED = new Map<unknown, string>([
	[ABSENT, 'undefined'],
	[LONG, '10,000 digits'],
	['5\n6', 'text with a newline'],
]);

const labelOf = (value: unknown): string =>
	NAMED.get(value) ?? (Array.isArray(value) ? `array ${JSON.stringify(value)}` : typeof value === 'object' && value !== null ? `object ${JSON.stringify(value)}` : JSON.stringify(value));

export const HOSTILE: Hostile[] = ['0x10', '1e3', ' ', '', 'NaN', 'Infinity', '-1', '1.5', 'abc', 'yes', '1', 1, null, ABSENT, {}, [1], LONG, '5\n6', '__proto__'].map(
	(value) => ({ label: labelOf(value), value }),
);

/** Plain decimal text, as issue #26 allows for numbers. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Whether the field legitimately takes the value (then it may be sent). An optional filter that
 * resolves to nothing is no filter; a required field must have a value.
 */
export function legitimate(param: SweepParam, value: unknown): boolean {
	switch (param.kind) {
		case 'number': {
			const n = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
			if (!Number.isFinite(n)) return false;
			if (param.whole && !Number.isInteger(n)) return false;
			return (param.min === undefined || n >= param.min) && (param.max === undefined || n <= param.max);
		}
		case 'switch':
			return value === true || value === false || value === 'true' || value === 'false';
		case 'choice':
			return typeof value === 'string' && (param.choices ?? []).includes(value);
		case 'list':
			if (value === undefined || value === null) return true;
			// A list of the service's names (a single name too); the service may refuse an unknown one.
			return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
		default:
			if (value === undefined || value === null) return !param.required;
			// Text and the service's names: any text, or a number (shown as its decimal text); empty text
			// only where the field is optional (an empty filter is no filter).
			if (typeof value === 'number') return Number.isFinite(value);
			return typeof value === 'string' && (!param.required || value.trim() !== '');
	}
}

/**
 * The literal n8n's editor can store in the field, when it can: text in text fields, numbers in
 * number fields (the editor's number input reads "-1" as -1), nothing in a switch but a boolean.
 */
export function typedForm(param: SweepParam, value: unknown): { value: unknown } | undefined {
	if (value === ABSENT || value === null || typeof value === 'object') return undefined;
	if (param.kind === 'number') {
		if (typeof value === 'number') return { value };
		if (typeof value === 'string' && value !== '1' && DECIMAL.test(value) && Number.isFinite(Number(value)) && value.length < 20) return { value: Number(value) };
		return undefined;
	}
	if (param.kind === 'switch') return undefined;
	return typeof value === 'string' ? { value } : undefined;
}

/** Text in a request that comes from a value that should never have been sent. */
export const SENT_NOTHING = /undefined|\bnull\b|\[object Object\]|\bNaN\b|Infinity/;

export function setAt(target: IDataObject, path: SweepParam['path'], value: unknown): IDataObject {
	const copy = structuredClone(target) as Record<string | number, unknown>;
	let at = copy;
	for (const [i, key] of path.entries()) {
		if (i === path.length - 1) {
			at[key] = value;
			break;
		}
		if (typeof at[key] !== 'object' || at[key] === null) at[key] = typeof path[i + 1] === 'number' ? [] : {};
		at = at[key] as Record<string | number, unknown>;
	}
	return copy as IDataObject;
}
