import type { INodeProperties } from 'n8n-workflow';

import * as quote from './quote.operation';

export { quote };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['price'] } },
		options: [
			{
				name: 'Quote',
				value: 'quote',
				description: 'Price proxies by carrier, city and period, with member and bulk prices',
				action: 'Quote a price',
			},
		],
		default: 'quote',
	},
	...quote.description,
];
