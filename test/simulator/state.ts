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
	limitedKeyFor,
	Rng,
} from './seed';
import type { RouteKey } from './routes';
import { formatTimestamp, parseTimestamp, PERIOD_MS, SimulatorClock, toEpochMs } from './time';
import { PERIODS } from './types';
import { whitelistEntries, whitelistEntryProblem } from './network';
import type {
	BusinessErrorStyle,
	ChargeEntry,
	Period,
	ProxyRecord,
	NetworkOptions,
	RateLimitRule,
	RequestLogEntry,
	SimAccount,
	SimCarrier,
	SimStockCity,
	SimulatorOptions,
	UnitPrices,
} from './types';

export const MAX_INTERVAL = 1000;

/** How long after a 202 an IPv4 setting takes effect on the device (simulator clock). */
export const IPV4_DELAY_MS = 10_000;
/** How far ahead GET /v1/funds looks for "upcoming" renewals and expiries (sim clock). */
export const UPCOMING_DAYS = 7;
/** A deploy's new proxies appear in the list this long after the 202 (simulator clock). */
export const DEPLOY_DELAY_MS = 30_000;
/** A swapped proxy shows its new name this long after the 202. */
export const SWAP_DELAY_MS = 20_000;
/** Removed proxies leave the list this long after the 202. */
export const REMOVE_DELAY_MS = 5_000;
/** The service's throttles: an IP change at most once a minute, a reboot once per 5 minutes, per proxy. */
export const IP_CHANGE_INTERVAL_MS = 60_000;
export const REBOOT_INTERVAL_MS = 5 * 60_000;
/** A rotation or a reboot shows on the proxy this long after the 202 (simulator clock). */
export const DEVICE_DELAY_MS = 5_000;
/** Which name a swap's reply carries: the live reference leaves it open. */
export type SwapReplyName = 'old' | 'new' | 'absent';
/** Entries an IP whitelist may hold. */
export const MAX_WHITELIST = 100;
const USERNAME_RE = /^[A-Za-z0-9_.-]{3,32}$/;
const PASSWORD_RE = /^[\x21-\x7e]{8,64}$/;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** What a service handler produced: a success body or a business error. */
export type Outcome =
	| { ok: true; body: Record<string, unknown>; status?: number }
	| { ok: false; error: BusinessErrorKind; message: string; data?: unknown; retryAfter?: number };

