import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OperationExecute } from './common';
import * as price from './price';
import * as proxy from './proxy';
import * as stock from './stock';

const operations: Record<string, Record<string, OperationExecute>> = {
	proxy: { get: proxy.get.execute, getAll: proxy.getAll.execute, extend: proxy.extend.execute },
	price: { quote: price.quote.execute },
	stock: { getAll: stock.getAll.execute },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = operations[resource]?.[operation];
	if (!run) {
		throw new NodeOperationError(this.getNode(), `The operation \u201c${operation}\u201d of \u201c${resource}\u201d is not supported`, {
			description: 'Pick a resource and an operation from the lists.',
		});
	}
	return [await run.call(this, items)];
}
