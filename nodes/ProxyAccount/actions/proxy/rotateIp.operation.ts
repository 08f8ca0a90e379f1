import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	concurrencyOption,
	proxyLocator,
	runWideOptionsCollection,
	waitUntilAllowedOptions,
	wholeNumberField,
} from '../../helpers/framework/descriptions';
import type { DeviceCommand, DeviceOptions } from '../../helpers/device/deviceCommand';
import { deviceRefusal, runDeviceCommand } from '../../helpers/device/deviceCommand';
import { readRunOptions } from '../../helpers/framework/runOptions';
import { MAX_TIMEOUT_SECONDS } from '../../helpers/framework/validation';
import { readCredential, send } from '../../transport';
import type { BatchedExecute } from '../../helpers/framework/batchedRun';
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
		wholeNumberField(
			['New IP Timeout (Seconds)', 'newIpTimeoutSeconds'],
			[1, MAX_TIMEOUT_SECONDS],
			30,
			'How long Wait for New IP reads the proxy again (at most 600)',
		),
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

const IP_CHANGE: Omit<DeviceCommand, 'send'> = {
	label: 'IP change',
	field: 'last_ip_change',
	intervalMs: 60_000,
	throttle: 'a minute',
};

interface RotateOptions extends DeviceOptions {
	/** The credential's Limited API Key, with Use Rotation Link. */
	limitedKey?: string;
	/** The credential has only a Limited key: the change is sent without a look-up. */
	limitedOnly: boolean;
}

export const guards = deviceRefusal(IP_CHANGE);

export const execute: BatchedExecute<RotateOptions> = async function (opened) {
	const { limitedKey, limitedOnly, timeoutMs } = opened.options;
	return await runDeviceCommand(this, opened, {
		...IP_CHANGE,
		sendOnly: limitedOnly,
		send: async (name, itemIndex) => {
			const call = { proxyName: name, itemIndex, timeoutMs, retry: { maxAttempts: 1 } };
			return limitedKey === undefined
				? await send(this, 'rotateIp', call)
				: await send(this, 'rotateIpWithLink', { ...call, limitedKey });
		},
	});
};

export async function readOptions(ctx: IExecuteFunctions, itemCount: number) {
	const node = ctx.getNode();
	const runOptions = readRunOptions(ctx, itemCount, properties);
	// Wait for New IP reads the proxy again, within New IP Timeout (checked whenever it is set).
	const newIpTimeoutMs = runOptions.whole('newIpTimeoutSeconds') * 1000;
	const confirmMs = runOptions.flag('waitForNewIp') ? newIpTimeoutMs : 0;
	const options: RotateOptions = { ...runOptions, confirmMs, limitedOnly: false };
	if (!runOptions.flag('useRotationLink')) return options;
	const keys = await readCredential(ctx);
	if (keys.limitedKey === '') {
		throw new NodeOperationError(node, 'Use Rotation Link needs a Limited API Key', {
			description:
				'Open the Proxy Account credential and paste the Limited API key from the dashboard, or turn off Use Rotation Link.',
		});
	}
	// A Limited key alone can only send the change: nothing is read, so nothing waits for it.
	const limitedOnly = keys.apiKey === '';
	if (limitedOnly && confirmMs > 0) {
		throw new NodeOperationError(
			node,
			'Wait for New IP needs the master API key; this credential has only a Limited key, which can only rotate IPs through the rotation link',
			{
				description:
					'Turn off Wait for New IP, or paste the master API key in the Proxy Account credential.',
			},
		);
	}
	return { ...options, limitedKey: keys.limitedKey, limitedOnly };
}
