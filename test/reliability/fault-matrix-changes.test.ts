import { CHANGE_ROWS, runChangeCell } from './change-matrix';
import { COLUMNS } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-changes',
	title: 'fault matrix: Set IPv4 and Set Authentication under every fault (real workflow executions)',
	scope: 'the Set IPv4, Set Authentication and Set Auto-Rotation rows of the fault matrix (generated passwords included)',
	cells: CHANGE_ROWS.flatMap((row) => COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runChangeCell,
});
