/**
 * The workflows of test:durable, built in code: one per trigger event, each a Proxy Account Trigger
 * (node name `Trigger`) followed by an HTTP Request node that POSTs every emitted item to the
 * recorder (recorder.mjs) with the execution's id.
 *
 * Poll Times: n8n refuses a polling interval under a minute (a cron whose seconds field is not one
 * number), on the default scheduler and the durable one alike, but it takes several Poll Times
 * entries: one custom cron per slot (`<second> * * * * *`) polls every `60 / slots.length` seconds.
 */
import { PACKAGE_NAME } from '../e2e/n8n-server.mjs';

export const TRIGGER_NAME = 'Trigger';

/** The events under test: the workflow key, the trigger's parameters. */
export const EVENTS = {
	newProxy: { event: 'newProxy' },
	proxyRemoved: { event: 'proxyRemoved' },
	proxyExpiring: { event: 'proxyExpiring', withinHours: 24 },
	proxyStatusChanged: { event: 'proxyStatusChanged' },
	stockChanged: { event: 'stockChanged', stockChange: 'becameAvailable' },
};

/** The proxy events poll GET /v1/proxies, Stock Changed GET /v1/stock: one of each per workflow and poll. */
export const POLLS_PER_ROUND = {
	'GET /v1/proxies': Object.values(EVENTS).filter((e) => e.event !== 'stockChanged').length,
	'GET /v1/stock': 1,
};

/** Node ids must be fixed and unique per workflow (the durable scheduler keys its cursor by node id). */
const nodeId = (index, n) => `d0000000-0000-4000-8000-${String(index * 10 + n).padStart(12, '0')}`;

export function triggerWorkflow({ scheduler, key, index, seconds, credential, recorderUrl }) {
	return {
		name: `Durable ${scheduler}: ${key}`,
		nodes: [
			{
				id: nodeId(index, 1),
				name: TRIGGER_NAME,
				type: `${PACKAGE_NAME}.proxyAccountTrigger`,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					...EVENTS[key],
					pollTimes: { item: seconds.map((s) => ({ mode: 'custom', cronExpression: `${s} * * * * *` })) },
				},
				credentials: { proxyAccountApi: { id: credential.id, name: credential.name } },
			},
			{
				id: nodeId(index, 2),
				name: 'Record',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [260, 0],
				parameters: {
					method: 'POST',
					url: `=${recorderUrl}/record/${scheduler}/${key}?execution={{ $execution.id }}`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: { timeout: 300_000 },
				},
			},
		],
		connections: { [TRIGGER_NAME]: { main: [[{ node: 'Record', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
	};
}

/** The key an emitted item counts under: its event and what changed (one key per expected event). */
export function eventKey(item) {
	switch (item?.event) {
		case 'new_proxy':
			return `new ${item.proxy_name}`;
		case 'proxy_removed':
			return `removed ${item.proxy_name}`;
		case 'proxy_expiring':
			return `expiring ${item.proxy_name}`;
		case 'proxy_status_changed':
			return `status ${item.proxy_name} ${item.before?.network_status}>${item.after?.network_status}`;
		case 'stock_changed':
			return `stock ${item.city} ${item.carrier} ${item.change} ${item.after?.count}`;
		default:
			return `unknown ${JSON.stringify(item).slice(0, 80)}`;
	}
}
