import type { INode } from 'n8n-workflow';

/** A node for the filter readers (helpers/framework/filters.ts) in unit tests: they name it in a refusal. */
export const FILTER_NODE: INode = {
	id: 'filter-node',
	name: 'Proxy Account',
	type: 'n8n-nodes-proxy-account.proxyAccount',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
