/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a jest test run by Node that reads the shipped sources (node:fs, __dirname); never shipped */
/**
 * The layers of the shipped code, read from its import statements: the node files on top, then the
 * operations (actions/), the trigger's events (trigger/) and the editor methods (methods/), then
 * helpers/ (device/ over money/ over guards/ over framework/), then transport/, then common/ (wording and small checks of values), which imports nothing
 * of the package. No import runs back up a layer, no operation imports another, no event
 * imports another, and no file reaches itself through its imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../nodes/ProxyAccount');

function files(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return files(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

function target(from: string, spec: string): string | undefined {
	if (!spec.startsWith('.')) return undefined;
	const base = resolve(dirname(from), spec);
	for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
		try {
			if (statSync(candidate).isFile()) return candidate;
		} catch {
			// not this one
		}
	}
	throw new Error(`${relative(ROOT, from)} imports ${spec}, which is not a file`);
}

const graph = new Map<string, string[]>();
for (const file of files(ROOT)) {
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/^(?:import|export)[^;]*?from '([^']+)';/gms)].map((m) => m[1]);
	graph.set(file, specs.map((spec) => target(file, spec)).filter((t): t is string => t !== undefined));
}
const rel = (file: string) => relative(ROOT, file);
const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => [rel(from), rel(to)] as const));

describe('layering of nodes/ProxyAccount', () => {
	it('reads the imports of every shipped file', () => {
		expect(graph.size).toBeGreaterThan(40);
		expect(edges.length).toBeGreaterThan(100);
	});

	it('common/ imports nothing outside common/', () => {
		expect(edges.filter(([from, to]) => from.startsWith('common/') && !to.startsWith('common/'))).toEqual([]);
	});

	it('transport/ imports only transport/ and common/', () => {
		expect(edges.filter(([from, to]) => from.startsWith('transport/') && !/^(transport|common)\//.test(to))).toEqual([]);
	});

	it('helpers/ imports neither operations, events, methods nor the nodes', () => {
		const up = edges.filter(([from, to]) => from.startsWith('helpers/') && /^(actions|trigger|methods)\/|\.node\.ts$/.test(to));
		expect(up).toEqual([]);
	});

	it('helpers/ folders by concept: framework/ imports no other helpers folder; guards/ and money/ only framework/; device/ any', () => {
		const folder = (file: string) => /^helpers\/([^/]+)\//.exec(file)?.[1];
		const allowed: Record<string, string[]> = { framework: [], guards: ['framework'], money: ['framework', 'guards'], device: ['framework', 'guards', 'money'] };
		expect([...new Set(edges.map(([from]) => folder(from)).filter(Boolean))].sort()).toEqual(Object.keys(allowed).sort());
		const wrong = edges.filter(([from, to]) => {
			const [a, b] = [folder(from), folder(to)];
			return a !== undefined && b !== undefined && a !== b && !allowed[a].includes(b);
		});
		expect(wrong).toEqual([]);
		expect(edges.filter(([from]) => /^helpers\/[^/]+\.ts$/.test(from))).toEqual([]);
	});

	it('no operation imports another, no event imports another, nothing imports a node file', () => {
		const sideways = edges.filter(
			([from, to]) =>
				(from.endsWith('.operation.ts') && to.endsWith('.operation.ts')) ||
				(from.endsWith('.event.ts') && to.endsWith('.event.ts')) ||
				to.endsWith('.node.ts'),
		);
		expect(sideways).toEqual([]);
	});

	it('has no import cycle', () => {
		const state = new Map<string, 'open' | 'done'>();
		const cycles: string[] = [];
		const visit = (file: string, path: string[]) => {
			if (state.get(file) === 'done') return;
			if (state.get(file) === 'open') {
				cycles.push([...path.slice(path.indexOf(file)), file].map(rel).join(' -> '));
				return;
			}
			state.set(file, 'open');
			for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
			state.set(file, 'done');
		};
		for (const file of graph.keys()) visit(file, []);
		expect(cycles).toEqual([]);
	});
});