export type BusinessErrorKind = 'invalid' | 'not-found' | 'funds' | 'throttled';

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
	readonly network: NetworkOptions | undefined;
	readonly carriers: SimCarrier[];
	readonly prices: Record<string, Record<Period, UnitPrices>>;
	readonly stock: SimStockCity[];
	readonly accounts = new Map<string, SimAccount>();
	/** Limited keys, to the account they belong to. */
	readonly limitedKeys = new Map<string, SimAccount>();
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
	/** IPv4 settings sent to a device and not yet in effect (202: they apply IPV4_DELAY_MS later). */
	private readonly pendingIpv4 = new Map<ProxyRecord, { due: number; enable: boolean }>();
	private readonly credentialRng: Rng;
	/** Proxies bought and not yet deployed: they join the list at `due`. */
	private readonly pendingDeploys: Array<{ due: number; account: SimAccount; record: ProxyRecord }> = [];
	/** Swaps sent and not yet done: the proxy takes its new name at `due`. */
	private readonly pendingSwaps: Array<{ due: number; account: SimAccount; from: string; record: ProxyRecord }> = [];
	/** Proxies someone else buys (dashboard, another run): each joins the list with the next order of its kind. */
	private readonly foreignOrders: Array<{ on: 'deploy' | 'swap'; account: SimAccount; partial: Partial<ProxyRecord>; delayMs: number }> = [];
	/** Removals sent and not yet done. */
	private readonly pendingRemovals: Array<{ due: number; account: SimAccount; names: string[] }> = [];
	/**
	 * How far the `Date` header of every reply is off the clock (a service whose clock, or one of
	 * whose servers, is wrong); null: replies carry no `Date` header at all. Tests set it.
	 */
	dateSkewMs: number | null = 0;

	/** The name a swap's 202 carries (tests set every plausible answer). */
	swapReplyName: SwapReplyName = 'new';
	/** What a swap costs, per proxy (0: free, the default). */
	swapPrice = 0;
	/** Rotations and reboots sent to a device: when, and when they show on the proxy. */
	private readonly deviceCommands = new Map<ProxyRecord, { ip?: { at: number }; reboot?: { at: number } }>();
	/** How long after the 202 a deploy, a swap and a removal take effect (tests shorten them). */
	deployDelayMs = DEPLOY_DELAY_MS;
	swapDelayMs = SWAP_DELAY_MS;
	removeDelayMs = REMOVE_DELAY_MS;
	/** The longest auto-renew interval the service applies: a longer one is stored and echoed as this (undefined: no cap). */
	maxAutoRenewInterval: number | undefined = undefined;
	/** Proxies whose auto-renew the service keeps off whatever is asked: stored and echoed as off. */
	readonly autoRenewRefused = new Set<string>();

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
		this.network = options.network;
		this.carriers = DEFAULT_CARRIERS.map((c) => ({ ...c }));
		this.prices = {};
		for (const carrier of this.carriers) this.prices[carrier.key] = defaultPriceTable();
		this.stock = generateStock(seed, options.cities ?? 8, this.carriers);
		this.keyRng = Rng.derive(seed, 'runtime:item-keys');
		this.addedProxyRng = Rng.derive(seed, 'runtime:added-proxies');
		this.credentialRng = Rng.derive(seed, 'runtime:credentials');

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
		const limitedKey = limitedKeyFor(this.seed, input.apiKey);
		const account: SimAccount = { apiKey: input.apiKey, limitedKey, balance, member: input.member ?? false, proxies };
		this.accounts.set(input.apiKey, account);
		this.limitedKeys.set(limitedKey, account);
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
		// A proxy added now was bought now: its added_at is the clock's (unless given).
		const added = { added_at: formatTimestamp(this.clock.now(), this.utcOffsetMinutes), ...partial };
		const record = completeProxyRecord(this.addedProxyRng, added, this.generationContext());
		if (partial.proxy_name === undefined) this.nextProxySeq += 1;
		account.proxies.set(record.proxy_name, record);
		return record;
	}

	/**
	 * A proxy bought by someone else (the dashboard, another run) while an order of this account is
	 * under way: it joins the list `delayMs` after the next `on` order (deploy or swap) of the account
	 * takes effect. A negative `delayMs` makes it join before that order's own proxies, but never
	 * before the order was accepted. Fields not given get seeded defaults, as addProxy.
	 */
	addProxyOnNextOrder(on: 'deploy' | 'swap', apiKey: string | null | undefined, partial: Partial<ProxyRecord> = {}, delayMs = 0): void {
		if (!Number.isFinite(delayMs)) throw new RangeError(`delayMs must be a finite number, got ${delayMs}`);
		this.foreignOrders.push({ on, account: this.account(apiKey ?? undefined), partial: { ...partial }, delayMs });
	}

	/** Schedules the foreign proxies waiting for this order: they join the list `delayMs` after `due` (not before `now`). */
	private foreignWith(on: 'deploy' | 'swap', account: SimAccount, now: number, due: number): void {
		for (let i = 0; i < this.foreignOrders.length; ) {
			const foreign = this.foreignOrders[i];
			if (foreign.on !== on || foreign.account !== account) {
				i++;
				continue;
			}
			this.foreignOrders.splice(i, 1);
			const record = completeProxyRecord(this.addedProxyRng, foreign.partial, this.generationContext());
			if (foreign.partial.proxy_name === undefined) this.nextProxySeq += 1;
			this.pendingDeploys.push({ due: Math.max(now, due + foreign.delayMs), account, record });
		}
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

	/** A price change the next quote sets off (tests: the price moves between the quote and the order). */
	private priceChangeAfterQuote: number | undefined;

	/** Multiplies every unit price by `factor` right after the next quote is answered. */
	changePricesAfterNextQuote(factor: number): void {
		if (!(factor > 0)) throw new Error('the price factor must be a positive number');
		this.priceChangeAfterQuote = factor;
	}

	private applyPriceChangeAfterQuote(): void {
		const factor = this.priceChangeAfterQuote;
		if (factor === undefined) return;
		this.priceChangeAfterQuote = undefined;
		for (const table of Object.values(this.prices)) {
			for (const unit of Object.values(table)) {
				unit.standard = fromCents(Math.round(toCents(unit.standard) * factor));
				unit.member = fromCents(Math.round(toCents(unit.member) * factor));
				if (unit.bulk !== null) unit.bulk = fromCents(Math.round(toCents(unit.bulk) * factor));
			}
		}
	}

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

	/** Forgets the requests counted against the rate limits (e.g. between benchmark runs). */
	resetRateLimits(): void {
		this.rateWindows.clear();
	}

	/**
	 * The rate-limit headers of a reply on `route` (after the request was counted), when its rule
	 * asks for them: the quota, what is left of it, and when the whole quota is back.
	 */
	rateLimitHeaders(apiKey: string, route: RouteKey): Record<string, string> | undefined {
		const rule = this.rateLimit[route];
		if (!rule?.headers) return undefined;
		const now = this.clock.now();
		const times = (this.rateWindows.get(`${apiKey}\u0000${route}`) ?? []).filter((t) => t > now - rule.windowMs && t <= now);
		const backAt = times.length === 0 ? now : times[times.length - 1] + rule.windowMs;
		const resetSeconds = Math.ceil((backAt - now) / 1000);
		const prefix = rule.headers === 'x' ? 'X-RateLimit-' : 'RateLimit-';
		const claim = rule.claim ?? {};
		return {
			[`${prefix}Limit`]: claim.limit ?? String(rule.limit),
			[`${prefix}Remaining`]: claim.remaining ?? String(Math.max(0, rule.limit - times.length)),
			[`${prefix}Reset`]: claim.reset ?? String(rule.headers === 'x' ? Math.ceil(backAt / 1000) : resetSeconds),
		};
	}

	/** Sets (or, with null, lifts) the rate limit of a route for every API key, from now on. */
	setRateLimit(route: RouteKey, rule: RateLimitRule | null): void {
		if (rule === null) delete this.rateLimit[route];
		else this.rateLimit[route] = { ...rule };
		for (const key of [...this.rateWindows.keys()]) if (key.endsWith(`\u0000${route}`)) this.rateWindows.delete(key);
	}

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
			return rule.retryAfter === 'floor' ? Math.max(0, Math.floor(waitMs / 1000)) : Math.max(1, Math.ceil(waitMs / 1000));
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
		this.settleIpv4();
		this.settleOrders();
		this.settleDevices(account);
		return { ok: true, body: { ok: true, data: Array.from(account.proxies.values()) } };
	}

	getProxy(account: SimAccount, name: string): Outcome {
		this.settleIpv4();
		this.settleOrders();
		this.settleDevices(account);
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
		this.applyPriceChangeAfterQuote();
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

	// ----- IPv4, authentication (account operations #6-#8), removal by the test harness -----------

	/** Applies the IPv4 settings whose time has come (lazily, on read, by the simulator clock). */
	settleIpv4(): void {
		const now = this.clock.now();
		for (const [record, pending] of this.pendingIpv4) {
			if (pending.due > now) continue;
			this.pendingIpv4.delete(record);
			if (!pending.enable) record.ipv4 = null;
			else if (typeof record.ipv4 !== 'string') {
				const rng = this.credentialRng;
				record.ipv4 = `${rng.int(100, 199)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
			}
		}
	}

	/**
	 * `POST /v1/proxies/ipv4/{name}` `{enable}`: a boolean, or the strings "true"/"false" the
	 * reference's sample sends. 202: the device applies it IPV4_DELAY_MS later (off = IPv6 only).
	 */
	setIpv4(account: SimAccount, name: string, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const raw = body.enable;
		const enable = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : undefined;
		if (enable === undefined) return fail('invalid', 'enable must be a boolean');
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		const now = this.clock.now();
		record.last_ipv4_update = formatTimestamp(now, this.utcOffsetMinutes);
		this.pendingIpv4.set(record, { due: now + IPV4_DELAY_MS, enable });
		return {
			ok: true,
			status: 202,
			body: {
				ok: true,
				message: 'IPv4 setting sent to the device',
				data: { proxy_name: record.proxy_name, last_ipv4_update: record.last_ipv4_update, ipv4: enable },
			},
		};
	}

	/**
	 * `PATCH /v1/proxies/auth/basic/{name}` `{username?, password?}`: null or absent = generated.
	 * Switches the proxy to username/password authentication and turns the whitelist off.
	 */
	setBasicAuth(account: SimAccount, name: string, body: unknown): Outcome {
		if (body === null) body = {};
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const { username, password } = body;
		if (username !== undefined && username !== null && (typeof username !== 'string' || !USERNAME_RE.test(username))) {
			return fail('invalid', 'username must be 3 to 32 letters, digits, dots, dashes or underscores');
		}
		if (password !== undefined && password !== null && (typeof password !== 'string' || !PASSWORD_RE.test(password))) {
			return fail('invalid', 'password must be 8 to 64 printable characters without spaces');
		}
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		const rng = this.credentialRng;
		record.username = typeof username === 'string' ? username : `pa${rng.chars(LOWER_ALNUM, 8)}`;
		record.password = typeof password === 'string' ? password : rng.chars(ALNUM, 16);
		record.auth_method = 'basic';
		record.whitelist = null;
		record.last_auth_change = formatTimestamp(this.clock.now(), this.utcOffsetMinutes);
		return {
			ok: true,
			body: {
				ok: true,
				message: 'Authentication updated',
				data: {
					proxy_name: record.proxy_name,
					last_auth_change: record.last_auth_change,
					username: record.username,
					password: record.password,
				},
			},
		};
	}

	/**
	 * `PATCH /v1/proxies/auth/whitelist/{name}` `{authorize_ip: "1.2.3.4,5.6.7.0/24"}`: IPs and CIDR
	 * ranges, IPv4 or IPv6. Switches the proxy to whitelist authentication; the record keeps the
	 * comma-separated string (the service's facts), while seeded records hold a list.
	 */
	setWhitelist(account: SimAccount, name: string, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const raw = body.authorize_ip;
		if (typeof raw !== 'string' || raw.trim() === '') {
			return fail('invalid', 'authorize_ip must be a comma-separated list of IP addresses or CIDR ranges');
		}
		const entries = whitelistEntries(raw);
		if (entries.length > MAX_WHITELIST) return fail('invalid', `authorize_ip holds more than ${MAX_WHITELIST} entries`);
		for (const entry of entries) {
			const problem = whitelistEntryProblem(entry);
			if (problem) return fail('invalid', `authorize_ip: "${entry}" ${problem}`);
		}
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		record.whitelist = entries.join(',');
		record.auth_method = 'whitelist';
		record.last_auth_change = formatTimestamp(this.clock.now(), this.utcOffsetMinutes);
		return {
			ok: true,
			body: {
				ok: true,
				message: 'Whitelist updated',
				data: { proxy_name: record.proxy_name, last_auth_change: record.last_auth_change, whitelist: record.whitelist },
			},
		};
	}

	/**
	 * Deletes a proxy at once, outside any endpoint (the test harness's way to make a proxy
	 * disappear, e.g. for the Proxy Removed trigger). Returns whether it existed.
	 */
	// ----- buy, swap, remove (account operations #10-#12) ----------------------------------------

	/** Applies the deploys, swaps and removals whose time has come (lazily, by the simulator clock). */
	settleOrders(): void {
		const now = this.clock.now();
		for (const list of [this.pendingDeploys, this.pendingSwaps, this.pendingRemovals] as Array<Array<{ due: number }>>) {
			list.sort((a, b) => a.due - b.due);
		}
		while (this.pendingDeploys.length > 0 && this.pendingDeploys[0].due <= now) {
			const { account, record } = this.pendingDeploys.shift()!;
			account.proxies.set(record.proxy_name, record);
		}
		while (this.pendingSwaps.length > 0 && this.pendingSwaps[0].due <= now) {
			const { account, from, record } = this.pendingSwaps.shift()!;
			if (!account.proxies.delete(from)) continue;
			account.proxies.set(record.proxy_name, record);
		}
		while (this.pendingRemovals.length > 0 && this.pendingRemovals[0].due <= now) {
			const { account, names } = this.pendingRemovals.shift()!;
			for (const name of names) account.proxies.delete(name);
		}
	}

	/** Reads `[{isp, location, interval, period}]` (also nested one level, as the reference's sample). */
	private orderLines(body: unknown): { lines: Array<QuoteLine & { stock: SimStockCity }> } | { error: Outcome } {
		if (!isPlainObject(body)) return { error: fail('invalid', 'Request body must be a JSON object') };
		const raw = body.proxies;
		if (!Array.isArray(raw) || raw.length === 0) return { error: fail('invalid', 'proxies must be a non-empty array') };
		const items: Array<{ path: string; value: unknown }> = [];
		raw.forEach((item, i) => {
			if (Array.isArray(item)) item.forEach((sub, j) => items.push({ path: `proxies[${i}][${j}]`, value: sub }));
			else items.push({ path: `proxies[${i}]`, value: item });
		});
		if (items.length === 0) return { error: fail('invalid', 'proxies must be a non-empty array') };
		const lines: Array<QuoteLine & { stock: SimStockCity }> = [];
		for (const { path, value } of items) {
			if (!isPlainObject(value)) return { error: fail('invalid', `${path} must be an object`) };
			const carrier = this.carriers.find((c) => c.name === value.isp);
			if (!carrier) return { error: fail('invalid', `${path}.isp must be a known carrier (${this.carriers.map((c) => c.name).join(', ')})`) };
			const stock = this.stock.find((c) => c.city === value.location);
			if (!stock) return { error: fail('invalid', `${path}.location must be a known city`) };
			const intervalError = this.validInterval(value.interval, `${path}.interval`);
			if (intervalError) return { error: fail('invalid', intervalError) };
			const periodError = this.validPeriod(value.period, `${path}.period`);
			if (periodError) return { error: fail('invalid', periodError) };
			lines.push({ carrier, city: stock.city, interval: value.interval as number, period: value.period as Period, stock });
		}
		return { lines };
	}

	/**
	 * `POST /v1/proxies/deploy`: buys proxies. Refused before charging when a line cannot be priced,
	 * the stock does not hold enough or the wallet is short; then charges the quote's total, takes the
	 * proxies out of stock and answers 202 `{user_id, total}` without their names: they join the list
	 * DEPLOY_DELAY_MS later. Each line is one ledger entry (kind `deploy`).
	 */
	deploy(account: SimAccount, body: unknown, seq: number): Outcome {
		const read = this.orderLines(body);
		if ('error' in read) return read.error;
		const wanted = new Map<SimStockCity, Map<string, number>>();
		for (const line of read.lines) {
			const byCarrier = wanted.get(line.stock) ?? new Map<string, number>();
			byCarrier.set(line.carrier.key, (byCarrier.get(line.carrier.key) ?? 0) + 1);
			wanted.set(line.stock, byCarrier);
		}
		for (const [city, byCarrier] of wanted) {
			for (const [key, count] of byCarrier) {
				const available = city.open ? (city.counts[key] ?? 0) : 0;
				if (available < count) {
					const name = this.carriers.find((c) => c.key === key)!.name;
					return fail('invalid', `Out of stock: ${available} ${name} proxies available in ${city.city}, ${count} requested`);
				}
			}
		}
		const quote = computeQuote(read.lines, this.prices, account.member, this.itemKeyMaker());
		const balanceCents = toCents(account.balance);
		if (balanceCents < quote.totalDueCents) {
			return fail('funds', 'Insufficient funds', { funds: fromCents(balanceCents), diff: fromCents(quote.totalDueCents - balanceCents) });
		}
		const now = this.clock.now();
		account.balance = fromCents(balanceCents - quote.totalDueCents);
		read.lines.forEach((line, i) => {
			line.stock.counts[line.carrier.key] -= 1;
			const expires = formatTimestamp(now + this.deployDelayMs + line.interval * PERIOD_MS[line.period], this.utcOffsetMinutes);
			const record = completeProxyRecord(
				this.addedProxyRng,
				{
					isp: line.carrier.name,
					city: line.stock.city,
					state: line.stock.state,
					period: line.period,
					added_at: formatTimestamp(now + this.deployDelayMs, this.utcOffsetMinutes),
					expires_at: expires,
					network_status: 'online',
				},
				this.generationContext(),
			);
			this.nextProxySeq += 1;
			this.pendingDeploys.push({ due: now + this.deployDelayMs, account, record });
			if (i === read.lines.length - 1) this.foreignWith('deploy', account, now, now + this.deployDelayMs);
			this.ledger.push({
				seq,
				at: now,
				apiKey: account.apiKey,
				proxy_name: record.proxy_name,
				interval: line.interval,
				period: line.period,
				amount: fromCents(quote.lineDueCents[i]),
				previous_expires_at: '',
				new_expires_at: expires,
				kind: 'deploy',
			});
		});
		return {
			ok: true,
			status: 202,
			body: { ok: true, message: 'Order queued', data: { user_id: `u_${account.apiKey.slice(-6)}`, total: fromCents(quote.totalDueCents) } },
		};
	}

	/**
	 * `POST /v1/proxies/swap/{name}` `{isp, location, copy_settings}`: moves a proxy to another carrier
	 * and/or city. 202; the proxy takes a new name and port this.swapDelayMs later. The reply's
	 * `proxy_name` is the old name, the new one, or absent (`swapReplyName`), as the reference leaves
	 * it open. Free unless `swapPrice` is set.
	 */
	swap(account: SimAccount, name: string, body: unknown, seq: number): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		const carrier = this.carriers.find((c) => c.name === body.isp);
		if (!carrier) return fail('invalid', `isp must be a known carrier (${this.carriers.map((c) => c.name).join(', ')})`);
		const city = this.stock.find((c) => c.city === body.location);
		if (!city) return fail('invalid', 'location must be a known city');
		if (body.copy_settings !== undefined && typeof body.copy_settings !== 'boolean') return fail('invalid', 'copy_settings must be a boolean');
		if (this.pendingSwaps.some((p) => p.account === account && p.from === name)) return fail('invalid', 'A swap of this proxy is already in progress');
		if (!city.open || (city.counts[carrier.key] ?? 0) < 1) return fail('invalid', `Out of stock: no ${carrier.name} proxies available in ${city.city}`);
		const priceCents = toCents(this.swapPrice);
		if (toCents(account.balance) < priceCents) return fail('funds', 'Insufficient funds', { funds: account.balance, diff: fromCents(priceCents - toCents(account.balance)) });
		const now = this.clock.now();
		account.balance = fromCents(toCents(account.balance) - priceCents);
		city.counts[carrier.key] -= 1;
		const fresh = completeProxyRecord(this.addedProxyRng, { isp: carrier.name, city: city.city, state: city.state }, this.generationContext());
		this.nextProxySeq += 1;
		const copied = body.copy_settings === true;
		const moved: ProxyRecord = {
			...record,
			proxy_name: fresh.proxy_name,
			isp: carrier.name,
			city: city.city,
			state: city.state,
			h_port: fresh.h_port,
			s_port: fresh.s_port,
			server_ip: fresh.server_ip,
			auto_change: copied ? record.auto_change : false,
			auto_change_time: copied ? record.auto_change_time : 0,
			auth_method: copied ? record.auth_method : fresh.auth_method,
			username: copied ? record.username : fresh.username,
			password: copied ? record.password : fresh.password,
			whitelist: copied ? record.whitelist : fresh.whitelist,
		};
		this.pendingSwaps.push({ due: now + this.swapDelayMs, account, from: name, record: moved });
		this.foreignWith('swap', account, now, now + this.swapDelayMs);
		if (priceCents > 0) {
			this.ledger.push({ seq, at: now, apiKey: account.apiKey, proxy_name: name, interval: 0, period: record.period as Period, amount: this.swapPrice, previous_expires_at: record.expires_at, new_expires_at: record.expires_at, kind: 'swap' });
		}
		const data: Record<string, unknown> = {};
		if (this.swapReplyName === 'old') data.proxy_name = name;
		if (this.swapReplyName === 'new') data.proxy_name = moved.proxy_name;
		return { ok: true, status: 202, body: { ok: true, message: 'Swap queued', data } };
	}

	/**
	 * `DELETE /v1/proxies/remove` `{proxies: [names]}`: irreversible. Every name must be a proxy of the
	 * account, or nothing is removed; 202, and they leave the list this.removeDelayMs later.
	 */
	removeProxies(account: SimAccount, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		const names = body.proxies;
		if (!Array.isArray(names) || names.length === 0) return fail('invalid', 'proxies must be a non-empty array of proxy names');
		for (let i = 0; i < names.length; i++) {
			if (typeof names[i] !== 'string' || names[i] === '') return fail('invalid', `proxies[${i}] must be a proxy name`);
			if (!account.proxies.has(names[i] as string)) return fail('not-found', `Proxy not found: ${String(names[i])}`);
		}
		this.pendingRemovals.push({ due: this.clock.now() + this.removeDelayMs, account, names: [...new Set(names as string[])] });
		return { ok: true, status: 202, body: { ok: true, message: 'Removal queued' } };
	}

	// ----- IP rotation, reboot, automatic rotation (account operations #2-#5) ----------------------

	/**
	 * Applies what devices did by now (lazily, by the simulator clock): a rotation or a reboot shows
	 * DEVICE_DELAY_MS after its 202; a proxy on automatic rotation changes IP every `auto_change_time`
	 * minutes after its last change.
	 */
	settleDevices(account: SimAccount): void {
		const now = this.clock.now();
		for (const record of account.proxies.values()) {
			const command = this.deviceCommands.get(record);
			if (command?.ip && command.ip.at + DEVICE_DELAY_MS <= now) {
				record.last_ip_change = formatTimestamp(command.ip.at, this.utcOffsetMinutes);
				delete command.ip;
			}
			if (command?.reboot) {
				if (command.reboot.at + DEVICE_DELAY_MS <= now) {
					record.last_reboot = formatTimestamp(command.reboot.at, this.utcOffsetMinutes);
					record.network_status = 'online';
					delete command.reboot;
				} else record.network_status = 'rebooting';
			}
			if (record.auto_change === true && Number(record.auto_change_time) >= 1 && !command?.ip) {
				const every = Number(record.auto_change_time) * 60_000;
				const last = parseTimestamp(record.last_ip_change);
				if (Number.isFinite(last) && now - last >= every) {
					record.last_ip_change = formatTimestamp(last + Math.floor((now - last) / every) * every, this.utcOffsetMinutes);
				}
			}
		}
	}

	/** When a proxy may be sent the command again: 0 when it may now. */
	private throttled(record: ProxyRecord, kind: 'ip' | 'reboot'): number {
		const sent = this.deviceCommands.get(record)?.[kind]?.at;
		const last = sent ?? parseTimestamp(kind === 'ip' ? record.last_ip_change : record.last_reboot);
		const interval = kind === 'ip' ? IP_CHANGE_INTERVAL_MS : REBOOT_INTERVAL_MS;
		const wait = Number.isFinite(last) ? last + interval - this.clock.now() : 0;
		return wait > 0 ? Math.ceil(wait / 1000) : 0;
	}

	private deviceCommand(account: SimAccount, name: string, kind: 'ip' | 'reboot'): Outcome {
		this.settleDevices(account);
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		const wait = this.throttled(record, kind);
		if (wait > 0) {
			const what = kind === 'ip' ? 'The IP of this proxy can be changed once a minute' : 'This proxy can be rebooted once every 5 minutes';
			return { ok: false, error: 'throttled', message: `${what}. Retry in ${wait} s.`, retryAfter: wait };
		}
		const now = this.clock.now();
		const command = this.deviceCommands.get(record) ?? {};
		command[kind] = { at: now };
		this.deviceCommands.set(record, command);
		if (kind === 'reboot') record.network_status = 'rebooting';
		const at = formatTimestamp(now, this.utcOffsetMinutes);
		return {
			ok: true,
			status: 202,
			body: {
				ok: true,
				message: kind === 'ip' ? 'IP change sent to the device' : 'Reboot sent to the device',
				data: kind === 'ip' ? { proxy_name: record.proxy_name, last_ip_change: at } : { proxy_name: record.proxy_name, last_reboot: at },
			},
		};
	}

	/** `POST /v1/proxies/changeip/{name}` (and the rotation link): at most once a minute per proxy. */
	changeIp(account: SimAccount, name: string): Outcome {
		return this.deviceCommand(account, name, 'ip');
	}

	/** `POST /v1/proxies/reboot/{name}`: at most once every 5 minutes per proxy. */
	reboot(account: SimAccount, name: string): Outcome {
		return this.deviceCommand(account, name, 'reboot');
	}

	/** `POST /v1/proxies/autochangeip/{name}` `{enable, rate}`: rate in minutes, 1 to 1440 (default 10). */
	setAutoChange(account: SimAccount, name: string, body: unknown): Outcome {
		if (!isPlainObject(body)) return fail('invalid', 'Request body must be a JSON object');
		if (typeof body.enable !== 'boolean') return fail('invalid', 'enable must be a boolean');
		const rate = body.rate === undefined ? 10 : body.rate;
		if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > 1440) return fail('invalid', 'rate must be a whole number of minutes from 1 to 1440');
		this.settleDevices(account);
		const record = account.proxies.get(name);
		if (!record) return fail('not-found', 'Proxy not found');
		record.auto_change = body.enable;
		record.auto_change_time = body.enable ? rate : 0;
		const now = this.clock.now();
		if (body.enable) record.last_ip_change = record.last_ip_change ?? formatTimestamp(now, this.utcOffsetMinutes);
		const last = parseTimestamp(record.last_ip_change);
		const next = body.enable ? formatTimestamp((Number.isFinite(last) && last > now - rate * 60_000 ? last : now) + rate * 60_000, this.utcOffsetMinutes) : null;
		return {
			ok: true,
			body: { ok: true, message: 'Automatic IP change updated', data: { proxy_name: record.proxy_name, next_ip_change: next, auto_change: record.auto_change, auto_change_time: record.auto_change_time } },
		};
	}

	discardProxy(apiKey: string | null | undefined, name: string): boolean {
		const account = this.account(apiKey ?? undefined);
		const record = account.proxies.get(name);
		if (record) this.pendingIpv4.delete(record);
		return account.proxies.delete(name);
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
	 * A proxy named twice takes the last line. What it applies may differ from what was asked: an
	 * interval over `maxAutoRenewInterval` is applied as that cap, and a proxy in `autoRenewRefused`
	 * keeps auto-renew off; the record and the echo both hold what was applied.
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
			const cap = this.maxAutoRenewInterval;
			record.auto_renew = line.autoRenew && !this.autoRenewRefused.has(line.name);
			record.auto_renew_interval = cap === undefined ? line.interval : Math.min(line.interval, cap);
			return { proxy_name: line.name, auto_renew: record.auto_renew, interval: record.auto_renew_interval };
		});
		return { ok: true, body: { ok: true, message: 'Auto-renew settings updated', data: { proxies: { time: out } } } };
	}
}
