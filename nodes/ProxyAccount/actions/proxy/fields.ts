import type { INodeProperties } from 'n8n-workflow';

export { includePasswordOption } from '../../helpers/fields';

/** The proxy picker: From List first, then By Name. */
export function proxyLocator(operations: string[], description: string): INodeProperties {
	return {
		displayName: 'Proxy',
		name: 'proxyName',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		displayOptions: { show: { resource: ['proxy'], operation: operations } },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a proxy...',
				typeOptions: { searchListMethod: 'searchProxies', searchable: true },
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. PRX-US-AU1-0001',
			},
		],
	};
}

export function simplifyField(operations: string[]): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: { show: { resource: ['proxy'], operation: operations } },
	};
}
