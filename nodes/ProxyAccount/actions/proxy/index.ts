import { defineResource } from '../registry';
import * as extend from './extend.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as setAutoRenew from './setAutoRenew.operation';

export const proxy = defineResource(
	{ value: 'proxy', name: 'Proxy' },
	[extend, get, getAll, setAutoRenew],
	getAll,
);
