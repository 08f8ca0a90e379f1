/**
 * Load: 50 workflow executions at once against one simulator (two accounts, five kinds of run), and
 * 10,000 Extend items in one execution. Every run must succeed, see only its own data, and the
 * charge ledger must hold exactly what was extended, once.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { capturedLogs, createHarness } from '../harness';
import type { NodeResult } from '../harness';
import { auditCell, Results, SecretAudit, withSim } from './support';

const results = new Results('load');
const audit = new SecretAudit();
const harness = createHarness();

results.plan(3);
afterAll(() => results.write());

results.declare('load', ['50 concurrent executions', '10,000 Extend items in one execution']);

const OTHER_KEY = `pa_live_${'b7'.repeat(16)}`;
const cents = (amount: number) => Math.round(amount * 100) / 100;
const sum = (amounts: number[]) => cents(amounts.reduce((a, b) => a + b, 0));

type Kind = 'extend' | 'dryRun' | 'list' | 'quote' | 'get';
const KINDS: Kind[] = ['extend', 'dryRun', 'list', 'quote', 'get'];

interface Execution {
	index: number;
	kind: Kind;
	apiKey: string;
	/** Proxies the run is about (extend, dry run: four each; get: one). */
	proxies: string[];
	interval: number;
	result?: NodeResult;
}

function parameters(e: Execution): Record<string, unknown> {
	const byName = { __rl: true, mode: 'name', value: '={{ $json.name }}' };
	switch (e.kind) {
		case 'extend':
		case 'dryRun':
			return { resource: 'proxy', operation: 'extend', proxyName: byName, interval: 1, period: 'weekly', options: e.kind === 'dryRun' ? { dryRun: true } : {} };
		case 'list':
			return { resource: 'proxy', operation: 'getAll', returnAll: true };
		case 'quote':
			return { resource: 'price', operation: 'quote', lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: e.interval, period: 'weekly' }] }, simplify: true };
		default:
			return { resource: 'proxy', operation: 'get', proxyName: byName };
	}
}

function inputs(e: Execution): IDataObject[] {
	return e.kind === 'list' || e.kind === 'quote' ? [{ run: e.index }] : e.proxies.map((name) => ({ name }));
}

const paired = (items: INodeExecutionData[]) => items.map((item) => (item.pairedItem as { item: number }).item);

