/**
 * The workflows each benchmark side runs, as in an exported n8n workflow: the package's node on
 * one side, n8n's own HTTP Request (with Aggregate, Split Out, Filter) on the other. Every side
 * starts from the same Manual Trigger items.
 */
import type { IConnections, INode, INodeParameters } from 'n8n-workflow';

import { PACKAGE } from '../test/harness/node-types';
import { CREDENTIAL_NAME } from '../test/harness/workflow';
import { BASE_TYPES, BASE_VERSIONS } from './n8n-base';

export interface BenchWorkflow {
	nodes: INode[];
	connections: IConnections;
	/** The node whose output is the result of the job. */
	last: string;
}

const TRIGGER = 'Manual Trigger';

function node(name: string, type: string, typeVersion: number, parameters: Record<string, unknown>, x: number): INode {
	return { id: name.toLowerCase().replace(/\W+/g, '-'), name, type, typeVersion, position: [x, 0], parameters: parameters as INodeParameters };
}

/** Manual Trigger -> nodes[0] -> nodes[1] -> ... */
function chain(nodes: INode[]): BenchWorkflow {
	const all = [node(TRIGGER, 'n8n-nodes-base.manualTrigger', 1, {}, 0), ...nodes];
	const connections: IConnections = {};
	for (let i = 0; i + 1 < all.length; i++) connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	return { nodes: all, connections, last: all[all.length - 1].name };
}

function proxyAccount(name: string, parameters: Record<string, unknown>, x: number): INode {
	return {
		...node(name, `${PACKAGE}.proxyAccount`, 1, parameters, x),
		credentials: { [CREDENTIAL_NAME]: { id: 'cred-1', name: 'Proxy Account account' } },
	};
}

/**
 * n8n's HTTP Request as users set it up for this service without a credential: the API key as a
 * plain `Authorization: Bearer` header, a JSON body when there is one.
 */
/** n8n's HTTP Request batching (Options > Batching): so many items per batch, a pause between batches. */
export interface Pacing {
	itemsPerBatch: number;
	intervalMs: number;
}

function httpRequest(
	name: string,
	method: 'GET' | 'POST',
	url: string,
	apiKey: string,
	jsonBody: string | undefined,
	x: number,
	pacing?: Pacing,
): INode {
	const parameters: Record<string, unknown> = {
		method,
		url,
		authentication: 'none',
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
		options: pacing ? { batching: { batch: { batchSize: pacing.itemsPerBatch, batchInterval: pacing.intervalMs } } } : {},
	};
	if (jsonBody !== undefined) Object.assign(parameters, { sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody });
	return node(name, BASE_TYPES.httpRequest, BASE_VERSIONS.httpRequest, parameters, x);
}

export const EXTEND_INTERVAL = 1;
export const EXTEND_PERIOD = 'weekly';

/**
 * Proxy > Extend of every input item's `proxy_name`, one week, with the given Batch Size (undefined
 * = default 100): the name from the Proxy parameter as the expression `{{ $json.proxy_name }}`
 * (`expression`, what most workflows do) or read from the field (*Proxy From: Field of Each Input Item*).
 */
export function extendWithNode(batchSize?: number, source: 'expression' | 'field' = 'expression'): BenchWorkflow {
	const proxy =
		source === 'field'
			? { proxySource: 'field', proxyNameField: 'proxy_name' }
			: { proxyName: { __rl: true, mode: 'name', value: '={{ $json.proxy_name }}' } };
	return chain([
		proxyAccount(
			'Extend',
			{
				resource: 'proxy',
				operation: 'extend',
				...proxy,
				interval: EXTEND_INTERVAL,
				period: EXTEND_PERIOD,
				options: batchSize === undefined ? {} : { batchSize },
			},
			220,
		),
	]);
}

/**
 * HTTP Request, one `POST /v1/proxies/allocate` per item, same body shape as the node's (a one-line
 * time list); all at once (n8n's default) or paced with n8n's batching options.
 */
export function extendPerItem(baseUrl: string, apiKey: string, pacing?: Pacing): BenchWorkflow {
	return chain([
		httpRequest(
			'Allocate Per Item',
			'POST',
			`${baseUrl}/v1/proxies/allocate`,
			apiKey,
			`={"proxies":{"time":[{"proxy_name":"{{ $json.proxy_name }}","interval":${EXTEND_INTERVAL},"period":"${EXTEND_PERIOD}"}]}}`,
			220,
			pacing,
		),
	]);
}

/** Proxy > Rotate IP of every input item's `proxy_name` (its defaults: 5 at a time, no waiting for the new IP). */
export function rotateWithNode(): BenchWorkflow {
	return chain([
		proxyAccount(
			'Rotate IP',
			{ resource: 'proxy', operation: 'rotateIp', proxyName: { __rl: true, mode: 'name', value: '={{ $json.proxy_name }}' }, options: {} },
			220,
		),
	]);
}

/** HTTP Request, one `POST /v1/proxies/changeip/{name}` per item, all at once or paced. */
export function rotatePerItem(baseUrl: string, apiKey: string, pacing?: Pacing): BenchWorkflow {
	return chain([httpRequest('Rotate Per Item', 'POST', `=${baseUrl}/v1/proxies/changeip/{{ $json.proxy_name }}`, apiKey, undefined, 220, pacing)]);
}

/** Aggregate (every item's `proxy_name` into one list), then one HTTP Request with all of them in one body. */
export function extendAggregated(baseUrl: string, apiKey: string): BenchWorkflow {
	return chain([
		node('Aggregate', BASE_TYPES.aggregate, BASE_VERSIONS.aggregate, { fieldsToAggregate: { fieldToAggregate: [{ fieldToAggregate: 'proxy_name' }] }, options: {} }, 220),
		httpRequest(
			'Allocate All',
			'POST',
			`${baseUrl}/v1/proxies/allocate`,
			apiKey,
			`={{ { proxies: { time: $json.proxy_name.map((name) => ({ proxy_name: name, interval: ${EXTEND_INTERVAL}, period: '${EXTEND_PERIOD}' })) } } }}`,
			440,
		),
	]);
}

export const WITHIN_HOURS = 24;

/** Proxy > Get Many, every proxy, Expiring Within 24 hours (default Simplify, no sort). */
export function listWithNode(): BenchWorkflow {
	return chain([
		proxyAccount(
			'Get Expiring',
			{ resource: 'proxy', operation: 'getAll', returnAll: true, filters: { expiringWithinHours: WITHIN_HOURS } },
			220,
		),
	]);
}

/** HTTP Request `GET /v1/proxies` -> Split Out `data` -> Filter `expires_at` before or at now + 24 h. */
export function listWithHttpRequest(baseUrl: string, apiKey: string): BenchWorkflow {
	return chain([
		httpRequest('Get Proxies', 'GET', `${baseUrl}/v1/proxies`, apiKey, undefined, 220),
		node('Split Out Proxies', BASE_TYPES.splitOut, BASE_VERSIONS.splitOut, { fieldToSplitOut: 'data', include: 'noOtherFields', options: {} }, 440),
		node(
			'Expiring Within A Day',
			BASE_TYPES.filter,
			BASE_VERSIONS.filter,
			{
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: 'c1',
							leftValue: '={{ $json.expires_at }}',
							rightValue: `={{ $now.plus({ hours: ${WITHIN_HOURS} }).toISO() }}`,
							operator: { type: 'dateTime', operation: 'beforeOrEquals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
			660,
		),
	]);
}
