import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['stock'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the stock of every city, with counts per carrier',
				action: 'Get many stock entries',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
