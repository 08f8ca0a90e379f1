/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node that reads the docs (node:fs, __dirname); never shipped */
/**
 * The action node's panel as a builder meets it: short action names (they become node names), the
 * money notices, the tool-mode requirements shown on the tool variant before its first call, the
 * Add Option lists in alphabetical order, and the tool description n8n generates from the action
 * (what an AI agent reads) still saying what a tool costs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeParameters, INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';

const description = new ProxyAccount().description;
const properties = description.properties;
const operations = properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) => (property.options as INodePropertyOptions[]).map((option) => ({ resource: property.displayOptions?.show?.resource?.[0] as string, ...option })));
const ofOperation = (operation: string) => properties.filter((property) => property.displayOptions?.show?.operation?.includes(operation));
const notices = (operation: string, tool: boolean) =>
	ofOperation(operation).filter((property) => property.type === 'notice' && (property.displayOptions?.show?.['@tool'] !== undefined) === tool);

it('action names are short (they name a new node) and never speak of "the builder"', () => {
	for (const option of operations) {
		expect(String(option.action).length).toBeLessThanOrEqual(40);
		expect(String(option.action)).not.toMatch(/builder/i);
	}
});

it.each([
	['extend', /charges the wallet/],
	['buy', /charges the wallet/],
	['changeLocation', /may charge the wallet/],
	['setAutoRenew', /commits the wallet/],
	['remove', /destroys paid time/],
	['rotateIp', /free/],
	['reboot', /free/],
])('the tool description n8n generates for %s says what it costs: %p', (operation, cost) => {
	const option = operations.find((candidate) => candidate.value === operation)!;
	const text = NodeHelpers.makeDescription({ resource: option.resource, operation }, description);
	expect(text).toMatch(cost);
	expect(text.endsWith(' in Proxy Account')).toBe(true);
});

it.each(['extend', 'buy', 'changeLocation', 'setAutoRenew', 'remove'])('%s shows a money notice in the panel', (operation) => {
	expect(notices(operation, false).map((notice) => notice.displayName).join(' ')).toMatch(/wallet|paid time/);
});

it.each([
	['extend', /Maximum Total Cost and Keep Wallet At Least \(above 0\)/],
	['buy', /Maximum Total Cost and Keep Wallet At Least \(above 0\)/],
	['changeLocation', /Allow as AI Tool and set Keep Wallet At Least \(above 0\) and Maximum Cost per Move/],
	['setAutoRenew', /Maximum Renewal Commitment/],
	['remove', /only previews \(Dry Run\)/],
	['setAuthentication', /Allow as AI Tool/],
	['setIpv4', /Allow as AI Tool/],
])('as a tool, %s says in the panel what it needs before the first call', (operation, needs) => {
	const shown = notices(operation, true);
	expect(shown).toHaveLength(1);
	expect(shown[0].displayOptions?.show?.['@tool']).toEqual([true]);
	expect(shown[0].displayName).toMatch(/^As an AI agent's tool: /);
	expect(shown[0].displayName).toMatch(needs);
});

it('every Add Option and Add Filter list is in alphabetical order', () => {
	const collections = properties.filter((property) => property.type === 'collection');
	expect(collections.length).toBeGreaterThan(10);
	for (const collection of collections) {
		const names = (collection.options as INodeProperties[]).map((option) => option.displayName);
		expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
	}
});

/*
 * Each version's panel (issue 37), as n8n computes it: the parameters and defaults a node of that
 * version gets (NodeHelpers.getNodeParameters, which n8n runs on every node it loads), and what a
 * collection offers under Add Filter / Add Option. Version 1 keeps its panel as saved workflows
 * have it; version 2 is a new node's.
 */
