import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import {
	DEFAULT_READ_TIMEOUT_SECONDS,
	includePasswordOption,
	optionsCollection,
	proxyLocator,
	readTimeoutOption,
	simplifyField,
} from '../../helpers/descriptions';
import type { ItemRun } from '../../helpers/itemLoop';
import { includePasswordOf, paired, proxyOutput } from '../../helpers/output';
import { parseTimeoutSeconds, switchParameter } from '../../helpers/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'get',
	name: 'Get',
	description: 'Get one proxy by name',
	action: 'Get a proxy',
	subtitle: 'Get Proxy',
};

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to read'),
	simplifyField,
	optionsCollection([includePasswordOption, readTimeoutOption]),
];

export async function executeItem(
	this: IExecuteFunctions,
	i: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	const name = run.proxyName(i);
	const simplify = switchParameter(this, i, 'simplify', 'Simplify', true);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const timeoutMs = parseTimeoutSeconds(this.getNode(), i, options, DEFAULT_READ_TIMEOUT_SECONDS);
	const includePassword = includePasswordOf(this.getNode(), i, options);
	const { result: proxy, serverTime } = await send(this, 'getProxy', {
		proxyName: name,
		itemIndex: i,
		timeoutMs,
	});
	return [paired(proxyOutput(proxy, { simplify, includePassword, now: serverTime }), i)];
}
