// Prints one plain closing line, "jest: N passed, N failed, N skipped", after jest's own summary,
// so the run's outcome can be read by tools that do not parse jest's output.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
	}
}

module.exports = SummaryReporter;
