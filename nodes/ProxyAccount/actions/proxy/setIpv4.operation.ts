import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { permissionNeeded } from '../../helpers/framework/agent';
import { changeRetryRefusal } from '../../helpers/guards/runGuards';
import {
	allowAsToolOption,
	asToolNotice,
	optionsCollection,
	proxyLocator,
	readTimeoutOption,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import { paired, readRequest } from '../../helpers/framework/output';
import { parseBoolean } from '../../helpers/framework/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'setIpv4',
	name: 'Set IPv4',
	description: 'Turn IPv4 on or off for a proxy; off means the proxy serves IPv6 only',
	action: 'Set IPv4 for a proxy',
	subtitle: 'Set IPv4',
};

export const properties: INodeProperties[] = [
	asToolNotice(
		'ipv4ToolNotice',
		'turn on Options > Allow as AI Tool, or every change is refused (IPv4 off cuts off the clients without IPv6).',
	),
	proxyLocator('The proxy to change'),
	{
		displayName: 'Enabled',
		name: 'ipv4Enabled',
		type: 'boolean',
		default: true,
		description:
			'Whether the proxy serves IPv4. Off means IPv6 only: sites and clients without IPv6 can no longer be reached through it.',
	},
	optionsCollection([
		allowAsToolOption('turn IPv4 on or off (off cuts off every client and site without IPv6)'),
		readTimeoutOption,
	]),
];

/**
 * One request per item. The service answers 202: the setting is sent to the device and takes
 * effect shortly after, so the output says it was sent, not that it is in effect. The request is
 * never repeated once it may have reached the service.
 */
export const executeItem: ItemExecute = async function (i, run) {
	const name = run.proxyName(i);
	const enabled = this.getNodeParameter('ipv4Enabled', i, true);
	const enable = parseBoolean(this.getNode(), i, enabled, 'Enabled');
	const { timeoutMs } = readRequest(this, i);
	const call = { proxyName: name, body: enable, itemIndex: i, timeoutMs };
	const { result, message } = await send(this, 'setIpv4', call);
	const json: IDataObject = {
		...(result as IDataObject),
		proxy_name: result.proxy_name,
		ipv4_enabled: enable,
		status: 'sent_to_device',
		note: `${enable ? 'Turning IPv4 on' : 'Turning IPv4 off (IPv6 only)'} was sent to the device; it takes effect shortly. Read the proxy (Proxy Account > Get) to see it.`,
	};
	if (message !== undefined) json.message = message;
	return [paired(json, i)];
};

const needsPermission = permissionNeeded(
	'Set IPv4',
	'Turning IPv4 off cuts off every client and site of the proxy without IPv6.',
);
const retried = changeRetryRefusal('the IPv4 setting', 'IPv4 setting');

/** n8n's retries, then (as an AI agent's tool) the builder's permission. */
export const refuseRun = (ctx: IExecuteFunctions) => retried(ctx) ?? needsPermission(ctx);
