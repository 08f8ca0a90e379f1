import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	carrierField,
	cityField,
	keepWalletAtLeastOption,
	runWideOptionsCollection,
	proxyLocator,
	sentOnceTimeoutOption,
} from '../../helpers/descriptions';
import { asNodeError, once } from '../../helpers/execution';
import { builderLimit } from '../../helpers/agent';
import type { MovedProxy, MoveLookup } from '../../helpers/newProxies';
import { findMovedProxy, movedUntoldNote } from '../../helpers/newProxies';
import { runWideOptions } from '../../helpers/runOptions';
import { walletFloorRefusal } from '../../helpers/wallet';
import { agentRefusal, itemResults, proxyNotFound, retryRefusal } from '../../helpers/run';
import {
	isSet,
	MAX_TIMEOUT_SECONDS,
	parseAmount,
	parseBoolean,
	parseName,
	parseTimeoutSeconds,
	parseWholeNumber,
} from '../../helpers/validation';
import type { ProxyRecord } from '../../transport';
import { DEFAULT_TIMEOUT_MS, listProxies, swapProxy } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'changeLocation',
	name: 'Change Location',
	description:
		'Move a proxy to another carrier and/or city; its name and port change. The service may charge for it: as an AI tool only when allowed.',
	action:
		'Change the location of a proxy, which may charge the wallet (only if the builder allowed it)',
	subtitle: 'Change Proxy Location',
};

const DEFAULT_TIMEOUT_SECONDS = 60;
const DEFAULT_WAIT_SECONDS = 60;
const WAIT_PAUSE_MS = 3_000;

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
		{
			displayName: 'Allow as AI Tool',
			name: 'allowAsTool',
			type: 'boolean',
			default: false,
			description:
				'Whether an AI agent may move proxies with this node when it runs as a tool (the service may charge for a move)',
		},
		keepWalletAtLeastOption,
		sentOnceTimeoutOption(DEFAULT_TIMEOUT_SECONDS, 'A move'),
		{
			displayName: 'Wait Timeout (Seconds)',
			name: 'waitTimeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_TIMEOUT_SECONDS, numberPrecision: 0 },
			default: DEFAULT_WAIT_SECONDS,
			description:
				'How long to read the proxy list for the new name when the reply does not give it (0: do not wait)',
		},
	]),
];

const MOVE_STATUS: Record<MovedProxy['state'], string> = {
	named: 'moved',
	untold: 'moved_unidentified',
	pending: 'move_sent',
};

/**
 * Reads the list for the moved proxy's new name until it is known, or cannot be told apart, or
 * the wait is over (a wait of 0 reads nothing).
 */
