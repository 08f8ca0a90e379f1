/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- benchmark tooling run by Node from the command line (timers, child processes, console output); never shipped, the package holds dist/ only */
/**
 * npm run bench [-- --write] [--runs N] [--warmup N] [--polls N] [--only extend,list,trigger,rotate]
 *               [--models loopback,network] [--events stockChanged,...] [--smoke]
 *
 * Starts the Proxy Account simulator and measures the jobs the package exists for, each side in
 * its own worker process on the same engine (n8n-core's WorkflowExecute, n8n's own HTTP Request,
 * Aggregate, Split Out and Filter from the real n8n install the end-to-end suite caches, installed
 * here through test/e2e/n8n-install.mjs when missing), under two models of the service: loopback
 * (the simulator as it is) and the network model (50 ms round trips, per-endpoint rate limits with
 * 429; test/simulator/network-model.ts). Prints one table; `--write` also saves it in
 * bench/RESULTS.md with the machine's description. `--smoke` runs tiny sizes once.
 */
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

import type { ProxyRecord, RouteKey, SimulatorOptions } from '../test/simulator';
import { ProxyAccountSimulator } from '../test/simulator';
import { NETWORK_MODEL } from '../test/simulator/network-model';
import { changeBetweenPolls, lcg } from './changes';
import { writeDocFigures } from './figures';
import { ensureN8nInstall, findN8nInstall, N8N_VERSION } from './n8n-base';
import type { ParentMessage, WorkerMessage } from './protocol';
import type { CaseId, ExtendSide, ListSide, Model, RotateSide, SideId, TriggerEvent } from './sides';
import { BARE_FETCH_HEADER, CASES, EXTEND_SIDES, LIST_SIDES, MODELS, PROXY_EVENTS, ROTATE_SIDES, SIDE_LABELS, TRIGGER_EVENTS, triggerPath } from './sides';
import type { Pacing } from './workflows';
import { kb, markdownTable, max, mb, median, min, ms, quartiles, ratio, thousands } from './stats';

// ----- options ---------------------------------------------------------------------------------

interface Options {
	write: boolean;
	smoke: boolean;
	runs: number;
	warmup: number;
	polls: number;
	only: CaseId[];
	models: Model[];
	/** Trigger: the events to poll (all by default; `--write` needs all). */
	events: TriggerEvent[];
	/** Trigger: another checkout (its bench/ speaking this protocol) polled in turn with this one. */
	against?: string;
	/** Sizes. */
	extendProxies: number;
	extendBatch?: number;
	listProxies: number;
	triggerProxies: number;
	triggerCities: number;
	rotateProxies: number;
}

const SEED = 7;
const BALANCE = 1_000_000_000;

/** A comma-separated list of known values, e.g. `--only extend,list`. */
function listOf<T extends string>(text: string, allowed: readonly T[], flag: string): T[] {
	return text.split(',').map((entry) => {
		const trimmed = entry.trim();
		if (!(allowed as readonly string[]).includes(trimmed)) throw new Error(`${flag} takes ${allowed.join(', ')}`);
		return trimmed as T;
	});
}

function parseOptions(argv: string[]): Options {
	const options: Options = {
		write: false,
		smoke: false,
		runs: 7,
		warmup: 2,
		polls: 100,
		only: [...CASES],
		models: [...MODELS],
		events: [...TRIGGER_EVENTS],
		extendProxies: 1000,
		listProxies: 10_000,
		triggerProxies: 10_000,
		triggerCities: 1000,
		rotateProxies: 100,
	};
	const explicit = new Set<string>();
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].includes('=') ? [argv[i].slice(0, argv[i].indexOf('=')), argv[i].slice(argv[i].indexOf('=') + 1)] : [argv[i], undefined];
		const value = () => {
			const v = inline ?? argv[++i];
			if (v === undefined) throw new Error(`${flag} needs a value`);
			return v;
		};
		const count = (least: number) => {
			const n = Number(value());
			if (!Number.isInteger(n) || n < least) throw new Error(`${flag} needs a whole number of at least ${least}`);
			explicit.add(flag);
			return n;
		};
		switch (flag) {
			case '--write':
				options.write = true;
				break;
			case '--smoke':
				options.smoke = true;
				break;
			case '--runs':
				options.runs = count(1);
				break;
			case '--warmup':
				options.warmup = count(0);
				break;
			case '--polls':
				options.polls = count(10);
				break;
			case '--only':
				options.only = listOf(value(), CASES, flag);
				break;
			case '--models':
				options.models = listOf(value(), MODELS, flag);
				break;
			case '--events':
				options.events = listOf(value(), TRIGGER_EVENTS, flag);
				explicit.add(flag);
				break;
			case '--against':
				options.against = value();
				break;
			case '--help':
			case '-h':
				console.log(`Usage: npm run bench [-- --write] [--runs N] [--warmup N] [--polls N] [--only ${CASES.join(',')}] [--models ${MODELS.join(',')}] [--events ${TRIGGER_EVENTS.join(',')}] [--against DIR] [--smoke]`);
				process.exit(0);
				break;
			default:
				throw new Error(`Unknown argument ${argv[i]} (see --help)`);
		}
	}
	if (options.write && explicit.has('--events')) throw new Error('--write needs every trigger event: leave --events out');
	if (options.smoke) {
		// Tiny sizes: Extend 20 proxies with Batch Size 10 (2 allocate requests against 20 per item).
		Object.assign(options, { extendProxies: 20, extendBatch: 10, listProxies: 200, triggerProxies: 200, triggerCities: 20, rotateProxies: 10 });
		if (!explicit.has('--runs')) options.runs = 1;
		if (!explicit.has('--warmup')) options.warmup = 0;
		if (!explicit.has('--polls')) options.polls = 10;
	}
	return options;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ----- workers ---------------------------------------------------------------------------------

const WORKER = join(__dirname, 'worker.ts');

/** One worker process: sends a message, waits for its answer. */
class Worker {
	private readonly child: ChildProcess;

	private readonly output: string[] = [];

	private pending?: { resolve: (m: WorkerMessage) => void; reject: (e: Error) => void };

