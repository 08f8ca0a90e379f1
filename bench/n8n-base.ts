/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmark tooling run by Node from the command line (timers, child processes, console output); never shipped, the package holds dist/ only */
/**
 * n8n's own nodes (HTTP Request, Aggregate, Split Out, Filter) from the real n8n install the
 * end-to-end suite caches, loaded with a `require` rooted in that install so their own
 * dependencies (n8n-workflow, lodash, ...) resolve there. They run in this process's n8n-core
 * WorkflowExecute next to the package's nodes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { INodeType, IVersionedNodeType } from 'n8n-workflow';

export const N8N_VERSION = '2.41.1';

/** Full type names the benchmark registers, as in an exported n8n workflow. */
export const BASE_TYPES = {
	httpRequest: 'n8n-nodes-base.httpRequest',
	aggregate: 'n8n-nodes-base.aggregate',
	splitOut: 'n8n-nodes-base.splitOut',
	filter: 'n8n-nodes-base.filter',
} as const;

/** Node type versions used: HTTP Request 4.2 and Filter 2.2, as most current workflows (and this package's examples) have them. */
export const BASE_VERSIONS = {
	httpRequest: 4.2,
	aggregate: 1,
	splitOut: 1,
	filter: 2.2,
} as const;

interface InstallModule {
	ensureN8n: (spec: string, options?: { log?: (line: string) => void }) => Promise<{ dir: string; version: string }>;
}

export const INSTALL_MODULE = join(__dirname, '..', 'test', 'e2e', 'n8n-install.mjs');

// ts-node compiles `import()` to `require()`, which cannot load an ES module on every Node 20:
// a real dynamic import is kept out of the compiler's reach.
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/**
 * The cached install's folder when it is complete (its marker names this version), else undefined.
 * Installs nothing. The cache root comes from the install module's own `cacheRoot()`, asked in a
 * child process so this also works where dynamic imports do not (jest).
 */
export function findN8nInstall(): string | undefined {
	let root: string;
	try {
		const script = `import(${JSON.stringify(pathToFileURL(INSTALL_MODULE).href)}).then((m) => process.stdout.write(m.cacheRoot()))`;
		root = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	} catch {
		return undefined;
	}
	const dir = join(root, `n8n-${N8N_VERSION}`);
	try {
		const marker = JSON.parse(readFileSync(join(dir, '.installed.json'), 'utf8')) as { n8n?: string };
		return marker.n8n === N8N_VERSION && existsSync(join(dir, 'node_modules', 'n8n-nodes-base', 'package.json')) ? dir : undefined;
	} catch {
		return undefined;
	}
}

/** Installs n8n into the cache through the end-to-end suite's module (returns at once when cached). */
export async function ensureN8nInstall(log: (line: string) => void): Promise<string> {
	const { ensureN8n } = (await importModule(pathToFileURL(INSTALL_MODULE).href)) as InstallModule;
	const installed = await ensureN8n(N8N_VERSION, { log });
	return installed.dir;
}

export interface BaseNodes {
	types: Record<string, INodeType | IVersionedNodeType>;
	nodesBaseVersion: string;
	n8nVersion: string;
}

/** Loads the node classes from an install folder (as returned by findN8nInstall / ensureN8nInstall). */
export function loadBaseNodes(installDir: string): BaseNodes {
	const modules = join(installDir, 'node_modules');
	const fromBase = createRequire(join(modules, 'n8n-nodes-base', 'package.json'));
	const load = <T>(path: string, name: string): T => {
		const loaded = fromBase(path) as Record<string, new () => T>;
		const Type = loaded[name];
		if (typeof Type !== 'function') throw new Error(`${path} does not export ${name}`);
		return new Type();
	};
	const version = (pkg: string) => (JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')) as { version: string }).version;
	return {
		types: {
			[BASE_TYPES.httpRequest]: load<IVersionedNodeType>('./dist/nodes/HttpRequest/HttpRequest.node.js', 'HttpRequest'),
			[BASE_TYPES.aggregate]: load<INodeType>('./dist/nodes/Transform/Aggregate/Aggregate.node.js', 'Aggregate'),
			[BASE_TYPES.splitOut]: load<INodeType>('./dist/nodes/Transform/SplitOut/SplitOut.node.js', 'SplitOut'),
			[BASE_TYPES.filter]: load<IVersionedNodeType>('./dist/nodes/Filter/Filter.node.js', 'Filter'),
		},
		nodesBaseVersion: version('n8n-nodes-base'),
		n8nVersion: version('n8n'),
	};
}
