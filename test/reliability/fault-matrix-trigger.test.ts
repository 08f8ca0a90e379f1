import { COLUMNS, runTriggerCell, TRIGGER_ROWS } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-trigger',
	title: 'fault matrix: every trigger event under every fault (real polls through n8n-core PollContext)',
	scope: 'the trigger rows of the fault matrix',
	cells: TRIGGER_ROWS.flatMap((row) => COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runTriggerCell,
});
