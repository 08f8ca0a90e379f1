import { capturedLogs } from '../harness';
import { HOSTILE_COLUMNS, runHostileTriggerCell, triggerColumns } from './hostile-matrix';
import type { HostileColumnId } from './hostile-matrix';
import { ACTION_ROWS, COLUMNS, TRIGGER_ROWS } from './matrix';
import type { TriggerRow } from './matrix';
import { auditCell, Results, SecretAudit } from './support';

const results = new Results('fault-matrix-hostile-trigger');
const audit = new SecretAudit();
results.declare(
	'fault-matrix',
	[...ACTION_ROWS, ...TRIGGER_ROWS].map((row) => row.label),
	[...COLUMNS, ...HOSTILE_COLUMNS].map((column) => column.label),
);

const cells: Array<[string, string, TriggerRow, HostileColumnId]> = TRIGGER_ROWS.flatMap((row) =>
	triggerColumns(row).map((column): [string, string, TriggerRow, HostileColumnId] => [
		row.label,
		HOSTILE_COLUMNS.find((c) => c.id === column)!.label,
		row,
		column,
	]),
);

results.plan(cells.length + 1);
afterAll(() => results.write());

describe('fault matrix, hostile columns: every trigger event behind a hostile front server', () => {
	it.concurrent.each(cells)('%s \u00d7 %s', async (_row, _column, row, column) => {
		await runHostileTriggerCell(results, audit, row, column);
	});

	it('secret audit of this file: no API key, no password that was not asked for, nothing at the redirect target', async () => {
		await auditCell(results, audit, capturedLogs, 'the hostile trigger columns of the fault matrix');
	});
});
