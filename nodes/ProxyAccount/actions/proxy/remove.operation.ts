import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	proxyLocator,
	runWideOptionsCollection,
	RUN_WIDE_NOTE,
	sentOnceTimeoutOption,
} from '../../helpers/descriptions';
import { asNodeError } from '../../helpers/execution';
import { builderLimit } from '../../helpers/agent';
import { proxiesCount } from '../../helpers/charges';
import { agentRefusal, itemResults, proxyNotFound, retryRefusal } from '../../helpers/run';
import { runWideOptions, runWideParameter } from '../../helpers/runOptions';
import {
	isSet,
	parseBoolean,
	parseName,
	parseTimeoutSeconds,
	parseWholeNumber,
} from '../../helpers/validation';
import { DEFAULT_TIMEOUT_MS, listProxies, removeProxies } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'remove',
	name: 'Remove',
	description:
		'Remove proxies for good, their paid time included. Irreversible: needs the number of proxies confirmed.',
	action:
		'Remove proxies for good, destroying their paid time (only the number the builder confirmed)',
	subtitle: 'Remove Proxies',
};

/** Proxies per removal request. */
const BATCH_SIZE = 100;
const DEFAULT_TIMEOUT_SECONDS = 60;

export const properties: INodeProperties[] = [
	{
		displayName:
			'Removing is irreversible: the proxies and their paid time are gone, and nothing is refunded. Use Dry Run (in Options) to see what a run would remove.',
		name: 'removeNotice',
		type: 'notice',
		default: '',
	},
	proxyLocator('The proxy to remove. With several input items, each item names one proxy.'),
	{
		displayName: 'Confirm Number of Proxies',
		name: 'confirmCount',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		required: true,
		description: `How many different proxies this run removes, typed by you. The run is refused, and nothing removed, when it is not exactly that number. As an AI tool, only a number you type here counts, never one the agent fills in. ${RUN_WIDE_NOTE}.`,
	},
	runWideOptionsCollection([
		{
			displayName: 'Dry Run',
			name: 'dryRun',
			type: 'boolean',
			default: false,
			description: 'Whether to only return what would be removed, removing nothing',
		},
		sentOnceTimeoutOption(DEFAULT_TIMEOUT_SECONDS, 'A removal'),
	]),
];

