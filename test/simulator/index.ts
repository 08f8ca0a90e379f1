/**
 * Proxy Account service simulator: a faithful, stateful, seeded stand-in for the live service,
 * served over real loopback HTTP. Tests, the demo and the benchmarks run against it.
 *
 *   const sim = await ProxyAccountSimulator.start({ seed: 7, frozenClock: true });
 *   // ... call sim.url with `Authorization: Bearer ${sim.demoApiKey}` ...
 *   await sim.stop();
 */
import { SimServer } from './server';
import { SimState } from './state';
import type { AddAccountInput } from './state';
import { formatTimestamp, registerClock } from './time';
import type {
	ChargeEntry,
	FaultSpec,
	Period,
	ProxyRecord,
	RateLimitRule,
	RequestLogEntry,
	SimAccount,
	SimCarrier,
	SimClock,
	SimStockCity,
	SimulatorOptions,
	UnitPrices,
} from './types';
import type { RouteKey } from './routes';

export class ProxyAccountSimulator {
	private constructor(
		private readonly state: SimState,
		private readonly server: SimServer,
		readonly url: string,
	) {}

	/** Builds the state (seeded) and listens on 127.0.0.1 (port 0 = a free port). */
	static async start(options: SimulatorOptions = {}): Promise<ProxyAccountSimulator> {
		const state = new SimState(options);
		const server = new SimServer(state);
		const url = await server.listen(options.port ?? 0);
		registerClock(url, state.clock);
		return new ProxyAccountSimulator(state, server, url);
	}

	/** Closes the server, every open socket and pending timer. Safe to call twice. */
	stop(): Promise<void> {
		registerClock(this.url, null);
		return this.server.close();
	}

	get demoApiKey(): string {
		return this.state.demoApiKey;
	}

	get seed(): number {
		return this.state.seed;
	}

	get utcOffsetMinutes(): number {
		return this.state.utcOffsetMinutes;
	}

	// ----- accounts -----------------------------------------------------------------------------

	/** Adds an account; defaults: balance 0, member false, no proxies. */
	addAccount(a: AddAccountInput): SimAccount {
		return this.state.addAccount(a);
	}

	/** An account by API key; default: the demo account. */
	account(apiKey?: string): SimAccount {
		return this.state.account(apiKey);
	}

	/** What GET /v1/funds would say of an account (default: demo): `total_commitment`, the renewal of every auto-renew proxy. */
	commitment(apiKey?: string): number {
		const outcome = this.state.funds(this.state.account(apiKey));
		const data = (outcome.ok ? outcome.body.data : undefined) as { upcoming: { total: { total_commitment: number } } } | undefined;
		return data?.upcoming.total.total_commitment ?? 0;
	}

	/**
	 * Adds a proxy to an account (default: demo) and returns the stored record. Fields not given get
	 * seeded defaults (expiry 30 days from now); any proxy_name is allowed.
	 */
	addProxy(apiKey: string | null | undefined, partial: Partial<ProxyRecord> = {}): ProxyRecord {
		return this.state.addProxy(apiKey, partial);
	}

	/**
	 * The orders of account operations #10-#12: how long a deploy, a swap and a removal take after
	 * their 202, which name a swap's reply carries, and what a swap costs. Tests set them.
	 */
	get orders(): Pick<SimState, 'deployDelayMs' | 'swapDelayMs' | 'removeDelayMs' | 'swapReplyName' | 'swapPrice'> {
		return this.state;
	}

	/** The `Date` header of the replies: off the clock by `dateSkewMs`, or none (null). Tests set it. */
	get replyDate(): Pick<SimState, 'dateSkewMs'> {
		return this.state;
	}

	/**
	 * A proxy bought by someone else (the dashboard, another run) during an order of this account:
	 * it joins the list `delayMs` after the next deploy or swap of the account takes effect (negative:
	 * before that order's own proxies, but not before the order was accepted).
	 */
	addProxyOnNextOrder(on: 'deploy' | 'swap', apiKey: string | null | undefined, partial: Partial<ProxyRecord> = {}, delayMs = 0): void {
		this.state.addProxyOnNextOrder(on, apiKey, partial, delayMs);
	}