	/** `checkout`: another checkout's worker (`--against`), else this one's. */
	constructor(userFolder: string, checkout?: string) {
		this.child = fork(checkout ? join(checkout, 'bench', 'worker.ts') : WORKER, [], {
			cwd: checkout,
			execArgv: [...(process.env.BENCH_WORKER_FLAGS ?? '').split(' ').filter(Boolean), '--expose-gc', '-r', require.resolve('ts-node/register/transpile-only')],
			env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true', N8N_USER_FOLDER: userFolder },
			stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
		});
		const keep = (chunk: Buffer) => {
			this.output.push(chunk.toString());
			if (this.output.length > 50) this.output.shift();
		};
		this.child.stdout?.on('data', keep);
		this.child.stderr?.on('data', keep);
		this.child.on('message', (message: WorkerMessage) => {
			const pending = this.pending;
			this.pending = undefined;
			if (!pending) return;
			if (message.type === 'error') pending.reject(new Error(`worker: ${message.message}`));
			else pending.resolve(message);
		});
		this.child.on('exit', (code, signal) => {
			const pending = this.pending;
			this.pending = undefined;
			pending?.reject(new Error(`worker exited (${signal ?? code}):\n${this.output.join('').slice(-3000)}`));
		});
	}

	request<T extends WorkerMessage['type']>(message: ParentMessage, expect: T): Promise<Extract<WorkerMessage, { type: T }>> {
		return new Promise((resolve, reject) => {
			this.pending = {
				resolve: (answer) => {
					if (answer.type !== expect) reject(new Error(`worker answered ${answer.type}, expected ${expect}`));
					else resolve(answer as Extract<WorkerMessage, { type: T }>);
				},
				reject,
			};
			this.child.send(message);
		});
	}

	async finish(): Promise<Extract<WorkerMessage, { type: 'memory' }>> {
		const memory = await this.request({ type: 'finish' }, 'memory');
		await new Promise<void>((resolve) => {
			if (this.child.exitCode !== null) resolve();
			else this.child.once('exit', () => resolve());
		});
		return memory;
	}

	kill(): void {
		if (this.child.exitCode === null) this.child.kill('SIGKILL');
	}
}

// ----- measurements ----------------------------------------------------------------------------

const ROUTE_NAMES: Record<RouteKey, string> = {
	'POST /v1/proxies/allocate': 'allocate',
	'GET /v1/proxies': 'list',
	'GET /v1/proxies/:name': 'get',
	'GET /v1/stock': 'stock',
	'POST /v1/price': 'quote',
	'POST /v1/proxies/ipv4/:name': 'ipv4',
	'PATCH /v1/proxies/auth/basic/:name': 'basic-auth',
	'PATCH /v1/proxies/auth/whitelist/:name': 'whitelist',
	'POST /v1/proxies/deploy': 'deploy',
	'POST /v1/proxies/swap/:name': 'swap',
	'DELETE /v1/proxies/remove': 'remove',
	'POST /v1/proxies/changeip/:name': 'rotate',
	'GET /v1/proxies/changeip/:key/:name': 'rotate-link',
	'POST /v1/proxies/reboot/:name': 'reboot',
	'POST /v1/proxies/autochangeip/:name': 'auto-rotation',
	'GET /v1/funds': 'funds',
	'PATCH /v1/proxies/allocate/renew': 'auto-renew',
};

interface RequestSummary {
	total: number;
	/** Answered 429 (rate limited). */
	limited: number;
	text: string;
}

/** `12 (10 allocate, 2 list)`; the 429s are counted apart. */
function describeRequests(requests: Array<{ route: RouteKey | null; status: number | null }>): RequestSummary {
	const byRoute = new Map<string, number>();
	for (const request of requests) {
		const name = request.route ? ROUTE_NAMES[request.route] : 'other';
		byRoute.set(name, (byRoute.get(name) ?? 0) + 1);
	}
	const parts = [...byRoute].map(([name, n]) => `${thousands(n)} ${name}`);
	const limited = requests.filter((request) => request.status === 429).length;
	return { total: requests.length, limited, text: parts.length > 1 ? `${thousands(requests.length)} (${parts.join(', ')})` : parts[0] ?? '0' };
}

/** The simulator's options for a model. */
function modelOptions(model: Model): Partial<SimulatorOptions> {
	return model === 'network' ? { ...NETWORK_MODEL } : {};
}

/** n8n's batching options that keep per-item HTTP Request under an endpoint's rate limit, with 10% to spare. */
function pacingFor(model: Model, route: RouteKey): Pacing | undefined {
	const rule = model === 'network' ? NETWORK_MODEL.rateLimit[route] : undefined;
	return rule ? { itemsPerBatch: rule.limit, intervalMs: Math.round(rule.windowMs * 1.1) } : undefined;
}

interface SideResult {
	caseId: CaseId;
	model: Model;
	side: SideId;
	times: number[];
	requests: string[];
	requestTotals: number[];
	/** 429s per run. */
	limited: number[];
	items: number[];
	checks: Array<string | undefined>;
	maxRssKb: number;
	rssAfterLoadKb: number;
	/** Trigger only. */
	fetchTimes?: number[];
	beyondFetch?: number[];
	/** Each poll's time less its time in n8n's HTTP helper and in JSON.parse of the helper's replies. */
	ownWork?: number[];
	/** Each poll's time in n8n's HTTP helper less the bare GETs' (the same requests outside n8n). */
	helperBeyond?: number[];
	/** `--against`: the other checkout's own work at the same polls (the same account, in turn). */
	againstOwn?: number[];
	staticBytes?: Map<number, number>;
	/** The static data a new trigger records over the account as it is after the last poll. */
	freshBaselineBytes?: number;
}

interface Context {
	options: Options;
	installDir: string;
	userFolder: string;
}

async function withWorker<T>(context: Context, fn: (worker: Worker) => Promise<T>, checkout?: string): Promise<T> {
	const worker = new Worker(context.userFolder, checkout);
	try {
		return await fn(worker);
	} finally {
		worker.kill();
	}
}

/** `withWorker` for another checkout's worker when there is one (`--against`), else `fn(undefined)`. */
async function withWorkerIf<T>(context: Context, checkout: string | undefined, fn: (worker: Worker | undefined) => Promise<T>): Promise<T> {
	return checkout === undefined ? await fn(undefined) : await withWorker(context, fn, checkout);
}

/** A timed poll's own work: its time less its time in n8n's HTTP helper and in parsing the replies. */
function ownWorkOf(answer: Extract<WorkerMessage, { type: 'result' }>): number {
	return answer.split ? answer.ms - answer.split.helperMs - answer.split.parseMs : Number.NaN;
}

/**
 * Runs every side of a case in rounds, each side in its own worker: round after round, each side
 * runs once (the first side of a round rotates), so whatever else the machine does at a given time
 * falls on all sides alike. `prepare` resets the simulator before each run; `check` verifies it after.
 */
