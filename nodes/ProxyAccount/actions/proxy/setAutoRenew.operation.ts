import type { IDataObject, IExecuteFunctions, INodeProperties, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	batchSizeOption,
	intervalField,
	proxyLocator,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	timeoutOption,
	amountField,
} from '../../helpers/framework/descriptions';
import { limitOption, runsAsAgentTool } from '../../helpers/framework/agent';
import { cents } from '../../helpers/money/charges';
import { theseProxies } from '../../common/wording';
import { readRunOptions } from '../../helpers/framework/runOptions';
import { asNodeError } from '../../helpers/framework/itemLoop';
import type { Known } from '../../helpers/money/batches';
import {
	addToDescription,
	chunk,
	collectRequests,
	lookUpProxies,
	sendInBatches,
} from '../../helpers/money/batches';
import { parseBoolean, parseInterval } from '../../helpers/framework/validation';
import { inVersion, isVersion1 } from '../../helpers/framework/versions';
import { singleProxyTotal } from '../../helpers/money/quote';
import type { AutoRenewLine, QuoteLine } from '../../transport';
import { DEFAULT_TIMEOUT_MS, send } from '../../transport';
import type { BatchedExecute } from '../../helpers/framework/batchedRun';
import { changeRetryRefusal } from '../../helpers/guards/runGuards';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'setAutoRenew',
	name: 'Set Auto-Renew',
	description: 'Turn automatic renewal of proxies on or off, with the renewal interval',
	action: 'Set auto-renew (commits the wallet)',
	subtitle: 'Set Auto-Renew',
	notices: {
		panel:
			'Auto-renew charges your Proxy Account wallet at every renewal, without a run of this workflow. Set Maximum Renewal Commitment (in Options) to bound what the whole account is committed to.',
		tool: 'turning auto-renew on needs Options > Maximum Renewal Commitment set here (a value the agent fills in does not count); turning it off is refused.',
	},
};

export const spendsMoney = true;

/** The Auto-Renew switch, off in a new node (version 2). */
const autoRenewSwitch: INodeProperties = {
	displayName: 'Auto-Renew',
	name: 'autoRenew',
	type: 'boolean',
	default: false,
	description: 'Whether the proxy renews itself at expiry, charged to the wallet',
};

export const properties: INodeProperties[] = [
	proxyLocator(
		'The proxy whose auto-renew to set. With several input items, each item names one proxy.',
	),
	// On for a version 1 node, as saved; off for a new node, so that it commits nothing until set.
	...inVersion(1, [{ ...autoRenewSwitch, default: true }]),
	...inVersion(2, [autoRenewSwitch]),
	{
		displayName:
			'With auto-renew off, the proxy expires and is removed at its expiry date, its settings included',
		name: 'autoRenewOffNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { autoRenew: [false] } },
	},
	intervalField(
		'Number of periods (the proxy\u2019s own period) each renewal adds, e.g. 1 to renew for one more month on a monthly proxy',
	),
	runWideOptionsCollection([
		batchSizeOption(
			'How many proxies to change per request. All input items go out in as few requests as this allows.',
		),
		amountField(
			['Maximum Renewal Commitment', 'maxRenewalCommitment'],
			100,
			"The most one renewal of all the account's auto-renewing proxies may cost, this run's included (the service's commitment plus a quote of what the run turns on), in your account's currency. The run changes nothing when it would be more than this amount or than the wallet holds. Required when the node runs as an AI agent's tool and turns auto-renew on.",
		),
		timeoutOption(
			SENT_ONCE_TIMEOUT_SECONDS,
			'The longest one request may take, its whole answer included (at most 600; the look-up of the proxies waits at most 30 s). A change that times out is never sent again automatically.',
		),
	]),
];

/** n8n's retries: a change that may have been made (and committed the wallet) is not sent again. */
export const guards = changeRetryRefusal(
	'the auto-renew change',
	'auto_renew and auto_renew_interval',
);

/**
 * Proxy > Set Auto-Renew: one look-up of the list, then the known proxies in batches, each item
 * with the settings the service echoed. Never sent again by n8n's retries (`guards`).
 */
