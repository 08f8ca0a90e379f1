/**
 * n8n's Retry of a failed execution, through a sub-workflow (test:e2e, n8n 2.x): n8n runs every
 * sub-workflow (Execute Workflow) in mode `integrated`, so a node there never sees mode `retry`.
 *
 * The parent: Webhook → Execute Workflow (an inline sub-workflow: Execute Workflow Trigger → Proxy
 * Account Buy of one proxy → Stop and Error). The first run buys, then fails; the failed execution
 * is retried through n8n's REST API (as the executions list's Retry button does), which runs the
 * failed Execute Workflow node, and so the whole sub-workflow, again. The simulator's request log
 * must show one order, and the retry's sub-execution the node's refusal.
 */
import { randomUUID } from 'node:crypto';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function subWorkflow(credential, stock) {
	return {
		nodes: [
			{ id: randomUUID(), name: 'Start', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: randomUUID(),
				name: 'Buy One',
				type: 'n8n-nodes-proxy-account.proxyAccount',
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'proxy', operation: 'buy', carrier: stock.carrier, city: stock.city, quantity: 1, interval: 1, period: 'weekly', options: { maxTotalCost: 1000 } },
				credentials: { proxyAccountApi: { id: credential.id, name: credential.name } },
			},
			{ id: randomUUID(), name: 'Fail After Buying', type: 'n8n-nodes-base.stopAndError', typeVersion: 1, position: [440, 0], parameters: { errorMessage: 'failed after the purchase' } },
		],
		connections: {
			Start: { main: [[{ node: 'Buy One', type: 'main', index: 0 }]] },
			'Buy One': { main: [[{ node: 'Fail After Buying', type: 'main', index: 0 }]] },
		},
	};
}

function parentWorkflow(path, child) {
	return {
		name: 'Sub-workflow retry (e2e)',
		nodes: [
			{ id: randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, options: {} } },
			{
				id: randomUUID(),
				name: 'Run Sub-workflow',
				type: 'n8n-nodes-base.executeWorkflow',
				typeVersion: 1.2,
				position: [220, 0],
				parameters: { source: 'parameter', workflowJson: JSON.stringify(child), mode: 'once', options: { waitForSubWorkflow: true } },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Run Sub-workflow', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1', saveDataErrorExecution: 'all', saveDataSuccessExecution: 'all' },
	};
}

async function executions(n8n, workflowId) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const { json } = await n8n.rest.request('GET', `/rest/executions?filter=${filter}&limit=50`);
	return (json?.data ?? json)?.results ?? [];
}

async function until(what, fn, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(300);
	}
}

/**
 * Runs the check; returns a one-line summary, or throws saying what went wrong. n8n 2.x gives a
 * sub-execution the root execution's mode, so the node refuses (`seesRetry`); n8n 1.x does not: there
 * the retry buys again, as the README says, and the check proves that instead.
 */
export async function subWorkflowRetry({ n8n, sim, credential, seesRetry }) {
	const stock = await fetch(`${sim.url}/v1/stock`, { headers: { authorization: `Bearer ${sim.apiKey}` } }).then((r) => r.json());
	const city = stock.data.find((c) => c.open && c.tmobile > 2)?.city;
	if (!city) throw new Error('no city with T-Mobile in stock');
	const path = `sub-retry-${randomUUID().slice(0, 8)}`;
	const data = parentWorkflow(path, subWorkflow(credential, { carrier: 'T-Mobile', city }));
	const { json } = await n8n.rest.request('POST', '/rest/workflows', { ...data, active: false });
	const workflow = json?.data ?? json;
	await n8n.rest.request('POST', `/rest/workflows/${workflow.id}/activate`, { versionId: workflow.versionId });
	const deploys = async () => (await sim.control('GET', '/__sim/requests')).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/proxies/deploy')).length;
	const before = await deploys();

	await until('the webhook', async () => (await fetch(`${n8n.url}/webhook/${path}`, { method: 'POST' })).status !== 404, 30_000);
	// The parent's execution (mode webhook); the inline sub-workflow's own execution is listed too.
	const failed = await until('the first execution to fail', async () => (await executions(n8n, workflow.id)).find((e) => e.status === 'error' && e.mode === 'webhook'));
	const bought = (await deploys()) - before;
	if (bought !== 1) throw new Error(`the first run sent ${bought} orders, not 1`);

	const retry = await n8n.rest.request('POST', `/rest/executions/${failed.id}/retry`, { loadWorkflow: false }, { allowStatus: [400, 500] });
	const retried = await until('the retry to end', async () => (await executions(n8n, workflow.id)).find((e) => String(e.retryOf) === String(failed.id) && e.status !== 'running' && e.status !== 'new'));
	const orders = (await deploys()) - before;
	// The retry's sub-execution (mode integrated) holds the node's refusal.
	const list = await executions(n8n, workflow.id);
	const texts = await Promise.all(list.filter((e) => Number(e.id) > Number(retried.id) || e.id === retried.id).map(async (e) => (await n8n.rest.request('GET', `/rest/executions/${e.id}`)).text));
	const refused = texts.some((text) => /retry of a failed execution \(this node runs in a sub-workflow of it\)/.test(text));
	await n8n.rest.request('POST', `/rest/workflows/${workflow.id}/deactivate`, {}, { allowStatus: [400, 404] });
	if (!seesRetry) {
		if (orders !== 2 || refused) throw new Error(`expected the retry to buy again unseen (2 orders, no refusal); got ${orders} orders, refusal ${refused}`);
		return `n8n 1.x: the retry ran the sub-workflow's Buy again (2 orders): a sub-workflow cannot see its parent's retry there`;
	}
	if (orders !== 1) throw new Error(`the retry sent the order again: ${orders} orders in all (retry answered ${retry.status}, status ${retried.status})`);
	if (!refused) throw new Error(`no execution after the retry carries the refusal (executions: ${list.map((e) => `${e.id} ${e.mode} ${e.status}`).join(', ')})`);
	return `first run: 1 order, then failed; Retry (execution ${retried.id}, retry of ${failed.id}): 0 orders, refused in the sub-workflow`;
}
