/* The options of the device commands (Rotate IP, Reboot), declared once. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { sentOnceTimeoutOption } from './descriptions';
import { runWideOptions } from './runOptions';
import type { DeviceOptions } from './deviceCommand';
import {
	isSet,
	MAX_TIMEOUT_SECONDS,
	parseBoolean,
	parseTimeoutSeconds,
	parseWholeNumber,
} from './validation';

export const MAX_CONCURRENCY = 20;
const DEFAULT_CONCURRENCY = 5;
const DEFAULT_MAX_WAIT_SECONDS = 90;
const DEFAULT_TIMEOUT_SECONDS = 30;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: DEFAULT_CONCURRENCY,
	description: 'How many proxies are sent the command at the same time (1 to 20)',
};

export const waitUntilAllowedOptions: INodeProperties[] = [
	{
		displayName: 'Wait Until Allowed',
		name: 'waitUntilAllowed',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait for a proxy the service does not allow the command yet (it was sent one too recently), within Max Wait, instead of skipping it',
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS, numberPrecision: 0 },
		default: DEFAULT_MAX_WAIT_SECONDS,
		description:
			'The longest to wait for one proxy with Wait Until Allowed (at most 600); a proxy that would need longer is skipped',
	},
	sentOnceTimeoutOption(DEFAULT_TIMEOUT_SECONDS, 'A command'),
];

/**
 * The run's options: they concern the whole run (the same for every item, see runOptions.ts), so
 * a refusal names no item. `properties` are the operation's, for the option names in a refusal.
 */
export function readDeviceOptions(
	ctx: IExecuteFunctions,
	properties: INodeProperties[],
	confirm?: { option: string; label: string; timeoutOption: string },
): DeviceOptions & { raw: IDataObject } {
	const node = ctx.getNode();
	const raw = runWideOptions(ctx, ctx.getInputData().length, properties);
	const whole = (name: string, label: string, min: number, max: number, fallback: number) =>
		isSet(raw, name)
			? parseWholeNumber(
					node,
					undefined,
					raw[name],
					label,
					{ min, max },
					`Enter a whole number from ${min} to ${max}, e.g. ${fallback}.`,
				)
			: fallback;
	const confirmOn =
		confirm !== undefined && isSet(raw, confirm.option)
			? parseBoolean(node, undefined, raw[confirm.option], confirm.label)
			: false;
	return {
		raw,
		concurrency: whole('concurrency', 'Concurrency', 1, MAX_CONCURRENCY, DEFAULT_CONCURRENCY),
		waitUntilAllowed: isSet(raw, 'waitUntilAllowed')
			? parseBoolean(node, undefined, raw.waitUntilAllowed, 'Wait Until Allowed')
			: false,
		maxWaitMs:
			whole(
				'maxWaitSeconds',
				'Max Wait (Seconds)',
				1,
				MAX_TIMEOUT_SECONDS,
				DEFAULT_MAX_WAIT_SECONDS,
			) * 1000,
		timeoutMs: parseTimeoutSeconds(node, undefined, raw, DEFAULT_TIMEOUT_SECONDS),
		confirmMs:
			confirm !== undefined && confirmOn
				? whole(confirm.timeoutOption, 'New IP Timeout (Seconds)', 1, MAX_TIMEOUT_SECONDS, 30) *
					1000
				: 0,
	};
}