	/**
	 * What PATCH /v1/proxies/allocate/renew applies when it differs from what was asked: an interval
	 * cap (`maxAutoRenewInterval`) and proxies whose auto-renew stays off (`autoRenewRefused`).
	 */
	get renewals(): Pick<SimState, 'maxAutoRenewInterval' | 'autoRenewRefused'> {
		return this.state;
	}

	/** Deletes a proxy at once (default account: demo), as if removed; returns whether it existed. */
	discardProxy(apiKey: string | null | undefined, name: string): boolean {
		return this.state.discardProxy(apiKey, name);
	}

	// ----- clock --------------------------------------------------------------------------------

	get clock(): SimClock {
		return this.state.clock;
	}

	/** The clock's now as the service formats timestamps. */
	nowTimestamp(): string {
		return formatTimestamp(this.state.clock.now(), this.state.utcOffsetMinutes);
	}

	// ----- stock & prices -----------------------------------------------------------------------

	get stock(): SimStockCity[] {
		return this.state.stock;
	}

	setStockCount(city: string, carrierKey: string, count: number): void {
		this.state.setStockCount(city, carrierKey, count);
	}

	setCityOpen(city: string, open: boolean): void {
		this.state.setCityOpen(city, open);
	}

	get carriers(): SimCarrier[] {
		return this.state.carriers;
	}

	addCarrier(c: SimCarrier & { prices?: Partial<Record<Period, UnitPrices>> }): void {
		this.state.addCarrier(c);
	}

	get prices(): Record<string, Record<Period, UnitPrices>> {
		return this.state.prices;
	}

	/** Every unit price times `factor`, right after the next quote is answered: the price moves between a quote and the order. */
	changePricesAfterNextQuote(factor: number): void {
		this.state.changePricesAfterNextQuote(factor);
	}

	// ----- faults -------------------------------------------------------------------------------

	injectFault(f: FaultSpec): void {
		this.state.faults.add(f);
	}

	clearFaults(): void {
		this.state.faults.clear();
	}

	/** Faults still queued, with their remaining uses. */
	pendingFaults(): Array<FaultSpec & { remaining: number }> {
		return this.state.faults.pending();
	}

	// ----- observation --------------------------------------------------------------------------

	get requests(): RequestLogEntry[] {
		return this.state.requests;
	}

	get ledger(): ChargeEntry[] {
		return this.state.ledger;
	}

	/** Empties the request log and the ledger (sequence numbers keep counting up). */
	resetLogs(): void {
		this.state.resetLogs();
	}

	/**
	 * Sets the rate limit of one route for every API key from now on (a long window, rate-limit
	 * headers), or lifts it with null; what was counted on the route is forgotten.
	 */
	setRateLimit(route: RouteKey, rule: RateLimitRule | null): void {
		this.state.setRateLimit(route, rule);
	}

	/** Forgets the requests counted against the network model's rate limits. */
	resetRateLimits(): void {
		this.state.resetRateLimits();
	}
}

export { formatTimestamp, parseTimestamp, PERIOD_MS } from './time';
export { computeQuote, DEFAULT_PRICES, defaultPriceTable } from './pricing';
export type { QuoteData, QuoteItem, QuoteLine, QuotePeriod, QuoteResult, Saving, Totals } from './pricing';
export { applyDrift } from './faults';
export { cityCode, DEFAULT_CARRIERS, demoApiKeyForSeed, MAX_CITIES, MAX_PROXIES, MIN_CITIES, Rng } from './seed';
export { maskKey } from './server';
export type { AddAccountInput } from './state';
export { IPV4_DELAY_MS, MAX_INTERVAL, MAX_WHITELIST } from './state';
export { NETWORK_MODEL } from './network-model';
export { matchRoute, ROUTE_KEYS, ROUTES } from './routes';
export type { Route, RouteMatch } from './routes';
export { PERIODS, PROXY_EXTRA_FIELDS, PROXY_FIELDS } from './types';
export type {
	BusinessErrorStyle,
	ChargeEntry,
	FaultKind,
	FaultSpec,
	Period,
	ProxyRecord,
	RateLimitRule,
	RequestLogEntry,
	SimAccount,
	SimCarrier,
	SimClock,
	SimStockCity,
	SimulatorOptions,
	UnitPrices,
} from './types';
export type { RouteKey } from './routes';
