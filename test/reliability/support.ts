/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test tooling that writes the reliability results to disk; never shipped */
/**
 * Shared machinery of the reliability suite: one simulator per cell, a results collector that
 * writes what each cell expected and observed to `test/reliability/.results/<file>.json` (the
 * input of `report.mjs`, which renders docs/RELIABILITY.md), and the secret audit every run and
 * poll of the suite goes through.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import type { NodeResult, WorkflowResult } from '../harness';
import type { LogLine } from '../harness/logger';
import { ProxyAccountSimulator } from '../simulator';
import type { SimulatorOptions } from '../simulator';

export const RESULTS_DIR = join(__dirname, '.results');

export type TableId = 'fault-matrix' | 'guards' | 'bad-input' | 'bad-input-sweep' | 'secret-audit' | 'load' | 'randomized';

export interface CellMeta {
	table: TableId;
	/** Row of the table, e.g. `Proxy > Get` or the parameter of a bad input. */
	row: string;
	/** Column, e.g. `500`; for tables without columns, the case. */
	column: string;
	/** What was done. */
	scenario: string;
	/** What must happen. */
	expected: string;
	/** A few words for a grid cell, e.g. `ok · 2 req`. */
	short?: string;
}

export interface CellResult extends CellMeta {
	observed: string;
	/** API requests the simulator received during the cell (setup excluded). */
	requests: number;
	/** Charge ledger entries written during the cell. */
	charges: number;
	pass: boolean;
	ms: number;
	/** Figures a table totals (the secret audit's counts). */
	data?: Record<string, number>;
}

/** What a cell saw, filled in while it runs so a failing cell still reports what happened. */
export class Observation {
	requests = 0;

	charges = 0;

	private readonly notes: string[] = [];

	note(text: string): void {
		this.notes.push(text);
	}

	/** Adds the requests and charges of a simulator since its logs were last reset. */
	count(sim: ProxyAccountSimulator): void {
		this.requests += sim.requests.length;
		this.charges += sim.ledger.length;
	}

	text(error?: unknown): string {
		const failure = error === undefined ? '' : ` \u2014 NOT AS EXPECTED: ${firstLine(error)}`;
		return `${this.notes.join('; ')}${failure}`;
	}
}

function firstLine(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	// jest's messages carry ANSI colours and several lines; the table wants one plain line.
	// eslint-disable-next-line no-control-regex
	const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
	return plain.split('\n').filter((line) => line.trim() !== '').slice(0, 3).join(' ').slice(0, 300);
}

/** The cells of one test file, written to `.results/<file>.json` when the file is done. */
export class Results {
	readonly cells: CellResult[] = [];

	/** Row and column order of each table, as the file declares them. */
	readonly order: Record<string, { rows: string[]; columns: string[] }> = {};

	constructor(readonly file: string) {}

	declare(table: TableId, rows: string[], columns: string[] = []): void {
		this.order[table] = { rows, columns };
	}

	/** Runs one cell: `body` drives the nodes and asserts; the cell passes when it does not throw. */
	readonly startedAt = Date.now();

	/** Cells the file defines: a run filtered with `-t` writes fewer, and the report refuses it. */
	planned = 0;

	plan(cells: number): void {
		this.planned = cells;
	}

	async cell(meta: CellMeta, body: (obs: Observation) => Promise<void>, data?: () => Record<string, number>): Promise<void> {
		const obs = new Observation();
		const started = performance.now();
		let error: unknown;
		try {
			await body(obs);
		} catch (caught) {
			error = caught ?? new Error('failed');
		}
		this.cells.push({
			...meta,
			observed: obs.text(error),
			requests: obs.requests,
			charges: obs.charges,
			pass: error === undefined,
			ms: performance.now() - started,
			...(data ? { data: data() } : {}),
		});
		if (error !== undefined) throw error;
	}

