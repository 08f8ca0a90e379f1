import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as price from './actions/price';
import * as proxy from './actions/proxy';
import { router } from './actions/router';
import * as stock from './actions/stock';
import { listSearch, loadOptions } from './methods';

export class ProxyAccount implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Proxy Account',
		name: 'proxyAccount',
		icon: { light: 'file:../../icons/proxyAccount.svg', dark: 'file:../../icons/proxyAccount.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ {"proxy:get": "Get Proxy", "proxy:getAll": "Get Many Proxies", "proxy:extend": "Extend Proxies", "price:quote": "Quote Price", "stock:getAll": "Get Many Stock Entries"}[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description: 'Quote, extend and read mobile proxies and city stock of a Proxy Account',
		defaults: { name: 'Proxy Account' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'proxyAccountApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Price', value: 'price' },
					{ name: 'Proxy', value: 'proxy' },
					{ name: 'Stock', value: 'stock' },
				],
				default: 'proxy',
			},
			...proxy.description,
			...price.description,
			...stock.description,
		],
	};

	methods = { loadOptions, listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
