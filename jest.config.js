/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/setup/env.ts'],
	// Three times the longest quiet test without a timeout of its own (about 60 s on two cores):
	// a machine running another test suite at the same time doubles a test's time (issue 35).
	testTimeout: 180_000,
	// Each test file starts its own simulator on a random loopback port; two workers suit two cores.
	maxWorkers: 2,
	reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};
