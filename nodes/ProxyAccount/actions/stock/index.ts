import { defineResource } from '../registry';
import * as getAll from './getAll.operation';

export const stock = defineResource({ value: 'stock', name: 'Stock' }, [getAll], getAll);
