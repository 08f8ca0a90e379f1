import { ACTION_ROWS, COLUMNS, runActionCell } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-reads',
	title: 'fault matrix: Get, Get Many, Quote, Stock under every fault (real workflow executions)',
	scope: 'the read rows of the fault matrix',
	cells: ACTION_ROWS.filter((row) => row.kind === 'read').flatMap((row) => COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runActionCell,
});
