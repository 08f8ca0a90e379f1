import type { INodeProperties } from 'n8n-workflow';

import * as extend from './extend.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { extend, get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['proxy'] } },
		options: [
			{
				name: 'Extend',
				value: 'extend',
				description: 'Add paid time to proxies, charged to the wallet',
				action: 'Extend proxies',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one proxy by name',
				action: 'Get a proxy',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the proxies of the account, with filters',
				action: 'Get many proxies',
			},
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
	...extend.description,
];
