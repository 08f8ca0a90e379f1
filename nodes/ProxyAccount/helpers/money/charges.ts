/* What the service charged, held against what the run was quoted and what the builder capped. */

/** An amount in the account's currency, rounded to cents. */
export const cents = (amount: number) => Math.round(amount * 100) / 100;

/**
 * What a charge the service reported passed: the quote the request was sent on, the Maximum Total
 * Cost, both, or nothing (undefined). Compared in cents, so rounding is no excess.
 */
export function chargeExcess(
	charged: number,
	limits: { quote?: number; cap?: number },
): string | undefined {
	const passed: string[] = [];
	if (limits.quote !== undefined && cents(charged) > cents(limits.quote))
		passed.push(`the quote of ${limits.quote}`);
	if (limits.cap !== undefined && cents(charged) > cents(limits.cap))
		passed.push(`the Maximum Total Cost of ${limits.cap}`);
	return passed.length === 0 ? undefined : `more than ${passed.join(' and ')}`;
}

/**
 * What a run that charges in batches has spent, held against its Maximum Total Cost: what the
 * service said it charged (`confirmed`), and what counts against the cap (`held`: that, plus the
 * quote of every batch that failed in a way that may have charged it, counted in `uncertain`).
 */
export class CostLedger {
	confirmed = 0;
	held = 0;
	uncertain = 0;

	constructor(readonly cap?: number) {}

	/** Why batch `number` with this quote may not be sent (it would pass the cap), or undefined. */
	refusal(quote: number, number: number): string | undefined {
		if (this.cap === undefined || cents(this.held + quote) <= this.cap) return undefined;
		const so = this.uncertain > 0 ? 'charged or possibly charged' : 'charged';
		return `Batch ${number} was not sent: with ${cents(this.held)} ${so} so far, its quote of ${quote} would pass the Maximum Total Cost of ${this.cap}`;
	}

	/**
	 * Batch `number`, quoted `quote`, was charged `amount`: recorded, and what it passed (its quote,
	 * only when there is a cap; the cap, by the run's total), or undefined.
	 */
	charged(amount: number, quote: number | undefined, number: number): string | undefined {
		const runTotal = cents(this.confirmed + amount);
		const batchExcess = this.cap === undefined ? undefined : chargeExcess(amount, { quote });
		const runExcess = chargeExcess(runTotal, { cap: this.cap });
		this.confirmed = runTotal;
		this.held = cents(this.held + amount);
		if (batchExcess === undefined && runExcess === undefined) return undefined;
		return [
			batchExcess && `Batch ${number} was charged ${amount}, ${batchExcess}`,
			runExcess && `This run was charged ${runTotal} in all, ${runExcess}`,
		]
			.filter(Boolean)
			.join('. ');
	}

	/** A batch failed in a way that may have charged it: its quote counts against the cap. */
	mayHaveCharged(quote: number | undefined): void {
		this.uncertain++;
		if (this.cap !== undefined && quote !== undefined) this.held = cents(this.held + quote);
	}
}
