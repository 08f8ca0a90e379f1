import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { account } from './actions/account';
import { price } from './actions/price';
import { proxy } from './actions/proxy';
import { nodeProperties, route, subtitleExpression } from './actions/registry';
import { stock } from './actions/stock';
import { NODE_VERSIONS } from './helpers/framework/versions';
import { listSearch, loadOptions, proxyAccountApiTest } from './methods';

/** The node's resources: each lists its operations in its own index. */
const RESOURCES = [proxy, price, stock, account];

export class ProxyAccount implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Proxy Account',
		name: 'proxyAccount',
		icon: {
			light: 'file:../../icons/proxyAccount.svg',
			dark: 'file:../../icons/proxyAccount.dark.svg',
		},
		group: ['transform'],
		...NODE_VERSIONS,
		subtitle: subtitleExpression(RESOURCES),
		description:
			'Runs a Proxy Account of mobile proxies. Proxy: Get, Get Many, Extend, Buy, Change Location, Remove, Rotate IP, Reboot, Set Auto-Rotation, Set IPv4, Set Authentication, Set Auto-Renew. Price: Quote. Stock: Get Many. Account: Get Funds.',
		defaults: { name: 'Proxy Account' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'proxyAccountApi', required: true, testedBy: 'proxyAccountApiTest' }],
		properties: nodeProperties(RESOURCES, 'proxy'),
	};

	methods = { loadOptions, listSearch, credentialTest: { proxyAccountApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this, RESOURCES);
	}
}
