/**
 * The cost-cap ledger of a run that charges in batches (helpers/money/charges.ts `CostLedger`): what was
 * charged, what counts against Maximum Total Cost (an uncertain batch's quote too), and when a
 * batch may not be sent or was charged more than allowed.
 */
import { CostLedger } from '../../nodes/ProxyAccount/helpers/money/charges';

describe('CostLedger', () => {
	it('lets batches through while charged + quote stays within the cap', () => {
		const ledger = new CostLedger(10);
		expect(ledger.refusal(6, 1)).toBeUndefined();
		expect(ledger.charged(6, 6, 1)).toBeUndefined();
		expect(ledger.refusal(4, 2)).toBeUndefined();
		expect(ledger.refusal(4.01, 2)).toBe('Batch 2 was not sent: with 6 charged so far, its quote of 4.01 would pass the Maximum Total Cost of 10');
		expect([ledger.confirmed, ledger.held, ledger.uncertain]).toEqual([6, 6, 0]);
	});

	it('holds an uncertain batch\u2019s quote against the cap and says so', () => {
		const ledger = new CostLedger(10);
		ledger.charged(3, 3, 1);
		ledger.mayHaveCharged(5);
		expect([ledger.confirmed, ledger.held, ledger.uncertain]).toEqual([3, 8, 1]);
		expect(ledger.refusal(3, 3)).toBe('Batch 3 was not sent: with 8 charged or possibly charged so far, its quote of 3 would pass the Maximum Total Cost of 10');
	});

	it('names a charge over its quote and a run over the cap, compared in cents', () => {
		const ledger = new CostLedger(10);
		expect(ledger.charged(5.004, 5, 1)).toBeUndefined();
		expect(ledger.charged(6, 5, 2)).toBe('Batch 2 was charged 6, more than the quote of 5. This run was charged 11 in all, more than the Maximum Total Cost of 10');
	});

	it('without a cap: refuses nothing, holds nothing uncertain, and does not compare with the quote', () => {
		const ledger = new CostLedger();
		expect(ledger.refusal(1_000_000, 1)).toBeUndefined();
		expect(ledger.charged(9, 5, 1)).toBeUndefined();
		ledger.mayHaveCharged(undefined);
		expect([ledger.confirmed, ledger.held, ledger.uncertain]).toEqual([9, 9, 1]);
	});
});