export const execute: BatchedExecute<RunOptions> = async function (opened) {
	const { run, options, items, proxyNameOf } = opened;
	const { unique, repeats } = collectRequests(this, run, items.length, {
		read: (i) => readWanted(this, i, proxyNameOf(i)),
		asked: (w) => `auto-renew ${onOff(w.autoRenew)} with interval ${w.interval}`,
		fields: 'Auto-Renew and Interval',
	});
	let wanted = unique;
	// As an AI agent's tool, turning auto-renew on needs a commitment limit the builder set: refused
	// before anything is sent, the look-up included.
	if (options.commitmentCap === undefined && runsAsAgentTool(this)) {
		const refusal = new NodeOperationError(
			this.getNode(),
			'As an AI agent tool, turning auto-renew on needs a Maximum Renewal Commitment set by the workflow\u2019s builder',
			{
				description:
					'Auto-renew charges the wallet at every renewal. Open the Proxy Account tool and set Options > Maximum Renewal Commitment to a fixed amount: the most one renewal of all the account\u2019s auto-renewing proxies may cost (a value the agent fills in does not count). Nothing was sent.',
			},
		);
		for (const w of wanted.filter((w) => w.autoRenew)) run.fail(w.item, refusal);
		wanted = wanted.filter((w) => !w.autoRenew);
	}
	const { known } = await lookUpProxies(this, run, wanted, options.readTimeoutMs);
	const turningOn = known.filter((w) => w.autoRenew);
	// The account's commitment, this run's included: within the cap and the wallet, or nothing is sent.
	if (turningOn.length > 0 && options.commitmentCap !== undefined) {
		const cap = options.commitmentCap;
		const refusal = await commitmentRefusal(this, turningOn, cap, options.timeoutMs);
		if (refusal !== undefined) {
			for (const w of known) run.fail(w.item, refusal);
			return run.finishRepeats(repeats);
		}
	}
	await sendInBatches(this, run, chunk(known, options.batchSize), {
		did: 'changed the auto-renew of',
		send: async (batch) => {
			const lines = batch.map(lineOf);
			const sent = { itemIndex: batch[0].item, timeoutMs: options.timeoutMs };
			const { result } = await send(this, 'setAutoRenew', { ...sent, body: lines });
			const echoed = new Map(result.proxies.time.map((line) => [line.proxy_name, line]));
			lines.forEach((line, k) =>
				run.set(batch[k].item, outputFor(line, echoed.get(line.proxy_name))),
			);
		},
	});
	return run.finishRepeats(repeats);
};

type Wanted = ReturnType<typeof readWanted>;

const onOff = (on: boolean) => (on ? 'on' : 'off');

/**
 * The item of one proxy: the settings the service echoed (the requested ones too, where they
 * differ), or the requested ones marked unconfirmed when the answer does not list the proxy.
 */
function outputFor(asked: AutoRenewLine, echo: AutoRenewLine | undefined): IDataObject {
	const shown = echo ?? asked;
	const json: IDataObject = {
		proxy_name: asked.proxy_name,
		auto_renew: shown.auto_renew,
		interval: shown.interval,
		status: echo ? 'updated' : 'unconfirmed',
	};
	const notes: string[] = [];
	if (echo && (echo.auto_renew !== asked.auto_renew || echo.interval !== asked.interval)) {
		json.status = 'applied_differently';
		if (shown.auto_renew !== asked.auto_renew) json.requested_auto_renew = asked.auto_renew;
		if (shown.interval !== asked.interval) json.requested_interval = asked.interval;
		notes.push(
			`The service applied auto-renew ${onOff(echo.auto_renew)} with interval ${echo.interval}, not the requested ${onOff(asked.auto_renew)} with interval ${asked.interval}.`,
		);
	}
	if (!echo)
		notes.push(
			'The service accepted the request but did not list this proxy in its answer. Check its Auto Renew with Proxy Account > Get.',
		);
	if (!shown.auto_renew)
		notes.push(
			'Auto-renew is off: this proxy will expire and be removed at its expiry date, with its settings. Extend it or turn auto-renew back on before then to keep it.',
		);
	if (notes.length > 0) json.note = notes.join(' ');
	return json;
}

