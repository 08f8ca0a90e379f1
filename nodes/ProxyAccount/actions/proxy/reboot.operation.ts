import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	concurrencyOption,
	proxyLocator,
	runWideOptionsCollection,
	waitUntilAllowedOptions,
} from '../../helpers/framework/descriptions';
import type { DeviceCommand, DeviceOptions } from '../../helpers/device/deviceCommand';
import { deviceRefusal, runDeviceCommand } from '../../helpers/device/deviceCommand';
import { readRunOptions } from '../../helpers/framework/runOptions';
import { send } from '../../transport';
import type { BatchedExecute } from '../../helpers/framework/batchedRun';
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

const REBOOT: Omit<DeviceCommand, 'send'> = {
	label: 'reboot',
	field: 'last_reboot',
	intervalMs: 5 * 60_000,
	throttle: 'every 5 minutes',
};

export const readOptions = (ctx: IExecuteFunctions, count: number): DeviceOptions => ({
	...readRunOptions(ctx, count, properties),
	confirmMs: 0,
});

export const guards = deviceRefusal(REBOOT);

export const execute: BatchedExecute<DeviceOptions> = async function (opened) {
	const call = { timeoutMs: opened.options.timeoutMs, retry: { maxAttempts: 1 } };
	return await runDeviceCommand(this, opened, {
		...REBOOT,
		send: async (name, itemIndex) =>
			await send(this, 'rebootProxy', { ...call, proxyName: name, itemIndex }),
	});
};
