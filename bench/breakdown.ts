/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- benchmark tooling run by Node from the command line (timers, child processes, console output); never shipped, the package holds dist/ only */
/**
 * Where the node's time goes, stage by stage (not part of `npm run bench`'s table):
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/breakdown.ts [--runs N] [--extend-only]
 *
 * The simulator runs in a child process (10,000 proxies, 1,000 cities; and 1,000 proxies for
 * Extend). Measured in this process, median of N: a bare fetch; n8n's HTTP helper alone; JSON.parse;
 * the transport's zod 3 validation next to the same schema in zod 4 (`zod/v4`) and the transport's
 * own non-copying check of every record; a proxy event's read by name (found, not found); the
 * trigger's state and detection steps; and
 * Extend with the proxy name as an expression, read from a field (Proxy From: Field of Each Input
 * Item) and as a fixed name (what n8n's per-item expression evaluation costs, and what the field saves).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PollContext } from 'n8n-core';
import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { FILTER_NODE } from '../test/harness/filter-node';
import { readPlaceFilters, readProxyFilters } from '../nodes/ProxyAccount/helpers/framework/filters';
import { findProxy, getStock, send } from '../nodes/ProxyAccount/transport/request';
import { fastAcceptance, responseSchemas } from '../nodes/ProxyAccount/transport/schemas';
import { z as z4 } from 'zod/v4';
import type { ProxyObservation } from '../nodes/ProxyAccount/trigger/proxies';
import { detectExpiring } from '../nodes/ProxyAccount/trigger/events/proxyExpiring.event';
import { detectNewProxies } from '../nodes/ProxyAccount/trigger/events/newProxy.event';
import { detectStatusChanges } from '../nodes/ProxyAccount/trigger/events/proxyStatusChanged.event';
import { detectRemoved } from '../nodes/ProxyAccount/trigger/events/proxyRemoved.event';
import { detectIpChanges } from '../nodes/ProxyAccount/trigger/events/ipChanged.event';
import type { TriggerState } from '../nodes/ProxyAccount/trigger/events';
import { commitState, loadState } from '../test/harness/trigger-state';
import { detectStockChanges } from '../nodes/ProxyAccount/trigger/events/stockChanged.event';
import { buildAdditionalData } from '../test/harness/additional-data';
import { TestCredentialsHelper } from '../test/harness/credentials-helper';
import type { Engine } from './sides';
import { bareFetch, createEngine, expiringNames } from './sides';
import { median, ms } from './stats';
import { extendWithNode, listWithNode } from './workflows';

const RUNS = (() => {
	const at = process.argv.indexOf('--runs');
	const n = at >= 0 ? Number(process.argv[at + 1]) : 15;
	return Number.isInteger(n) && n > 0 ? n : 15;
})();

async function startSimulator(args: string[]): Promise<{ url: string; apiKey: string; child: ChildProcess }> {
	const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(__dirname, '..', 'test', 'simulator', 'cli.ts'), '--port', '0', ...args], {
		env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let out = '';
	return await new Promise((resolve, reject) => {
		child.on('exit', (code) => reject(new Error(`the simulator exited (${code})`)));
		child.stdout?.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const url = /listening on (\S+)/.exec(out)?.[1];
			const apiKey = /Demo API key: (\S+)/.exec(out)?.[1];
			if (url && apiKey) resolve({ url, apiKey, child });
		});
	});
}

async function time(label: string, fn: () => unknown): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		const start = process.hrtime.bigint();
		await fn();
		if (i >= 2) times.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	const m = median(times);
	console.log(`  ${label.padEnd(66)} ${ms(m).padStart(7)} ms   (min ${ms(Math.min(...times))})`);
	return m;
}

// The same proxy list schema in zod 4's API (`zod/v4`, shipped inside the zod 3.25.x that n8n
// 1.123 and 2.41 provide), to compare with the transport's zod 3 schema. For measurement only.
const v4Text = z4.string();
const v4Int = z4.number().int();
const proxyListV4 = z4.looseObject({
	ok: z4.literal(true),
	message: z4.string().optional(),
	data: z4.array(
		z4.looseObject({
			proxy_name: v4Text,
			nickname: v4Text.nullable(),
			isp: v4Text,
			period: v4Text,
			auto_renew: z4.boolean(),
			auto_renew_interval: v4Int,
			added_at: v4Text,
			expires_at: v4Text,
			network_status: v4Text,
			server_ip: v4Text,
			h_port: v4Int,
			s_port: v4Int,
			auth_method: v4Text,
			username: v4Text,
			password: v4Text,
			whitelist: z4.unknown(),
			auto_change: z4.boolean(),
			auto_change_time: v4Int,
			last_ip_change: v4Text,
			last_reboot: v4Text,
			traffic: v4Int,
			h_threads: v4Int,
			s_threads: v4Int,
			city: v4Text,
			state: v4Text,
		}),
	),
});

function pollContext(engine: Engine): () => PollContext {
	const { harness, credentials } = engine;
	const node: INode = harness.toNode({ type: 'proxyAccountTrigger', parameters: { event: 'proxyStatusChanged' } }, 'Trigger', [0, 0]);
	const workflow = new Workflow({ id: 'wf', nodes: [node], connections: {}, active: true, nodeTypes: harness.nodeTypes, staticData: {}, settings: { executionOrder: 'v1' } });
	const helper = new TestCredentialsHelper(harness.credentialTypes, { proxyAccountApi: { baseUrl: credentials.baseUrl, apiKey: credentials.apiKey } });
	return () => new PollContext(workflow, node, buildAdditionalData(helper, 'trigger', 'breakdown', { id: 'wf', nodes: [node], connections: {} }), 'trigger', 'activate');
}

async function transportStages(engine: Engine, context: () => PollContext) {
	for (const path of ['/v1/proxies', '/v1/stock'] as const) {
		console.log(`GET ${path}`);
		await time('bare axios GET + JSON.parse (the fetch the benchmark subtracts)', () => bareFetch(engine.credentials, path));
		let text = '';
		await time("n8n's httpRequestWithAuthentication, body as text (no parse)", async () => {
			const ctx = context();
			const options: IHttpRequestOptions = { method: 'GET', url: `${engine.credentials.baseUrl}${path}`, encoding: 'text', json: false, returnFullResponse: true, ignoreHttpStatusErrors: true };
			text = ((await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'proxyAccountApi', options)) as { body: string }).body;
		});
		let parsed: unknown;
		await time(`JSON.parse (${(text.length / 1e6).toFixed(1)} MB)`, () => (parsed = JSON.parse(text)));
		const schema = path === '/v1/stock' ? responseSchemas.stock : responseSchemas.proxyList;
		await time('zod 3 safeParse of the envelope (passthrough objects)', () => schema.safeParse(parsed));
		if (path === '/v1/proxies') {
			const v4 = await time('zod 4 (zod/v4) safeParse of the same schema (loose objects)', () => proxyListV4.safeParse(parsed));
			const hand = await time('the transport\'s check (isProxyRecord on every record, no copy)', () => fastAcceptance.get(responseSchemas.proxyList)?.(parsed));
			if (!proxyListV4.safeParse(parsed).success || fastAcceptance.get(responseSchemas.proxyList)?.(parsed) !== true) throw new Error('a check refused the list');
			console.log(`  => the transport's check is ${(v4 / hand).toFixed(1)}x faster than zod 4 (and zod 4 than zod 3: see above)`);
		}
		await time(`transport whole (${path === '/v1/stock' ? 'getStock' : 'listProxies'})`, () => (path === '/v1/stock' ? getStock(context()) : send(context(), 'listProxies')));
	}
}

/** A proxy event's read by name of a proxy the list left out (issue 36): found, and not found. */
async function confirmationReads(engine: Engine, context: () => PollContext) {
	console.log('GET /v1/proxies/{name} (a proxy event confirming a left-out proxy)');
	const { result: proxies } = await send(context(), 'listProxies');
	const found = proxies[0].proxy_name;
	const absent = 'no-such-proxy-0000';
	await time('bare axios GET + JSON.parse, a proxy the service has', () => bareFetch(engine.credentials, `/v1/proxies/${found}`));
	await time('bare axios GET + JSON.parse, one it does not have (404)', () => bareFetch(engine.credentials, `/v1/proxies/${absent}`));
	await time('transport (findProxy, as the trigger reads), found', async () => {
		if ((await findProxy(context(), { proxyName: found })) === undefined) throw new Error('a listed proxy was not found');
	});
	await time('transport (findProxy), not found (an answer, no error built)', async () => {
		if ((await findProxy(context(), { proxyName: absent })) !== undefined) throw new Error('a proxy that does not exist was found');
	});
	await time('transport (getProxy, as the actions read), not found: the node error', () => send(context(), 'getProxy', { proxyName: absent }).then(() => {
		throw new Error('a proxy that does not exist was found');
	}, () => undefined));
}

