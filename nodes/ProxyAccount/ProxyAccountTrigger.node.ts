import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { NODE_VERSIONS } from './helpers/framework/versions';
import { proxyAccountApiTest } from './methods/credentialTest';
import { getCarriers, getNetworkStatusesOrAny, getStockCarriers } from './methods/loadOptions';
import { TRIGGER } from './trigger/events';
import { pollTrigger } from './trigger/poll';
import { eventSubtitle, triggerDescription, triggerProperties } from './trigger/registry';

export class ProxyAccountTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Proxy Account Trigger',
		name: 'proxyAccountTrigger',
		icon: {
			light: 'file:../../icons/proxyAccount.svg',
			dark: 'file:../../icons/proxyAccount.dark.svg',
		},
		group: ['trigger'],
		...NODE_VERSIONS,
		subtitle: eventSubtitle(TRIGGER),
		description: triggerDescription(TRIGGER),
		defaults: { name: 'Proxy Account Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'proxyAccountApi', required: true, testedBy: 'proxyAccountApiTest' }],
		properties: triggerProperties(TRIGGER),
	};

	methods = {
		loadOptions: { getStockCarriers, getCarriers, getNetworkStatusesOrAny },
		credentialTest: { proxyAccountApiTest },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger(this);
	}
}