/** What the service accepted before a batch failed: said in that batch's error and after it. */
function acceptedBefore(names: string[]): string {
	if (names.length === 0) return 'No earlier removal request of this run was sent.';
	const shown =
		names.slice(0, 20).join(', ') + (names.length > 20 ? ` and ${names.length - 20} more` : '');
	return `The service accepted the removal of ${proxiesCount(names.length)} earlier in this run: ${shown}.`;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const run = itemResults(this, items.length);

	// The options and the confirmation concern the whole run: the same for every item, naming none.
	let dryRun: boolean;
	let timeoutMs: number;
	let confirmed: number | undefined;
	try {
		const options = runWideOptions(this, items.length, properties);
		dryRun = isSet(options, 'dryRun')
			? parseBoolean(node, undefined, options.dryRun, 'Dry Run')
			: false;
		timeoutMs = parseTimeoutSeconds(node, undefined, options, DEFAULT_TIMEOUT_SECONDS);
		confirmed = builderLimit(
			this,
			'confirmCount',
			parseWholeNumber(
				node,
				undefined,
				runWideParameter(this, items.length, properties, 'confirmCount', undefined),
				'Confirm Number of Proxies',
				{ min: 0, max: 1_000_000 },
				'Enter how many different proxies this run removes, e.g. 3.',
			),
		);
	} catch (error) {
		return run.failAll(error);
	}
	// As an AI agent's tool, the confirmation counts only when the builder typed it.
	const refusal =
		retryRefusal(this, dryRun, {
			twice: 'send a removal twice',
			check: 'read the proxy list (Proxy Account > Get Many) to see what is gone',
		}) ??
		agentRefusal(
			this,
			dryRun || confirmed !== undefined
				? undefined
				: {
						operation: 'Remove',
						limit: 'Confirm Number of Proxies set by the workflow\u2019s builder',
						fix: 'Open the Proxy Account tool and type the number of proxies one call may remove into Confirm Number of Proxies (a value the agent fills in does not count). Or turn on Dry Run to let the agent only ask what a removal would take.',
					},
		);
	if (refusal) return run.failAll(refusal);

	// Every item's proxy, before anything is sent. A proxy named twice is removed once.
	const first = new Map<string, number>();
	const repeats: Array<{ item: number; name: string; first: number }> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const name = parseName(
				node,
				i,
				this.getNodeParameter('proxyName', i, '', { extractValue: true }),
				'Proxy',
				'PRX-US-AU1-0001',
			);
			const earlier = first.get(name);
			if (earlier === undefined) first.set(name, i);
			else repeats.push({ item: i, name, first: earlier });
		} catch (error) {
			run.fail(i, error);
		}
	}
	const finish = () => {
		for (const repeat of repeats) {
			const failure = run.failures.get(repeat.first);
			if (failure) run.fail(repeat.item, failure);
			else
				run.set(repeat.item, {
					proxy_name: repeat.name,
					status: 'skipped',
					reason: `same proxy as item ${repeat.first} of this run, which stands for both`,
				});
		}
		return run.output();
	};
	if (first.size === 0) return finish();

	// The confirmation: exactly the number of different proxies named (a Dry Run says what it must be).
	if (!dryRun && confirmed !== first.size) {
		const named = proxiesCount(first.size);
		const refused = new NodeOperationError(
			node,
			`Confirm Number of Proxies is ${confirmed}, but this run would remove ${named}`,
			{
				description: `Nothing was removed. Check the input items, then set Confirm Number of Proxies to ${first.size} to remove ${first.size === 1 ? 'this proxy' : `these ${named}`}.`,
			},
		);
		for (const item of first.values()) run.fail(item, refused);
		return finish();
	}

	// One read of the list: unknown names fail their own item, before anything is sent.
	const firstItem = [...first.values()][0];
	let known: Map<string, IDataObject>;
	try {
		const { proxies } = await listProxies(this, {
			itemIndex: firstItem,
			timeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
		});
		known = new Map(proxies.map((proxy) => [proxy.proxy_name, proxy as IDataObject]));
	} catch (error) {
		for (const item of first.values()) run.fail(item, error);
		return finish();
	}
	const planned: Array<{ name: string; item: number; record: IDataObject }> = [];
	for (const [name, item] of first) {
		const record = known.get(name);
		if (record) {
			planned.push({ name, item, record });
			continue;
		}
		run.fail(item, proxyNotFound(node, name, item, 'Nothing was removed for this item.'));
	}
	if (dryRun) {
		for (const p of planned) {
			run.set(p.item, {
				proxy_name: p.name,
				status: 'dry_run',
				would_remove: true,
				expires_at: p.record.expires_at ?? null,
				isp: p.record.isp ?? null,
				city: p.record.city ?? null,
				confirm_count_needed: first.size,
				note: `To remove ${first.size === 1 ? 'it' : `these ${proxiesCount(first.size)}`}, set Confirm Number of Proxies to ${first.size} and turn off Dry Run.`,
			});
		}
		return finish();
	}

	// Remove, batch by batch. A failed batch is never sent again, and no later batch is sent.
	const accepted: string[] = [];
	let stopped: NodeOperationError | undefined;
	for (let b = 0; b < planned.length; b += BATCH_SIZE) {
		const batch = planned.slice(b, b + BATCH_SIZE);
		if (stopped) {
			for (const p of batch) run.fail(p.item, stopped);
			continue;
		}
		try {
			await removeProxies(
				this,
				batch.map((p) => p.name),
				{ itemIndex: batch[0].item, timeoutMs },
			);
			for (const p of batch) {
				run.set(p.item, {
					proxy_name: p.name,
					status: 'removal_sent',
					note: 'The service accepted the removal; the proxy leaves the list shortly.',
				});
			}
			accepted.push(...batch.map((p) => p.name));
		} catch (error) {
			const failed = asNodeError(this, error, batch[0].item);
			const earlier = acceptedBefore(accepted);
			failed.description = [failed.description, earlier].filter(Boolean).join(' ');
			if (!run.continueOnFail) throw failed;
			for (const p of batch) run.fail(p.item, failed);
			stopped = new NodeOperationError(
				node,
				'Not sent: an earlier removal request of this run failed',
				{
					description: `Nothing was removed for this proxy. ${earlier} Read the proxy list (Proxy Account > Get Many) to see what the failed request removed before you run the removal again.`,
				},
			);
		}
	}
	return finish();
}
