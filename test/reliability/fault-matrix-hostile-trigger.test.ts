import { HOSTILE_COLUMNS, runHostileTriggerCell, triggerColumns } from './hostile-matrix';
import { TRIGGER_ROWS } from './matrix';
import { describeMatrix } from './matrix-file';

describeMatrix({
	name: 'fault-matrix-hostile-trigger',
	title: 'fault matrix, hostile columns: every trigger event behind a hostile front server',
	scope: 'the hostile trigger columns of the fault matrix (and every request the redirect target received)',
	cells: TRIGGER_ROWS.flatMap((row) =>
		triggerColumns(row).map((column) => ({ row, column, label: HOSTILE_COLUMNS.find((c) => c.id === column)!.label })),
	),
	run: runHostileTriggerCell,
});
