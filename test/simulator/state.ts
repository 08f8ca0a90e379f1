/**
 * The live state of the simulator (accounts, stock, prices, clock, logs) and the service's business
 * logic, independent of HTTP. The route table (routes.ts) maps each endpoint to its method here.
 */
import { FaultQueue } from './faults';
import { computeQuote, defaultPriceTable, fromCents, toCents } from './pricing';
import type { QuoteLine } from './pricing';
import {
	cityCode,
	completeProxyRecord,
	DEFAULT_CARRIERS,
	demoApiKeyForSeed,
	generateProxies,
	generateStock,
	Rng,
} from './seed';
import type { RouteKey } from './routes';
import { formatTimestamp, parseTimestamp, PERIOD_MS, SimulatorClock, toEpochMs } from './time';
import { PERIODS } from './types';
import type {
	BusinessErrorStyle,
	ChargeEntry,
	Period,
	ProxyRecord,
	RateLimitRule,
	RequestLogEntry,
	SimAccount,
	SimCarrier,
	SimStockCity,
	SimulatorOptions,
	UnitPrices,
} from './types';

export const MAX_INTERVAL = 1000;

/** How far ahead GET /v1/funds looks for "upcoming" renewals and expiries (sim clock). */
export const UPCOMING_DAYS = 7;

/** What a service handler produced: a success body or a business error. */
export type Outcome =
	| { ok: true; body: Record<string, unknown> }
	| { ok: false; error: BusinessErrorKind; message: string; data?: unknown };

export type BusinessErrorKind = 'invalid' | 'not-found' | 'funds';