	write(): void {
		mkdirSync(RESULTS_DIR, { recursive: true });
		const payload = {
			file: this.file,
			startedAt: this.startedAt,
			finishedAt: Date.now(),
			planned: this.planned,
			order: this.order,
			cells: this.cells,
		};
		writeFileSync(join(RESULTS_DIR, `${this.file}.json`), `${JSON.stringify(payload, null, 1)}\n`);
	}
}

/** A simulator for one cell, stopped whatever happens. */
export async function withSim<T>(options: SimulatorOptions, work: (sim: ProxyAccountSimulator) => Promise<T>): Promise<T> {
	const sim = await ProxyAccountSimulator.start({ seed: 3, frozenClock: true, balance: 1_000_000, ...options });
	try {
		return await work(sim);
	} finally {
		await sim.stop();
	}
}

// ----- secret audit ---------------------------------------------------------------------------------

export interface AuditCounts extends Record<string, number> {
	runs: number;
	polls: number;
	items: number;
	errorMessages: number;
	errorDescriptions: number;
	logLines: number;
	keys: number;
	passwords: number;
}

export interface Finding {
	where: string;
	secret: 'API key' | 'password';
}

/** Serializes anything, errors and circular structures included, for scanning. */
function scannable(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		const text = JSON.stringify(value, (_key, inner: unknown) => {
			if (inner instanceof Error) {
				// Message, description, cause and stack, enumerable or not.
				const own = inner as unknown as Record<string, unknown>;
				return { ...own, message: inner.message, description: own.description, cause: own.cause, stack: inner.stack };
			}
			if (typeof inner === 'object' && inner !== null) {
				if (seen.has(inner)) return '[circular]';
				seen.add(inner);
			}
			return inner;
		});
		return text ?? '';
	} catch {
		return String(value);
	}
}

/**
 * Collects every text a user or an operator could see (output items, error messages and
 * descriptions, the whole run data n8n stores, log lines) and scans it for API keys and for proxy
 * passwords that were not asked for.
 */
export class SecretAudit {
	readonly counts: AuditCounts = { runs: 0, polls: 0, items: 0, errorMessages: 0, errorDescriptions: 0, logLines: 0, keys: 0, passwords: 0 };

	readonly findings: Finding[] = [];

	private readonly keys = new Set<string>();

	private readonly passwords = new Set<string>();

	/** An API key (also each piece of it a line break or a space would cut it into). */
	addKey(key: string): void {
		for (const piece of [key, key.trim(), ...key.split(/\s+/)]) {
			if (piece.length >= 8 && !this.keys.has(piece)) {
				this.keys.add(piece);
				this.counts.keys += 1;
			}
		}
	}

	/** Every API key and proxy password of the simulator's demo account and of the other accounts named. */
	addSim(sim: ProxyAccountSimulator, otherKeys: string[] = []): void {
		for (const apiKey of [sim.demoApiKey, ...otherKeys]) {
			const account = sim.account(apiKey);
			this.addKey(account.apiKey);
			for (const proxy of account.proxies.values()) {
				if (proxy.password.length >= 8 && !this.passwords.has(proxy.password)) {
					this.passwords.add(proxy.password);
					this.counts.passwords += 1;
				}
			}
		}
	}

	private scan(where: string, text: string, passwordsAllowed: boolean): void {
		for (const key of this.keys) if (text.includes(key)) this.findings.push({ where, secret: 'API key' });
		if (passwordsAllowed || this.passwords.size === 0) return;
		// Thousands of passwords against megabytes of output: one pass per password length, each
		// window looked up in the set, instead of one search per password.
		const lengths = new Set([...this.passwords].map((password) => password.length));
		for (const length of lengths) {
			for (let i = 0; i + length <= text.length; i++) {
				if (this.passwords.has(text.slice(i, i + length))) {
					this.findings.push({ where, secret: 'password' });
					return;
				}
			}
		}
	}

	/** Any text a user or an operator could see (e.g. `visibleText` of a result, a log line). */
	scanText(where: string, text: string, passwordsAllowed = false): void {
		this.scan(where, text, passwordsAllowed);
	}

