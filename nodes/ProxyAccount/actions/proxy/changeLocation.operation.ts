import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import {
	allowAsToolOption,
	carrierField,
	cityField,
	keepWalletAtLeastOption,
	proxyLocator,
	runWideOptionsCollection,
	SENT_ONCE_TIMEOUT_SECONDS,
	sentOnceTimeoutOption,
	waitTimeoutOption,
	amountField,
} from '../../helpers/framework/descriptions';
import { asNodeError } from '../../helpers/framework/itemLoop';
import { once } from '../../helpers/framework/parameterCache';
import type { BatchedExecute, ItemResults } from '../../helpers/framework/batchedRun';
import { agentRefusal, retryRefusal, zeroFloorRefusal } from '../../helpers/guards/runGuards';
import { proxyNotFound } from '../../helpers/framework/proxySource';
import { agentPermissionRefusal, limitOption } from '../../helpers/framework/agent';
import type { MovedProxy, MoveLookup } from '../../helpers/money/newProxies';
import { findMovedProxy, movedUntoldNote } from '../../helpers/money/newProxies';
import { addToDescription, collectRequests } from '../../helpers/money/batches';
import { readRunOptions } from '../../helpers/framework/runOptions';
import { readWallet, walletAboveFloor } from '../../helpers/money/wallet';
import { movePrices } from '../../helpers/money/movePrices';
import { cents } from '../../helpers/money/charges';
import { parseBoolean, parseName } from '../../helpers/framework/validation';
import type { ProxyRecord } from '../../transport';
import { DEFAULT_TIMEOUT_MS, send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'changeLocation',
	name: 'Change Location',
	description:
		'Move a proxy to another carrier and/or city; its name and port change. The service may charge for it: as an AI tool only when allowed.',
	action: 'Move a proxy (may charge the wallet)',
	subtitle: 'Change Proxy Location',
	notices: {
		panel:
			'A move may charge your Proxy Account wallet, and the service publishes no price for it. Set Keep Wallet At Least and Maximum Cost per Move (in Options, together) to bound it. A move is sent once: Retry On Fail (in Settings) is refused.',
		tool: 'turn on Options > Allow as AI Tool and set Keep Wallet At Least (above 0) and Maximum Cost per Move here (a value the agent fills in does not count), or every move is refused.',
	},
};

const DEFAULT_WAIT_SECONDS = 60;
const WAIT_PAUSE_MS = 3_000;

export const spendsMoney = true;

export const properties: INodeProperties[] = [
	proxyLocator('The proxy to move. With several input items, each item names one proxy.'),
	carrierField('The carrier to move to, e.g. T-Mobile (it may stay the same)'),
	cityField('The city to move to, as listed in stock, e.g. Denver'),
	{
		displayName: 'Copy Settings',
		name: 'copySettings',
		type: 'boolean',
		default: true,
		description:
			'Whether the moved proxy keeps its automatic IP rotation and its authentication (username and password, or IP whitelist)',
	},
	runWideOptionsCollection([
		allowAsToolOption('move proxies (the service may charge for a move)'),
		keepWalletAtLeastOption,
		amountField(
			['Maximum Cost per Move', 'maxMoveCost'],
			0,
			"What one move may cost, in your account's currency (the service publishes no price for a move). Before every move the wallet is read, and the move is not sent when the wallet minus this amount (or the most a move has cost, if more) would be below Keep Wallet At Least. Required with Keep Wallet At Least, and with Allow as AI Tool when the node runs as an AI agent's tool.",
		),
		sentOnceTimeoutOption(SENT_ONCE_TIMEOUT_SECONDS, 'A move'),
		waitTimeoutOption(
			DEFAULT_WAIT_SECONDS,
			0,
			'How long to read the proxy list for the new name when the reply does not give it (0: do not wait)',
		),
	]),
];

/** Proxy > Change Location: each item's proxy moved once, its new name read back. */
export const execute: BatchedExecute<MoveOptions> = async function (opened) {
	const { run, options, items, proxyNameOf } = opened;
	// The names before any move of this run (read once), to find a new one the reply does not give.
	const namesBefore = once(async () => {
		const listed = await send(this, 'listProxies', { itemIndex: 0, timeoutMs: DEFAULT_TIMEOUT_MS });
		return new Map(listed.result.map((proxy) => [proxy.proxy_name, proxy]));
	});
	const prices = await movePrices(this);
	const context: MoveContext = {
		options,
		before: new Map(),
		named: new Set(),
		run,
		moved: [],
		prices,
	};
	const { unique, repeats } = collectRequests(this, run, items.length, {
		read: (i) => readMove(this, i, proxyNameOf),
		asked: (m) => `to ${m.isp} in ${m.location}${m.copy ? '' : ' without its settings'}`,
		fields: 'Carrier, City and Copy Settings',
	});
	for (const move of unique) {
		try {
			context.before = await namesBefore();
			await moveOne(this, move, context);
		} catch (error) {
			// Stopping the workflow here: the error says what this run moved before.
			if (!run.continueOnFail && context.moved.length > 0)
				addToDescription(asNodeError(this, error, move.item), movedBefore(context.moved));
			run.fail(move.item, error);
		}
	}
	return run.finishRepeats(repeats);
};

