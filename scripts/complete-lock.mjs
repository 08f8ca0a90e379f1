#!/usr/bin/env node
// Completes package-lock.json with the per-platform optional packages the registry reachable here
// does not serve (e.g. @unrs/resolver-binding-darwin-arm64: only the Linux builds are mirrored).
// npm leaves them out of the lock it writes, then `npm ci` refuses that lock ("Missing: … from lock
// file"). Each added entry is what a lock made against the full registry holds for a package of
// another platform: its version, `optional`, `dev`, `os` and `cpu`, so npm skips it on this one.
//
// Run after any `npm install` that rewrites the lock:   node scripts/complete-lock.mjs
// `--check` only reports (exit 1 when something is missing).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const file = resolve(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const PLATFORM = /-(android|darwin|freebsd|linux|openharmony|win32)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x)(?:-|$)/;

const added = [];
for (const [location, entry] of Object.entries(packages)) {
	for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
		const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
		if (packages[nested] || packages[`node_modules/${name}`]) continue;
		const platform = PLATFORM.exec(name);
		if (!platform) throw new Error(`${name} (optional dependency of ${location || 'the root'}) is missing from the lock and is not a per-platform build`);
		packages[`node_modules/${name}`] = {
			version: version.replace(/^[\^~=]/, ''),
			dev: true,
			optional: true,
			os: [platform[1]],
			cpu: [platform[2]],
		};
		added.push(name);
	}
}

if (process.argv.includes('--check')) {
	if (added.length > 0) {
		console.error(`package-lock.json lacks ${added.length} per-platform optional packages (${added.slice(0, 3).join(', ')}…): run node scripts/complete-lock.mjs`);
		process.exit(1);
	}
	console.log('package-lock.json is complete');
} else {
	const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
	lock.packages = sorted;
	writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
	console.log(added.length > 0 ? `added ${added.length} entries: ${added.join(', ')}` : 'package-lock.json was complete');
}
