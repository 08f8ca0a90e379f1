/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test that reads the README, the docs and package files (node:fs, __dirname); never shipped */
/**
 * The README for a builder's first day: short (under 450 lines), the quick start in its first 40
 * lines, the commands a newcomer needs (a clone address, the simulator, what npm ci's warning
 * means, how long npm test takes), and every link in README.md and docs/*.md leading somewhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const readme = read('README.md');
const lines = readme.split('\n');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[*`_]/g, '')
		.replace(/[^\p{L}\p{N} -]/gu, '')
		.replace(/ /g, '-');

function anchors(text: string): Set<string> {
	const seen = new Map<string, number>();
	const out = new Set<string>();
	let fenced = false;
	for (const line of text.split('\n')) {
		if (line.trimStart().startsWith('```')) fenced = !fenced;
		const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
		if (!heading) continue;
		const base = slug(heading[1]);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		out.add(count === 0 ? base : `${base}-${count}`);
	}
	return out;
}

describe('the README', () => {
	it('stays under 450 lines', () => {
		expect(lines.length).toBeLessThan(450);
	});

	it('has its quick start, whole, in its first 40 lines', () => {
		const start = lines.indexOf('## Quick start');
		const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
		expect(start).toBeGreaterThanOrEqual(0);
		expect(end).toBeLessThanOrEqual(40);
	});

	it('clones from the repository package.json names', () => {
		const url = (JSON.parse(read('package.json')) as { repository: { url: string } }).repository.url.replace(/^git\+/, '');
		const clones = lines.filter((line) => line.includes('git clone'));
		expect(clones.length).toBeGreaterThan(0);
		for (const line of clones) expect(line).toContain(`git clone ${url} `);
	});

	it('says how to start the simulator, on the port it uses by default', () => {
		const port = /--port N\s+port \(default (\d+)/.exec(read('test/simulator/cli.ts'))?.[1];
		expect(port).toBeDefined();
		const quickStart = lines.slice(0, 40).join('\n');
		expect(quickStart).toContain('`npm run simulator`');
		expect(quickStart).toContain(`http://127.0.0.1:${port}`);
	});

	it("explains npm ci's EBADENGINE warning truthfully: isolated-vm asks for Node.js 24 and its install script is not run", () => {
		const engines = (JSON.parse(read('node_modules/isolated-vm/package.json')) as { engines: { node: string } }).engines.node;
		expect(engines).toMatch(/>=\s*24/);
		expect(read('.npmrc')).toMatch(/^ignore-scripts=true$/m);
		const quickStart = lines.slice(0, 40).join('\n');
		expect(quickStart).toContain('EBADENGINE');
		expect(quickStart).toMatch(/isolated-vm[^]*Node\.js >= 24[^]*install script is not run/);
	});

	it("states how long npm test and CI take", () => {
		expect(readme).toMatch(/`npm test` \([^)]*\) takes about \d+ minutes/);
		expect(readme).toMatch(/`\.ci\/run`[^]*about \d+\s+minutes with n8n cached/);
	});
});

describe('links in README.md and docs/*.md', () => {
	const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
	const links = files.flatMap((file) =>
		[...read(file).matchAll(/\]\(([^)\s]+)\)/g)]
			.map((match) => match[1])
			.filter((target) => !/^[a-z]+:/.test(target))
			.map((target) => ({ file, target })),
	);

	it('there are links to check', () => {
		expect(links.length).toBeGreaterThan(50);
	});

	it.each(files)('%s: every relative link leads to a file, and every #anchor to a heading', (file) => {
		const broken = links
			.filter((link) => link.file === file)
			.filter(({ target }) => {
				const [path, anchor] = target.split('#');
				const resolved = path ? join(dirname(join(ROOT, file)), path) : join(ROOT, file);
				if (!existsSync(resolved)) return true;
				return anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor);
			})
			.map(({ target }) => target);
		expect(broken).toEqual([]);
	});
});