async function measureRounds<S extends SideId>(
	context: Context,
	caseId: CaseId,
	model: Model,
	sides: readonly S[],
	init: (side: S) => ParentMessage,
	prepare: () => void,
	check: (side: S) => void,
	requests: () => Array<{ route: RouteKey | null; status: number | null }>,
	counts: { warmup: number; runs: number } = context.options,
): Promise<SideResult[]> {
	const workers = new Map<S, Worker>();
	const results = new Map(sides.map((side) => [side, emptyResult(caseId, model, side)]));
	try {
		for (const side of sides) {
			const worker = new Worker(context.userFolder);
			workers.set(side, worker);
			await worker.request(init(side), 'ready');
		}
		const rounds = counts.warmup + counts.runs;
		for (let round = 0; round < rounds; round++) {
			log(`  round ${round + 1} of ${rounds}${round < counts.warmup ? ' (warm-up)' : ''}`);
			for (let k = 0; k < sides.length; k++) {
				const side = sides[(k + round) % sides.length];
				prepare();
				const answer = await workers.get(side)!.request({ type: 'run' }, 'result');
				check(side);
				if (round >= counts.warmup) record(results.get(side)!, answer, describeRequests(requests()));
			}
		}
		for (const side of sides) finishResult(results.get(side)!, await workers.get(side)!.finish());
	} finally {
		for (const worker of workers.values()) worker.kill();
	}
	return sides.map((side) => results.get(side)!);
}

/** Per-item HTTP Request under the network model: paced to the rate limit, so slow; measured once. */
const SLOW_COUNTS = { warmup: 0, runs: 1 };

async function measureExtend(context: Context, model: Model): Promise<SideResult[]> {
	const { options } = context;
	const sim = await ProxyAccountSimulator.start({ seed: SEED, proxies: options.extendProxies, balance: BALANCE, ...modelOptions(model) });
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	const account = sim.account();
	const names = [...account.proxies.keys()];
	const expiries = [...account.proxies.values()].map((record): [ProxyRecord, string] => [record, record.expires_at]);
	// Every run starts from the same account: the same expiry dates, the same wallet, empty logs, no
	// requests counted against the rate limits.
	const restore = () => {
		for (const [record, expiresAt] of expiries) record.expires_at = expiresAt;
		account.balance = BALANCE;
		sim.resetLogs();
		sim.resetRateLimits();
	};
	const pacing = pacingFor(model, 'POST /v1/proxies/allocate');
	// Under the network model, per-item HTTP Request is paced to the rate limit (minutes): measured apart, once.
	const slow: ExtendSide[] = pacing ? ['httpPerItem'] : [];
	const fast = EXTEND_SIDES.filter((side) => !slow.includes(side));
	log(`extend ${thousands(names.length)} proxies (${model}): ${EXTEND_SIDES.map((side) => SIDE_LABELS[side]).join('; ')}`);
	const measure = (sides: readonly ExtendSide[], counts?: { warmup: number; runs: number }) =>
		measureRounds(
			context,
			'extend',
			model,
			sides,
			(side) => ({
				type: 'init',
				caseId: 'extend',
				side,
				credentials,
				installDir: context.installDir,
				names,
				batchSize: side === 'node' || side === 'nodeField' ? options.extendBatch : undefined,
				pacing: side === 'httpPerItem' ? pacing : undefined,
			}),
			restore,
			(side) => {
				if (sim.ledger.length !== names.length) throw new Error(`${SIDE_LABELS[side]}: ${sim.ledger.length} charges for ${names.length} proxies`);
			},
			() => sim.requests,
			counts,
		);
	try {
		const results = await measure(fast);
		if (slow.length > 0) results.push(...(await measure(slow, SLOW_COUNTS)));
		return results;
	} finally {
		restore();
		await sim.stop();
	}
}

async function measureList(context: Context, model: Model): Promise<SideResult[]> {
	const { options } = context;
	const sim = await ProxyAccountSimulator.start({ seed: SEED, proxies: options.listProxies, balance: BALANCE, ...modelOptions(model) });
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	log(`list ${thousands(options.listProxies)} proxies, keep those expiring within a day (${model}): ${LIST_SIDES.map((side) => SIDE_LABELS[side]).join('; ')}`);
	let results: SideResult[];
	try {
		results = await measureRounds(
			context,
			'list',
			model,
			LIST_SIDES,
			(side) => ({ type: 'init', caseId: 'list', side, credentials, installDir: context.installDir }),
			() => {
				sim.resetLogs();
				sim.resetRateLimits();
			},
			() => undefined,
			() => sim.requests,
		);
	} finally {
		await sim.stop();
	}
	const reference = results[0].checks[0];
	for (const result of results) {
		if (result.checks.some((check) => check !== reference)) {
			throw new Error(`${SIDE_LABELS[result.side]} did not keep the same proxies as ${SIDE_LABELS[results[0].side]}`);
		}
	}
	return results;
}

/** The IP change interval per proxy (account-operations.md): a minute. Each run moves the clock past it. */
const ROTATE_INTERVAL_MS = 60_000;

async function measureRotate(context: Context, model: Model): Promise<SideResult[]> {
	const { options } = context;
	const sim = await ProxyAccountSimulator.start({ seed: SEED, proxies: options.rotateProxies, balance: BALANCE, ...modelOptions(model) });
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	const names = [...sim.account().proxies.keys()];
	// No proxy changed recently or rotating on its own: every IP change is allowed at the start.
	const past = new Date(sim.clock.now() - 3_600_000).toISOString();
	for (const record of sim.account().proxies.values()) Object.assign(record, { last_ip_change: past, auto_change: false, auto_change_time: 0 });
	const pacing = pacingFor(model, 'POST /v1/proxies/changeip/:name');
	const rotated = () => sim.requests.filter((r) => r.route === 'POST /v1/proxies/changeip/:name' && r.status !== null && r.status >= 200 && r.status < 300).length;
	log(`rotate the IP of ${thousands(names.length)} proxies (${model}): ${ROTATE_SIDES.map((side) => SIDE_LABELS[side]).join('; ')}`);
	try {
		return await measureRounds(
			context,
			'rotate',
			model,
			ROTATE_SIDES,
			(side: RotateSide) => ({ type: 'init', caseId: 'rotate', side, credentials, installDir: context.installDir, names, pacing: side === 'httpRotatePerItem' ? pacing : undefined }),
			() => {
				// Past every proxy's once-a-minute limit, and no request counted against the rate limits.
				sim.clock.advance(ROTATE_INTERVAL_MS + 1_000);
				sim.resetLogs();
				sim.resetRateLimits();
			},
			(side) => {
				if (rotated() !== names.length) throw new Error(`${SIDE_LABELS[side]}: ${rotated()} IP changes accepted for ${names.length} proxies`);
			},
			() => sim.requests,
			// Paced to 5 a second, 100 proxies take about 20 s a run under the network model.
			pacing ? { warmup: 0, runs: Math.min(options.runs, 3) } : options,
		);
	} finally {
		await sim.stop();
	}
}

