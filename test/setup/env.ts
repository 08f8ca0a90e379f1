/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- jest set-up: points n8n-core at a temporary folder through the environment; never shipped */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { followSimulatorClocks } from '../simulator/time';

// n8n-core writes its instance settings under N8N_USER_FOLDER (default ~/.n8n): keep tests out of ~.
if (!process.env.N8N_USER_FOLDER || !process.env.N8N_USER_FOLDER.includes('n8n-proxy-account-test-')) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-proxy-account-test-'));
}

// n8n's clock moves with the simulator's frozen clocks, as it would in real time.
followSimulatorClocks();
