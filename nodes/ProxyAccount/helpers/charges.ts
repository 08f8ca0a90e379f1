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