const lineOf = (w: Wanted): AutoRenewLine => ({
	proxy_name: w.name,
	auto_renew: w.autoRenew,
	interval: w.interval,
});

/** The run's options, with Maximum Renewal Commitment as it counts (see `limitOption`). */
export function readOptions(ctx: IExecuteFunctions, itemCount: number) {
	const options = readRunOptions(ctx, itemCount, properties);
	// As an AI agent's tool, a commitment the agent filled in counts as none.
	const cap = limitOption(ctx, options.raw, 'maxRenewalCommitment', 'Maximum Renewal Commitment');
	return { ...options, commitmentCap: cap };
}

type RunOptions = ReturnType<typeof readOptions>;

/** An item's input, checked before anything is sent. */
function readWanted(ctx: IExecuteFunctions, i: number, name: string) {
	const node = ctx.getNode();
	const autoRenew = parseBoolean(
		node,
		i,
		ctx.getNodeParameter('autoRenew', i, isVersion1(node)),
		'Auto-Renew',
	);
	const interval = parseInterval(node, i, ctx.getNodeParameter('interval', i, 1));
	if (!autoRenew && runsAsAgentTool(ctx)) {
		// Off means the proxy is removed at expiry: not for an agent to decide.
		throw new NodeOperationError(
			node,
			`As an AI agent tool, Set Auto-Renew may only turn auto-renew on [item ${i}]`,
			{
				description:
					'Turning auto-renew off removes the proxy at its expiry. Do it in a workflow without an AI agent, or in the Proxy Account dashboard. Nothing was sent.',
				itemIndex: i,
			},
		);
	}
	return { item: i, name, autoRenew, interval };
}

/**
 * Why turning auto-renew on may not go ahead. The commitment is the account's: one renewal of every
 * proxy that auto-renews (the service's `total_commitment`, read now from the funds) plus one
 * renewal of each proxy this run turns on or gives another interval (each quoted alone: a proxy
 * renews at its own price, not at the bulk price of a quote of several). It must stay within the
 * cap and within the wallet, so that calls one after another, from any number of runs or agents,
 * cannot commit more than the builder allowed or the wallet holds.
 */
async function commitmentRefusal(
	ctx: IExecuteFunctions,
	turningOn: Array<Known<Wanted>>,
	cap: number,
	timeoutMs: number,
): Promise<NodeApiError | NodeOperationError | undefined> {
	const itemIndex = turningOn[0].item;
	const changing = turningOn.filter(
		({ record, interval }) => !(record.auto_renew && record.auto_renew_interval === interval),
	);
	const readOptions = { itemIndex, timeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS) };
	let wallet: number;
	let committed: number;
	let added = 0;
	try {
		const { result: funds } = await send(ctx, 'getFunds', readOptions);
		wallet = funds.funds;
		committed = funds.upcoming.total.total_commitment;
		if (changing.length > 0) {
			const lines: QuoteLine[] = changing.map(({ record, interval }) => ({
				isp: record.isp,
				location: record.city,
				interval,
				period: record.period,
			}));
			// Each proxy renews alone, at its own price: never the bulk price of one quote of them all.
			added = await singleProxyTotal(ctx, lines, readOptions);
		}
	} catch (error) {
		const refused = asNodeError(ctx, error, itemIndex);
		addToDescription(refused, 'Nothing was changed: the commitment could not be checked.');
		return refused;
	}
	const total = cents(committed + added);
	const facts = `The account's auto-renewing proxies commit ${committed} at their next renewals; this change adds ${added} (one renewal of ${theseProxies(changing.length)}, each at its own price, quoted), ${total} in all.`;
	const over =
		total > cap
			? `more than the Maximum Renewal Commitment of ${cap}`
			: total > wallet
				? `more than the wallet holds (${wallet})`
				: undefined;
	if (over === undefined) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`Turning auto-renew on would commit the account to ${total} of renewals, ${over}`,
		{
			description: `${facts} Nothing was changed. ${total > cap ? 'Raise Maximum Renewal Commitment, or' : 'Add funds to the wallet, or'} turn auto-renew on for fewer proxies or a shorter interval (or off for others).`,
		},
	);
}
