import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { proxyAccountApiTest } from './methods/credentialTest';
import { getCarriers, getNetworkStatusesOrAny, getStockCarriers } from './methods/loadOptions';
import { eventSubtitle, triggerProperties } from './trigger/description';
import { pollTrigger } from './trigger/poll';

export class ProxyAccountTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Proxy Account Trigger',
		name: 'proxyAccountTrigger',
		icon: {
			light: 'file:../../icons/proxyAccount.svg',
			dark: 'file:../../icons/proxyAccount.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: eventSubtitle(triggerProperties),
		description:
			'Starts the workflow on a Proxy Account event: Stock Changed, Proxy Expiring, Proxy Status Changed, New Proxy, Proxy Removed, IP Changed or Low Funds',
		defaults: { name: 'Proxy Account Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'proxyAccountApi', required: true, testedBy: 'proxyAccountApiTest' }],
		properties: triggerProperties,
	};

	methods = {
		loadOptions: { getStockCarriers, getCarriers, getNetworkStatusesOrAny },
		credentialTest: { proxyAccountApiTest },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger(this);
	}
}
