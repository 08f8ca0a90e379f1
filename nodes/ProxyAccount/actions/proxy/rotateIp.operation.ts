import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { optionsCollection, proxyLocator } from '../../helpers/descriptions';
import { runDeviceCommand } from '../../helpers/device';
import {
	concurrencyOption,
	readDeviceOptions,
	waitUntilAllowedOptions,
} from '../../helpers/deviceOptions';
import { itemResults } from '../../helpers/run';
import { isSet, MAX_TIMEOUT_SECONDS, parseBoolean } from '../../helpers/validation';
import { CREDENTIAL_TYPE, rotateIp, rotateIpWithLink } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'rotateIp',
	name: 'Rotate IP',
	description:
		'Give proxies a new mobile IP. Free; the service allows one change a minute per proxy.',
	action: 'Rotate the IP of proxies',
	subtitle: 'Rotate Proxy IP',
};

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to give a new IP. With several input items, each item names one proxy.'),
	optionsCollection([
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
				"Whether to send the change with the credential's Limited API Key (the rotation link) instead of the master key",
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
	let options: ReturnType<typeof readDeviceOptions>;
	let limitedKey: string | undefined;
	try {
		options = readDeviceOptions(this, {
			option: 'waitForNewIp',
			label: 'Wait for New IP',
			timeoutOption: 'newIpTimeoutSeconds',
		});
		const useLink = isSet(options.raw, 'useRotationLink')
			? parseBoolean(node, undefined, options.raw.useRotationLink, 'Use Rotation Link')
			: false;
		if (useLink) {
			const credentials = await this.getCredentials<{ limitedApiKey?: unknown }>(CREDENTIAL_TYPE);
			const key =
				typeof credentials.limitedApiKey === 'string' ? credentials.limitedApiKey.trim() : '';
			if (key === '') {
				throw new NodeOperationError(node, 'Use Rotation Link needs a Limited API Key', {
					description:
						'Open the Proxy Account credential and paste the Limited API key from the dashboard, or turn off Use Rotation Link.',
				});
			}
			limitedKey = key;
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
			send: async (name, itemIndex) => {
				const call = { itemIndex, timeoutMs: options.timeoutMs, retry: { maxAttempts: 1 } };
				return limitedKey === undefined
					? await rotateIp(this, name, call)
					: await rotateIpWithLink(this, limitedKey, name, call);
			},
		},
		options,
	);
}
