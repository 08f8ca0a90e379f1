/* eslint-disable @n8n/community-nodes/no-restricted-globals -- the service simulator, an HTTP server run by Node under jest and ts-node; never shipped */
/**
 * Runs the Proxy Account simulator as a process:
 *
 *   ts-node --transpile-only test/simulator/cli.ts [--port N] [--seed N] [--proxies N] [--cities N]
 *       [--balance N] [--member | --no-member] [--api-key KEY] [--now ISO|ms] [--frozen-clock]
 *       [--utc-offset MINUTES] [--business-errors http-status|ok-false-200]
 *
 * Default port 5679 (env PROXY_ACCOUNT_SIM_PORT overrides; --port 0 picks a free one). Prints the
 * URL and the demo API key, then serves until SIGINT/SIGTERM.
 */
import { NETWORK_MODEL, ProxyAccountSimulator } from './index';
import type { BusinessErrorStyle, SimulatorOptions } from './types';

const USAGE =
	'Usage: cli.ts [--port N] [--seed N] [--proxies N] [--cities N] [--balance N] [--member|--no-member]\n' +
	'              [--api-key KEY] [--now ISO|ms] [--frozen-clock] [--network-model] [--utc-offset MINUTES]\n' +
	'              [--business-errors http-status|ok-false-200]';

/** What `npm run simulator -- --help` prints: the flags, then the control endpoints. */
export const HELP = `Proxy Account simulator: a stateful stand-in for the service, on 127.0.0.1.

${USAGE}

  --port N              port (default 5679, or PROXY_ACCOUNT_SIM_PORT; 0 = a free one)
  --seed N              seed of everything generated (default 1): same seed, same account
  --proxies N           proxies of the demo account (default 12, up to 10000)
  --cities N            stock cities (default 8, 5 to 1000)
  --balance N           wallet of the demo account (default 5000)
  --member, --no-member member prices or not (default member)
  --api-key KEY         the demo account's API key (default derived from the seed)
  --now ISO|ms          the simulator's clock at start (default now)
  --frozen-clock        the clock moves only through POST /__sim/clock
  --network-model       a real network: 50 ms round trips (jitter 10 ms) and per-endpoint rate
                        limits answered with 429 and retry-after (test/simulator/network-model.ts)
  --utc-offset MINUTES  offset of the timestamps it sends (default -360)
  --business-errors http-status|ok-false-200
                        how refusals are sent (default http-status)

Control endpoints (JSON; no API key needed; 127.0.0.1 only):
  GET    /__sim/state        accounts (wallet, proxy count), the demo account's proxies (name,
                             carrier, city, expiry, status), stock by city, the clock
  POST   /__sim/stock        {city, carrier, count} sets a stock count (carrier: key or name,
                             e.g. "tmobile" or "T-Mobile"); {city, open} opens or closes a city
  POST   /__sim/proxy        {name, expiresInHours | expires_at, network_status} changes a proxy,
                             e.g. {"name": "PRX-...", "expiresInHours": 2} for a proxy near expiry
                             and {nickname} (a string or null: the dashboard's free text)
  POST   /__sim/orders       {swapPrice, swapDelayMs, deployDelayMs, removeDelayMs}: what a move costs
                             and how long orders take
  POST   /__sim/discard-proxy {name, apiKey?} deletes a proxy at once (e.g. for Proxy Removed)
  POST   /__sim/account      {balance, member, apiKey?} changes the wallet or membership
  POST   /__sim/clock        {advanceMs} or {set: ISO | epoch ms} moves the clock
  GET    /__sim/requests     the request log (keys masked)
  GET    /__sim/ledger       every charge made
  POST   /__sim/faults       {route, kind, times, ...} injects a fault, e.g.
                             {"route": "GET /v1/stock", "kind": "status", "status": 503, "times": 2}
  GET    /__sim/faults       pending faults;  DELETE /__sim/faults clears them
  POST   /__sim/rate-limit   {route, limit, windowMs, headers?} sets a route's rate limit for every key
                      (e.g. windowMs 3600000: a 429 asks for an hour; headers "draft" or "x" send
                      RateLimit-* or X-RateLimit-* on every reply); {route, limit: null} lifts it
  POST   /__sim/reset-logs   empties the request log and the ledger

Example: make T-Mobile come back in stock in a city, for the Stock Changed trigger:
  curl -s -X POST http://127.0.0.1:5679/__sim/stock -H 'content-type: application/json' \\
       -d '{"city": "Denver", "carrier": "tmobile", "count": 4}'
`;