const MOVE_STATUS: Record<MovedProxy['state'], string> = {
	named: 'moved',
	untold: 'moved_unidentified',
	pending: 'move_sent',
};

/** Reads the list for the moved proxy's new name until it is known or the wait is over. */
async function waitForMove(
	ctx: IExecuteFunctions,
	itemIndex: number,
	waitMs: number,
	lookup: MoveLookup,
): Promise<MovedProxy> {
	let found: MovedProxy = { state: 'pending' };
	// A name the reply gave is taken only once the list confirms it: read once at least.
	if (waitMs <= 0 && lookup.replied === undefined) return found;
	const started = Date.now();
	for (;;) {
		// A read that fails finds nothing this time.
		const read = send(ctx, 'listProxies', { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS });
		found = findMovedProxy((await read.catch(() => undefined))?.result ?? [], lookup);
		if (found.state === 'named' || (found.state === 'untold' && found.final)) break;
		if (Date.now() - started + WAIT_PAUSE_MS > waitMs) break;
		await sleep(WAIT_PAUSE_MS);
	}
	return found;
}

/** The run's options, with Maximum Cost per Move as it counts (see `limitOption`). */
export function readOptions(ctx: IExecuteFunctions, itemCount: number) {
	const options = readRunOptions(ctx, itemCount, properties);
	return {
		...options,
		moveCost: limitOption(ctx, options.raw, 'maxMoveCost', 'Maximum Cost per Move'),
	};
}

type MoveOptions = ReturnType<typeof readOptions>;

/**
 * A retry would move a proxy twice. An AI agent moves only when the builder allowed it, within a
 * floor under the wallet and a cost per move the builder set, checked before every move.
 */
export function guards(ctx: IExecuteFunctions, { floor, moveCost }: MoveOptions) {
	return (
		retryRefusal(ctx, false, {
			twice: 'move a proxy twice',
			check: 'read the proxy list (Proxy Account > Get Many) to see where the proxy is',
		}) ??
		agentPermissionRefusal(ctx, {
			operation: 'Change Location',
			risk: 'The service may charge the wallet for a move, and a moved proxy gets a new name and port.',
		}) ??
		agentRefusal(
			ctx,
			floor !== undefined && moveCost !== undefined
				? undefined
				: {
						operation: 'Change Location',
						limit:
							'a Keep Wallet At Least and a Maximum Cost per Move, set by the workflow\u2019s builder',
						fix: 'Open the Proxy Account tool and set, in its Options, Keep Wallet At Least (what every move must leave in the wallet, above 0) and Maximum Cost per Move (what one move may cost) to fixed amounts. A value the agent fills in does not count.',
					},
		) ??
		zeroFloorRefusal(ctx, 'Change Location', floor) ??
		floorWithoutMoveCost(ctx, floor, moveCost)
	);
}

/**
 * Keep Wallet At Least without a Maximum Cost per Move: the service publishes no price for a move,
 * so before the first one nothing tells what it would take from the wallet.
 */
function floorWithoutMoveCost(ctx: IExecuteFunctions, floor?: number, moveCost?: number) {
	if (floor === undefined || moveCost !== undefined) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		'Keep Wallet At Least needs a Maximum Cost per Move beside it: the service publishes no price for a move, so the floor cannot be checked before one',
		{
			description:
				'Set Options > Maximum Cost per Move to the most one move may cost (0 if moves are free). Before every move the wallet is read, and the move is sent only if the wallet keeps Keep Wallet At Least after that cost, or after the most a move has cost so far if that is more. Nothing was sent.',
		},
	);
}

/** An item's move, checked before anything is sent for it. */
function readMove(ctx: IExecuteFunctions, i: number, proxyNameOf: (i: number) => string) {
	const node = ctx.getNode();
	return {
		item: i,
		name: proxyNameOf(i),
		isp: parseName(node, i, ctx.getNodeParameter('carrier', i, ''), 'Carrier', 'T-Mobile'),
		location: parseName(node, i, ctx.getNodeParameter('city', i, ''), 'City', 'Denver'),
		copy: parseBoolean(node, i, ctx.getNodeParameter('copySettings', i, true), 'Copy Settings'),
	};
}

type Move = ReturnType<typeof readMove>;

/** What the moves of a run share. */
interface MoveContext {
	options: MoveOptions;
	before: Map<string, ProxyRecord>;
	/** New names this run has given to its moved proxies: never taken for another item's. */
	named: Set<string>;
	run: ItemResults;
	/** Set once a move cost more than the Maximum Cost per Move: no further move is sent. */
	overCost?: NodeOperationError;
	/** The proxies this run moved so far: a run that stops says so (`movedBefore`). */
	moved: string[];
	/** What moves took from the wallet: the floor counts at least the most one took. */
	prices: Awaited<ReturnType<typeof movePrices>>;
}