	/** A workflow run: every node's output and error as n8n stores them, and the run's error. */
	run(label: string, result: WorkflowResult | NodeResult, options: { passwordsAllowed?: boolean } = {}): void {
		this.counts.runs += 1;
		const runData = result.run.data.resultData.runData;
		for (const runs of Object.values(runData)) {
			for (const taskData of runs) {
				for (const output of taskData.data?.main ?? []) this.items(output ?? []);
				if (taskData.error) this.error(taskData.error);
			}
		}
		if (result.error) this.error(result.error);
		this.scan(label, scannable(result.run.data.resultData), options.passwordsAllowed === true);
		this.scan(label, scannable(result.error), options.passwordsAllowed === true);
	}

	/** A run n8n refused to start: what it threw. */
	refused(label: string, error: unknown): void {
		this.counts.runs += 1;
		this.error(error);
		this.scan(label, scannable(error), false);
	}

	/** A trigger poll: what it returned or what it threw. */
	poll(label: string, output: INodeExecutionData[][] | null, error?: unknown, options: { passwordsAllowed?: boolean } = {}): void {
		this.counts.polls += 1;
		for (const items of output ?? []) this.items(items);
		if (error !== undefined) this.error(error);
		this.scan(label, scannable(output), options.passwordsAllowed === true);
		if (error !== undefined) this.scan(label, scannable(error), options.passwordsAllowed === true);
	}

	private items(items: INodeExecutionData[]): void {
		this.counts.items += items.length;
		for (const item of items) {
			if (item.json.error !== undefined) this.counts.errorMessages += 1;
			if (item.json.error !== undefined && item.json.message !== undefined) this.counts.errorDescriptions += 1;
		}
	}

	private error(error: unknown): void {
		const e = error as { message?: unknown; description?: unknown };
		if (typeof e?.message === 'string') this.counts.errorMessages += 1;
		if (typeof e?.description === 'string' && e.description !== '') this.counts.errorDescriptions += 1;
	}

	/** Every captured log line, scanned at the end of a file. */
	logs(lines: LogLine[]): void {
		this.counts.logLines = lines.length;
		lines.forEach((line, i) => this.scan(`log line ${i} (${line.level}: ${line.message})`, scannable(line), false));
	}

	/** Whether the scanner finds a planted key and password: an audit that cannot fail proves nothing. */
	selfTest(): boolean {
		const key = [...this.keys][0];
		const password = [...this.passwords][0];
		if (key === undefined || password === undefined) return false;
		const probe = new SecretAudit();
		probe.addKey(key);
		probe.passwords.add(password);
		probe.scan('planted', `{"x":"…${key}…"}`, false);
		probe.scan('planted', `{"y":"${password}"}`, false);
		probe.scan('planted, allowed', `{"y":"${password}"}`, true);
		return probe.findings.length === 2;
	}
}

/** The audit's cell in the secret-audit table, written by each file at its end. */
export async function auditCell(results: Results, audit: SecretAudit, logs: LogLine[], scope: string): Promise<void> {
	audit.logs(logs);
	const c = audit.counts;
	await results.cell(
		{
			table: 'secret-audit',
			row: results.file,
			column: 'scan',
			scenario: `Every output item, error message, error description and stored run data of ${scope}, and every log line the nodes wrote`,
			expected: 'No API key and no proxy password that was not asked for (Include Password off)',
		},
		async (obs) => {
			obs.note(
				`${c.runs} runs, ${c.polls} polls, ${c.items} items, ${c.errorMessages} error messages, ${c.errorDescriptions} descriptions, ${c.logLines} log lines; searched for ${plural(c.keys, 'API key')} and ${plural(c.passwords, 'password')}: ${audit.findings.length} found`,
			);
			expect(audit.selfTest()).toBe(true);
			expect(c.runs + c.polls).toBeGreaterThan(0);
			expect(c.items + c.errorMessages).toBeGreaterThan(0);
			expect(audit.findings.slice(0, 5)).toEqual([]);
		},
		() => ({ ...c, findings: audit.findings.length }),
	);
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
