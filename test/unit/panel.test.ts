/**
 * The action node's panel as a builder meets it: short action names (they become node names), the
 * money notices, the tool-mode requirements shown on the tool variant before its first call, the
 * Add Option lists in alphabetical order, and the tool description n8n generates from the action
 * (what an AI agent reads) still saying what a tool costs.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';

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