/** Moves one item's proxy: sent once (never again once it may have reached the service). */
async function moveOne(ctx: IExecuteFunctions, move: Move, context: MoveContext): Promise<void> {
	const { options, before, named, run } = context;
	const i = move.item;
	const old = before.get(move.name);
	if (!old) return run.fail(i, proxyNotFound(ctx.getNode(), move.name, i));
	if (context.overCost) return run.fail(i, context.overCost);
	// What a move costs is not published: before every move, the wallet must hold the floor plus
	// the most a move may cost, or the most one took so far (in this run or before it).
	let walletBefore: number | undefined;
	if (options.floor !== undefined) {
		const what = { itemIndex: i, timeoutMs: options.timeoutMs, spend: 'A move' };
		const cost = Math.max(options.moveCost ?? 0, context.prices.highest());
		const checked = await walletAboveFloor(ctx, options.floor, cost, what);
		if ('refusal' in checked) return run.fail(i, checked.refusal);
		walletBefore = checked.funds;
	}
	let replied: string | undefined;
	try {
		const body = { isp: move.isp, location: move.location, copy_settings: move.copy };
		const call = { proxyName: move.name, body, itemIndex: i, timeoutMs: options.timeoutMs };
		replied = (await send(ctx, 'swapProxy', call)).result.proxy_name;
	} catch (error) {
		return run.fail(i, asNodeError(ctx, error, i));
	}
	context.moved.push(move.name);
	const wallet =
		walletBefore === undefined ? undefined : await walletAfterMove(ctx, i, walletBefore, options);
	if (typeof wallet?.fields.wallet_change === 'number' && wallet.fields.wallet_change < 0)
		context.prices.saw(-wallet.fields.wallet_change);
	const lookup = {
		oldName: move.name,
		expiresAt: old.expires_at,
		carrier: move.isp,
		city: move.location,
		known: (listed: string) => before.has(listed) || named.has(listed),
		replied: replied !== undefined && replied !== move.name ? replied : undefined,
	};
	const found = await waitForMove(ctx, i, options.waitMs, lookup);
	if (found.state === 'named') named.add(found.name);
	// The item of a move: the new name when it is known, the candidates or a note when it is not.
	const json: IDataObject = {
		status: MOVE_STATUS[found.state],
		old_proxy_name: move.name,
		new_proxy_name: found.state === 'named' ? found.name : null,
		carrier: move.isp,
		city: move.location,
		copy_settings: move.copy,
	};
	if (found.state === 'untold') {
		json.candidates = found.candidates;
		const refuted = lookup.replied !== undefined;
		json.note = movedUntoldNote(found.candidates.length, move.isp, move.location, refuted);
	}
	if (found.state === 'pending') {
		json.note =
			'The service accepted the move; the proxy takes a new name and port shortly. Read the proxy list (Proxy Account > Get Many) for it.';
	}
	Object.assign(json, wallet?.fields);
	if (wallet?.overCost === undefined) return run.set(i, json);
	// Moved, but the wallet dropped by more than a move may cost: no further move of this run.
	context.overCost = new NodeOperationError(
		ctx.getNode(),
		'Not sent: an earlier move of this run cost more than the Maximum Cost per Move',
		{ description: `${wallet.overCost} Nothing was sent for this proxy.` },
	);
	const failed = new NodeOperationError(
		ctx.getNode(),
		`The proxy was moved (${move.name}), but the wallet dropped by ${String(json.wallet_change).replace('-', '')}, more than the Maximum Cost per Move of ${options.moveCost}`,
		{ description: `${wallet.overCost} The move was made: do not send it again.`, itemIndex: i },
	);
	run.fail(i, failed);
}

/**
 * The wallet read again right after the service accepted a move: what it dropped by (the service
 * publishes no price for a move, and answers none), and whether that is more than a move may cost.
 * Money operations of this credential run one at a time in this n8n, so the drop is this move's,
 * unless someone else spent at the same moment (another process, the dashboard).
 */
async function walletAfterMove(
	ctx: IExecuteFunctions,
	i: number,
	walletBefore: number,
	options: MoveOptions,
): Promise<{ fields: IDataObject; overCost?: string }> {
	let after: number;
	try {
		after = await readWallet(ctx, i, options.timeoutMs);
	} catch {
		return { fields: { wallet_before: walletBefore, wallet_after: null, wallet_change: null } };
	}
	const change = cents(after - walletBefore);
	const fields = { wallet_before: walletBefore, wallet_after: after, wallet_change: change };
	if (options.moveCost === undefined || -change <= options.moveCost) return { fields };
	return {
		fields,
		overCost: `The wallet held ${walletBefore} before the move and ${after} after it. Check the wallet and the proxy list (Proxy Account > Get Many) before you move proxies again.`,
	};
}

/** What a run that stops says it moved before: the moves were made and may have been charged. */
function movedBefore(moved: string[]): string {
	const shown = moved.slice(0, 10).map((name) => `${name} was moved (the service accepted it)`);
	const more = moved.length > 10 ? `, and ${moved.length - 10} more were moved` : '';
	return `Earlier in this run: ${shown.join(', ')}${more}; a move is charged if moves cost money. Read the proxy list (Proxy Account > Get Many) before you run it again.`;
}
