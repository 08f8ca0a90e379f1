// Test code, the simulator, the benchmarks and the scripts. Their TypeScript gets every rule the
// shipped code gets (@n8n/node-cli's default config, which `n8n-node lint` applies to the whole
// package) plus stricter TypeScript rules. n8n Cloud's runtime rules (restricted globals and
// imports, console, spawning processes) cannot hold for a local HTTP simulator, jest tests and
// command-line tools: each such file names the rules it is exempt from, and why, in a file-level
// `eslint-disable ... --` comment, and an exemption that no longer applies is an error here.
// Shipped code gets no exemption: `npm run lint` lints nodes/ and credentials/ again with
// --no-inline-config, and n8n's community package scanner (scripts/scan-package.mjs) ignores
// eslint-disable comments.
import js from '@eslint/js';
import { config as n8nConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

// Node's globals for plain JavaScript tooling (build, CI, end-to-end scripts).
const nodeGlobals = Object.fromEntries(
	[
		'require', 'module', 'exports', 'process', 'console', '__dirname', '__filename', 'Buffer', 'URL', 'URLSearchParams',
		'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate',
		'fetch', 'AbortController', 'AbortSignal', 'structuredClone', 'TextDecoder', 'TextEncoder',
	].map((name) => [name, name === 'module' || name === 'exports' ? 'writable' : 'readonly']),
);

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**'] },
	...n8nConfig,
	{
		files: ['**/*.ts'],
		rules: {
			'@typescript-eslint/no-explicit-any': 'error',
		},
	},
	{
		files: ['**/*.{js,mjs,cjs}'],
		extends: [js.configs.recommended],
		languageOptions: { globals: nodeGlobals },
	},
);
