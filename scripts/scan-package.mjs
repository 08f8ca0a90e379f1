#!/usr/bin/env node
// Runs the lint of n8n's community package scanner (@n8n/scan-community-package, the gate for
// verified community nodes) on this package, the way the scanner does: with its own ESLint
// configuration and eslint-disable comments ignored, over
//   1. the source it would check at the published commit: package.json, nodes/ and credentials/;
//   2. the published tarball's files (`npm pack` of the built package).
// Exits 1 on any finding. Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = resolve(import.meta.dirname, '..');
let failed = false;

async function check(label, dir, patterns) {
	const result = await analyzePackage(dir, patterns);
	if (result.passed) {
		console.log(`scanner: ${label}: passed${result.message ? ` (${result.message})` : ''}`);
	} else {
		failed = true;
		console.log(`scanner: ${label}: ${result.message}`);
		if (result.details) console.log(result.details);
	}
}

await check('source (package.json, nodes/, credentials/)', root, SOURCE_FILE_PATTERNS);

const work = mkdtempSync(join(tmpdir(), 'proxy-account-scan-'));
try {
	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
	const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
	const unpacked = join(work, 'package');
	execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
	const dist = readdirSync(join(unpacked, 'dist'));
	if (!dist.includes('nodes') || !dist.includes('credentials')) throw new Error('the tarball has no built nodes: run npm run build first');
	await check('published tarball', unpacked, ['**/*.js', '**/*.json']);
} finally {
	rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