const STATIC_DATA_AT = [1, 10, 100];

async function measureTrigger(context: Context, model: Model): Promise<SideResult[]> {
	const { options } = context;
	const results: SideResult[] = [];
	const sizesAt = [...new Set([...STATIC_DATA_AT.filter((n) => n < options.polls), options.polls])];
	for (const event of options.events) {
		log(`trigger, ${options.polls} polls over ${thousands(options.triggerProxies)} proxies and ${thousands(options.triggerCities)} cities (${model}): ${SIDE_LABELS[event]}`);
		// A fresh account per event, so every event sees the same changes from the same start.
		const sim = await ProxyAccountSimulator.start({
			seed: SEED,
			proxies: options.triggerProxies,
			cities: options.triggerCities,
			balance: BALANCE,
			frozenClock: true,
			...modelOptions(model),
		});
		const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
		const random = lcg(SEED);
		try {
			results.push(
				await withWorker(context, async (worker) =>
					// --against: the other checkout's trigger polls the same account at each poll, first at every other one.
					withWorkerIf(context, options.against, async (other) => {
						const init: ParentMessage = { type: 'init', caseId: 'trigger', side: event, credentials, installDir: context.installDir };
						await worker.request(init, 'ready');
						if (other) await other.request(init, 'ready');
						const pollOther = async () => {
							if (!other) return Number.NaN;
							sim.resetLogs();
							sim.resetRateLimits();
							return ownWorkOf(await other.request({ type: 'poll', withFetch: true }, 'result'));
						};
						const result = emptyResult('trigger', model, event);
						result.fetchTimes = [];
						result.beyondFetch = [];
						result.ownWork = [];
						result.helperBeyond = [];
						result.againstOwn = [];
						result.staticBytes = new Map();
						for (let poll = 1; poll <= options.polls; poll++) {
							if (poll > 1) changeBetweenPolls(sim, random);
							const otherFirst = poll % 2 === 0;
							let otherOwn = otherFirst ? await pollOther() : Number.NaN;
							sim.resetLogs();
							// Polls are minutes apart: on the frozen clock, nothing of the last one counts against the rate limit.
							sim.resetRateLimits();
							const answer = await worker.request({ type: 'poll', withFetch: true }, 'result');
							const pollRequests = sim.requests.filter((request) => request.headers[BARE_FETCH_HEADER] === undefined);
							if (sizesAt.includes(poll)) result.staticBytes.set(poll, answer.staticDataBytes ?? Number.NaN);
							// The first poll records the baseline (and warms up): it is not timed.
							if (poll === 1) {
								if (!otherFirst) await pollOther();
								continue;
							}
							record(result, answer, describeRequests(pollRequests));
							// A poll that confirms a removal reads the proxy by name (HTTP, not work): the baseline makes the same reads.
							const extraPaths = pollRequests.filter((request) => request.path.split('?')[0] !== triggerPath(event)).map((request) => request.path);
							const extraMs = extraPaths.length > 0 ? (await worker.request({ type: 'fetchPaths', paths: extraPaths }, 'result')).ms : 0;
							const fetchMs = (answer.fetchMs ?? Number.NaN) + extraMs;
							result.fetchTimes.push(fetchMs);
							result.beyondFetch.push(answer.ms - fetchMs);
							if (answer.split) {
								result.ownWork.push(ownWorkOf(answer));
								result.helperBeyond.push(answer.split.helperMs - answer.split.fetchHttpMs - extraMs);
							}
							if (!otherFirst) otherOwn = await pollOther();
							if (other) result.againstOwn.push(otherOwn);
							// BENCH_TRACE=file: every timed poll as a JSON line, to look at more than the medians.
							if (process.env.BENCH_TRACE) appendFileSync(process.env.BENCH_TRACE, `${JSON.stringify({ event, model, poll, pollMs: answer.ms, listMs: answer.fetchMs, readsMs: extraMs, events: answer.items, ...answer.split })}\n`);
						}
						result.freshBaselineBytes = (await worker.request({ type: 'baseline' }, 'result')).staticDataBytes;
						if (other) await other.finish();
						return finishResult(result, await worker.finish());
					}),
				),
			);
		} finally {
			await sim.stop();
		}
	}
	return results;
}

function emptyResult(caseId: CaseId, model: Model, side: SideId): SideResult {
	return { caseId, model, side, times: [], requests: [], requestTotals: [], limited: [], items: [], checks: [], maxRssKb: Number.NaN, rssAfterLoadKb: Number.NaN };
}

function record(result: SideResult, answer: Extract<WorkerMessage, { type: 'result' }>, requests: RequestSummary): void {
	result.times.push(answer.ms);
	result.items.push(answer.items);
	result.checks.push(answer.check);
	result.requests.push(requests.text);
	result.requestTotals.push(requests.total);
	result.limited.push(requests.limited);
}

function finishResult(result: SideResult, memory: Extract<WorkerMessage, { type: 'memory' }>): SideResult {
	result.maxRssKb = memory.maxRssKb;
	result.rssAfterLoadKb = memory.rssAfterLoadKb;
	return result;
}

// ----- report ----------------------------------------------------------------------------------

interface Verdict {
	text: string;
	met: boolean | undefined;
}

function sameOrRange(values: string[]): string {
	const unique = [...new Set(values)];
	return unique.length === 1 ? unique[0] : unique.join(' / ');
}

const MODEL_LABELS: Record<Model, string> = {
	loopback: 'loopback',
	network: `network (${NETWORK_MODEL.network.latencyMs} ms RTT)`,
};

