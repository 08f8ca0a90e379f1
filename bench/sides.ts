/* eslint-disable @n8n/community-nodes/no-restricted-globals -- benchmark tooling run by Node from the command line (process.hrtime); never shipped, the package holds dist/ only */
/**
 * What one benchmark side does once: run a workflow through n8n-core's WorkflowExecute (the
 * package's node, or n8n's own HTTP Request with Aggregate / Split Out / Filter), a bare axios GET
 * outside n8n, or one poll of the trigger. Used by the worker processes of `npm run bench` and,
 * in-process, by the smoke test.
 */
import axios from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { ProxyAccountApi } from '../credentials/ProxyAccountApi.credentials';
import { ProxyAccount } from '../nodes/ProxyAccount/ProxyAccount.node';
import { ProxyAccountTrigger } from '../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { PollHarness, WorkflowHarness } from '../test/harness';
import type { TestCredentials } from '../test/harness';
import type { BaseNodes } from './n8n-base';
import type { BenchWorkflow, Pacing } from './workflows';
import {
	extendAggregated,
	extendPerItem,
	extendWithNode,
	listWithHttpRequest,
	listWithNode,
	rotatePerItem,
	rotateWithNode,
	WITHIN_HOURS,
} from './workflows';

export const CASES = ['extend', 'list', 'trigger', 'rotate'] as const;
export type CaseId = (typeof CASES)[number];

/** Loopback (the simulator as it is) and the network model (round trips, rate limits). */
export const MODELS = ['loopback', 'network'] as const;
export type Model = (typeof MODELS)[number];

export const EXTEND_SIDES = ['node', 'nodeField', 'nodeBatch1000', 'nodeBatch1000Field', 'httpPerItem', 'httpAggregated'] as const;
export const LIST_SIDES = ['node', 'httpFilter', 'axios'] as const;
export const TRIGGER_EVENTS = ['stockChanged', 'proxyExpiring', 'proxyStatusChanged', 'newProxy', 'proxyRemoved', 'ipChanged', 'lowFunds'] as const;
/** The events that poll the proxy list (the 10 ms target applies to them). */
export const PROXY_EVENTS: readonly TriggerEvent[] = ['proxyExpiring', 'proxyStatusChanged', 'newProxy', 'proxyRemoved', 'ipChanged'];
export const ROTATE_SIDES = ['nodeRotate', 'httpRotatePerItem'] as const;
export type ExtendSide = (typeof EXTEND_SIDES)[number];
export type ListSide = (typeof LIST_SIDES)[number];
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];
export type RotateSide = (typeof ROTATE_SIDES)[number];
export type SideId = ExtendSide | ListSide | TriggerEvent | RotateSide;

export const SIDE_LABELS: Record<SideId, string> = {
	node: 'Proxy Account node',
	nodeField: 'Proxy Account node, Proxy From: Field',
	nodeBatch1000: 'Proxy Account node, Batch Size 1000',
	nodeBatch1000Field: 'Proxy Account node, Batch Size 1000, Proxy From: Field',
	nodeRotate: 'Proxy Account node, Rotate IP (Concurrency 5, its default)',
	httpRotatePerItem: 'HTTP Request, one changeip per item',
	httpPerItem: 'HTTP Request, one allocate per item',
	httpAggregated: 'Aggregate + HTTP Request, one body',
	httpFilter: 'HTTP Request + Split Out + Filter',
	axios: 'bare axios GET + JSON.parse + filter (outside n8n)',
	stockChanged: 'Stock Changed',
	proxyExpiring: 'Proxy Expiring',
	proxyStatusChanged: 'Proxy Status Changed',
	newProxy: 'New Proxy',
	proxyRemoved: 'Proxy Removed',
	ipChanged: 'IP Changed',
	lowFunds: 'Low Funds',
};

/** The engine a worker runs on: the harness with the package's nodes and, when loaded, n8n's own. */
export interface Engine {
	harness: WorkflowHarness;
	credentials: TestCredentials;
}

export function createEngine(credentials: TestCredentials, base: BaseNodes | undefined): Engine {
	const harness = new WorkflowHarness([new ProxyAccount(), new ProxyAccountTrigger()], [new ProxyAccountApi()], base?.types ?? {});
	return { harness, credentials };
}

