/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a jest test that runs the demo as a child process (execFile, node: modules, the environment); never shipped */
/**
 * `npm run demo` is the first command a newcomer runs: it must leave their home folder alone.
 * n8n-core writes an instance key under N8N_USER_FOLDER (default ~/.n8n) when it loads; the demo
 * points it at a temporary folder and removes that folder when it ends.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function runDemo(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const tsNode = join(ROOT, 'node_modules', '.bin', 'ts-node');
	return new Promise((resolve) => {
		execFile(tsNode, ['--transpile-only', '--prefer-ts-exts', 'scripts/demo.ts'], { cwd: ROOT, env, timeout: 180_000 }, (error, stdout, stderr) =>
			resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
		);
	});
}

test('npm run demo writes nothing into HOME and removes its temporary n8n folder', async () => {
	const home = mkdtempSync(join(tmpdir(), 'proxy-account-demo-home-'));
	const temp = mkdtempSync(join(tmpdir(), 'proxy-account-demo-tmp-'));
	try {
		const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: temp };
		delete env.N8N_USER_FOLDER; // set by the jest set-up; a newcomer's shell has none
		const { code, stdout, stderr } = await runDemo(env);
		expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
		expect(stdout).toContain('Quote calculator');
		expect(stdout).toContain('ALERT:');
		expect(readdirSync(home)).toEqual([]);
		// what the demo made in the temporary folder is gone (ts-node keeps its own compile cache there)
		expect(readdirSync(temp).filter((name) => !name.startsWith('v8-compile-cache'))).toEqual([]);
	} finally {
		rmSync(home, { recursive: true, force: true });
		rmSync(temp, { recursive: true, force: true });
	}
}, 200_000);
