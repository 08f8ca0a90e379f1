/**
 * node scripts/move-modules.mjs <mapping.json>
 *
 * Moves shipped modules and rewrites every relative import that reaches them, in the whole
 * repository (nodes/, credentials/, test/, bench/, scripts/), and every mention of their paths in
 * Markdown and comments. The mapping is `{ "helpers/framework/itemLoop.ts": "helpers/framework/itemLoop.ts" }`,
 * paths relative to nodes/ProxyAccount. Files are moved with `git mv`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const BASE = join(ROOT, 'nodes/ProxyAccount');
const mapping = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const moves = new Map(Object.entries(mapping).map(([from, to]) => [join(BASE, from), join(BASE, to)]));

function walk(dir) {
	return readdirSync(dir).flatMap((name) => {
		if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
		const path = join(dir, name);
		return statSync(path).isDirectory() ? walk(path) : [path];
	});
}
const code = ['nodes', 'credentials', 'test', 'bench', 'scripts']
	.filter((d) => existsSync(join(ROOT, d)))
	.flatMap((d) => walk(join(ROOT, d)))
	.filter((f) => /\.(ts|mts|mjs|js|cjs)$/.test(f));

const resolveSpec = (fromFile, spec) => {
	const base = resolve(dirname(fromFile), spec);
	for (const candidate of [`${base}.ts`, base, join(base, 'index.ts')]) {
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
	}
	return undefined;
};
const specFor = (fromFile, target, original) => {
	let spec = relative(dirname(fromFile), target).replace(/\\/g, '/');
	if (target.endsWith('/index.ts') && !/(^|\/)index(\.ts)?$/.test(original)) {
		spec = spec.replace(/\/?index\.ts$/, '') || '.';
	} else if (!original.endsWith('.ts')) spec = spec.replace(/\.ts$/, '');
	return spec.startsWith('.') ? spec : `./${spec}`;
};

// 1. Rewrite imports (computed against the tree before any move).
const rewritten = new Map();
for (const file of code) {
	const text = readFileSync(file, 'utf8');
	const newFile = moves.get(file) ?? file;
	const next = text.replace(
		/((?:from|import|require|mock|requireActual)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\2/g,
		(whole, head, quote, spec) => {
			const target = resolveSpec(file, spec);
			if (target === undefined) return whole;
			const movedTarget = moves.get(target) ?? target;
			if (movedTarget === target && newFile === file) return whole;
			return `${head}${quote}${specFor(newFile, movedTarget, spec)}${quote}`;
		},
	);
	if (next !== text) rewritten.set(file, next);
}
for (const [file, text] of rewritten) writeFileSync(file, text);

// 2. Move the files.
for (const [from, to] of moves) {
	mkdirSync(dirname(to), { recursive: true });
	execFileSync('git', ['mv', from, to], { cwd: ROOT });
}

// 3. Mentions in Markdown and comments: `helpers/x.ts` -> `helpers/framework/x.ts`.
const docs = [...walk(ROOT).filter((f) => f.endsWith('.md')), ...code.map((f) => moves.get(f) ?? f)];
const pairs = Object.entries(mapping).sort((a, b) => b[0].length - a[0].length);
let mentions = 0;
for (const file of docs) {
	const text = readFileSync(file, 'utf8');
	let next = text;
	for (const [from, to] of pairs) {
		const pattern = new RegExp(`(?<![\\w/])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
		next = next.replace(pattern, () => {
			mentions++;
			return to;
		});
	}
	if (next !== text) writeFileSync(file, next);
}
console.log(`moved ${moves.size} files, rewrote imports in ${rewritten.size}, ${mentions} mentions`);
