// Shipped code (nodes/, credentials/, package.json): the rules of @n8n/node-cli's ESLint config,
// which applies everything n8n's community package scanner applies (community-nodes recommended
// rules plus eslint-plugin-n8n-nodes-base's community, credentials and nodes sets) and more.
// `npm run lint` passes --no-inline-config, as the scanner ignores eslint-disable comments.
import { config } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

export default [
	...config,
	{
		// Codex files and package.json are linted too, as the scanner does: they need a parser.
		files: ['**/*.json'],
		languageOptions: { parser: tseslint.parser },
	},
];
