import { HOSTILE_COLUMNS, runHostileActionCell } from './hostile-matrix';
import { ACTION_ROWS } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-hostile-actions',
	title: 'fault matrix, hostile columns: every operation behind a hostile front server and under real n8n settings',
	scope: 'the hostile action columns of the fault matrix (and every request the redirect target received)',
	cells: ACTION_ROWS.flatMap((row) => HOSTILE_COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runHostileActionCell,
});