export interface RunOutcome {
	/** Output items of the job (or events of a poll). */
	items: number;
	/** Something that lets the caller check the sides did the same job (e.g. the matching names). */
	check?: string;
}

async function runWorkflow(engine: Engine, workflow: BenchWorkflow, items?: IDataObject[]): Promise<IDataObject[]> {
	const result = await engine.harness.runWorkflow(workflow, { credentials: engine.credentials, items });
	if (result.status !== 'success') {
		const error = result.error as { message?: string; description?: string } | undefined;
		throw new Error(`workflow ${result.status}: ${error?.message ?? 'no message'}${error?.description ? ` (${error.description})` : ''}`);
	}
	return result.output(workflow.last).map((item) => item.json);
}

/** Extend `names` by one week (Manual Trigger items `{proxy_name}`); `pacing` for per-item HTTP Request. */
export async function runExtend(engine: Engine, side: ExtendSide, names: string[], batchSize?: number, pacing?: Pacing): Promise<RunOutcome> {
	const { baseUrl, apiKey } = engine.credentials;
	const workflows: Record<ExtendSide, () => BenchWorkflow> = {
		node: () => extendWithNode(batchSize),
		nodeField: () => extendWithNode(batchSize, 'field'),
		nodeBatch1000: () => extendWithNode(1000),
		nodeBatch1000Field: () => extendWithNode(1000, 'field'),
		httpPerItem: () => extendPerItem(baseUrl, apiKey, pacing),
		httpAggregated: () => extendAggregated(baseUrl, apiKey),
	};
	const workflow = workflows[side]();
	const output = await runWorkflow(engine, workflow, names.map((proxy_name) => ({ proxy_name })));
	if (side.startsWith('node')) {
		const extended = output.filter((item) => item.status === 'extended').length;
		if (extended !== names.length) throw new Error(`${extended} of ${names.length} proxies extended`);
	}
	return { items: output.length };
}

/** Rotate the IP of `names` (Manual Trigger items `{proxy_name}`); `pacing` for per-item HTTP Request. */
export async function runRotate(engine: Engine, side: RotateSide, names: string[], pacing?: Pacing): Promise<RunOutcome> {
	const { baseUrl, apiKey } = engine.credentials;
	const workflow = side === 'nodeRotate' ? rotateWithNode() : rotatePerItem(baseUrl, apiKey, pacing);
	const output = await runWorkflow(engine, workflow, names.map((proxy_name) => ({ proxy_name })));
	if (side === 'nodeRotate') {
		const sent = output.filter((item) => item.status === 'sent').length;
		if (sent !== names.length) {
			throw new Error(`Rotate IP: ${sent} of ${names.length} proxies sent: ${JSON.stringify(output.find((item) => item.status !== 'sent')).slice(0, 300)}`);
		}
	}
	return { items: output.length };
}

/** The proxies of a `GET /v1/proxies` body expiring within the window (expired ones included). */
export function expiringNames(records: Array<{ proxy_name: string; expires_at: string }>, now: number): string[] {
	const limit = now + WITHIN_HOURS * 3_600_000;
	return records.filter((record) => Date.parse(record.expires_at) <= limit).map((record) => record.proxy_name);
}

/** Marks the bare fetches, so the simulator's log tells them from a trigger's own requests. */
export const BARE_FETCH_HEADER = 'x-bench-bare-fetch';

/** Milliseconds since `process.hrtime.bigint()` gave `start`. */
export const sinceMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** A GET outside n8n, marked as the bench's own, with the body as text. */
async function bareGet(credentials: TestCredentials, path: string): Promise<string> {
	const response = await axios.get<string>(`${credentials.baseUrl}${path}`, {
		headers: { Authorization: `Bearer ${credentials.apiKey}`, Accept: 'application/json', [BARE_FETCH_HEADER]: '1' },
		responseType: 'text',
		transformResponse: (body: string) => body,
		// A read by name of a removed proxy answers 404: the baseline reads it all the same.
		validateStatus: () => true,
	});
	return response.data;
}

/** A bare fetch of an endpoint outside n8n: axios GET, the body as text, JSON.parse. */
export async function bareFetch(credentials: TestCredentials, path: string): Promise<{ ok: boolean; data: unknown[] }> {
	return JSON.parse(await bareGet(credentials, path)) as { ok: boolean; data: unknown[] };
}

