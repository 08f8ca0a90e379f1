import { COLUMNS } from './matrix';
import { describeMatrix } from './matrix-file';
import { ORDER_ROWS, runOrderCell } from './order-matrix';

describeMatrix({
	name: 'fault-matrix-orders',
	title: 'fault matrix: Buy, Change Location, Remove, Rotate IP and Reboot under every fault (real workflow executions)',
	scope: 'the Buy, Change Location, Remove, Rotate IP and Reboot rows of the fault matrix',
	cells: ORDER_ROWS.flatMap((row) => COLUMNS.map((column) => ({ row, column: column.id, label: column.label }))),
	run: runOrderCell,
});