function report(results: SideResult[], options: Options): { table: string; verdicts: Verdict[]; kept: string } {
	const rows: string[][] = [];
	const verdicts: Verdict[] = [];
	const find = (caseId: CaseId, model: Model, side: SideId) => results.find((r) => r.caseId === caseId && r.model === model && r.side === side);
	const med = (r: SideResult | undefined) => (r ? median(r.times) : Number.NaN);
	const memory = (r: SideResult) => [mb(r.maxRssKb), mb(r.maxRssKb - r.rssAfterLoadKb)];
	const timing = (r: SideResult) => [ms(median(r.times)), r.times.length > 1 ? `${ms(min(r.times))}–${ms(max(r.times))}` : `${r.times.length} run`];
	const limited = (r: SideResult) => sameOrRange(r.limited.map((n) => thousands(n)));
	const rtt = NETWORK_MODEL.network.latencyMs;
	const verdict = (met: boolean | undefined, text: string) => verdicts.push({ met, text });

	for (const model of options.models) {
		if (options.only.includes('extend')) {
			const node = find('extend', model, 'node');
			const perItem = find('extend', model, 'httpPerItem');
			const aggregated = find('extend', model, 'httpAggregated');
			const caseName = `Extend ${thousands(options.extendProxies)} proxies`;
			const perItemLabel =
				model === 'network' ? `${SIDE_LABELS.httpPerItem}, Batching ${pacingText(pacingFor(model, 'POST /v1/proxies/allocate'))}` : `${SIDE_LABELS.httpPerItem}, all at once (n8n's default)`;
			const batchOf = (side: SideId) => (side === 'nodeBatch1000' || side === 'nodeBatch1000Field' ? 1000 : (options.extendBatch ?? 100));
			for (const side of EXTEND_SIDES) {
				const r = find('extend', model, side);
				if (!r) continue;
				const label =
					side === 'httpPerItem' ? perItemLabel : side === 'node' || side === 'nodeField' ? `${SIDE_LABELS[side]}, Batch Size ${options.extendBatch ?? '100 (default)'}` : SIDE_LABELS[side];
				const compared =
					side.startsWith('node') ? `per-item / this = ${ratio(med(perItem) / med(r))}; this / aggregated = ${ratio(med(r) / med(aggregated))}` : 'baseline';
				rows.push([caseName, MODEL_LABELS[model], label, ...timing(r), sameOrRange(r.requests), limited(r), compared, ...memory(r)]);
			}
			if (model === 'network') {
				for (const side of ['node', 'nodeField', 'nodeBatch1000', 'nodeBatch1000Field'] as const) {
					const r = find('extend', model, side);
					if (!r) continue;
					const batches = Math.ceil(options.extendProxies / batchOf(side));
					const budget = (2 + batches) * rtt + 50;
					const took = med(r);
					const miss =
						took <= budget
							? ''
							: ` Missed by ${ms(took - budget)} ms: ${r.limited.some((n) => n > 0) ? `${limited(r)} answer 429: the model allows ${NETWORK_MODEL.rateLimit['POST /v1/proxies/allocate']!.limit} allocate requests a second, so batch ${NETWORK_MODEL.rateLimit['POST /v1/proxies/allocate']!.limit + 1} of ${batches} cannot be accepted before a second after the first, whatever the client does, and the node waits for the retry-after it is given (whole seconds); ` : ''}the node's own work on ${thousands(options.extendProxies)} items is measured by bench/breakdown.ts (with the name as an expression, n8n evaluates it once per item; Proxy From: Field reads it without).`;
					verdict(took <= budget, `Extend (network): ${SIDE_LABELS[side]}${side === 'node' || side === 'nodeField' ? `, Batch Size ${batchOf(side)}` : ''} took ${ms(took)} ms; target (2 + ${batches} batches) x ${rtt} ms + 50 ms = ${budget} ms.${miss}`);
				}
				const speedup = med(perItem) / med(node);
				verdict(
					Number.isFinite(speedup) ? speedup >= 20 : undefined,
					`Extend (network): the node (default Batch Size) is ${ratio(speedup)} faster than per-item HTTP Request paced under the rate limit (target: at least 20x)`,
				);
			}
		}

		if (options.only.includes('list')) {
			const node = find('list', model, 'node');
			const http = find('list', model, 'httpFilter');
			const bare = find('list', model, 'axios');
			const caseName = `List ${thousands(options.listProxies)} proxies, keep expiring within 24 h (${thousands(node?.items[0] ?? 0)} kept)`;
			const compared: Record<ListSide, string> = {
				node: `node / bare axios = ${ratio(med(node) / med(bare))}`,
				httpFilter: `HTTP Request / node = ${ratio(med(http) / med(node))}`,
				axios: 'baseline',
			};
			for (const side of LIST_SIDES) {
				const r = find('list', model, side);
				if (!r) continue;
				rows.push([caseName, MODEL_LABELS[model], SIDE_LABELS[side], ...timing(r), sameOrRange(r.requests), limited(r), compared[side], ...memory(r)]);
			}
			const overhead = med(node) / med(bare);
			const listMiss =
				overhead <= 1.2
					? ''
					: ` Missed: beyond the bare fetch the node runs n8n's own HTTP helper, checks every record of the reply before using it (the response check under Breakdown), filters and builds one n8n item per proxy kept; see Breakdown for the stages measured in one process, where the spread between runs is as large as the gap (min-max above).`;
			verdict(Number.isFinite(overhead) ? overhead <= 1.2 : undefined, `List (${model}): the node takes ${ratio(overhead)} the time of a bare axios GET + JSON.parse + filter (target: within 1.2x).${listMiss}`);
		}

		if (options.only.includes('trigger')) {
			let allFlat = true;
			const sizeVerdicts: Array<[boolean, string]> = [];
			for (const event of TRIGGER_EVENTS) {
				const r = find('trigger', model, event);
				if (!r) continue;
				const beyond = median(r.beyondFetch ?? []);
				const own = median(r.ownWork ?? []);
				const [ownLow, ownHigh] = quartiles(r.ownWork ?? []);
				const [beyondLow, beyondHigh] = quartiles(r.beyondFetch ?? []);
				const sizes = [...(r.staticBytes ?? new Map<number, number>())];
				const last = sizes[sizes.length - 1]?.[1] ?? Number.NaN;
				const fresh = r.freshBaselineBytes ?? Number.NaN;
				if (!(last <= fresh * 1.01)) allFlat = false;
				const population = event === 'stockChanged' ? `${thousands(options.triggerCities)} cities` : `${thousands(options.triggerProxies)} proxies`;
				// Bytes a city (Stock Changed) or a proxy (every other event) after the last poll.
				const each = event === 'stockChanged' ? options.triggerCities : options.triggerProxies;
				const perEntry = last / each;
				const unit = event === 'stockChanged' ? 'city' : 'proxy';
				sizeVerdicts.push([perEntry <= 100, `${SIDE_LABELS[event]}: ${kb(last)} after ${sizes[sizes.length - 1]?.[0]} polls, ${perEntry.toFixed(1)} B a ${unit}`]);
				rows.push([
					`Trigger poll, ${SIDE_LABELS[event]} (${population})`,
					MODEL_LABELS[model],
					`poll (${r.times.length} polls after the baseline, ${r.items.reduce((a, b) => a + b, 0)} events)`,
					...timing(r),
					`${sameOrRange(r.requests)} per poll`,
					limited(r),
					`own work ${ms(own)} ms (quartiles ${ms(ownLow)}–${ms(ownHigh)}); beyond the bare fetch ${ms(beyond)} ms (quartiles ${ms(beyondLow)}–${ms(beyondHigh)}); static data after ${sizes.map(([n]) => n).join(' / ')} polls: ${sizes.map(([, bytes]) => kb(bytes)).join(' / ')} (a new trigger's baseline then: ${kb(fresh)}; ${perEntry.toFixed(1)} B a ${unit})`,
					...memory(r),
				]);
				const readsByName = PROXY_EVENTS.includes(event) ? ' (then the poll\'s reads by name, if any)' : '';
				rows.push(['', '', `bare axios GET ${triggerPath(event)} + JSON.parse${readsByName}, same process`, ms(median(r.fetchTimes ?? [])), `${ms(min(r.fetchTimes ?? []))}–${ms(max(r.fetchTimes ?? []))}`, 'as the poll', '', 'baseline', '', '']);
				if (PROXY_EVENTS.includes(event)) {
					const helper = median(r.helperBeyond ?? []);
					const measures = `Beyond a separate bare fetch (the measure until issue 36): ${ms(beyond)} ms, quartiles ${ms(beyondLow)} to ${ms(beyondHigh)} ms; n8n's HTTP helper took ${ms(helper)} ms more than the same bare GETs (median).`;
					const theirs = r.againstOwn ?? [];
					const paired = theirs.length > 0 ? (r.ownWork ?? []).map((mine, i) => mine - theirs[i]) : [];
					const [pairedLow, pairedHigh] = quartiles(paired);
					const against =
						paired.length > 0
							? ` Against ${codeVersion(options.against)} at the same ${paired.length} polls, in turn: its own work ${ms(median(theirs))} ms; this minus it, poll by poll: ${ms(median(paired))} ms (median; quartiles ${ms(pairedLow)} to ${ms(pairedHigh)} ms).`
							: '';
					verdict(
						own < 10,
						`Trigger (${model}): ${SIDE_LABELS[event]}, the poll's own work at ${thousands(options.triggerProxies)} proxies: ${ms(own)} ms (median of ${r.ownWork?.length ?? 0} polls, quartiles ${ms(ownLow)} to ${ms(ownHigh)} ms; target: under 10 ms): the poll's time less its time in n8n's HTTP helper and in JSON.parse of the helper's replies, in the same poll. ${measures}${against}`,
					);
				}
			}
			verdict(
				sizeVerdicts.length > 0 && sizeVerdicts.every(([ok]) => ok),
				`Trigger (${model}): static data at most 100 bytes a proxy (${thousands(options.triggerProxies)} proxies) or a city (${thousands(options.triggerCities)} cities) for every event (issue 27): ${sizeVerdicts.map(([, text]) => text).join('; ')}`,
			);
			verdict(
				allFlat,
				`Trigger (${model}): static data ${allFlat ? 'does not grow' : 'GROWS'} with the number of polls (for every event, after the last poll it is no larger than what a new trigger records as its baseline over the same account, +1%)`,
			);
		}

		if (options.only.includes('rotate')) {
			const node = find('rotate', model, 'nodeRotate');
			const http = find('rotate', model, 'httpRotatePerItem');
			const caseName = `Rotate IP of ${thousands(options.rotateProxies)} proxies`;
			for (const side of ROTATE_SIDES) {
				const r = find('rotate', model, side);
				if (!r) continue;
				const label =
					side === 'httpRotatePerItem'
						? `${SIDE_LABELS[side]}, ${model === 'network' ? `Batching ${pacingText(pacingFor(model, 'POST /v1/proxies/changeip/:name'))}` : "all at once (n8n's default)"}`
						: SIDE_LABELS[side];
				rows.push([caseName, MODEL_LABELS[model], label, ...timing(r), sameOrRange(r.requests), limited(r), side === 'nodeRotate' ? `HTTP Request / node = ${ratio(med(http) / med(node))}` : 'baseline', ...memory(r)]);
			}
			if (model === 'network' && node && http) {
				const slower = med(node) / med(http);
				const most429 = Math.max(...node.limited);
				verdict(
					slower <= 1.05 && most429 === 0,
					`Rotate IP (network): the node takes ${ratio(slower)} the time of HTTP Request paced with n8n's batching (target: within 1.05x, issue 26), with ${thousands(most429)} answers 429 per run (target: none, its RateLimit-* headers pace it from the first reply)`,
				);
			}
		}
	}

	const merged = options.write && !options.smoke ? keptFromResults(rows, verdicts, options) : { rows, verdicts, kept: '' };
	const table = markdownTable(
		['Case', 'Model', 'Side', 'Median ms', 'Min–max ms', 'HTTP requests per run', '429s per run', 'Compared', 'Peak RSS MB', 'RSS growth MB'],
		merged.rows,
		['l', 'l', 'l', 'r', 'r', 'l', 'r', 'l', 'r', 'r'],
	);
	return { table, verdicts: merged.verdicts, kept: merged.kept };
}

