/**
 * The set-up every fault-matrix test file shares: its results file, its secret audit, the matrix's
 * row and column order, one concurrent test per cell, and the audit of everything the file's cells
 * produced.
 */
import { capturedLogs } from '../harness';
import { HOSTILE_COLUMNS } from './hostile-matrix';
import { ACTION_ROWS, COLUMNS, TRIGGER_ROWS } from './matrix';
import { CHANGE_ROWS, REMOVED_TRIGGER_ROWS } from './change-matrix';
import { ORDER_ROWS } from './order-matrix';
import { auditCell, Results, SecretAudit } from './support';

export interface MatrixCell<R, C> {
	row: R;
	column: C;
	/** The column as the table names it. */
	label: string;
}

export function describeMatrix<R extends { label: string }, C>(file: {
	/** The results file, e.g. `fault-matrix-reads`. */
	name: string;
	title: string;
	/** What the audit covers, for its cell. */
	scope: string;
	cells: Array<MatrixCell<R, C>>;
	run: (results: Results, audit: SecretAudit, row: R, column: C) => Promise<void>;
}): void {
	const results = new Results(file.name);
	const audit = new SecretAudit();
	results.declare(
		'fault-matrix',
		[...ACTION_ROWS, ...TRIGGER_ROWS, ...CHANGE_ROWS, ...ORDER_ROWS, ...REMOVED_TRIGGER_ROWS].map((row) => row.label),
		[...COLUMNS, ...HOSTILE_COLUMNS].map((column) => column.label),
	);
	results.plan(file.cells.length + 1);
	afterAll(() => results.write());

	describe(file.title, () => {
		const table = file.cells.map((cell): [string, string, MatrixCell<R, C>] => [cell.row.label, cell.label, cell]);
		it.concurrent.each(table)('%s \u00d7 %s', async (_row, _column, cell) => {
			await file.run(results, audit, cell.row, cell.column);
		});

		it('secret audit of this file: no API key, no password that was not asked for', async () => {
			await auditCell(results, audit, capturedLogs, file.scope);
		});
	});
}
