/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test tooling that loads n8n-core's own modules; never shipped */
import { dirname } from 'node:path';

import type { Logger as LoggerType } from '@n8n/backend-common';
import type { Container as ContainerType } from '@n8n/di';

// n8n-core ships its own copies of @n8n/di and @n8n/backend-common: the logger must be registered
// in the container n8n-core reads from, so both are loaded from n8n-core's own location.
const fromCore = { paths: [dirname(require.resolve('n8n-core'))] };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(require.resolve('@n8n/di', fromCore)) as { Container: typeof ContainerType };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Logger } = require(require.resolve('@n8n/backend-common', fromCore)) as { Logger: typeof LoggerType };

export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	metadata?: unknown;
}

/** Every line any node logged through n8n's logger since the harness started (for secret audits). */
export const capturedLogs: LogLine[] = [];

class CapturingLogger {
	error(message: string, metadata?: unknown) {
		capturedLogs.push({ level: 'error', message, metadata });
	}
	warn(message: string, metadata?: unknown) {
		capturedLogs.push({ level: 'warn', message, metadata });
	}
	info(message: string, metadata?: unknown) {
		capturedLogs.push({ level: 'info', message, metadata });
	}
	debug(message: string, metadata?: unknown) {
		capturedLogs.push({ level: 'debug', message, metadata });
	}
	scoped() {
		return this;
	}
}

let installed = false;

/** Replaces n8n's logger (nodes read `this.logger` from the DI container) with a recording one. */
export function installCapturingLogger(): void {
	if (installed) return;
	Container.set(Logger, new CapturingLogger() as unknown as LoggerType);
	installed = true;
}
