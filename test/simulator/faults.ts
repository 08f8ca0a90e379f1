/* eslint-disable @n8n/community-nodes/no-restricted-imports -- the service simulator, an HTTP server run by Node under jest and ts-node; never shipped */
/**
 * Fault injection: a queue of FaultSpec consumed in injection order, plus the helpers that shape
 * faulty responses.
 */
import { STATUS_CODES } from 'node:http';

import { ROUTE_KEYS } from './routes';
import type { RouteKey } from './routes';
import { FAULT_KINDS } from './types';
import type { FaultSpec } from './types';

interface QueuedFault {
	spec: FaultSpec;
	remaining: number;
}

export class FaultQueue {
	private queue: QueuedFault[] = [];

	add(spec: FaultSpec): void {
		validateFault(spec);
		const times = spec.times ?? 1;
		if (times <= 0) return;
		this.queue.push({ spec: { ...spec }, remaining: times });
	}

	clear(): void {
		this.queue = [];
	}

	/** Takes one use of the first queued fault for `route` (or '*'), in injection order. */
	take(route: RouteKey): FaultSpec | undefined {
		const index = this.queue.findIndex((f) => f.spec.route === '*' || f.spec.route === route);
		if (index < 0) return undefined;
		const entry = this.queue[index];
		entry.remaining -= 1;
		if (entry.remaining <= 0) this.queue.splice(index, 1);
		return entry.spec;
	}

	/** Pending faults with the uses left (Infinity for until-cleared). */
	pending(): Array<FaultSpec & { remaining: number }> {
		return this.queue.map((f) => ({ ...f.spec, remaining: f.remaining }));
	}
}

/** Throws a descriptive Error when `spec` is not a usable FaultSpec. */
export function validateFault(spec: unknown): asserts spec is FaultSpec {
	if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new Error('fault must be an object');
	const f = spec as Record<string, unknown>;
	if (f.route !== '*' && !ROUTE_KEYS.includes(f.route as RouteKey)) {
		throw new Error(`fault.route must be '*' or one of ${ROUTE_KEYS.join(', ')}`);
	}
	if (!FAULT_KINDS.includes(f.kind as FaultSpec['kind'])) {
		throw new Error(`fault.kind must be one of ${FAULT_KINDS.join(', ')}`);
	}
	if (f.times !== undefined && (typeof f.times !== 'number' || Number.isNaN(f.times) || f.times < 0)) {
		throw new Error('fault.times must be a non-negative number (Infinity = until cleared)');
	}
	const isStatus = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599;
	switch (f.kind) {
		case 'status':
			if (!isStatus(f.status)) throw new Error('fault.status must be an HTTP status code');
			break;
		case 'html':
		case 'okFalse':
			if (f.status !== undefined && !isStatus(f.status)) throw new Error('fault.status must be an HTTP status code');
			break;
		case 'latency':
			if (typeof f.delayMs !== 'number' || !(f.delayMs >= 0)) throw new Error('fault.delayMs must be a non-negative number');
			if (f.when !== undefined && f.when !== 'before' && f.when !== 'after') {
				throw new Error("fault.when must be 'before' or 'after'");
			}
			break;
		case 'reset':
			if (f.when !== undefined && f.when !== 'before' && f.when !== 'after' && f.when !== 'mid-body') {
				throw new Error("fault.when must be 'before', 'after' or 'mid-body'");
			}
			break;
		case 'rateLimit':
			if (f.retryAfter !== undefined && (typeof f.retryAfter !== 'number' || f.retryAfter < 0)) {
				throw new Error('fault.retryAfter must be a non-negative number of seconds');
			}
			break;
		case 'drift':
			if (f.remove !== undefined && (!Array.isArray(f.remove) || f.remove.some((p) => typeof p !== 'string'))) {
				throw new Error('fault.remove must be an array of paths');
			}
			if (f.set !== undefined && (typeof f.set !== 'object' || f.set === null || Array.isArray(f.set))) {
				throw new Error('fault.set must be an object of path => value');
			}
			break;
		case 'hugeBody':
			if (f.bytes !== undefined && (typeof f.bytes !== 'number' || !(f.bytes >= 0))) {
				throw new Error('fault.bytes must be a non-negative number');
			}
			break;
		default:
			break;
	}
}

/** A label for the request log, e.g. 'reset:after', 'status:503', 'drift'. */
export function faultLabel(spec: FaultSpec): string {
	switch (spec.kind) {
		case 'status':
			return `status:${spec.status}`;
		case 'latency':
			return `latency:${spec.when ?? 'after'}`;
		case 'reset':
			return `reset:${spec.when ?? 'before'}`;
		case 'html':
			return `html:${spec.status ?? 502}`;
		default:
			return spec.kind;
	}
}

/** An nginx-like error page. */
export function htmlErrorPage(status: number): string {
	const title = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
	return (
		`<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n` +
		`<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
	);
}

/** Cuts a JSON text so it no longer parses (at least one byte is always removed). */
export function truncateJson(text: string): string {
	if (text.length < 4) return '{"ok":tr';
	let cut = Math.max(1, Math.floor(text.length / 2));
	let candidate = text.slice(0, cut);
	// Very rarely a prefix of JSON is itself valid JSON (e.g. a number); make sure it is not.
	while (isJson(candidate) && cut > 1) {
		cut -= 1;
		candidate = text.slice(0, cut);
	}
	return isJson(candidate) ? '{"ok":tr' : candidate;
}

function isJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

function splitPath(path: string): string[] {
	return path.split('.').filter((s) => s.length > 0);
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
	return typeof value === 'object' && value !== null;
}

function childrenOf(node: Record<string, unknown> | unknown[], segment: string): unknown[] {
	if (segment === '*') return Array.isArray(node) ? node : Object.values(node);
	return [(node as Record<string, unknown>)[segment]];
}

/** Applies `visit(parent, key)` at every match of `segments` below `node`; '*' fans out. */
function walk(
	node: unknown,
	segments: string[],
	create: boolean,
	visit: (parent: Record<string, unknown> | unknown[], key: string) => void,
): void {
	if (!isContainer(node) || segments.length === 0) return;
	const [head, ...rest] = segments;
	if (rest.length === 0) {
		if (head === '*') {
			// Arrays back to front, so removing elements does not shift the ones still to visit.
			const keys = Array.isArray(node) ? node.map((_, i) => String(node.length - 1 - i)) : Object.keys(node);
			for (const key of keys) visit(node, key);
		} else visit(node, head);
		return;
	}
	if (create && head !== '*') {
		const parent = node as Record<string, unknown>;
		if (!isContainer(parent[head])) parent[head] = {};
	}
	for (const child of childrenOf(node, head)) walk(child, rest, create, visit);
}

/**
 * Mutates a JSON value: removes each path of `remove`, then sets each path of `set`.
 * Paths are dot-separated ('data.0.expires_at'); '*' stands for every element of an array (or every
 * value of an object).
 */
export function applyDrift(body: unknown, remove: readonly string[] = [], set: Record<string, unknown> = {}): void {
	for (const path of remove) {
		walk(body, splitPath(path), false, (parent, key) => {
			if (Array.isArray(parent)) {
				const index = Number(key);
				if (Number.isInteger(index) && index >= 0 && index < parent.length) parent.splice(index, 1);
			} else delete parent[key];
		});
	}
	for (const [path, value] of Object.entries(set)) {
		walk(body, splitPath(path), true, (parent, key) => {
			(parent as Record<string, unknown>)[key] = value;
		});
	}
}

export const DEFAULT_HUGE_BODY_BYTES = 10 * 1024 * 1024;
