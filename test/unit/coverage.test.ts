/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node that reads the test files and the README (node:fs, __dirname); never shipped */
/**
 * Every operation and every trigger event is tested in each of the places the project keeps, found
 * from the nodes' own descriptions (no list here): the action node's Resource and Operation dropdowns
 * and the trigger's Event dropdown. For each, it looks, at test time, for
 * - a node test: test/node/<resource>/<operation>.test.ts (an event: a test under test/trigger/ that
 *   names it, by its value or its display name);
 * - a fault-matrix row: a label such as 'Proxy > Extend' (an event: 'Trigger: Stock Changed') in
 *   test/reliability/*matrix*.ts;
 * - a secrets-audit case: secrets.test.ts runs the operation (its resource and operation) or the event,
 *   or the operation's fault-matrix row is one of the rows whose cells matrix-file.ts audits;
 * - a README section: `### Proxy > Extend`, `### Stock Changed`.
 * A new operation or event without one of these fails here, naming what is missing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ProxyAccount } from '../../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { CHANGE_ROWS, REMOVED_TRIGGER_ROWS } from '../reliability/change-matrix';
import { ACTION_ROWS, TRIGGER_ROWS } from '../reliability/matrix';
import { ORDER_ROWS } from '../reliability/order-matrix';

const ROOT = join(__dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');
const filesIn = (folder: string, match: RegExp) =>
	readdirSync(join(ROOT, folder))
		.filter((name) => match.test(name))
		.map((name) => read(folder, name));
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const options = (property: INodeProperties | undefined) => (property?.options ?? []) as INodePropertyOptions[];

interface Covered {
	/** As the README and the matrices name it: "Proxy > Extend", "Stock Changed". */
	label: string;
	resource?: string;
	value: string;
}

function operations(): Covered[] {
	const properties = new ProxyAccount().description.properties;
	const resources = options(properties.find((p) => p.name === 'resource'));
	return resources.flatMap((resource) => {
		const dropdown = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource.value));
		return options(dropdown).map((operation) => ({
			label: `${resource.name} > ${operation.name}`,
			resource: String(resource.value),
			value: String(operation.value),
		}));
	});
}

function events(): Covered[] {
	const event = new ProxyAccountTrigger().description.properties.find((p) => p.name === 'event');
	return options(event).map((option) => ({ label: option.name, value: String(option.value) }));
}

const readme = read('README.md');
const matrices = filesIn('test/reliability', /matrix.*\.ts$/).join('\n');
const secrets = read('test/reliability/secrets.test.ts');
const triggerTests = filesIn('test/trigger', /\.test\.ts$/).join('\n');
/** The rows whose cells describeMatrix (matrix-file.ts) runs through its secret audit. */
const auditedRows = [...ACTION_ROWS, ...TRIGGER_ROWS, ...CHANGE_ROWS, ...ORDER_ROWS, ...REMOVED_TRIGGER_ROWS].map((row) => row.label);

/** A quoted label, alone or with a qualifier: 'Proxy > Extend', 'Proxy > Extend (the charge)', 'fault matrix: Proxy > Set Auto-Renew …'. */
const labelled = (label: string) => new RegExp(`['\`](?:fault matrix: )?${escape(label)}(?:['\` ])`);
const isRowOf = (row: string, label: string) => row === label || row.startsWith(`${label} (`);
const section = (label: string) => new RegExp(`^### ${escape(label)}$`, 'm');

const OPERATIONS = operations();
const EVENTS = events();

describe('the registries are read', () => {
	it('finds every resource\u2019s operations and the trigger\u2019s events', () => {
		expect(OPERATIONS.length).toBeGreaterThanOrEqual(10);
		expect(new Set(OPERATIONS.map((o) => o.resource)).size).toBeGreaterThanOrEqual(4);
		expect(EVENTS.length).toBeGreaterThanOrEqual(5);
	});
});

describe.each(OPERATIONS.map((o) => [o.label, o] as const))('%s', (_label, operation) => {
	it('has a node test: test/node/<resource>/<operation>.test.ts', () => {
		const file = join('test', 'node', operation.resource!, `${operation.value}.test.ts`);
		expect({ file, exists: existsSync(join(ROOT, file)) }).toEqual({ file, exists: true });
	});

	it('has a fault-matrix row', () => {
		expect(matrices).toMatch(labelled(operation.label));
	});

	it('has a secrets-audit case', () => {
		const pair = new RegExp(`resource: '${escape(operation.resource!)}', operation: '${escape(operation.value)}'`);
		const audited = auditedRows.some((row) => isRowOf(row, operation.label));
		expect({ label: operation.label, covered: pair.test(secrets) || audited }).toEqual({ label: operation.label, covered: true });
	});

	it('has a README section', () => {
		expect(readme).toMatch(section(operation.label));
	});
});

describe.each(EVENTS.map((e) => [e.label, e] as const))('Trigger: %s', (_label, event) => {
	it('has a trigger test that names it', () => {
		const named = triggerTests.includes(`'${event.value}'`) || triggerTests.includes(event.label);
		expect({ event: event.value, named }).toEqual({ event: event.value, named: true });
	});

	it('has a fault-matrix row', () => {
		expect(matrices).toMatch(labelled(`Trigger: ${event.label}`));
	});

	it('has a secrets-audit case', () => {
		const polled = secrets.includes(`'${event.value}'`);
		const audited = auditedRows.includes(`Trigger: ${event.label}`);
		expect({ event: event.value, covered: polled || audited }).toEqual({ event: event.value, covered: true });
	});

	it('has a README section', () => {
		expect(readme).toMatch(section(event.label));
	});
});