/** How a case's rows and verdicts begin in bench/RESULTS.md. */
const CASE_PREFIXES: Record<CaseId, { row: string; verdict: string }> = {
	extend: { row: 'Extend ', verdict: 'Extend (' },
	list: { row: 'List ', verdict: 'List (' },
	trigger: { row: 'Trigger poll', verdict: 'Trigger (' },
	rotate: { row: 'Rotate IP', verdict: 'Rotate IP (' },
};

/**
 * `--write` with `--only` some cases (full sizes): the rows and target lines of the other cases are
 * kept from bench/RESULTS.md as it is (each model, then each case, in the usual order), so that one
 * case can be measured again without the others; `kept` says which were kept.
 */
function keptFromResults(rows: string[][], verdicts: Verdict[], options: Options): { rows: string[][]; verdicts: Verdict[]; kept: string } {
	const unmeasured = MODELS.filter((model) => !options.models.includes(model));
	const others = CASES.flatMap((caseId) =>
		!options.only.includes(caseId) ? [caseId] : unmeasured.map((model) => `${caseId} (${model})`),
	);
	if (others.length === 0) return { rows, verdicts, kept: '' };
	let text = '';
	try {
		text = readFileSync(join(__dirname, 'RESULTS.md'), 'utf8');
	} catch {
		return { rows, verdicts, kept: '' };
	}
	const section = (title: string) => text.split(`## ${title}`)[1]?.split('\n## ')[0] ?? '';
	const caseOf = (first: string) => CASES.find((caseId) => first.startsWith(CASE_PREFIXES[caseId].row));
	const oldRows: Array<{ caseId?: CaseId; model: string; cells: string[] }> = [];
	for (const line of section('Results').split('\n').filter((l) => l.startsWith('| ')).slice(1)) {
		const cells = line.slice(2, -2).split(' | ').map((cell) => cell.trim());
		const last = oldRows[oldRows.length - 1];
		oldRows.push(cells[0] === '' && last ? { ...last, cells } : { caseId: caseOf(cells[0]), model: cells[1], cells });
	}
	const oldVerdicts = section('Targets (issues 14, 26 and 27)')
		.split('\n')
		.map((line) => /^- (MET|MISSED|n\/a): (.*)$/.exec(line))
		.filter((m): m is RegExpExecArray => m !== null)
		.map((m): Verdict => ({ met: m[1] === 'n/a' ? undefined : m[1] === 'MET', text: m[2] }));
	const modelOf = (label: string) => MODELS.find((model) => label === MODEL_LABELS[model]);
	const outRows: string[][] = [];
	const outVerdicts: Verdict[] = [];
	let model: Model | undefined;
	const newRows = rows.map((cells) => ((model = cells[1] === '' ? model : modelOf(cells[1])), { model, caseId: cells[0] === '' ? undefined : caseOf(cells[0]), cells }));
	let caseId: CaseId | undefined;
	for (const row of newRows) row.caseId = caseId = row.caseId ?? caseId;
	for (const m of MODELS) {
		for (const c of CASES) {
			const fresh = options.only.includes(c) && options.models.includes(m);
			outRows.push(...(fresh ? newRows.filter((r) => r.model === m && r.caseId === c) : oldRows.filter((r) => modelOf(r.model) === m && r.caseId === c)).map((r) => r.cells));
			const prefix = `${CASE_PREFIXES[c].verdict}${m}`;
			outVerdicts.push(...(fresh ? verdicts : oldVerdicts).filter((v) => v.text.startsWith(prefix)));
		}
	}
	return { rows: outRows, verdicts: outVerdicts, kept: others.join(', ') };
}

