/** Messages between bench/run.ts and its worker processes (bench/worker.ts). */
import type { TestCredentials } from '../test/harness';
import type { CaseId, SideId } from './sides';

export type ParentMessage =
	| {
			type: 'init';
			caseId: CaseId;
			side: SideId;
			credentials: TestCredentials;
			/** The cached n8n install to load n8n's own nodes from. */
			installDir?: string;
			/** Extend: the proxies to extend. */
			names?: string[];
			/** Extend, node side: the Batch Size (undefined = the node's default). */
			batchSize?: number;
	  }
	| { type: 'run' }
	| { type: 'poll'; withFetch: boolean }
	/** Trigger: a first poll of a new trigger over the account as it is now (its baseline's size). */
	| { type: 'baseline' }
	| { type: 'finish' };

export type WorkerMessage =
	| { type: 'ready'; rssAfterLoadKb: number }
	| { type: 'result'; ms: number; items: number; check?: string; fetchMs?: number; staticDataBytes?: number }
	| { type: 'memory'; maxRssKb: number; rssAfterLoadKb: number }
	| { type: 'error'; message: string };
