import { capturedLogs } from '../harness';
import { ACTION_ROWS, COLUMNS, runActionCell, TRIGGER_ROWS } from './matrix';
import type { ActionRow, ColumnId } from './matrix';
import { auditCell, Results, SecretAudit } from './support';

const results = new Results('fault-matrix-reads');
const audit = new SecretAudit();
results.declare(
	'fault-matrix',
	[...ACTION_ROWS, ...TRIGGER_ROWS].map((row) => row.label),
	COLUMNS.map((column) => column.label),
);

const rows = ACTION_ROWS.filter((row) => row.kind === 'read');
const cells: Array<[string, string, ActionRow, ColumnId]> = rows.flatMap((row) =>
	COLUMNS.map((column): [string, string, ActionRow, ColumnId] => [row.label, column.label, row, column.id]),
);

results.plan(cells.length + 1);
afterAll(() => results.write());

describe('fault matrix: Get, Get Many, Quote, Stock under every fault (real workflow executions)', () => {
	it.concurrent.each(cells)('%s \u00d7 %s', async (_row, _column, row, column) => {
		await runActionCell(results, audit, row, column);
	});

	it('secret audit of this file: no API key, no password that was not asked for', async () => {
		await auditCell(results, audit, capturedLogs, 'the read rows of the fault matrix');
	});
});