function integer(flag: string, value: string | undefined): number {
	const n = Number(value);
	if (value === undefined || value.trim() === '' || !Number.isInteger(n)) throw new Error(`${flag} needs an integer`);
	return n;
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): SimulatorOptions {
	const envPort = env.PROXY_ACCOUNT_SIM_PORT;
	const options: SimulatorOptions = { port: envPort ? integer('PROXY_ACCOUNT_SIM_PORT', envPort) : 5679 };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
		const value = () => {
			if (inline !== undefined) return inline;
			i += 1;
			return argv[i];
		};
		switch (flag) {
			case '--port':
				options.port = integer(flag, value());
				break;
			case '--seed':
				options.seed = integer(flag, value());
				break;
			case '--proxies':
				options.proxies = integer(flag, value());
				break;
			case '--cities':
				options.cities = integer(flag, value());
				break;
			case '--balance': {
				const v = value();
				const n = Number(v);
				if (v === undefined || !Number.isFinite(n)) throw new Error('--balance needs a number');
				options.balance = n;
				break;
			}
			case '--member':
				options.member = true;
				break;
			case '--no-member':
				options.member = false;
				break;
			case '--api-key': {
				const v = value();
				if (!v) throw new Error('--api-key needs a value');
				options.demoApiKey = v;
				break;
			}
			case '--now': {
				const v = value();
				if (!v) throw new Error('--now needs an ISO timestamp or epoch ms');
				options.now = /^\d+$/.test(v) ? Number(v) : v;
				break;
			}
			case '--frozen-clock':
				options.frozenClock = true;
				break;
			case '--network-model':
				Object.assign(options, NETWORK_MODEL);
				break;
			case '--utc-offset':
				options.utcOffsetMinutes = integer(flag, value());
				break;
			case '--business-errors': {
				const v = value();
				if (v !== 'http-status' && v !== 'ok-false-200') throw new Error('--business-errors needs http-status or ok-false-200');
				options.businessErrors = v as BusinessErrorStyle;
				break;
			}
			case '--help':
			case '-h':
				throw new Error(USAGE);
			default:
				throw new Error(`Unknown argument: ${arg}\n${USAGE}`);
		}
	}
	return options;
}

async function main(): Promise<void> {
	if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
		process.stdout.write(HELP);
		return;
	}
	let options: SimulatorOptions;
	try {
		options = parseArgs(process.argv.slice(2));
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n`);
		process.exitCode = 2;
		return;
	}
	const sim = await ProxyAccountSimulator.start(options);
	process.stdout.write(`Proxy Account simulator listening on ${sim.url}\n`);
	process.stdout.write(`Demo API key: ${sim.demoApiKey}\n`);
	process.stdout.write(
		`Seed ${sim.seed}; ${sim.account().proxies.size} proxies; ${sim.stock.length} cities; control API at ${sim.url}/__sim/state\n`,
	);

	let stopping = false;
	const shutdown = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		sim.stop().then(
			() => {
				process.stdout.write(`Simulator stopped (${signal})\n`);
				process.exit(0);
			},
			(error: unknown) => {
				process.stderr.write(`Error while stopping: ${String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

if (require.main === module) {
	main().catch((error: unknown) => {
		process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	});
}