/** bareFetch with its two parts timed: the GET (body as text) and JSON.parse. */
export async function bareFetchSplit(credentials: TestCredentials, path: string): Promise<{ httpMs: number; parseMs: number }> {
	const start = process.hrtime.bigint();
	const text = await bareGet(credentials, path);
	const httpMs = sinceMs(start);
	const parsed = process.hrtime.bigint();
	JSON.parse(text);
	return { httpMs, parseMs: sinceMs(parsed) };
}

/** List every proxy and keep those expiring within a day. */
export async function runList(engine: Engine, side: ListSide): Promise<RunOutcome> {
	let names: string[];
	if (side === 'axios') {
		const body = await bareFetch(engine.credentials, '/v1/proxies');
		names = expiringNames(body.data as Array<{ proxy_name: string; expires_at: string }>, Date.now());
	} else {
		const workflow = side === 'node' ? listWithNode() : listWithHttpRequest(engine.credentials.baseUrl, engine.credentials.apiKey);
		const output = await runWorkflow(engine, workflow);
		names = output.map((item) => String(item.proxy_name));
	}
	return { items: names.length, check: names.slice().sort().join('\n') };
}

/** The trigger's parameters for an event: n8n's defaults otherwise. */
export function triggerParameters(event: TriggerEvent): Record<string, unknown> {
	return { event };
}

export function createPoller(engine: Engine, event: TriggerEvent): PollHarness {
	return new PollHarness(engine.harness, { type: 'proxyAccountTrigger', name: 'Proxy Account Trigger', parameters: triggerParameters(event) }, engine.credentials);
}

/** The endpoint a trigger event polls (what a bare fetch is compared with). */
export function triggerPath(event: TriggerEvent): string {
	return event === 'stockChanged' ? '/v1/stock' : event === 'lowFunds' ? '/v1/funds' : '/v1/proxies';
}

/** One scheduled poll; the number of events it returned. */
export async function pollOnce(poller: PollHarness): Promise<RunOutcome> {
	const result = await poller.poll('activate');
	return { items: result ? result[0].length : 0 };
}

/** Where one poll's time went, measured inside it. */
export interface PollSplit {
	items: number;
	/** In n8n's httpRequestWithAuthentication (credentials, the request, the server, the reply as text). */
	helperMs: number;
	/** In JSON.parse of the bodies that helper returned. */
	parseMs: number;
	/** How many helper calls the poll made. */
	calls: number;
}

/**
 * One scheduled poll with its requests timed from inside: n8n's HTTP helper is wrapped on this
 * poll's own context, and JSON.parse is wrapped for the poll's duration but times only the bodies
 * that helper returned. What is left of the poll's time is the trigger's own work (and n8n's
 * PollContext), measured without a second request whose server and transfer time vary on their own.
 */
export async function pollSplit(poller: PollHarness): Promise<PollSplit> {
	const split = { helperMs: 0, parseMs: 0, calls: 0 };
	const bodies = new Set<string>();
	poller.observeContext = (context) => {
		const helpers = context.helpers as { httpRequestWithAuthentication: (...args: unknown[]) => Promise<unknown> };
		const helper = helpers.httpRequestWithAuthentication;
		helpers.httpRequestWithAuthentication = async function timed(this: unknown, ...args: unknown[]) {
			const start = process.hrtime.bigint();
			split.calls++;
			try {
				const answer = await helper.apply(this, args);
				const body = (answer as { body?: unknown } | undefined)?.body;
				if (typeof body === 'string') bodies.add(body);
				return answer;
			} finally {
				split.helperMs += sinceMs(start);
			}
		};
	};
	const parse = JSON.parse;
	JSON.parse = function timedParse(text: string, reviver?: Parameters<typeof JSON.parse>[1]) {
		if (!bodies.has(text)) return parse(text, reviver) as unknown;
		const start = process.hrtime.bigint();
		try {
			return parse(text, reviver) as unknown;
		} finally {
			split.parseMs += sinceMs(start);
		}
	};
	try {
		const outcome = await pollOnce(poller);
		return { items: outcome.items, ...split };
	} finally {
		JSON.parse = parse;
		poller.observeContext = undefined;
	}
}

/** Size in bytes of the trigger's static data as n8n would save it. */
export function staticDataBytes(poller: PollHarness): number {
	return Buffer.byteLength(JSON.stringify(poller.staticData));
}
