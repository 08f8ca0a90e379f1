/**
 * The named checks of the end-to-end suites (test:queue, test:mcp): each prints `ok` or `FAIL` with
 * a detail, and `results` feeds the suite's closing `<suite>: N passed, M failed` line.
 *
 *   const { check, assert, results } = createChecks(log);
 *   await check('what is proven', async () => { assert(condition, 'what went wrong'); return 'detail'; });
 */
export function createChecks(log) {
	const results = [];
	async function check(what, fn) {
		try {
			const detail = await fn();
			results.push({ what, ok: true });
			log(`  ok   ${what}${detail ? `: ${detail}` : ''}`);
			return true;
		} catch (error) {
			results.push({ what, ok: false });
			log(`  FAIL ${what}: ${error.message}`);
			return false;
		}
	}
	return { check, assert, results };
}

export function assert(condition, message) {
	if (!condition) throw new Error(message);
}

/**
 * Runs a suite's `main`, counts an exception as a failed check, runs the cleanups (n8n, the
 * simulator …) in any case, prints `<name>: N passed, M failed (time)` and exits 1 on any failure.
 */
export async function runSuite(name, main, { results, log, cleanup, elapsed }) {
	try {
		await main();
	} catch (error) {
		log(`FAILED: ${error.stack ?? error.message}`);
		results.push({ what: 'run', ok: false });
	}
	await cleanup();
	const failed = results.filter((r) => !r.ok).length;
	console.log(`\n${name}: ${results.length - failed} passed, ${failed} failed (${elapsed()})`);
	process.exit(failed > 0 ? 1 : 0);
}
