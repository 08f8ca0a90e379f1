import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	asToolNotice,
	dryRunOption,
	proxyLocator,
	RUN_WIDE_NOTE,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	sentOnceTimeoutOption,
} from '../../helpers/descriptions';
import {
	asNodeError,
	agentRefusal,
	openRun,
	proxyNotFound,
	retryRefusal,
} from '../../helpers/itemLoop';
import { addToDescription, chunk, joinNames } from '../../helpers/batches';
import { proxiesCount, theseProxies } from '../../common/wording';
import type { ItemResults, Repeat } from '../../helpers/itemLoop';
import { readRunOptions, runWideParameter } from '../../helpers/runOptions';
import { parseWholeNumber } from '../../helpers/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'remove',
	name: 'Remove',
	description:
		'Remove proxies for good, their paid time included. Irreversible: needs the number of proxies confirmed.',
	action: 'Remove proxies (destroys paid time)',
	subtitle: 'Remove Proxies',
};

/** Proxies per removal request. */
const BATCH_SIZE = 100;

/** It destroys paid time: never on a made-up test event (see the registry). */
export const destroysPaidTime = true;

export const properties: INodeProperties[] = [
	{
		displayName:
			'Removing is irreversible: the proxies and their paid time are gone, and nothing is refunded. Use Dry Run (in Options) to see what a run would remove.',
		name: 'removeNotice',
		type: 'notice',
		default: '',
	},
	asToolNotice(
		'removeToolNotice',
		'Remove only previews (Dry Run); a removal is refused whatever Confirm Number of Proxies says.',
	),
	proxyLocator('The proxy to remove. With several input items, each item names one proxy.'),
	{
		displayName: 'Confirm Number of Proxies',
		name: 'confirmCount',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		required: true,
		description: `How many different proxies this run removes, typed by you. The run is refused, and nothing removed, when it is not exactly that number. As an AI agent's tool, Remove only previews (Dry Run). ${RUN_WIDE_NOTE}.`,
	},
	runWideOptionsCollection([
		dryRunOption('Whether to only return what would be removed, removing nothing'),
		sentOnceTimeoutOption(SENT_ONCE_TIMEOUT_SECONDS, 'A removal'),
	]),
];

/** Proxy > Remove: confirmed, looked up, then removed in batches; a Dry Run removes nothing. */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const opened = openRun(this, items, readOptions, guards);
	if ('output' in opened) return opened.output;
	const { run, options, proxyNameOf } = opened;
	const { first, repeats } = collect(items.length, proxyNameOf, run);
	const finish = () => run.finishRepeats(repeats);
	if (first.size === 0) return finish();
	const refused = confirmationRefusal(this, options, first.size);
	if (refused) {
		for (const item of first.values()) run.fail(item, refused);
		return finish();
	}
	const planned = await planAgainstTheList(this, first, options, run);
	if (options.dryRun) preview(planned, first.size, run);
	else await removeInBatches(this, planned, options.timeoutMs, run);
	return finish();
}

/** What the service accepted before a batch failed: said in that batch's error and after it. */
function acceptedBefore(names: string[]): string {
	if (names.length === 0) return 'No earlier removal request of this run was sent.';
	return `The service accepted the removal of ${proxiesCount(names.length)} earlier in this run: ${joinNames(names)}.`;
}

interface RemoveOptions {
	dryRun: boolean;
	timeoutMs: number;
	readTimeoutMs: number;
	/** Confirm Number of Proxies. */
	confirmed: number;
}

interface Planned {
	name: string;
	item: number;
	record: IDataObject;
}

/** The options and the confirmation concern the whole run: the same for every item, naming none. */
function readOptions(ctx: IExecuteFunctions, itemCount: number): RemoveOptions {
	const { dryRun, timeoutMs, readTimeoutMs } = readRunOptions(ctx, itemCount, properties);
	const confirmCount = runWideParameter(ctx, itemCount, properties, 'confirmCount', undefined);
	const confirmed = parseWholeNumber(
		ctx.getNode(),
		undefined,
		confirmCount,
		'Confirm Number of Proxies',
		{ min: 0, max: 1_000_000 },
		'Enter how many different proxies this run removes, e.g. 3.',
	);
	return { dryRun, timeoutMs, readTimeoutMs, confirmed };
}

/**
 * A retry would send a removal twice. As an AI agent's tool, Remove only previews: nothing read
 * from the account bounds what many calls destroy (a removal leaves the list only some time after
 * the service accepted it), so an agent's calls could remove every proxy one confirmed call at a time.
 */
