/** Telling a purchase's new proxies apart (Buy > Wait for New Proxies): a pure helper, no engine. */
import { findMovedProxy, matchNewProxies, movedUntoldNote, newProxiesReport } from '../../nodes/ProxyAccount/helpers/money/newProxies';
import type { OrderedProxies } from '../../nodes/ProxyAccount/helpers/money/newProxies';

const order = (item: number, carrier: string, city: string, quantity = 1): OrderedProxies => ({ item, carrier, city, quantity });
const proxy = (proxy_name: string, isp: string, city: string) => ({ proxy_name, isp, city });
const WAIT = { waitedMs: 4_000 };

describe('matchNewProxies', () => {
	const NONE_NAMED = /The service does not say which proxies it deployed, so none is named as bought by this item: the candidates are the new proxies of .*, and a purchase of the same carrier and city by someone else at the same time would be among them\.$/;

	it('gives the new proxies of an item\'s carrier and city as candidates, never as its own', () => {
		const orders = [order(0, 'AT&T', 'Austin', 2), order(1, 'T-Mobile', 'Austin')];
		const found = matchNewProxies(orders, [proxy('A1', 'at&t', ' austin'), proxy('T1', 'T-Mobile', 'Austin'), proxy('A2', 'AT&T', 'Austin'), proxy('X', 'AT&T', 'Denver')]);
		expect(found.get(0)).toEqual({ candidates: ['A1', 'A2'], items: [0], bought: 2, complete: true });
		expect(found.get(1)).toEqual({ candidates: ['T1'], items: [1], bought: 1, complete: true });
		const report = newProxiesReport(orders[0], found.get(0)!, WAIT);
		expect(report).toMatchObject({ status: 'bought', candidates: ['A1', 'A2'] });
		expect(report).not.toHaveProperty('new_proxies');
		expect(report.note).toMatch(/^The proxy list shows 2 new proxies of AT&T in Austin after 4 s, and this run bought 2\. /);
		expect(report.note).toMatch(NONE_NAMED);
	});

	it('a foreign purchase listed before the run\'s own is a candidate, not named as the item\'s', () => {
		const found = matchNewProxies([order(0, 'AT&T', 'Austin')], [proxy('FOREIGN', 'AT&T', 'Austin')]);
		const report = newProxiesReport(order(0, 'AT&T', 'Austin'), found.get(0)!, WAIT);
		expect(report).toEqual({ status: 'bought', candidates: ['FOREIGN'], note: expect.stringMatching(NONE_NAMED) });
	});

	it('gives the ones there so far and says the rest are not yet visible', () => {
		const found = matchNewProxies([order(0, 'AT&T', 'Austin', 3)], [proxy('A1', 'AT&T', 'Austin')]);
		expect(found.get(0)).toMatchObject({ candidates: ['A1'], complete: false });
		const report = newProxiesReport(order(0, 'AT&T', 'Austin', 3), found.get(0)!, { waitedMs: 6_200, error: 'boom' });
		expect(report).toMatchObject({ status: 'bought_not_yet_visible', candidates: ['A1'] });
		expect(report.note).toMatch(/^The proxy list shows 1 new proxy of AT&T in Austin after 6 s, and this run bought 3 \(the last read of the list failed: boom\)\. The others should appear shortly: read the list \(Proxy Account > Get Many\) before buying again\. /);
	});

	it('says someone else bought some when the list holds more new proxies of the carrier and city than the run bought', () => {
		const found = matchNewProxies([order(0, 'AT&T', 'Austin')], [proxy('A1', 'AT&T', 'Austin'), proxy('F1', 'AT&T', 'Austin')]);
		expect(found.get(0)).toEqual({ candidates: ['A1', 'F1'], items: [0], bought: 1, complete: true });
		const report = newProxiesReport(order(0, 'AT&T', 'Austin'), found.get(0)!, WAIT);
		expect(report).toMatchObject({ status: 'bought_unidentified', candidates: ['A1', 'F1'] });
		expect(report.note).toMatch(/^The proxy list shows 2 new proxies of AT&T in Austin, while this run bought 1: someone else .* bought some meanwhile\. /);
		expect(report.note).toMatch(NONE_NAMED);
	});

	it('gives the union, per item, when several items ordered the same carrier and city', () => {
		const orders = [order(0, 'AT&T', 'Austin'), order(1, 'Verizon', 'Austin'), order(2, 'at&t', 'AUSTIN', 2)];
		const fresh = [proxy('A1', 'AT&T', 'Austin'), proxy('V1', 'Verizon', 'Austin'), proxy('A2', 'AT&T', 'Austin')];
		const found = matchNewProxies(orders, fresh);
		expect(found.get(0)).toEqual({ candidates: ['A1', 'A2'], items: [0, 2], bought: 3, complete: false });
		expect(found.get(2)).toEqual(found.get(0));
		expect(found.get(1)).toMatchObject({ candidates: ['V1'], complete: true });
		const waiting = newProxiesReport(orders[2], found.get(2)!, WAIT);
		expect(waiting).toMatchObject({ status: 'bought_not_yet_visible', candidates: ['A1', 'A2'] });
		expect(waiting.note).toMatch(/^Items 0, 2 of this run ordered at&t in AUSTIN \(3 in all\), and the proxy list shows 2 new proxies of at&t in AUSTIN after 4 s: which are this item's cannot be told\./);
		const all = matchNewProxies(orders, [...fresh, proxy('A3', 'AT&T', 'Austin')]);
		expect(newProxiesReport(orders[0], all.get(0)!, WAIT)).toMatchObject({ status: 'bought_unidentified', candidates: ['A1', 'A2', 'A3'] });
	});

	it('an empty list names nothing and is not complete', () => {
		expect(matchNewProxies([order(4, 'AT&T', 'Austin')], []).get(4)).toEqual({ candidates: [], items: [4], bought: 1, complete: false });
	});
});

describe('findMovedProxy', () => {
	const PAID = '2026-12-01T10:00:00.000-06:00';
	const listed = (proxy_name: string, city = 'Denver', expires_at = PAID) => ({ proxy_name, isp: 'Verizon', city, expires_at });
	const lookup = (known: string[] = ['OLD-2']) => ({ oldName: 'OLD', expiresAt: PAID, carrier: 'verizon', city: 'denver', known: (name: string) => known.includes(name) });

	it('waits while the old name is listed, or the list is empty', () => {
		expect(findMovedProxy([listed('OLD', 'Austin'), listed('NEW')], lookup())).toEqual({ state: 'pending' });
		expect(findMovedProxy([], lookup())).toEqual({ state: 'pending' });
	});

	it('names the one new proxy of the carrier and city with the old paid time, whatever else is new there', () => {
		const list = [listed('OLD-2'), listed('FOREIGN', 'Denver', '2026-12-08T10:00:00.000-06:00'), listed('NEW'), listed('ELSEWHERE', 'Austin')];
		expect(findMovedProxy(list, lookup())).toEqual({ state: 'named', name: 'NEW' });
		// The same instant written in another offset is the same paid time.
		expect(findMovedProxy([listed('NEW', 'Denver', '2026-12-01T16:00:00.000Z')], lookup())).toEqual({ state: 'named', name: 'NEW' });
	});

	it('names none when two could be it (final), or none has the paid time (not final)', () => {
		expect(findMovedProxy([listed('NEW'), listed('TWIN')], lookup())).toEqual({ state: 'untold', candidates: ['NEW', 'TWIN'], final: true });
		expect(findMovedProxy([listed('NEW'), listed('TWIN')], lookup(['TWIN']))).toEqual({ state: 'named', name: 'NEW' });
		expect(findMovedProxy([listed('LATER', 'Denver', '2027-01-01T00:00:00.000Z')], lookup())).toEqual({ state: 'untold', candidates: ['LATER'], final: false });
		expect(movedUntoldNote(1, 'Verizon', 'Denver')).toMatch(/^The proxy left the list, and 1 new proxy of Verizon in Denver could be it, without its paid time/);
	});

	describe('a name the reply gave is taken only once the list shows it new in the carrier and city', () => {
		const replied = (name: string, known: string[] = ['OLD-2']) => ({ ...lookup(known), replied: name });
		it('confirmed: named, even beside another new proxy with the paid time', () => {
			expect(findMovedProxy([listed('NEW'), listed('TWIN')], replied('NEW'))).toEqual({ state: 'named', name: 'NEW' });
		});
		it('a proxy listed before the run, or of another city: never named; the new proxies there are candidates (final)', () => {
			expect(findMovedProxy([listed('OLD-2'), listed('NEW')], replied('OLD-2'))).toEqual({ state: 'untold', candidates: ['NEW'], final: true });
			expect(findMovedProxy([listed('AWAY', 'Austin'), listed('NEW')], replied('AWAY', []))).toEqual({ state: 'untold', candidates: ['NEW'], final: true });
			expect(findMovedProxy([listed('OLD-2')], replied('OLD-2'))).toEqual({ state: 'untold', candidates: [], final: true });
		});
		it('not listed yet: pending while the old name is listed or nothing is new there, else candidates (not final)', () => {
			expect(findMovedProxy([listed('OLD'), listed('NEW')], replied('NEW'))).toEqual({ state: 'pending' });
			expect(findMovedProxy([listed('OLD-2')], replied('NEW'))).toEqual({ state: 'pending' });
			expect(findMovedProxy([listed('OTHER')], replied('NEW'))).toEqual({ state: 'untold', candidates: ['OTHER'], final: false });
		});
		it('the note says the reply\u2019s name was not taken, and with no candidate, that none shows yet', () => {
			expect(movedUntoldNote(1, 'Verizon', 'Denver', true)).toMatch(/^The service\u2019s reply named a proxy that the list does not show as new in that carrier and city, so that name is not taken\. The proxy left the list, and 1 new proxy of Verizon in Denver could be it \(/);
			expect(movedUntoldNote(0, 'Verizon', 'Denver', true)).toMatch(/and no new proxy of Verizon in Denver shows yet, so none is named\./);
		});
	});
});
