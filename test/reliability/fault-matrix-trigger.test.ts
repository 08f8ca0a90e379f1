import { capturedLogs } from '../harness';
import { ACTION_ROWS, COLUMNS, runTriggerCell, TRIGGER_ROWS } from './matrix';
import type { ColumnId, TriggerRow } from './matrix';
import { auditCell, Results, SecretAudit } from './support';

const results = new Results('fault-matrix-trigger');
const audit = new SecretAudit();
results.declare(
	'fault-matrix',
	[...ACTION_ROWS, ...TRIGGER_ROWS].map((row) => row.label),
	COLUMNS.map((column) => column.label),
);

const cells: Array<[string, string, TriggerRow, ColumnId]> = TRIGGER_ROWS.flatMap((row) =>
	COLUMNS.map((column): [string, string, TriggerRow, ColumnId] => [row.label, column.label, row, column.id]),
);

results.plan(cells.length + 1);
afterAll(() => results.write());

describe('fault matrix: every trigger event under every fault (real polls through n8n-core PollContext)', () => {
	it.concurrent.each(cells)('%s \u00d7 %s', async (_row, _column, row, column) => {
		await runTriggerCell(results, audit, row, column);
	});

	it('secret audit of this file: no API key, no password that was not asked for', async () => {
		await auditCell(results, audit, capturedLogs, 'the trigger rows of the fault matrix');
	});
});