function guards(ctx: IExecuteFunctions, { dryRun }: RemoveOptions) {
	return (
		retryRefusal(ctx, dryRun, {
			twice: 'send a removal twice',
			check: 'read the proxy list (Proxy Account > Get Many) to see what is gone',
		}) ??
		agentRefusal(
			ctx,
			dryRun
				? undefined
				: {
						operation: 'Remove',
						limit: 'Dry Run: as a tool it only previews what a removal would take',
						fix: 'Removing destroys paid time, and no limit read from the account bounds what many calls of an agent remove. Turn on Dry Run in the tool to let the agent preview a removal, and remove in a workflow without an AI agent (or in the Proxy Account dashboard).',
					},
		)
	);
}

/** Every item's proxy, before anything is sent. A proxy named twice is removed once. */
function collect(
	count: number,
	proxyNameOf: (itemIndex: number) => string,
	run: ItemResults,
): { first: Map<string, number>; repeats: Repeat[] } {
	const first = new Map<string, number>();
	const repeats: Repeat[] = [];
	for (let i = 0; i < count; i++) {
		try {
			const name = proxyNameOf(i);
			const earlier = first.get(name);
			if (earlier === undefined) first.set(name, i);
			else repeats.push({ item: i, name, first: earlier });
		} catch (error) {
			run.fail(i, error);
		}
	}
	return { first, repeats };
}

/** The confirmation: exactly the number of different proxies named (a Dry Run says what it must be). */
function confirmationRefusal(ctx: IExecuteFunctions, options: RemoveOptions, count: number) {
	if (options.dryRun || options.confirmed === count) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`Confirm Number of Proxies is ${options.confirmed}, but this run would remove ${proxiesCount(count)}`,
		{
			description: `Nothing was removed. Check the input items, then set Confirm Number of Proxies to ${count} to remove ${theseProxies(count)}.`,
		},
	);
}

/** One read of the list: unknown names fail their own item, before anything is sent. */
async function planAgainstTheList(
	ctx: IExecuteFunctions,
	first: Map<string, number>,
	options: RemoveOptions,
	run: ItemResults,
): Promise<Planned[]> {
	let known: Map<string, IDataObject>;
	try {
		const { result: proxies } = await send(ctx, 'listProxies', {
			itemIndex: [...first.values()][0],
			timeoutMs: options.readTimeoutMs,
		});
		known = new Map(proxies.map((proxy) => [proxy.proxy_name, proxy as IDataObject]));
	} catch (error) {
		for (const item of first.values()) run.fail(item, error);
		return [];
	}
	const planned: Planned[] = [];
	for (const [name, item] of first) {
		const record = known.get(name);
		if (record) planned.push({ name, item, record });
		else
			run.fail(
				item,
				proxyNotFound(ctx.getNode(), name, item, 'Nothing was removed for this item.'),
			);
	}
	return planned;
}

/** A Dry Run: what would be removed, and the confirmation it needs. */
function preview(planned: Planned[], count: number, run: ItemResults): void {
	for (const p of planned) {
		run.set(p.item, {
			proxy_name: p.name,
			status: 'dry_run',
			would_remove: true,
			expires_at: p.record.expires_at ?? null,
			isp: p.record.isp ?? null,
			city: p.record.city ?? null,
			confirm_count_needed: count,
			note: `To remove ${count === 1 ? 'it' : theseProxies(count)}, set Confirm Number of Proxies to ${count} and turn off Dry Run.`,
		});
	}
}

/** Remove, batch by batch. A failed batch is never sent again, and no later batch is sent. */
async function removeInBatches(
	ctx: IExecuteFunctions,
	planned: Planned[],
	timeoutMs: number,
	run: ItemResults,
): Promise<void> {
	const accepted: string[] = [];
	let stopped: NodeOperationError | undefined;
	for (const batch of chunk(planned, BATCH_SIZE)) {
		if (stopped) {
			for (const p of batch) run.fail(p.item, stopped);
			continue;
		}
		try {
			const names = batch.map((p) => p.name);
			await send(ctx, 'removeProxies', { body: names, itemIndex: batch[0].item, timeoutMs });
			for (const p of batch) {
				run.set(p.item, {
					proxy_name: p.name,
					status: 'removal_sent',
					note: 'The service accepted the removal; the proxy leaves the list shortly.',
				});
			}
			accepted.push(...names);
		} catch (error) {
			const failed = asNodeError(ctx, error, batch[0].item);
			const earlier = acceptedBefore(accepted);
			addToDescription(failed, earlier);
			for (const p of batch) run.fail(p.item, failed);
			stopped = new NodeOperationError(
				ctx.getNode(),
				'Not sent: an earlier removal request of this run failed',
				{
					description: `Nothing was removed for this proxy. ${earlier} Read the proxy list (Proxy Account > Get Many) to see what the failed request removed before you run the removal again.`,
				},
			);
		}
	}
}
