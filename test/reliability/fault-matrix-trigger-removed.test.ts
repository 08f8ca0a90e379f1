import { REMOVED_TRIGGER_ROWS } from './change-matrix';
import { COLUMNS, runTriggerCell } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-trigger-removed',
	title: 'fault matrix: the Proxy Removed event under every fault, at the poll that confirms it by name',
	scope: 'the Proxy Removed row of the fault matrix',
	cells: REMOVED_TRIGGER_ROWS.flatMap((row) => COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runTriggerCell,
});
