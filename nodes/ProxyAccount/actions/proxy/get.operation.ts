import type { INodeProperties } from 'n8n-workflow';

import {
	includePasswordOption,
	optionsCollection,
	proxyLocator,
	readTimeoutOption,
	simplifyField,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import { proxyItems, readRequest } from '../../helpers/framework/output';
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

export const executeItem: ItemExecute = async function (i, run) {
	const name = run.proxyName(i);
	const read = readRequest(this, i);
	const call = { proxyName: name, itemIndex: i, timeoutMs: read.timeoutMs };
	const { result: proxy, serverTime } = await send(this, 'getProxy', call);
	return proxyItems([proxy], { ...read, now: serverTime }, i);
};
