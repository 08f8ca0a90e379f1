/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/setup/env.ts'],
	testTimeout: 60_000,
	// Each test file starts its own simulator on a random loopback port; two workers suit two cores.
	maxWorkers: 2,
	reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};
