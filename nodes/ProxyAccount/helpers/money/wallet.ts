/*
 * Keep Wallet At Least: a floor under the wallet that bounds what any number of runs can spend (a
 * cap per run does not bound an agent that calls again and again). Before it charges, the node
 * reads the wallet and sends nothing that could take it below the floor. Two runs that read the
 * wallet at the same moment can both pass: the floor holds up to one round trip of overlap.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { cents } from './charges';
import { asNodeError } from '../framework/itemLoop';
import { DEFAULT_TIMEOUT_MS, send } from '../../transport';

/**
 * Why a charge of `cost` may not be sent: the wallet, read now, minus the cost would be below the
 * floor. Undefined when it may; a failed read of the wallet refuses too (nothing is sent unchecked).
 */
export async function walletFloorRefusal(...args: Parameters<typeof walletAboveFloor>) {
	const checked = await walletAboveFloor(...args);
	return 'refusal' in checked ? checked.refusal : undefined;
}

/** The wallet as read now, or the refusal `walletFloorRefusal` gives. */
export async function walletAboveFloor(
	ctx: IExecuteFunctions,
	floor: number,
	cost: number,
	what: { itemIndex: number; timeoutMs: number; spend: string },
): Promise<{ funds: number } | { refusal: NodeOperationError }> {
	const node = ctx.getNode();
	let funds: number;
	try {
		funds = await readWallet(ctx, what.itemIndex, what.timeoutMs);
	} catch (error) {
		return {
			refusal: new NodeOperationError(
				node,
				'The wallet could not be read, so Keep Wallet At Least could not be checked',
				{
					description: `${asNodeError(ctx, error, what.itemIndex).message}. Nothing was sent or charged. Run it again once the service answers.`,
				},
			),
		};
	}
	if (cents(funds - cost) >= floor) return { funds };
	return {
		refusal: new NodeOperationError(
			node,
			`${what.spend} would take the wallet below Keep Wallet At Least: ${funds} in the wallet, ${cost} to pay, ${floor} to keep`,
			{
				description:
					'Nothing was sent or charged. Add funds to the wallet, lower Keep Wallet At Least in the node\u2019s options, or spend less.',
			},
		),
	};
}

/** The wallet's balance, read now (`GET /v1/funds`), within the reads' timeout. */
export async function readWallet(
	ctx: IExecuteFunctions,
	itemIndex: number,
	timeoutMs: number,
): Promise<number> {
	const { result: funds } = await send(ctx, 'getFunds', {
		itemIndex,
		timeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS),
	});
	return funds.funds;
}
