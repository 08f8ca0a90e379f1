import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	dryRunOption,
	proxyLocator,
	RUN_WIDE_NOTE,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	sentOnceTimeoutOption,
	wholeNumberField,
} from '../../helpers/framework/descriptions';
import type { BatchedExecute, ItemResults } from '../../helpers/framework/batchedRun';
import { agentRefusal, retryRefusal } from '../../helpers/guards/runGuards';
import type { Known, ProxyRequest } from '../../helpers/money/batches';
import { chunk, collectRequests, lookUpProxies, sendInBatches } from '../../helpers/money/batches';
import { proxiesCount, theseProxies } from '../../common/wording';
import { readRunOptions, runWideParameter } from '../../helpers/framework/runOptions';
import { parseWholeNumber } from '../../helpers/framework/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'remove',
	name: 'Remove',
	description:
		'Remove proxies for good, their paid time included. Irreversible: needs the number of proxies confirmed.',
	action: 'Remove proxies (destroys paid time)',
	subtitle: 'Remove Proxies',
	notices: {
		panel:
			'Removing is irreversible: the proxies and their paid time are gone, and nothing is refunded. Use Dry Run (in Options) to see what a run would remove.',
		tool: 'Remove only previews (Dry Run); a removal is refused whatever Confirm Number of Proxies says.',
	},
};

/** The most proxies one run may confirm. */
const MAX_CONFIRMED = 1_000_000;

/** Proxies per removal request. */
const BATCH_SIZE = 100;

export const destroysPaidTime = true;

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to remove. With several input items, each item names one proxy.'),
	{
		...wholeNumberField(
			['Confirm Number of Proxies', 'confirmCount'],
			[0, MAX_CONFIRMED],
			0,
			`How many different proxies this run removes, typed by you. The run is refused, and nothing removed, when it is not exactly that number. As an AI agent's tool, Remove only previews (Dry Run). ${RUN_WIDE_NOTE}.`,
		),
		required: true,
	},
	runWideOptionsCollection([
		dryRunOption('Whether to only return what would be removed, removing nothing'),
		sentOnceTimeoutOption(SENT_ONCE_TIMEOUT_SECONDS, 'A removal'),
	]),
];

/** Proxy > Remove: confirmed, looked up, then removed in batches; a Dry Run removes nothing. */
export const execute: BatchedExecute<RemoveOptions> = async function (opened) {
	const { run, options, items, proxyNameOf } = opened;
	const { unique, repeats } = collectRequests(this, run, items.length, {
		read: (i): ProxyRequest => ({ item: i, name: proxyNameOf(i) }),
		asked: () => 'removal',
		fields: 'proxy',
	});
	const refused = unique.length > 0 && confirmationRefusal(this, options, unique.length);
	if (refused) for (const w of unique) run.fail(w.item, refused);
	else {
		const { known } = await lookUpProxies(this, run, unique, options.readTimeoutMs);
		if (options.dryRun) previewRemoval(known, unique.length, run);
		else await remove(this, known, options.timeoutMs, run);
	}
	return run.finishRepeats(repeats);
};

/** The options and the confirmation concern the whole run: the same for every item, naming none. */
export function readOptions(ctx: IExecuteFunctions, itemCount: number) {
	const options = readRunOptions(ctx, itemCount, properties);
	const confirmCount = runWideParameter(ctx, itemCount, properties, 'confirmCount', undefined);
	const confirmed = parseWholeNumber(
		ctx.getNode(),
		undefined,
		confirmCount,
		'Confirm Number of Proxies',
		{ min: 0, max: MAX_CONFIRMED },
		'Enter how many different proxies this run removes, e.g. 3.',
	);
	return { ...options, confirmed };
}

type RemoveOptions = ReturnType<typeof readOptions>;

/**
 * A retry would send a removal twice. As an AI agent's tool, Remove only previews: nothing read
 * from the account bounds what many calls destroy (a removal leaves the list only some time after
 * the service accepted it), so an agent's calls could remove every proxy one confirmed call at a time.
 */
export function guards(ctx: IExecuteFunctions, { dryRun }: RemoveOptions) {
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

/** A Dry Run: what would be removed, and the confirmation it needs. */
function previewRemoval(known: Array<Known<ProxyRequest>>, count: number, run: ItemResults): void {
	for (const p of known) {
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
async function remove(
	ctx: IExecuteFunctions,
	known: Array<Known<ProxyRequest>>,
	timeoutMs: number,
	run: ItemResults,
): Promise<void> {
	await sendInBatches(ctx, run, chunk(known, BATCH_SIZE), {
		did: 'accepted the removal of',
		stopAfterFailure:
			'Read the proxy list (Proxy Account > Get Many) to see what the failed request removed before you run the removal again.',
		send: async (batch) => {
			const names = batch.map((p) => p.name);
			await send(ctx, 'removeProxies', { body: names, itemIndex: batch[0].item, timeoutMs });
			for (const p of batch) {
				run.set(p.item, {
					proxy_name: p.name,
					status: 'removal_sent',
					note: 'The service accepted the removal; the proxy leaves the list shortly.',
				});
			}
		},
	});
}
