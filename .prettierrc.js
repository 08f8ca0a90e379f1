// Formatting of the shipped code (nodes/, credentials/), with n8n's community-node starter
// settings: tabs, single quotes, trailing commas, lines up to 100 characters.
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 100,
};
