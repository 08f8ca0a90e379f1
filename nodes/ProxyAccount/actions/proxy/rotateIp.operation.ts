import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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
import { MAX_TIMEOUT_SECONDS } from '../../helpers/validation';
import { readCredential, send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'rotateIp',
	name: 'Rotate IP',
	description:
		'Give proxies a new mobile IP. Free; the service allows one change a minute per proxy.',
	action: 'Rotate the IP of proxies (free)',
	subtitle: 'Rotate Proxy IP',
};

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to give a new IP. With several input items, each item names one proxy.'),
	runWideOptionsCollection([
		concurrencyOption,
		{
			displayName: 'New IP Timeout (Seconds)',
			name: 'newIpTimeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS, numberPrecision: 0 },
			default: 30,
			description: 'How long Wait for New IP reads the proxy again (at most 600)',
		},
		{
			displayName: 'Use Rotation Link',
			name: 'useRotationLink',
			type: 'boolean',
			default: false,
			description:
				"Whether to send the change with the credential's Limited API Key (the rotation link), without the master key. With a credential that has only a Limited key, the proxies are not read first (an unknown proxy or a recent change is told by the service) and Wait for New IP is not available.",
		},
		{
			displayName: 'Wait for New IP',
			name: 'waitForNewIp',
			type: 'boolean',
			default: false,
			description:
				'Whether to read the proxy again until the change shows (its last_ip_change moves), within New IP Timeout',
		},
		...waitUntilAllowedOptions,
	]),
];

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	let options: DeviceOptions;
	let limitedKey: string | undefined;
	let limitedOnly = false;
	try {
		const runOptions = readRunOptions(this, items.length, properties);
		// Wait for New IP reads the proxy again, within New IP Timeout (checked whenever it is set).
		const newIpTimeoutMs = runOptions.whole('newIpTimeoutSeconds') * 1000;
		const confirmMs = runOptions.flag('waitForNewIp') ? newIpTimeoutMs : 0;
		options = { ...runOptions, confirmMs };
		if (runOptions.flag('useRotationLink')) {
			const keys = await readCredential(this);
			if (keys.limitedKey === '') {
				throw new NodeOperationError(node, 'Use Rotation Link needs a Limited API Key', {
					description:
						'Open the Proxy Account credential and paste the Limited API key from the dashboard, or turn off Use Rotation Link.',
				});
			}
			limitedKey = keys.limitedKey;
			// A Limited key alone can only send the change: nothing is read, so nothing waits for it.
			limitedOnly = keys.apiKey === '';
			if (limitedOnly && options.confirmMs > 0) {
				throw new NodeOperationError(
					node,
					'Wait for New IP needs the master API key; this credential has only a Limited key, which can only rotate IPs through the rotation link',
					{
						description:
							'Turn off Wait for New IP, or paste the master API key in the Proxy Account credential.',
					},
				);
			}
		}
	} catch (error) {
		return itemResults(this, items.length).failAll(error);
	}
	return await runDeviceCommand(
		this,
		items,
		{
			label: 'IP change',
			field: 'last_ip_change',
			intervalMs: 60_000,
			throttle: 'a minute',
			sendOnly: limitedOnly,
			send: async (name, itemIndex) => {
				const call = {
					proxyName: name,
					itemIndex,
					timeoutMs: options.timeoutMs,
					retry: { maxAttempts: 1 },
				};
				return limitedKey === undefined
					? await send(this, 'rotateIp', call)
					: await send(this, 'rotateIpWithLink', { ...call, limitedKey });
			},
		},
		options,
	);
}
