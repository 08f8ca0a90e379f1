// Test code, the simulator and tooling: type-aware TypeScript rules, but none of the
// shipped-code restrictions (a simulator needs node:http, timers and process).
import js from '@eslint/js';
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
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
			'@typescript-eslint/no-explicit-any': 'error',
			'no-console': 'off',
		},
	},
	{
		files: ['**/*.{js,mjs,cjs}'],
		extends: [js.configs.recommended],
		languageOptions: { globals: nodeGlobals },
	},
);
