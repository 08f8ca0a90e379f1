/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- developer tooling run by Node from the command line (the environment, a temporary folder); never shipped */
/**
 * Import this first in a script that loads n8n-core: n8n-core writes its instance settings (an
 * encryption key) under N8N_USER_FOLDER, by default the user's own ~/.n8n, when it loads. This points
 * it at a new temporary folder and removes that folder when the process exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const n8nUserFolder = mkdtempSync(join(tmpdir(), 'proxy-account-n8n-'));
process.env.N8N_USER_FOLDER = n8nUserFolder;
process.on('exit', () => rmSync(n8nUserFolder, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
