import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	optionsCollection,
	proxyLocator,
	sentOnceTimeoutOption,
	wholeNumberField,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import { changeRetryRefusal } from '../../helpers/guards/runGuards';
import { readRequest } from '../../helpers/framework/output';
import { parseBoolean, parseWholeNumber } from '../../helpers/framework/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'setAutoRotation',
	name: 'Set Auto-Rotation',
	description: 'Turn the automatic IP rotation of proxies on (every 1 to 1440 minutes) or off',
	action: 'Set the automatic IP rotation of proxies',
	subtitle: 'Set Proxy Auto-Rotation',
};

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to set. With several input items, each item names one proxy.'),
	{
		displayName: 'Enabled',
		name: 'autoRotationEnabled',
		type: 'boolean',
		default: true,
		description: 'Whether the proxy changes its IP by itself at a fixed rate',
	},
	{
		...wholeNumberField(
			['Every (Minutes)', 'rateMinutes'],
			[1, 1440],
			10,
			'How often the IP changes, 1 to 1440 minutes (a day)',
		),
		displayOptions: { show: { autoRotationEnabled: [true] } },
	},
	optionsCollection([sentOnceTimeoutOption(30, 'A setting')]),
];

/** n8n's retries: a setting that may have been made is not sent again. */
export const refuseRun = changeRetryRefusal(
	'the automatic rotation setting',
	'auto_change and auto_change_time',
);

export const executeItem: ItemExecute = async function (i, run) {
	const node = this.getNode();
	const name = run.proxyName(i);
	const enabled = this.getNodeParameter('autoRotationEnabled', i, true);
	const enable = parseBoolean(node, i, enabled, 'Enabled');
	const rate = enable
		? parseWholeNumber(
				node,
				i,
				this.getNodeParameter('rateMinutes', i, 10),
				'Every (Minutes)',
				{ min: 1, max: 1440 },
				'Enter how many minutes between IP changes, from 1 to 1440, e.g. 10.',
			)
		: 10;
	const { timeoutMs } = readRequest(this, i);
	const call = { proxyName: name, body: { enable, rate }, itemIndex: i, timeoutMs };
	const { result } = await send(this, 'setAutoRotation', call);
	return [{ json: { ...(result as IDataObject), status: 'set' }, pairedItem: { item: i } }];
};
