import { capturedLogs } from '../harness';
import { HOSTILE_COLUMNS, runHostileActionCell } from './hostile-matrix';
import type { HostileColumnId } from './hostile-matrix';
import { ACTION_ROWS, COLUMNS, TRIGGER_ROWS } from './matrix';
import type { ActionRow } from './matrix';
import { auditCell, Results, SecretAudit } from './support';

const results = new Results('fault-matrix-hostile-actions');
const audit = new SecretAudit();
results.declare(
	'fault-matrix',
	[...ACTION_ROWS, ...TRIGGER_ROWS].map((row) => row.label),
	[...COLUMNS, ...HOSTILE_COLUMNS].map((column) => column.label),
);

const cells: Array<[string, string, ActionRow, HostileColumnId]> = ACTION_ROWS.flatMap((row) =>
	HOSTILE_COLUMNS.map((column): [string, string, ActionRow, HostileColumnId] => [row.label, column.label, row, column.id]),
);

results.plan(cells.length + 1);
afterAll(() => results.write());

describe('fault matrix, hostile columns: every operation behind a hostile front server and under real n8n settings', () => {
	it.concurrent.each(cells)('%s \u00d7 %s', async (_row, _column, row, column) => {
		await runHostileActionCell(results, audit, row, column);
	});

	it('secret audit of this file: no API key, no password that was not asked for, nothing at the redirect target', async () => {
		await auditCell(results, audit, capturedLogs, 'the hostile action columns of the fault matrix (and every request the redirect target received)');
	});
});