describe('version 1 as saved, version 2 for a new node', () => {
	const trigger = new ProxyAccountTrigger().description;
	/** The parameters a new node of `version` gets for `values`, defaults included. */
	const parameters = (node: INodeTypeDescription, version: number, values: INodeParameters) =>
		NodeHelpers.getNodeParameters(node.properties, values, true, false, { typeVersion: version }, node)!;
	/** The properties named `name` shown for `values` at `version`. */
	const shown = (node: INodeTypeDescription, version: number, values: INodeParameters, name: string) =>
		node.properties.filter((property) => property.name === name && NodeHelpers.displayParameter(parameters(node, version, values), property, { typeVersion: version }, node));
	const inside = (collection: INodeProperties | undefined, name: string) => (collection?.options as INodeProperties[] | undefined)?.find((option) => option.name === name);

	it('both nodes are versions 1 and 2, a new node version 2', () => {
		for (const node of [description, trigger]) {
			expect(node.version).toEqual([1, 2]);
			expect(node.defaultVersion).toBe(2);
		}
	});

	it('Stock > Get Many: Only Available is added by no default, and only version 1 says it filters when not added', () => {
		const values = { resource: 'stock', operation: 'getAll' };
		for (const version of [1, 2]) expect(parameters(description, version, values).filters).toEqual({});
		const onlyAvailable = (version: number) => {
			const [filters] = shown(description, version, values, 'filters');
			return inside(filters, 'onlyAvailable')!;
		};
		expect(onlyAvailable(1).description).toMatch(/also when this filter is not added/);
		expect(onlyAvailable(2).description).not.toMatch(/also when this filter is not added/);
		expect(onlyAvailable(2).description).toMatch(/Without this filter, sold-out and closed cities are listed too/);
		// Added, it filters (its switch starts on).
		expect(onlyAvailable(2).default).toBe(true);
	});

	it.each(['newProxy', 'proxyExpiring', 'proxyStatusChanged', 'ipChanged'])('trigger (%s): Simplify inside Options in version 1, a top-level parameter (as in the action node) in version 2', (event) => {
		const [v1Options] = shown(trigger, 1, { event }, 'options');
		expect(inside(v1Options, 'simplify')).toMatchObject({ type: 'boolean', default: true });
		expect(shown(trigger, 1, { event }, 'simplify')).toHaveLength(0);
		expect(parameters(trigger, 1, { event })).not.toHaveProperty('simplify');

		const [v2Options] = shown(trigger, 2, { event }, 'options');
		expect(inside(v2Options, 'simplify')).toBeUndefined();
		expect(inside(v2Options, 'includePassword')).toBeDefined();
		expect(shown(trigger, 2, { event }, 'simplify')).toHaveLength(1);
		expect(parameters(trigger, 2, { event })).toMatchObject({ simplify: true, options: {} });
		// Where the action node's Get Many has it: top level, before Options.
		const order = trigger.properties.filter((property) => NodeHelpers.displayParameter({ event }, property, { typeVersion: 2 }, trigger)).map((property) => property.name);
		expect(order.indexOf('simplify')).toBeLessThan(order.indexOf('options'));
		expect(shown(description, 2, { resource: 'proxy', operation: 'getAll' }, 'simplify')).toHaveLength(1);
	});

	it('Set Auto-Renew: the switch starts on in version 1 (as saved) and off in version 2, so that a new node commits nothing', () => {
		const values = { resource: 'proxy', operation: 'setAutoRenew' };
		expect(parameters(description, 1, values).autoRenew).toBe(true);
		expect(parameters(description, 2, values).autoRenew).toBe(false);
		for (const version of [1, 2]) expect(shown(description, version, values, 'autoRenew')).toHaveLength(1);
	});

	it('"Auto-" is hyphenated in every operation name, the package and node descriptions, the docs, the README and the tests', () => {
		const names = operations.map((option) => option.name).filter((name) => /auto/i.test(name));
		expect(names.sort()).toEqual(['Set Auto-Renew', 'Set Auto-Rotation']);
		expect(operations.find((option) => option.value === 'setAutoRotation')?.name).toBe('Set Auto-Rotation');
		const root = join(__dirname, '..', '..');
		const walk = (dir: string): string[] =>
			readdirSync(dir).flatMap((name) => {
				const path = join(dir, name);
				if (statSync(path).isDirectory()) return /^(node_modules|screenshots|\.)/.test(name) ? [] : walk(path);
				return /\.(md|ts|mjs|json)$/.test(name) ? [path] : [];
			});
		const files = ['README.md', 'package.json', ...['docs', 'test', 'nodes', 'examples'].flatMap((dir) => walk(join(root, dir)).map((path) => path.slice(root.length + 1)))];
		expect(files.length).toBeGreaterThan(100);
		const spaced = /Set Auto (Rotation|Renew)\b/;
		expect(files.filter((file) => spaced.test(readFileSync(join(root, file), 'utf8')) && file !== 'test/unit/panel.test.ts')).toEqual([]);
		expect(description.description).toMatch(/Set Auto-Rotation, .*Set Auto-Renew/);
	});
});
