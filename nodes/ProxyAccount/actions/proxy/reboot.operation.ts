import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	concurrencyOption,
	proxyLocator,
	runWideOptionsCollection,
	waitUntilAllowedOptions,
} from '../../helpers/descriptions';
import type { DeviceOptions } from '../../helpers/deviceCommand';
import { runDeviceCommand } from '../../helpers/deviceCommand';
import { itemResults } from '../../helpers/itemLoop';
import { readRunOptions } from '../../helpers/runOptions';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'reboot',
	name: 'Reboot',
	description:
		'Power-cycle the modem of proxies. Free; the service allows one reboot every 5 minutes per proxy.',
	action: 'Reboot proxies (free)',
	subtitle: 'Reboot Proxies',
};

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to reboot. With several input items, each item names one proxy.'),
	runWideOptionsCollection([concurrencyOption, ...waitUntilAllowedOptions]),
];

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	let options: DeviceOptions;
	try {
		options = { ...readRunOptions(this, items.length, properties), confirmMs: 0 };
	} catch (error) {
		return itemResults(this, items.length).failAll(error);
	}
	return await runDeviceCommand(
		this,
		items,
		{
			label: 'reboot',
			field: 'last_reboot',
			intervalMs: 5 * 60_000,
			throttle: 'every 5 minutes',
			send: async (name, itemIndex) =>
				await send(this, 'rebootProxy', {
					proxyName: name,
					itemIndex,
					timeoutMs: options.timeoutMs,
					retry: { maxAttempts: 1 },
				}),
		},
		options,
	);
}