async function waitForMove(
	ctx: IExecuteFunctions,
	itemIndex: number,
	waitMs: number,
	lookup: MoveLookup,
): Promise<MovedProxy> {
	let found: MovedProxy = { state: 'pending' };
	const started = Date.now();
	while (waitMs > 0) {
		let list: ProxyRecord[] = [];
		try {
			list = (await listProxies(ctx, { itemIndex, timeoutMs: DEFAULT_TIMEOUT_MS })).proxies;
		} catch {
			list = [];
		}
		found = findMovedProxy(list, lookup);
		if (found.state === 'named' || (found.state === 'untold' && found.final)) break;
		if (Date.now() - started + WAIT_PAUSE_MS > waitMs) break;
		await sleep(WAIT_PAUSE_MS);
	}
	return found;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const run = itemResults(this, items.length);

	let timeoutMs: number;
	let waitMs: number;
	let allowAsTool: boolean;
	let floor: number | undefined;
	try {
		const options = runWideOptions(this, items.length, properties);
		timeoutMs = parseTimeoutSeconds(node, undefined, options, DEFAULT_TIMEOUT_SECONDS);
		waitMs = isSet(options, 'waitTimeoutSeconds')
			? parseWholeNumber(
					node,
					undefined,
					options.waitTimeoutSeconds,
					'Wait Timeout (Seconds)',
					{ min: 0, max: MAX_TIMEOUT_SECONDS },
					`Enter how many seconds to wait for the new name, e.g. ${DEFAULT_WAIT_SECONDS}.`,
				) * 1000
			: DEFAULT_WAIT_SECONDS * 1000;
		// As an AI agent's tool, only the builder can allow it: a value the agent fills in does not count.
		allowAsTool =
			builderLimit(
				this,
				'options.allowAsTool',
				isSet(options, 'allowAsTool')
					? parseBoolean(node, undefined, options.allowAsTool, 'Allow as AI Tool')
					: undefined,
			) === true;
		floor = builderLimit(
			this,
			'options.keepWalletAtLeast',
			isSet(options, 'keepWalletAtLeast')
				? parseAmount(node, undefined, options.keepWalletAtLeast, 'Keep Wallet At Least')
				: undefined,
		);
	} catch (error) {
		return run.failAll(error);
	}
	const refusal =
		retryRefusal(this, false, {
			twice: 'move a proxy twice',
			check: 'read the proxy list (Proxy Account > Get Many) to see where the proxy is',
		}) ??
		agentRefusal(
			this,
			allowAsTool && floor !== undefined
				? undefined
				: {
						operation: 'Change Location',
						limit:
							'Allow as AI Tool and a Keep Wallet At Least, set by the workflow\u2019s builder',
						fix: 'Open the Proxy Account tool and, if an agent may move proxies (the service may charge for a move), turn on Options > Allow as AI Tool and set Keep Wallet At Least to a fixed amount. A value the agent fills in does not count.',
					},
		);
	if (refusal) return run.failAll(refusal);
	// What a move costs is not published: the wallet must hold the floor before any move is sent.
	if (floor !== undefined) {
		const low = await walletFloorRefusal(this, floor, 0, {
			itemIndex: 0,
			timeoutMs,
			spend: 'A move',
		});
		if (low) return run.failAll(low);
	}

	const namesBefore = once(async () => {
		const { proxies } = await listProxies(this, { itemIndex: 0, timeoutMs: DEFAULT_TIMEOUT_MS });
		return new Map(proxies.map((proxy) => [proxy.proxy_name, proxy]));
	});
	// New names this run has given to its moved proxies: never taken for another item's.
	const named = new Set<string>();
	for (let i = 0; i < items.length; i++) {
		try {
			const name = parseName(
				node,
				i,
				this.getNodeParameter('proxyName', i, '', { extractValue: true }),
				'Proxy',
				'PRX-US-AU1-0001',
			);
			const isp = parseName(
				node,
				i,
				this.getNodeParameter('carrier', i, ''),
				'Carrier',
				'T-Mobile',
			);
			const location = parseName(node, i, this.getNodeParameter('city', i, ''), 'City', 'Denver');
			const copy = parseBoolean(
				node,
				i,
				this.getNodeParameter('copySettings', i, true),
				'Copy Settings',
			);

			// The names before any move of this run (read once), to find a new one the reply does not give.
			const before = await namesBefore();
			const old = before.get(name);
			if (!old) {
				run.fail(i, proxyNotFound(node, name, i, 'Nothing was moved.'));
				continue;
			}

			// Sent once: never again once it may have reached the service.
			let replied: string | undefined;
			try {
				const { result } = await swapProxy(
					this,
					name,
					{ isp, location, copy_settings: copy },
					{ itemIndex: i, timeoutMs },
				);
				replied = result.proxy_name;
			} catch (error) {
				const failed = asNodeError(this, error, i);
				if (!run.continueOnFail) throw failed;
				run.fail(i, failed);
				continue;
			}

			const newName = replied !== undefined && replied !== name ? replied : undefined;
			const found: MovedProxy =
				newName !== undefined
					? { state: 'named', name: newName }
					: await waitForMove(this, i, waitMs, {
							oldName: name,
							expiresAt: old.expires_at,
							carrier: isp,
							city: location,
							known: (listed) => before.has(listed) || named.has(listed),
						});
			if (found.state === 'named') named.add(found.name);
			const json: IDataObject = {
				status: MOVE_STATUS[found.state],
				old_proxy_name: name,
				new_proxy_name: found.state === 'named' ? found.name : null,
				carrier: isp,
				city: location,
				copy_settings: copy,
			};
			if (found.state === 'untold') {
				json.candidates = found.candidates;
				json.note = movedUntoldNote(found.candidates.length, isp, location);
			}
			if (found.state === 'pending') {
				json.note =
					'The service accepted the move; the proxy takes a new name and port shortly. Read the proxy list (Proxy Account > Get Many) for it.';
			}
			run.set(i, json);
		} catch (error) {
			run.fail(i, error);
		}
	}
	return run.output();
}
