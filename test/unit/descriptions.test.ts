/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node (reads README.md); never shipped */
/**
 * What builders see of the nodes before they open one: the node's, the trigger's and package.json's
 * descriptions name every operation and event, and the node creator lists each trigger event in
 * Title Case. The operations come from the node's own dropdowns (built by actions/registry.ts from
 * each resource's index) and the events from the trigger's Event option, so an operation or event
 * added later must be named too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import packageJson from '../../package.json';

const options = (property: INodeProperties | undefined) => (property?.options ?? []) as INodePropertyOptions[];

const nodeProperties = new ProxyAccount().description.properties;
const resources = options(nodeProperties.find((p) => p.name === 'resource'));
const operationsOf = (resource: string | number | boolean) =>
	options(nodeProperties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource)));
const operationNames = [...new Set(resources.flatMap((r) => operationsOf(r.value).map((o) => o.name)))];
const events = options(new ProxyAccountTrigger().description.properties.find((p) => p.name === 'event'));
const eventNames = events.map((e) => e.name);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * Whether the text names `name` on its own: "Get" counts only where it is not part of a longer name
 * of the list ("Get Many", "Get Funds"). Not case-sensitive.
 */
function names(text: string, name: string, all: string[]): boolean {
	let rest = text;
	for (const longer of all.filter((other) => other !== name && other.toLowerCase().includes(name.toLowerCase())))
		rest = rest.replace(new RegExp(escape(longer), 'gi'), ' ');
	return new RegExp(`(^|[^A-Za-z-])${escape(name)}($|[^A-Za-z-])`, 'i').test(rest);
}

const packageDescription = packageJson.description;
const descriptions = {
	'Proxy Account node': { text: String(new ProxyAccount().description.description), operations: true, events: false },
	'Proxy Account Trigger': { text: String(new ProxyAccountTrigger().description.description), operations: false, events: true },
	'package.json': { text: packageDescription, operations: true, events: true },
};

describe('descriptions name every operation and event', () => {
	it('the lists they are checked against are the real ones (15 operations in 4 resources, 7 events)', () => {
		expect(resources.map((r) => r.name).sort()).toEqual(['Account', 'Price', 'Proxy', 'Stock']);
		expect(resources.reduce((n, r) => n + operationsOf(r.value).length, 0)).toBe(15);
		expect(eventNames).toHaveLength(7);
	});

	for (const [where, { text, operations, events: withEvents }] of Object.entries(descriptions)) {
		if (operations)
			it(`${where}: every resource and operation`, () => {
				const missing = [...resources.map((r) => r.name), ...operationNames].filter((name) => !names(text, name, operationNames));
				expect(missing).toEqual([]);
			});
		if (withEvents)
			it(`${where}: every trigger event`, () => {
				expect(eventNames.filter((name) => !names(text, name, eventNames))).toEqual([]);
			});
	}

	it('the check is not fooled by a longer name: "Get Many" alone does not name "Get"', () => {
		expect(names('Proxy: Get Many, Get Funds', 'Get', operationNames)).toBe(false);
		expect(names('Proxy: Get, Get Many', 'Get', operationNames)).toBe(true);
	});
});

describe('trigger events in the node creator', () => {
	it('every event option has an action "On <Name>" in Title Case, e.g. "On IP Changed"', () => {
		for (const event of events) {
			expect(event.action).toBe(`On ${event.name}`);
			for (const word of String(event.action).split(' ')) expect(word[0]).toBe(word[0].toUpperCase());
		}
		expect(events.find((e) => e.value === 'ipChanged')?.action).toBe('On IP Changed');
	});
});

describe('the README uses the labels the editor shows for dropdowns loaded from the service', () => {
	/** Every property, also those inside collections and fixed collections. */
	function allProperties(properties: INodeProperties[]): INodeProperties[] {
		return properties.flatMap((property) => [
			property,
			...((property.options ?? []) as Array<INodeProperties | { values?: INodeProperties[] }>).flatMap((option) =>
				'displayName' in option && 'type' in option ? allProperties([option]) : allProperties((option as { values?: INodeProperties[] }).values ?? []),
			),
		]);
	}
	const properties = allProperties([...nodeProperties, ...new ProxyAccountTrigger().description.properties]);
	const labels = new Set(properties.map((p) => p.displayName));
	const loaded = [...new Set(properties.filter((p) => p.typeOptions?.loadOptionsMethod !== undefined).map((p) => p.displayName))];
	const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');

	it('each is labelled "... Name or ID" ("... Names or IDs" for a list), as n8n\u2019s linter requires', () => {
		expect(loaded.length).toBeGreaterThanOrEqual(5);
		for (const label of loaded) expect(label).toMatch(/ (Name or ID|Names or IDs)$/);
	});

	it.each(loaded)('%s: named so in the README, never by a shorter label the editor does not show', (label) => {
		expect(readme).toContain(label);
		const bare = label.replace(/ (Name or ID|Names or IDs)$/, '');
		if (labels.has(bare)) return; // another field really is called so (e.g. the City filter)
		expect(readme).not.toContain(`*${bare}*`);
		expect(readme).not.toContain(`> ${bare} |`);
	});
});
