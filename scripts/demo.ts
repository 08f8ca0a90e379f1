/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- developer tooling run by Node from the command line (it starts the simulator and prints to the console); never shipped */
/**
 * npm run demo: the package's main job, end to end, on the embedded simulator.
 *
 * Starts the Proxy Account simulator, then runs the example workflows of examples/ through
 * n8n-core's WorkflowExecute (the nodes under their production type names, the credential's own
 * authentication) and prints what happened: a quote, a scheduled auto-extend run twice (it pays
 * once), and a stock alert from the polling trigger. n8n-core's user folder is a temporary one
 * (n8n-user-folder.ts, imported first): nothing is written into ~/.n8n.
 */
import './n8n-user-folder';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { ProxyAccountTrigger } from '../nodes/ProxyAccount/ProxyAccountTrigger.node';
import { createHarness, PollHarness } from '../test/harness';
import type { WorkflowResult } from '../test/harness';
import { ProxyAccountSimulator } from '../test/simulator';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

const EXAMPLES = join(__dirname, '..', 'examples');
const example = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as ExampleWorkflow;
const money = (amount: number) => `$${amount.toFixed(2)}`;
const line = (text = '') => console.log(text);
const heading = (text: string) => line(`\n== ${text} ${'='.repeat(Math.max(0, 70 - text.length))}`);

function failIfError(result: WorkflowResult, what: string) {
	if (result.status !== 'success') {
		const error = result.error as { message?: string; description?: string } | undefined;
		throw new Error(`${what} did not succeed: ${error?.message ?? result.status}${error?.description ? ` (${error.description})` : ''}`);
	}
}

async function main() {
	const sim = await ProxyAccountSimulator.start({ seed: 7, proxies: 12, cities: 8, balance: 1_000 });
	const harness = createHarness([new ProxyAccountTrigger()]);
	const credentials = { baseUrl: sim.url, apiKey: sim.demoApiKey };
	try {
		const account = sim.account();
		line(`Proxy Account simulator at ${sim.url}`);
		line(`Account: ${account.member ? 'member' : 'standard'} prices, ${account.proxies.size} proxies, wallet ${money(account.balance)}`);

		// 1. Quote calculator ---------------------------------------------------------------------
		heading('Quote calculator (examples/quote-calculator.json)');
		const quote = await harness.runWorkflow(example('quote-calculator.json'), { credentials });
		failIfError(quote, 'The quote calculator');
		for (const { json } of quote.output('Quote Three Proxies')) {
			line(
				`  ${String(json.interval).padStart(2)} x ${String(json.period).padEnd(8)} ${String(json.carrier).padEnd(9)} ${String(json.city).padEnd(10)}` +
					` unit ${money(json.unit_price as number).padStart(8)}  line ${money(json.line_total as number).padStart(8)}`,
			);
		}
		const [summary] = quote.output('Quote Summary');
		line(`  Total due ${money(summary.json.total_due as number)} (list price ${money(summary.json.total_standard as number)}, you save ${money(summary.json.you_save as number)})`);

		// 2. Scheduled auto-extend, run twice -----------------------------------------------------
		heading('Scheduled auto-extend (examples/scheduled-auto-extend.json)');
		const autoExtend = example('scheduled-auto-extend.json');
		const walletBefore = sim.account().balance;
		const first = await harness.runWorkflow(autoExtend, { credentials, mode: 'trigger', items: [{ timestamp: new Date().toISOString() }] });
		failIfError(first, 'The auto-extend run');
		const extended = first.output('Extend One Week').map((item) => item.json);
		line(`  Run 1: ${extended.length} proxies expiring within 24 hours`);
		for (const proxy of extended) {
			line(
				`    ${String(proxy.proxy_name).padEnd(18)} ${String(proxy.status).padEnd(8)} charged ${money((proxy.charged as number) ?? 0).padStart(8)}` +
					`  ${String(proxy.previous_expires_at)} -> ${String(proxy.new_expires_at)}`,
			);
		}
		line(`  Summary node: ${String(first.output('Summary')[0]?.json.summary)}`);
		line(`  Wallet: ${money(walletBefore)} -> ${money(sim.account().balance)} (charged ${money(walletBefore - sim.account().balance)})`);
		const chargesAfterFirst = sim.ledger.length;
		const second = await harness.runWorkflow(autoExtend, { credentials, mode: 'trigger', items: [{ timestamp: new Date().toISOString() }] });
		failIfError(second, 'The second auto-extend run');
		line(
			`  Run 2 (the schedule fires again): ${second.output('Proxies Expiring Within 24 Hours').length} proxies expiring, ` +
				`${sim.ledger.length - chargesAfterFirst} charged: a repeated run pays once`,
		);
		line(`  Summary node: ${String(second.output('Summary')[0]?.json.summary)}`);

		// 3. Stock alert from the polling trigger -------------------------------------------------
		heading('Stock alert (examples/stock-alert.json)');
		const alert = example('stock-alert.json');
		const triggerNode = alert.nodes.find((node) => node.type === 'n8n-nodes-proxy-account.proxyAccountTrigger')!;
		const poller = new PollHarness(harness, { type: 'proxyAccountTrigger', name: triggerNode.name, typeVersion: triggerNode.typeVersion, parameters: triggerNode.parameters }, credentials);
		const baseline = await poller.poll();
		line(`  Poll 1 (activation): baseline recorded, ${baseline === null ? 'no events' : `${baseline[0].length} events`}`);
		const soldOut = sim.stock.filter((city) => city.open && Object.values(city.counts).every((count) => count === 0));
		const restock = soldOut[0] ?? sim.stock[0];
		sim.setStockCount(restock.city, 'tmobile', 4);
		line(`  (stock changes: T-Mobile restocks ${restock.city} with 4 proxies)`);
		const polled = await poller.poll();
		const events = polled ? polled[0].map((item) => item.json as IDataObject) : [];
		line(`  Poll 2: ${events.length} event${events.length === 1 ? '' : 's'}`);
		if (events.length > 0) {
			const run = await harness.runWorkflow(alert, { credentials, mode: 'trigger', items: events });
			failIfError(run, 'The stock alert run');
			for (const { json } of run.output('Compose Alert')) line(`    ALERT: ${String(json.alert)}`);
		}
		const third = await poller.poll();
		line(`  Poll 3: ${third === null ? 'no events (nothing repeated)' : `${third[0].length} events`}`);

		heading('Done');
		line(`  ${sim.requests.length} requests to the service, ${sim.ledger.length} charges, wallet ${money(sim.account().balance)}`);
	} finally {
		await sim.stop();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
		process.exit(1);
	},
);