async function listStages(engine: Engine, context: () => PollContext) {
	console.log('Proxy > Get Many, Return All, Expiring Within 24 h (the List case of npm run bench)');
	const now = Date.now();
	await time('bare axios GET + JSON.parse + filter (the baseline)', async () => expiringNames((await bareFetch(engine.credentials, '/v1/proxies')).data as Array<{ proxy_name: string; expires_at: string }>, now));
	await time('the transport alone (listProxies: n8n helper, parse, check)', () => send(context(), 'listProxies'));
	const workflow = listWithNode();
	await time('the node in the engine (Manual Trigger -> Get Many)', async () => {
		const result = await engine.harness.runWorkflow(workflow, { credentials: engine.credentials });
		if (result.status !== 'success') throw new Error(result.error?.message ?? 'the run failed');
	});
}

async function triggerStages(context: () => PollContext) {
	const { result: proxies, serverTime } = await send(context(), 'listProxies');
	const { entries, serverTime: stockTime } = await getStock(context());
	const observation: ProxyObservation = { proxies, now: serverTime };
	const filters = readProxyFilters(FILTER_NODE, undefined, {});
	const output = { simplify: true, includePassword: false };
	const detectors: Record<string, (previous: TriggerState | null) => { nextState: TriggerState }> = {
		stockChanged: (previous) =>
			detectStockChanges(previous as never, { entries, now: stockTime }, { event: 'stockChanged', change: 'becameAvailable', threshold: 5, filters: readPlaceFilters(FILTER_NODE, undefined, {}) }),
		proxyExpiring: (previous) => detectExpiring(previous as never, observation, { event: 'proxyExpiring', withinHours: 24, filters, output }),
		proxyStatusChanged: (previous) => detectStatusChanges(previous as never, observation, { event: 'proxyStatusChanged', fromStatus: '', toStatus: '', filters, output }),
		newProxy: (previous) => detectNewProxies(previous as never, observation, { event: 'newProxy', filters, output }),
		proxyRemoved: (previous) => detectRemoved(previous as never, observation, { event: 'proxyRemoved', filters }),
		ipChanged: (previous) => detectIpChanges(previous as never, observation, { event: 'ipChanged', onlyAutoRotating: true, filters, output }),
	};
	for (const [event, detect] of Object.entries(detectors)) {
		console.log(`Trigger ${event}, over ${event === 'stockChanged' ? `${entries.length} cities` : `${proxies.length} proxies`} (nothing changed since the last poll)`);
		const stored: IDataObject = {};
		commitState(stored, detect(null).nextState, null);
		const saved = JSON.parse(JSON.stringify(stored)) as IDataObject;
		await time('loadState (checks the stored state)', () => loadState(saved, event as TriggerState['event']));
		const previous = loadState(saved, event as TriggerState['event']);
		let next = detect(previous).nextState;
		await time('detect (events and the next state)', () => (next = detect(previous).nextState));
		await time('commitState (compared with the previous state, unchanged)', () => commitState(saved, next, previous));
	}
}

