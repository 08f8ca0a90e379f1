/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- the service simulator, an HTTP server run by Node under jest and ts-node; never shipped */
/**
 * A tiny HTTP client for the simulator's own contract tests: real loopback HTTP through axios, no
 * keep-alive (so no socket outlives a test), raw text plus parsed JSON.
 */
import { Agent } from 'node:http';

import axios from 'axios';
import type { AxiosError, AxiosResponseHeaders, Method, RawAxiosResponseHeaders } from 'axios';

export interface SimResponse {
	status: number;
	headers: RawAxiosResponseHeaders | AxiosResponseHeaders;
	text: string;
	/** Parsed body; undefined when the body is not JSON. */
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface CallOptions {
	/** API key to send as a Bearer token; null sends no Authorization header. */
	key?: string | null;
	/** JSON body; a string is sent as is. */
	body?: unknown;
	timeoutMs?: number;
	headers?: Record<string, string>;
}

export interface SimClient {
	call(method: Method, path: string, options?: CallOptions): Promise<SimResponse>;
	/** Every body text received by this client, in order. */
	readonly texts: string[];
}

export function simClient(baseUrl: string, defaultKey: string | null): SimClient {
	const texts: string[] = [];
	const agent = new Agent({ keepAlive: false });
	return {
		texts,
		async call(method, path, options = {}) {
			const key = options.key === undefined ? defaultKey : options.key;
			const headers: Record<string, string> = { ...(options.headers ?? {}) };
			if (key !== null) headers.Authorization = `Bearer ${key}`;
			let data: string | undefined;
			if (options.body !== undefined) {
				data = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
				headers['Content-Type'] = 'application/json';
			}
			const response = await axios.request<string>({
				baseURL: baseUrl,
				url: path,
				method,
				headers,
				data,
				timeout: options.timeoutMs ?? 10_000,
				httpAgent: agent,
				proxy: false,
				responseType: 'text',
				transformResponse: (raw: string) => raw,
				validateStatus: () => true,
				maxContentLength: Infinity,
				maxBodyLength: Infinity,
			});
			const text = typeof response.data === 'string' ? response.data : String(response.data);
			texts.push(text);
			let json: unknown;
			try {
				json = JSON.parse(text);
			} catch {
				json = undefined;
			}
			return { status: response.status, headers: response.headers, text, json };
		},
	};
}

/**
 * The transport-level failure of a request (reset, timeout, body cut short). The client above never
 * rejects on a status, so any axios error is one; a complete HTTP response fails the expectation.
 */
export async function transportError(promise: Promise<unknown>): Promise<AxiosError> {
	try {
		await promise;
	} catch (error) {
		if (axios.isAxiosError(error)) return error;
		throw error;
	}
	throw new Error('Expected the request to fail at the transport level');
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export const TIMESTAMP_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;
