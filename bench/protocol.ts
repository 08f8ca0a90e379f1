/** Messages between bench/run.ts and its worker processes (bench/worker.ts). */
import type { TestCredentials } from '../test/harness';
import type { CaseId, SideId } from './sides';
import type { Pacing } from './workflows';

export type ParentMessage =
	| {
			type: 'init';
			caseId: CaseId;
			side: SideId;
			credentials: TestCredentials;
			/** The cached n8n install to load n8n's own nodes from. */
			installDir?: string;
			/** Extend, Rotate IP: the proxies. */
			names?: string[];
			/** Extend, node side: the Batch Size (undefined = the node's default). */
			batchSize?: number;
			/** Per-item HTTP Request: n8n's batching options (undefined = all at once, n8n's default). */
			pacing?: Pacing;
	  }
	| { type: 'run' }
	| { type: 'poll'; withFetch: boolean }
	/** Trigger: the same reads the poll made beyond its main endpoint (reads by name), bare and one after another, timed. */
	| { type: 'fetchPaths'; paths: string[] }
	/** Trigger: a first poll of a new trigger over the account as it is now (its baseline's size). */
	| { type: 'baseline' }
	| { type: 'finish' };

export type WorkerMessage =
	| { type: 'ready'; rssAfterLoadKb: number }
	| { type: 'result'; ms: number; items: number; check?: string; fetchMs?: number; staticDataBytes?: number; split?: PollTimes }
	| { type: 'memory'; maxRssKb: number; rssAfterLoadKb: number }
	| { type: 'error'; message: string };

/** A timed poll, split (bench/sides.ts pollSplit, bareFetchSplit). */
export interface PollTimes {
	/** Inside the poll: n8n's HTTP helper, and JSON.parse of what it returned. */
	helperMs: number;
	parseMs: number;
	calls: number;
	/** The bare fetch before it: the GET, then JSON.parse. */
	fetchHttpMs: number;
	fetchParseMs: number;
}