describe('load', () => {
	it('50 concurrent executions (Extend, Extend Dry Run, Get Many, Quote, Get) over two accounts: all succeed, no cross-talk, the ledger exact', async () => {
		await results.cell(
			{
				table: 'load',
				row: '50 concurrent executions',
				column: 'run',
				scenario:
					'50 workflow executions started at once on one simulator: 10 each of Extend, Extend with Dry Run, Get Many, Quote and Get, alternating between two accounts (member and not); each Extend and Dry Run on 4 proxies of its own, each Quote with its own interval',
				expected:
					'all 50 succeed; each sees only its own account and inputs; the ledger holds exactly the 40 extended proxies, once each, charged to their own account at the Dry Run estimate; wallets move by exactly that',
			},
			async (obs) => {
				await withSim({ seed: 11, proxies: 200, cities: 10, balance: 1_000_000 }, async (sim) => {
					sim.addAccount({ apiKey: OTHER_KEY, balance: 1_000_000, member: false, proxies: 100 });
					audit.addSim(sim, [OTHER_KEY]);
					const keys = [sim.demoApiKey, OTHER_KEY];
					const namesOf = (apiKey: string) => [...sim.account(apiKey).proxies.keys()];
					const balances = keys.map((key) => sim.account(key).balance);
					// The price of one AT&T week in Austin for each account (members pay less): a quote's
					// total then tells which account's prices it was computed with.
					const unit = new Map<string, number>();
					for (const key of keys) {
						const quote = await harness.runNode(
							{ type: 'proxyAccount', parameters: { resource: 'price', operation: 'quote', lines: { line: [{ carrier: 'AT&T', city: 'Austin', interval: 1, period: 'weekly' }] }, simplify: true } },
							{ credentials: { baseUrl: sim.url, apiKey: key } },
						);
						unit.set(key, quote.items[0].json.line_total as number);
					}
					expect(unit.get(keys[0])).not.toBe(unit.get(keys[1]));
					sim.resetLogs();

					const executions: Execution[] = Array.from({ length: 50 }, (_, index) => {
						const kind = KINDS[index % 5];
						const apiKey = keys[Math.floor(index / 5) % 2];
						const round = Math.floor(index / 10);
						// An extension and the dry run next to it share their four proxies; every pair has its own.
						const slice = namesOf(apiKey).slice(round * 4, round * 4 + 4);
						const proxies = kind === 'get' ? [namesOf(apiKey)[60 + round]] : kind === 'extend' || kind === 'dryRun' ? slice : [];
						return { index, kind, apiKey, proxies, interval: index + 1 };
					});
					const started = Date.now();
					await Promise.all(
						executions.map(async (e) => {
							e.result = await harness.runNode(
								{ type: 'proxyAccount', parameters: parameters(e) },
								{ credentials: { baseUrl: sim.url, apiKey: e.apiKey }, items: inputs(e) },
							);
							audit.run(`concurrent #${e.index} ${e.kind}`, e.result);
						}),
					);
					const elapsed = Date.now() - started;
					obs.count(sim);
					const statuses = executions.map((e) => e.result?.status);
					obs.note(`${statuses.filter((s) => s === 'success').length}/50 succeeded in ${(elapsed / 1000).toFixed(1)} s`);
					obs.note(`ledger: ${sim.ledger.length} charges, ${new Set(sim.ledger.map((c) => `${c.apiKey}|${c.proxy_name}`)).size} distinct proxies`);

					expect(statuses).toEqual(executions.map(() => 'success'));
					let crossTalk = 0;
					const check = (condition: boolean) => {
						if (!condition) crossTalk += 1;
					};
					for (const e of executions) {
						const items = e.result!.items;
						const own = new Set(namesOf(e.apiKey));
						switch (e.kind) {
							case 'extend':
							case 'dryRun':
								check(JSON.stringify(items.map((item) => item.json.proxy_name)) === JSON.stringify(e.proxies));
								check(JSON.stringify(paired(items)) === JSON.stringify(e.proxies.map((_, i) => i)));
								check(items.every((item) => item.json.status === (e.kind === 'extend' ? 'extended' : 'dry_run')));
								break;
							case 'list':
								check(JSON.stringify(items.map((item) => item.json.proxy_name)) === JSON.stringify([...own]));
								break;
							case 'quote':
								check(items.length === 1 && items[0].json.interval === e.interval);
								check(items[0].json.line_total === cents(e.interval * unit.get(e.apiKey)!));
								break;
							default:
								check(items.length === 1 && items[0].json.proxy_name === e.proxies[0] && own.has(e.proxies[0]));
						}
					}
					obs.note(`${crossTalk} outputs that belong to another execution or account`);
					expect(crossTalk).toBe(0);

					// The ledger: each extended proxy once, on its own account, at the dry run's estimate.
					const extended = executions.filter((e) => e.kind === 'extend');
					const expected = extended.flatMap((e) => e.proxies.map((name) => `${e.apiKey}|${name}`)).sort();
					expect(sim.ledger.map((c) => `${c.apiKey}|${c.proxy_name}`).sort()).toEqual(expected);
					for (const e of extended) {
						const dry = executions[e.index + 1];
						expect(dry.kind).toBe('dryRun');
						expect(dry.proxies).toEqual(e.proxies);
						const charged = e.result!.items.map((item) => item.json.charged);
						expect(charged).toEqual(dry.result!.items.map((item) => item.json.estimated_cost));
						expect(charged).toEqual(e.proxies.map((name) => sim.ledger.find((c) => c.proxy_name === name && c.apiKey === e.apiKey)?.amount));
					}
					keys.forEach((key, k) => {
						const spent = sum(sim.ledger.filter((c) => c.apiKey === key).map((c) => c.amount));
						expect(cents(balances[k] - sim.account(key).balance)).toBe(spent);
					});
					obs.note(
						`wallets moved by ${keys.map((key, k) => cents(balances[k] - sim.account(key).balance)).join(' and ')}, the ledger sums of each account`,
					);
				});
			},
		);
	});

	it('10,000 Extend items in one execution: all extended, each charged once, the ledger and the wallet exact', async () => {
		await results.cell(
			{
				table: 'load',
				row: '10,000 Extend items in one execution',
				column: 'run',
				scenario: 'one workflow execution: 10,000 input items, one proxy each, Extend 1 week, default Batch Size (100)',
				expected:
					'success; 10,000 output items paired in order, all extended; 100 extension requests of 100; the ledger holds each proxy exactly once; the sum charged equals the wallet change',
			},
			async (obs) => {
				await withSim({ seed: 12, proxies: 10_000, cities: 20, balance: 100_000_000 }, async (sim) => {
					audit.addSim(sim);
					const names = [...sim.account().proxies.keys()];
					const balance = sim.account().balance;
					const started = Date.now();
					const result = await harness.runNode(
						{
							type: 'proxyAccount',
							parameters: {
								resource: 'proxy',
								operation: 'extend',
								proxyName: { __rl: true, mode: 'name', value: '={{ $json.name }}' },
								interval: 1,
								period: 'weekly',
							},
						},
						{ credentials: { baseUrl: sim.url, apiKey: sim.demoApiKey }, items: names.map((name) => ({ name })) },
					);
					const elapsed = Date.now() - started;
					audit.run('10,000 items', result);
					obs.count(sim);
					const allocates = sim.requests.filter((r) => r.route === 'POST /v1/proxies/allocate');
					obs.note(
						`${result.status} in ${(elapsed / 1000).toFixed(1)} s; ${result.items.length} items; ${allocates.length} extension requests; ${sim.ledger.length} charges`,
					);

					expect(result.status).toBe('success');
					expect(result.items).toHaveLength(10_000);
					expect(paired(result.items)).toEqual(names.map((_, i) => i));
					expect(result.items.map((item) => item.json.proxy_name)).toEqual(names);
					expect(result.items.every((item) => item.json.status === 'extended')).toBe(true);
					expect(allocates).toHaveLength(100);
					expect(allocates.every((r) => (r.body as { proxies: { time: unknown[] } }).proxies.time.length === 100)).toBe(true);
					expect(sim.requests.filter((r) => r.route === 'GET /v1/proxies')).toHaveLength(2);

					const ledgerNames = sim.ledger.map((c) => c.proxy_name);
					expect(ledgerNames).toHaveLength(10_000);
					expect(new Set(ledgerNames).size).toBe(10_000);
					expect([...ledgerNames].sort()).toEqual([...names].sort());
					const amount = new Map(sim.ledger.map((c) => [c.proxy_name, c.amount]));
					expect(result.items.every((item) => item.json.charged === amount.get(item.json.proxy_name as string))).toBe(true);
					expect(result.items.every((item) => item.json.new_expires_at === sim.account().proxies.get(item.json.proxy_name as string)?.expires_at)).toBe(true);
					const charged = sum(result.items.map((item) => item.json.charged as number));
					expect(charged).toBe(sum(sim.ledger.map((c) => c.amount)));
					expect(cents(balance - sim.account().balance)).toBe(charged);
					obs.note(`charged ${charged} in all = the ledger's sum = the wallet's change`);
				});
			},
		);
	});

	it('secret audit of this file: no API key, no password that was not asked for', async () => {
		await auditCell(results, audit, capturedLogs, 'the load runs');
	});
});