async function extendStages() {
	const sim = await startSimulator(['--proxies', '1000', '--balance', '1000000000000']);
	try {
		const engine = createEngine({ baseUrl: sim.url, apiKey: sim.apiKey }, undefined);
		const list = (await bareFetch(engine.credentials, '/v1/proxies')).data as Array<{ proxy_name: string }>;
		const items = list.map((record) => ({ proxy_name: record.proxy_name }));
		console.log(`Extend ${items.length} items (each run charges; the simulator's wallet is large)`);
		for (const batchSize of [100, 1000]) {
			const byExpression = extendWithNode(batchSize);
			const fixed = extendWithNode(batchSize);
			fixed.nodes[1].parameters.proxyName = { __rl: true, mode: 'name', value: items[0].proxy_name };
			const run = async (workflow: typeof fixed) => {
				const result = await engine.harness.runWorkflow(workflow, { credentials: engine.credentials, items });
				if (result.status !== 'success') throw new Error(result.error?.message ?? 'the run failed');
			};
			const byField = extendWithNode(batchSize, 'field');
			const a = await time(`Batch Size ${batchSize}, Proxy = {{ $json.proxy_name }} (an expression per item)`, () => run(byExpression));
			const f = await time(`Batch Size ${batchSize}, Proxy From: Field of Each Input Item (proxy_name)`, () => run(byField));
			const b = await time(`Batch Size ${batchSize}, Proxy = one fixed name (no expression; every item the same proxy: one line)`, () => run(fixed));
			console.log(`  => n8n's evaluation of the name expression: about ${ms(a - b)} ms per ${items.length} items; reading the field instead: ${ms(f - b)} ms (${ms(a - f)} ms saved)`);
		}
	} finally {
		sim.child.kill();
	}
}

// n8n-core writes its instance settings under N8N_USER_FOLDER (default ~/.n8n) on first use.
const userFolder = mkdtempSync(join(tmpdir(), 'n8n-proxy-account-breakdown-'));
process.env.N8N_USER_FOLDER = userFolder;

async function main() {
	if (process.argv.includes('--extend-only')) return extendStages();
	const sim = await startSimulator(['--proxies', '10000', '--cities', '1000', '--frozen-clock']);
	try {
		const engine = createEngine({ baseUrl: sim.url, apiKey: sim.apiKey }, undefined);
		const context = pollContext(engine);
		await transportStages(engine, context);
		await confirmationReads(engine, context);
		await listStages(engine, context);
		await triggerStages(context);
	} finally {
		sim.child.kill();
	}
	await extendStages();
}

main()
	.then(
		() => 0,
		(error: unknown) => {
			console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
			return 1;
		},
	)
	.then((code) => {
		rmSync(userFolder, { recursive: true, force: true });
		process.exit(code);
	});
