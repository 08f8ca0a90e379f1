import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { proxyLocator, runWideOptionsCollection } from '../../helpers/descriptions';
import { runDeviceCommand } from '../../helpers/deviceCommand';
import {
	concurrencyOption,
	readDeviceOptions,
	waitUntilAllowedOptions,
} from '../../helpers/deviceCommandOptions';
import { itemResults } from '../../helpers/itemLoop';
import { rebootProxy } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'reboot',
	name: 'Reboot',
	description:
		'Power-cycle the modem of proxies. Free; the service allows one reboot every 5 minutes per proxy.',
	action: 'Reboot proxies (free, once every 5 minutes per proxy; connections drop meanwhile)',
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
	let options: ReturnType<typeof readDeviceOptions>;
	try {
		options = readDeviceOptions(this, properties);
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
				await rebootProxy(this, name, {
					itemIndex,
					timeoutMs: options.timeoutMs,
					retry: { maxAttempts: 1 },
				}),
		},
		options,
	);
}
