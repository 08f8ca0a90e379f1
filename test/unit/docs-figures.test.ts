/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a jest test that reads the docs (node: modules); never shipped */
/**
 * Benchmark figures in README.md and docs/*.md come from one generated source, bench/RESULTS.md
 * (`npm run bench -- --write`): each is quoted through a marker that `npm run docs:figures` fills
 * (bench/figures.ts), and none is quoted by hand next to a benchmark's name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { docFiles, figuresFrom, fillMarkers, fixedFigures, MARKER, RESULTS_FILE, ROOT, unmarkedFigures } from '../../bench/figures';

const results = readFileSync(RESULTS_FILE, 'utf8');
const figures = figuresFrom(results);
const fixed = fixedFigures(results);
const docs = docFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

test('every figure is read from bench/RESULTS.md', () => {
	for (const [name, value] of Object.entries(figures)) expect({ name, value }).toEqual({ name, value: expect.stringMatching(/^-?\d/) });
});

test.each(docs.map((doc) => [doc.file, doc.text]))('%s: every quoted figure is as bench/RESULTS.md has it', (file, text) => {
	expect(fillMarkers(text, figures, file)).toBe(text);
});

test.each(docs.map((doc) => [doc.file, doc.text]))('%s: no benchmark figure is quoted without a marker', (_file, text) => {
	expect(unmarkedFigures(text, fixed)).toEqual([]);
});

test('the docs quote benchmark figures (through markers)', () => {
	const quoted = docs.flatMap(({ text }) => [...text.matchAll(MARKER)].map((m) => m[1]));
	expect(quoted.length).toBeGreaterThan(5);
});

describe('the check itself', () => {
	const hand = '- List 10,000: 1.11 times a bare `axios` fetch (1.56× on loopback), Proxy Expiring 5.8 ms, 0.23 to 0.33 s.';
	test('finds ratios and times quoted by hand next to a benchmark name', () => {
		expect(unmarkedFigures(hand, fixed).map((f) => f.replace(/ in ".*/, ''))).toEqual(['1.11 times', '1.56×', '5.8 ms', '0.23 to 0.33 s']);
	});
	test('leaves settings alone: the models and the targets', () => {
		expect(unmarkedFigures('- Trigger polls: under 10 ms beyond the fetch, with 50 ms round trips.', fixed)).toEqual([]);
	});
	test('leaves blocks that name no benchmark alone', () => {
		expect(unmarkedFigures('Two runs fired 0 to 300 ms apart paid twice up to 120 ms apart.', fixed)).toEqual([]);
	});
	test('a stale marker differs from the filled text', () => {
		const stale = 'List 10,000: <!-- figure:list-loopback-ratio -->1.56 times<!-- /figure --> on loopback';
		expect(fillMarkers(stale, figures)).not.toBe(stale);
		expect(unmarkedFigures(stale, fixed)).toEqual([]);
	});
	test('a marker with an unknown name is an error', () => {
		expect(() => fillMarkers('<!-- figure:nothing -->1 s<!-- /figure -->', figures)).toThrow('no figure "nothing"');
	});
});