function pacingText(pacing: Pacing | undefined): string {
	return pacing ? `${pacing.itemsPerBatch} items per ${thousands(pacing.intervalMs)} ms` : 'none';
}

/** The commit of a checkout (this one by default), and whether its shipped code has changes. */
function codeVersion(checkout = join(__dirname, '..')): string {
	const git = (args: string[]) => {
		try {
			return execFileSync('git', args, { cwd: checkout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
		} catch {
			return undefined;
		}
	};
	const commit = git(['rev-parse', '--short', 'HEAD']);
	if (!commit) return 'not a git checkout';
	const changed = (git(['status', '--porcelain', '--', 'nodes', 'credentials']) ?? '').split('\n').filter((line) => line.trim() !== '').length;
	return `commit ${commit}${changed > 0 ? ` with uncommitted changes in ${changed} file(s) of nodes/ or credentials/` : ''}`;
}

/** The 1-minute load average, e.g. `0.12`. */
function load(): string {
	return loadavg()[0].toFixed(2);
}

function machine(installDir: string, loads: { start: string; end: string }, against?: string): string[] {
	const run = (command: string, args: string[]) => {
		try {
			return execFileSync(command, args, { encoding: 'utf8' }).replace(/\s+$/, '');
		} catch {
			return undefined;
		}
	};
	const version = (dir: string, pkg: string) => {
		try {
			return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
		} catch {
			return 'unknown';
		}
	};
	const project = join(__dirname, '..');
	return [
		`CPU: ${run('nproc', []) ?? cpus().length} cores (nproc), ${cpus()[0]?.model ?? 'unknown model'}`,
		`Memory (free -h):\n\n\`\`\`\n${run('free', ['-h']) ?? `${(totalmem() / 1024 ** 3).toFixed(1)} GiB total`}\n\`\`\``,
		`Node.js ${process.version} (${process.platform} ${process.arch})`,
		`Engine: n8n-core ${version(project, 'n8n-core')}, n8n-workflow ${version(project, 'n8n-workflow')} (the project's, WorkflowExecute)`,
		`Baseline nodes: n8n-nodes-base ${version(installDir, 'n8n-nodes-base')} from n8n ${version(installDir, 'n8n')} (${installDir})`,
		`Code measured: ${codeVersion()}${against ? `; trigger polls in turn with ${codeVersion(against)} (\`--against\`)` : ''}`,
		`Load average (1 min) when the run started: ${loads.start}; when it ended: ${loads.end} (other work on the machine inflates the timings, the slower sides most)`,
	];
}

/** What each model of the service is, with the rate limits and where each comes from. */
function models(): string[] {
	const limits = Object.entries(NETWORK_MODEL.rateLimit)
		.map(([route, rule]) => `${route} ${rule!.limit} per ${thousands(rule!.windowMs)} ms`)
		.join('; ');
	return [
		'loopback: the simulator as it is, on 127.0.0.1: no latency, no rate limits.',
		`network: every reply waits a round trip of ${NETWORK_MODEL.network.latencyMs} ms ± ${NETWORK_MODEL.network.jitterMs} ms (uniform jitter), and each API key has per-endpoint rate limits answered with 429 and \`retry-after\` (seconds until the window frees): ${limits}. These numbers are not published (account-operations.md says only that limits differ per endpoint and answer 429); they are chosen as plausible for a small API. The per-proxy throttles that are published (an IP change once a minute, a reboot once per 5 minutes) apply in both models (test/simulator/network-model.ts).`,
		'Per-item HTTP Request under the network model uses n8n\'s own batching options (Options > Batching: items per batch, batch interval), set as a careful user would: the endpoint\'s limit per batch, and its window plus 10% between batches. Measured once (it takes minutes at 1,000 items); under loopback it sends everything at once, n8n\'s default.',
	];
}

function method(options: Options): string[] {
	return [
		`Simulator: the package's own (test/simulator), seed ${SEED}, in the parent process on 127.0.0.1; each side runs in its own worker process (ts-node), so the simulator's work runs on the other core.`,
		`Each side: ${options.warmup} warm-up run(s), then ${options.runs} timed runs, in rounds (each round runs every side of the case once, the first side rotating), so that other load on the machine falls on all sides alike; the median, min and max of the time from \`runWorkflow\` called to its end (\`process.hrtime.bigint()\`). The account is reset before every run (expiry dates, a wallet of ${thousands(BALANCE)}, request log and ledger).`,
		'HTTP requests: counted by the simulator for each run, by route.',
		`Extend: Manual Trigger items \`{proxy_name}\` for every proxy of an account of ${thousands(options.extendProxies)} proxies, one week each. The node reads the proxy list before and after extending. HTTP Request (typeVersion 4.2, no credential, \`Authorization: Bearer\` header) sends the same body shape \`{"proxies":{"time":[{proxy_name, interval, period}]}}\`: one line per request per item (n8n sends them all at once, its default), or every line after an Aggregate of \`proxy_name\`. Every run checks that every proxy was charged once.`,
		`List: the node's Get Many with Return All and Filters > Expiring Within 24 h (Simplify on, its default); HTTP Request \`GET /v1/proxies\` -> Split Out \`data\` -> Filter (typeVersion 2.2) \`expires_at\` before or at \`$now.plus({hours: 24})\`; axios ${'`'}GET${'`'} with the body as text, \`JSON.parse\`, \`Array.filter\` on \`Date.parse(expires_at)\`. Every run checks that all three keep the same proxies.`,
		`Trigger: n8n-core's PollContext over one Workflow (test/harness PollHarness), ${options.polls} scheduled polls per event, a fresh account each: ${thousands(options.triggerProxies)} proxies, ${thousands(options.triggerCities)} cities. Between polls the simulator's clock moves 5 minutes, 5 stock counts and 5 network statuses change, one proxy is replaced by a new one, and proxies within a day of expiry among 5 picked are extended. The first poll (the baseline) is not timed. "Own work" (the target, issue 36) is measured inside each poll: n8n's httpRequestWithAuthentication is wrapped on the poll's own context and timed (credentials, the request, the server, the reply as text), and so is JSON.parse of the bodies it returned; own work is the poll's time less both, so the server's and the transfer's time, which vary from request to request by tens of milliseconds, are not in it. Each poll is also preceded by a bare axios GET + JSON.parse of the same endpoint in the same process; when the poll also reads proxies by name (to confirm a removal, issue 36: here one a poll, the proxy replaced), the same reads are then made bare after it and added to the fetch time. "Beyond the bare fetch" is the median of (poll time - that fetch time), the measure until issue 36: on a machine where one list fetch varies by tens of milliseconds, its quartiles lie some 20 ms apart. With \`--against DIR\` another checkout (its bench/ files as this one's, its own nodes/) runs its own trigger in a second worker over the same account, polled right before or after this one (in turn), and the line gives the difference of own work poll by poll.`,
		`Rotate IP: ${thousands(options.rotateProxies)} proxies, Manual Trigger items \`{proxy_name}\`: the node's Proxy > Rotate IP with its defaults (5 at a time, a 429 waited for once per proxy, not waiting for the new IP) against HTTP Request \`POST /v1/proxies/changeip/{{ $json.proxy_name }}\` per item. Before each run the simulator's clock moves past every proxy's once-a-minute limit. Every run checks that every proxy's IP change was accepted once. Under the network model: 3 timed runs each, no warm-up.`,
		'429s per run: answers with status 429 in the simulator\'s request log for that run (a 429 that was waited for and retried counts once per answer).',
		'Memory: each worker loads the same modules (the package, n8n-core, the n8n-nodes-base nodes) before it starts; Peak RSS is the worker\'s `process.resourceUsage().maxRSS` after all its runs; RSS growth is that peak minus its RSS once loaded (after a GC).',
	];
}

// ----- main ------------------------------------------------------------------------------------

async function main() {
	const options = parseOptions(process.argv.slice(2));
	const command = `npm run ${options.smoke ? 'bench:smoke' : 'bench'}${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
	let installDir = findN8nInstall();
	if (!installDir) {
		log(`n8n ${N8N_VERSION} is not installed in the cache yet: installing it (about 5 minutes, 3 GB; once)`);
		installDir = await ensureN8nInstall((line) => log(line));
	}
	const loads = { start: load(), end: '' };
	if (Number(loads.start) > cpus().length / 2) {
		log(`the machine is busy (load average ${loads.start} on ${cpus().length} cores): timings will be inflated and noisy`);
	}
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-proxy-account-bench-'));
	const context: Context = { options, installDir, userFolder };
	const started = Date.now();
	const results: SideResult[] = [];
	try {
		for (const model of options.models) {
			if (options.only.includes('extend')) results.push(...(await measureExtend(context, model)));
			if (options.only.includes('list')) results.push(...(await measureList(context, model)));
			if (options.only.includes('trigger')) results.push(...(await measureTrigger(context, model)));
			if (options.only.includes('rotate')) results.push(...(await measureRotate(context, model)));
		}
	} finally {
		rmSync(userFolder, { recursive: true, force: true });
	}
	loads.end = load();
	// The node's stages, for the misses: bench/breakdown.ts in its own process (about 2 minutes).
	let breakdown: string | undefined;
	if (options.write && !options.smoke) {
		log('stage-by-stage breakdown (bench/breakdown.ts)');
		breakdown = execFileSync(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), join(__dirname, 'breakdown.ts'), '--runs', '9'], {
			env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' },
			encoding: 'utf8',
			maxBuffer: 10 * 1024 * 1024,
		}).trim();
	}
	const { table, verdicts, kept } = report(results, options);
	const verdictLines = verdicts.map((v) => `- ${options.smoke ? 'not judged at smoke sizes' : v.met === undefined ? 'n/a' : v.met ? 'MET' : 'MISSED'}: ${v.text}`);
	console.log(`\n${table}\n\nTargets:\n${verdictLines.join('\n')}\n`);
	log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
	if (options.write) {
		const file = join(__dirname, 'RESULTS.md');
		const text = [
			'# Benchmark results',
			'',
			`Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (${((Date.now() - started) / 1000).toFixed(0)} s). Sizes: ${options.smoke ? 'smoke (tiny)' : 'full'}.${kept ? ` The rows and targets of ${kept} are kept from the run before (its date, commit and machine load are not those below).` : ''}`,
			'',
			'## Results',
			'',
			table,
			'',
			'## Targets (issues 14, 26 and 27)',
			'',
			...verdictLines,
			'',
			...(breakdown
				? [
						'## Breakdown',
						'',
						'`npx ts-node --transpile-only --prefer-ts-exts bench/breakdown.ts --runs 9`, run right after the table above, in one process against the simulator (10,000 proxies, 1,000 cities; 1,000 proxies for Extend, loopback): medians of 9.',
						'',
						'```',
						breakdown,
						'```',
						'',
					]
				: []),
			'## Models',
			'',
			...models().map((line) => `- ${line}`),
			'',
			'## Machine',
			'',
			...machine(installDir, loads, options.against).map((line) => `- ${line.replace(/\n/g, '\n  ')}`),
			'',
			'## Method',
			'',
			...method(options).map((line) => `- ${line}`),
			'',
			'',
		].join('\n');
		writeFileSync(file, text);
		log(`wrote ${file}`);
		// The docs quote their figures from it (bench/figures.ts, test/unit/docs-figures.test.ts).
		if (!options.smoke) log(`docs figures filled in: ${writeDocFigures().join(', ') || 'none changed'}`);
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
		process.exit(1);
	},
);