function fail(error: BusinessErrorKind, message: string, data?: unknown): Outcome {
	return data === undefined ? { ok: false, error, message } : { ok: false, error, message, data };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const RESERVED_STOCK_FIELDS = new Set(['city', 'state', 'status', 'open', 'visible']);

export interface AddAccountInput {
	apiKey: string;
	balance?: number;
	member?: boolean;
	proxies?: number;
}

export class SimState {
	readonly seed: number;
	readonly clock: SimulatorClock;
	readonly utcOffsetMinutes: number;
	readonly businessErrors: BusinessErrorStyle;
	readonly rateLimit: Partial<Record<RouteKey, RateLimitRule>>;
	readonly carriers: SimCarrier[];
	readonly prices: Record<string, Record<Period, UnitPrices>>;
	readonly stock: SimStockCity[];
	readonly accounts = new Map<string, SimAccount>();
	readonly demoApiKey: string;
	readonly requests: RequestLogEntry[] = [];
	readonly ledger: ChargeEntry[] = [];
	readonly faults = new FaultQueue();

	private seq = 0;
	private nextProxySeq = 1;
	private readonly keyRng: Rng;
	private readonly addedProxyRng: Rng;
	/** `${apiKey}\u0000${route}` => request times (sim clock) inside the current window. */
	private readonly rateWindows = new Map<string, number[]>();

	constructor(options: SimulatorOptions = {}) {
		const seed = options.seed ?? 1;
		if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
		this.seed = seed;
		this.clock = new SimulatorClock(toEpochMs(options.now, Date.now()), options.frozenClock ?? false);
		this.utcOffsetMinutes = options.utcOffsetMinutes ?? -360;
		if (!Number.isInteger(this.utcOffsetMinutes) || Math.abs(this.utcOffsetMinutes) > 18 * 60) {
			throw new RangeError(`utcOffsetMinutes must be an integer within +-1080, got ${this.utcOffsetMinutes}`);
		}
		this.businessErrors = options.businessErrors ?? 'http-status';
		this.rateLimit = { ...(options.rateLimit ?? {}) };
		this.carriers = DEFAULT_CARRIERS.map((c) => ({ ...c }));
		this.prices = {};
		for (const carrier of this.carriers) this.prices[carrier.key] = defaultPriceTable();
		this.stock = generateStock(seed, options.cities ?? 8, this.carriers);
		this.keyRng = Rng.derive(seed, 'runtime:item-keys');
		this.addedProxyRng = Rng.derive(seed, 'runtime:added-proxies');

		this.demoApiKey = options.demoApiKey ?? demoApiKeyForSeed(seed);
		this.createAccount(
			{
				apiKey: this.demoApiKey,
				balance: options.balance ?? 5000,
				member: options.member ?? true,
				proxies: options.proxies ?? 12,
			},
			Rng.derive(seed, 'proxies:demo'),
		);
	}

	// ----- accounts & proxies -------------------------------------------------------------------

	addAccount(input: AddAccountInput): SimAccount {
		return this.createAccount(input, Rng.derive(this.seed, `proxies:account:${input.apiKey}`));
	}

	private createAccount(input: AddAccountInput, rng: Rng): SimAccount {
		if (typeof input.apiKey !== 'string' || input.apiKey.length === 0) throw new Error('apiKey must be a non-empty string');
		if (this.accounts.has(input.apiKey)) throw new Error('An account with this API key already exists');
		const balance = input.balance ?? 0;
		if (!Number.isFinite(balance)) throw new RangeError(`balance must be a finite number, got ${balance}`);
		const count = input.proxies ?? 0;
		const proxies = new Map<string, ProxyRecord>();
		for (const record of generateProxies(rng, count, this.generationContext())) proxies.set(record.proxy_name, record);
		this.nextProxySeq += count;
		const account: SimAccount = { apiKey: input.apiKey, balance, member: input.member ?? false, proxies };
		this.accounts.set(input.apiKey, account);
		return account;
	}

	account(apiKey?: string): SimAccount {
		const account = this.accounts.get(apiKey ?? this.demoApiKey);
		if (!account) throw new Error('No account with this API key');
		return account;
	}

	/**
	 * Adds (or replaces) a proxy: fields not given get seeded defaults (a 30-day expiry from now, a
	 * generated name when proxy_name is missing). Any name is allowed, including '/', '?', '#',
	 * spaces and unicode.
	 */
	addProxy(apiKey: string | null | undefined, partial: Partial<ProxyRecord> = {}): ProxyRecord {
		const account = this.account(apiKey ?? undefined);
		const record = completeProxyRecord(this.addedProxyRng, partial, this.generationContext());
		if (partial.proxy_name === undefined) this.nextProxySeq += 1;
		account.proxies.set(record.proxy_name, record);
		return record;
	}

	private generationContext() {
		return {
			now: this.clock.now(),
			utcOffsetMinutes: this.utcOffsetMinutes,
			carriers: this.carriers,
			cities: this.stock,
			firstSeq: this.nextProxySeq,
		};
	}

	// ----- stock, carriers, prices --------------------------------------------------------------

	private city(name: string): SimStockCity {
		const city = this.stock.find((c) => c.city === name);
		if (!city) throw new Error(`Unknown city: ${name}`);
		return city;
	}

	setStockCount(city: string, carrierKey: string, count: number): void {
		if (!this.carriers.some((c) => c.key === carrierKey)) throw new Error(`Unknown carrier key: ${carrierKey}`);
		if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
		this.city(city).counts[carrierKey] = count;
	}

	setCityOpen(city: string, open: boolean): void {
		this.city(city).open = open;
	}

	addCarrier(c: SimCarrier & { prices?: Partial<Record<Period, UnitPrices>> }): void {
		if (!/^[a-z0-9]+$/.test(c.key) || RESERVED_STOCK_FIELDS.has(c.key)) {
			throw new Error(`carrier key must be lowercase letters/digits and not a stock field name, got ${c.key}`);
		}
		if (this.carriers.some((x) => x.key === c.key || x.name === c.name)) throw new Error(`Carrier already exists: ${c.name}`);
		if (!/^[A-Z0-9]{2}$/.test(c.code)) throw new Error(`carrier code must be two upper-case characters, got ${c.code}`);
		this.carriers.push({ key: c.key, name: c.name, code: c.code });
		this.prices[c.key] = defaultPriceTable(c.prices);
		for (const city of this.stock) if (city.counts[c.key] === undefined) city.counts[c.key] = 0;
	}

	// ----- logs ---------------------------------------------------------------------------------

	nextSeq(): number {
		this.seq += 1;
		return this.seq;
	}

	resetLogs(): void {
		this.requests.length = 0;
		this.ledger.length = 0;
	}

	// ----- rate limiting ------------------------------------------------------------------------

	/** Counts the request; returns null when allowed, else the seconds to wait. */
	checkRateLimit(apiKey: string, route: RouteKey): number | null {
		const rule = this.rateLimit[route];
		if (!rule) return null;
		const now = this.clock.now();
		const key = `${apiKey}\u0000${route}`;
		const times = (this.rateWindows.get(key) ?? []).filter((t) => t > now - rule.windowMs && t <= now);
		if (times.length >= rule.limit) {
			this.rateWindows.set(key, times);
			const waitMs = (times[0] ?? now) + rule.windowMs - now;
			return Math.max(1, Math.ceil(waitMs / 1000));
		}
		times.push(now);
		this.rateWindows.set(key, times);
		return null;
	}

	// ----- service operations -------------------------------------------------------------------

	stockPayload(): Record<string, unknown> {
		const data = this.stock.map((c) => {
			const entry: Record<string, unknown> = { city: c.city, state: c.state };
			let any = false;
			for (const carrier of this.carriers) {
				const count = c.counts[carrier.key] ?? 0;
				entry[carrier.key] = count;
				if (count > 0) any = true;
			}
			entry.status = !c.open ? 'coming' : any ? 'available' : 'out';
			entry.open = c.open;
			entry.visible = c.visible;
			return entry;
		});
		return { ok: true, message: 'Stock retrieved', data };
	}

	listProxies(account: SimAccount): Outcome {
		return { ok: true, body: { ok: true, data: Array.from(account.proxies.values()) } };
	}

	getProxy(account: SimAccount, name: string): Outcome {
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		return { ok: true, body: { ok: true, data: record } };
	}

	private validInterval(value: unknown, path: string): string | null {
		if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) return `${path} must be a positive integer`;
		if (value > MAX_INTERVAL) return `${path} must be a positive integer of at most ${MAX_INTERVAL}`;
		return null;
	}

	private validPeriod(value: unknown, path: string): string | null {
		if (typeof value !== 'string' || !PERIODS.includes(value as Period)) {
			return `${path} must be one of ${PERIODS.join(', ')}`;
		}
		return null;
	}

	private itemKeyMaker(): (line: QuoteLine) => string {
		const used = new Set<string>();
		return (line) => {
			let key: string;
			do {
				key = `${line.carrier.code}-${cityCode(line.city)}-${this.keyRng.hexUpper(8)}`;
			} while (used.has(key));
			used.add(key);
			return key;
		};
	}

	price(account: SimAccount, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const raw = body.proxies;
		if (!Array.isArray(raw) || raw.length === 0) return fail('invalid', 'proxies must be a non-empty array');
		// The documented sample nests the list inside an outer array; the live service takes it flat.
		const items: Array<{ path: string; value: unknown }> = [];
		raw.forEach((item, i) => {
			if (Array.isArray(item)) item.forEach((sub, j) => items.push({ path: `proxies[${i}][${j}]`, value: sub }));
			else items.push({ path: `proxies[${i}]`, value: item });
		});
		if (items.length === 0) return fail('invalid', 'proxies must be a non-empty array');

		const carriersByName = new Map(this.carriers.map((c) => [c.name, c]));
		const cityNames = new Set(this.stock.map((c) => c.city));
		const lines: QuoteLine[] = [];
		for (const { path, value } of items) {
			if (!isPlainObject(value)) return fail('invalid', `${path} must be an object`);
			const carrier = typeof value.isp === 'string' ? carriersByName.get(value.isp) : undefined;
			if (!carrier) {
				return fail('invalid', `${path}.isp must be a known carrier (${this.carriers.map((c) => c.name).join(', ')})`);
			}
			if (typeof value.location !== 'string' || !cityNames.has(value.location)) {
				return fail('invalid', `${path}.location must be a known city`);
			}
			const intervalError = this.validInterval(value.interval, `${path}.interval`);
			if (intervalError) return fail('invalid', intervalError);
			const periodError = this.validPeriod(value.period, `${path}.period`);
			if (periodError) return fail('invalid', periodError);
			lines.push({ carrier, city: value.location, interval: value.interval as number, period: value.period as Period });
		}
		const quote = computeQuote(lines, this.prices, account.member, this.itemKeyMaker());
		return { ok: true, body: { ok: true, message: 'Price calculated', data: quote.data } };
	}

	allocate(account: SimAccount, body: unknown, seq: number): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		if (!isPlainObject(body.proxies)) return fail('invalid', 'proxies must be an object holding a time list');
		const time = body.proxies.time;
		if (!Array.isArray(time) || time.length === 0) return fail('invalid', 'proxies.time must be a non-empty array');

		const requested: Array<{ name: string; interval: number; period: Period }> = [];
		for (let i = 0; i < time.length; i++) {
			const path = `proxies.time[${i}]`;
			const value: unknown = time[i];
			if (!isPlainObject(value)) return fail('invalid', `${path} must be an object`);
			if (typeof value.proxy_name !== 'string' || value.proxy_name.length === 0) {
				return fail('invalid', `${path}.proxy_name must be a non-empty string`);
			}
			const intervalError = this.validInterval(value.interval, `${path}.interval`);
			if (intervalError) return fail('invalid', intervalError);
			const periodError = this.validPeriod(value.period, `${path}.period`);
			if (periodError) return fail('invalid', periodError);
			requested.push({ name: value.proxy_name, interval: value.interval as number, period: value.period as Period });
		}

		const carriersByName = new Map(this.carriers.map((c) => [c.name, c]));
		const lines: QuoteLine[] = [];
		const records: ProxyRecord[] = [];
		for (const line of requested) {
			const record = account.proxies.get(line.name);
			if (!record) return fail('not-found', `Proxy not found: ${line.name}`);
			const carrier = carriersByName.get(record.isp);
			if (!carrier) return fail('invalid', `Proxy ${line.name} has a carrier that cannot be priced: ${record.isp}`);
			records.push(record);
			lines.push({ carrier, city: record.city, interval: line.interval, period: line.period });
		}

		const quote = computeQuote(lines, this.prices, account.member, this.itemKeyMaker());
		const balanceCents = toCents(account.balance);
		if (balanceCents < quote.totalDueCents) {
			return fail('funds', 'Insufficient funds', {
				funds: fromCents(balanceCents),
				diff: fromCents(quote.totalDueCents - balanceCents),
			});
		}

		// All checks passed: charge and move every expiry at once.
		const now = this.clock.now();
		account.balance = fromCents(balanceCents - quote.totalDueCents);
		const out: Array<Record<string, unknown>> = [];
		requested.forEach((line, i) => {
			const record = records[i];
			const previous = record.expires_at;
			const current = parseTimestamp(previous);
			const from = Number.isFinite(current) && current > now ? current : now;
			record.expires_at = formatTimestamp(from + line.interval * PERIOD_MS[line.period], this.utcOffsetMinutes);
			const amount = fromCents(quote.lineDueCents[i]);
			this.ledger.push({
				seq,
				at: now,
				apiKey: account.apiKey,
				proxy_name: line.name,
				interval: line.interval,
				period: line.period,
				amount,
				previous_expires_at: previous,
				new_expires_at: record.expires_at,
			});
			out.push({ proxy_name: line.name, period: line.period, interval: line.interval, individual_total: amount });
		});
		return {
			ok: true,
			body: { ok: true, message: 'Proxies allocated', data: { proxies: { time: out }, total: fromCents(quote.totalDueCents) } },
		};
	}

	// ----- funds and auto-renew (slice A) -------------------------------------------------------

	/**
	 * The wallet and what is coming up. The live service does not publish its definition of
	 * "upcoming"; the simulator's, stated here and in the README:
	 * - upcoming = proxies whose expires_at lies in the next UPCOMING_DAYS days by the sim clock
	 *   (now < expires_at <= now + 7 days);
	 * - renewing = those with auto_renew on; amount = auto_renew_interval x the unit price of the
	 *   proxy's period (member or standard price of its carrier, no bulk), what auto-renew will charge;
	 * - expiring = those with auto_renew off (they are removed at expiry); amount = what renewing each
	 *   once (interval 1 of its period) would cost;
	 * - total.renewal_required = renewing.amount; total.total_required = renewing.amount +
	 *   expiring.amount; total.total_commitment = what one auto-renewal of every auto-renew proxy of
	 *   the account costs, whenever it expires.
	 */
	funds(account: SimAccount): Outcome {
		const now = this.clock.now();
		const horizon = now + UPCOMING_DAYS * 24 * 60 * 60 * 1000;
		const byName = new Map(this.carriers.map((c) => [c.name, c]));
		const unitCents = (record: ProxyRecord): number => {
			const carrier = byName.get(record.isp);
			const period = PERIODS.includes(record.period as Period) ? (record.period as Period) : null;
			if (!carrier || !period) return 0;
			const unit = this.prices[carrier.key][period];
			return toCents(account.member ? unit.member : unit.standard);
		};
		const renewing = { count: 0, cents: 0 };
		const expiring = { count: 0, cents: 0 };
		let commitment = 0;
		for (const record of account.proxies.values()) {
			const interval = Number.isInteger(record.auto_renew_interval) && record.auto_renew_interval > 0 ? record.auto_renew_interval : 1;
			if (record.auto_renew) commitment += unitCents(record) * interval;
			const expires = parseTimestamp(record.expires_at);
			if (!Number.isFinite(expires) || expires <= now || expires > horizon) continue;
			if (record.auto_renew) {
				renewing.count += 1;
				renewing.cents += unitCents(record) * interval;
			} else {
				expiring.count += 1;
				expiring.cents += unitCents(record);
			}
		}
		return {
			ok: true,
			body: {
				ok: true,
				message: 'Funds retrieved',
				data: {
					funds: account.balance,
					upcoming: {
						renewing: { count: renewing.count, amount: fromCents(renewing.cents) },
						expiring: { count: expiring.count, amount: fromCents(expiring.cents) },
						total: {
							renewal_required: fromCents(renewing.cents),
							total_required: fromCents(renewing.cents + expiring.cents),
							total_commitment: fromCents(commitment),
						},
					},
				},
			},
		};
	}

	/**
	 * PATCH /v1/proxies/allocate/renew: validates every line first (nothing changes when one is bad),
	 * then applies all and echoes the settings. interval: 1 to MAX_INTERVAL; auto_renew: a boolean.
	 * A proxy named twice takes the last line.
	 */
	setAutoRenew(account: SimAccount, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		if (!isPlainObject(body.proxies)) return fail('invalid', 'proxies must be an object holding a time list');
		const time = body.proxies.time;
		if (!Array.isArray(time) || time.length === 0) return fail('invalid', 'proxies.time must be a non-empty array');
		const lines: Array<{ name: string; autoRenew: boolean; interval: number }> = [];
		for (let i = 0; i < time.length; i++) {
			const path = `proxies.time[${i}]`;
			const value: unknown = time[i];
			if (!isPlainObject(value)) return fail('invalid', `${path} must be an object`);
			if (typeof value.proxy_name !== 'string' || value.proxy_name.length === 0) {
				return fail('invalid', `${path}.proxy_name must be a non-empty string`);
			}
			if (typeof value.auto_renew !== 'boolean') return fail('invalid', `${path}.auto_renew must be a boolean`);
			const intervalError = this.validInterval(value.interval, `${path}.interval`);
			if (intervalError) return fail('invalid', intervalError);
			lines.push({ name: value.proxy_name, autoRenew: value.auto_renew, interval: value.interval as number });
		}
		for (const line of lines) {
			if (!account.proxies.has(line.name)) return fail('not-found', `Proxy not found: ${line.name}`);
		}
		const out = lines.map((line) => {
			const record = account.proxies.get(line.name) as ProxyRecord;
			record.auto_renew = line.autoRenew;
			record.auto_renew_interval = line.interval;
			return { proxy_name: line.name, auto_renew: line.autoRenew, interval: line.interval };
		});
		return { ok: true, body: { ok: true, message: 'Auto-renew settings updated', data: { proxies: { time: out } } } };
	}
}
