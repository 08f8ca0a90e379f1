// Runs more seeds of the money campaign (test/reliability/money-campaign.test.ts) than CI does and
// prints a summary: seeds, steps, charges checked, findings (each with its shrunk replay).
//
//   npm run campaign -- --seeds 200            # 200 seeds from a random start seed (printed)
//   npm run campaign -- --seeds 50 --from 1000 # seeds 1000..1049
//
// Each seed is a fresh simulator and 5-15 random steps, each a real workflow execution; see the
// test file for the invariants. Exits 1 when a seed fails for a reason that is not a known finding.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const value = (name) => {
	const at = args.indexOf(name);
	return at >= 0 ? args[at + 1] : undefined;
};
const seeds = Number(value('--seeds') ?? 20);
const from = value('--from') !== undefined ? Number(value('--from')) : 1_000 + Math.floor(Math.random() * 1_000_000);
if (!Number.isInteger(seeds) || seeds < 1 || !Number.isInteger(from) || from < 0) {
	console.error('usage: npm run campaign -- --seeds N [--from S]   (N >= 1, S >= 0)');
	process.exit(2);
}
console.log(`money campaign: ${seeds} seeds from ${from} (replay one with --seeds 1 --from <seed>)`);
const dir = mkdtempSync(join(tmpdir(), 'campaign-'));
const summaryFile = join(dir, 'summary.json');
const jest = spawnSync(process.execPath, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), 'test/reliability/money-campaign.test.ts', '--ci'], {
	cwd: root,
	stdio: 'inherit',
	env: { ...process.env, CAMPAIGN_SEEDS: String(seeds), CAMPAIGN_FROM: String(from), CAMPAIGN_SUMMARY: summaryFile },
});
let summary;
try {
	summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
} catch {
	console.error('money campaign: no summary was written (see the jest output above)');
	process.exit(jest.status ?? 1);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
const line = (label, text) => console.log(`${label.padEnd(22)} ${text}`);
console.log('\nmoney campaign summary');
line('seeds', `${summary.seeds} (${from}..${from + seeds - 1}), ${summary.seconds} s`);
line('steps', `${summary.steps} (${summary.executions} executions; ${summary.twoProcessSteps} steps of two at once, ${summary.toolSteps} as an AI tool)`);
line('charges checked', `${summary.chargesChecked} (${summary.amountCharged} in all), ${summary.removalsChecked} removals`);
line('outcomes', `${summary.reportedMaybe} reported a maybe, ${summary.stopped} stopped, ${summary.sentNothing} sent nothing`);
line('operations', Object.entries(summary.ops).map(([op, n]) => `${op} ${n}`).join(', '));
line('faults', `${Object.keys(summary.faults).length} kinds, ${Object.values(summary.faults).reduce((a, b) => a + b, 0)} injected`);
line('findings', `${summary.findings.length} (${summary.findings.filter((f) => f.known).length} known)`);
for (const finding of summary.findings) {
	console.log(`\n  seed ${finding.seed}${finding.known ? ` (known: ${finding.known})` : ' (NEW)'}`);
	for (const v of finding.violations) console.log(`    step ${v.step} [${v.invariant}] ${v.text}`);
	console.log(`    CAMPAIGN_REPLAY='${JSON.stringify(finding.replay).replace(/'/g, "'\\''")}' npx jest test/reliability/money-campaign.test.ts`);
}
process.exit(summary.findings.some((f) => !f.known) ? 1 : 0);
