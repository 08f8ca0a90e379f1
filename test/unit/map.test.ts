/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node that reads the repository (node:fs, __dirname); never shipped */
/**
 * The map of the code: docs/contributing.md's *Code map* (the README links it) names every folder of the shipped code and says
 * where new code goes; test/README.md names every folder of test/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

function folders(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (name === 'node_modules' || name.startsWith('.') || !statSync(path).isDirectory()) return [];
		return [path, ...folders(path)];
	});
}

function section(text: string, heading: string): string {
	const start = text.indexOf(`\n${heading}\n`);
	if (start < 0) throw new Error(`no section ${heading}`);
	const next = text.slice(start + heading.length + 2).search(/\n#{1,3} /);
	return next < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + next);
}

describe('the map of the code', () => {
	const contributing = readFileSync(join(ROOT, 'docs/contributing.md'), 'utf8');
	const map = section(contributing, '## Code map');

	it('the code map names every folder of nodes/ProxyAccount and credentials/', () => {
		const shipped = folders(join(ROOT, 'nodes/ProxyAccount')).map((f) => `${relative(join(ROOT, 'nodes/ProxyAccount'), f)}/`);
		expect(shipped.length).toBeGreaterThan(8);
		expect(shipped.filter((folder) => !map.includes(`\`${folder}\``))).toEqual([]);
		expect(map).toContain('`credentials/`');
	});

	it('the code map says where new code goes: an operation, an endpoint, an event, a helper', () => {
		for (const recipe of ['an operation', 'an endpoint', 'an event', 'a helper']) {
			expect(map).toContain(`**${recipe}**`);
		}
		for (const heading of ['## Adding an operation', '## Adding an endpoint', '## Adding a trigger event', '## Adding a helper']) {
			expect(contributing).toContain(`\n${heading}\n`);
		}
	});

	it('test/README.md names every folder of test/', () => {
		const text = readFileSync(join(ROOT, 'test/README.md'), 'utf8');
		const tests = folders(join(ROOT, 'test')).map((f) => `${relative(join(ROOT, 'test'), f)}/`);
		expect(tests.length).toBeGreaterThan(10);
		expect(tests.filter((folder) => !text.includes(`\`${folder}\``))).toEqual([]);
	});
});
