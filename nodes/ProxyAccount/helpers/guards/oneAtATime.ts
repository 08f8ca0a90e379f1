/*
 * The money operations of one credential run one at a time in an n8n process. Their bounds (Keep
 * Wallet At Least, Maximum Renewal Commitment, Only If Expiring Within) read the account before
 * they act; two runs at once (an AI Agent's parallel tool calls, an MCP server's calls) would both
 * read it before either acted. Runs in other processes (queue mode workers) are not seen.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, readCredential } from '../../transport';

/** Per credential and Base URL: the end of the last run queued, which never rejects. */
const queues = new Map<string, Promise<void>>();

/**
 * What tells a credential's runs apart in this process: the credential n8n gives the node (its id,
 * never its key), at the Base URL it points to. Undefined when there is no credential to read.
 */
export async function credentialKey(ctx: IExecuteFunctions): Promise<string | undefined> {
	const credential = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	try {
		const { baseUrl } = await readCredential(ctx);
		return `${credential?.id ?? credential?.name ?? ''}\n${baseUrl}`;
	} catch {
		// No credential to read: the run fails on its own, before anything is sent.
		return undefined;
	}
}

/** Runs `work` once every earlier run of the same credential in this process has ended. */
export async function oneAtATime<T>(ctx: IExecuteFunctions, work: () => Promise<T>): Promise<T> {
	const key = await credentialKey(ctx);
	if (key === undefined) return await work();
	const before = queues.get(key) ?? Promise.resolve();
	const run = before.then(work);
	const ended = run.then(
		() => undefined,
		() => undefined,
	);
	queues.set(key, ended);
	try {
		return await run;
	} finally {
		if (queues.get(key) === ended) queues.delete(key);
	}
}
