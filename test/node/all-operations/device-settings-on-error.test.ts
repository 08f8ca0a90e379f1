/**
 * Set IPv4 and Set Authentication: failed items reach n8n’s error output in all three On Error modes, and no password shows.
 */
import type { IDataObject } from 'n8n-workflow';

import { visibleText } from '../../harness';
import { OnError, names, record, paired, run, ipv4, auth } from '../../harness/suites/device-settings';

describe('failed items reach n8n\u2019s error output (all three On Error modes)', () => {
	const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
	const CASES: Array<[string, IDataObject, () => IDataObject[], RegExp]> = [
		['Set IPv4', ipv4({ ipv4Enabled: '={{ $json.on }}' }), () => [{ name: names()[11], on: true }, { name: 'PRX-NOPE-0000', on: true }, { name: names()[12], on: 'x' }], /was not found/],
		[
			'Set Authentication',
			auth({ authMethod: '={{ $json.m }}', whitelist: '={{ $json.ips }}' }),
			() => [{ name: names()[13], m: 'ipWhitelist', ips: '1.2.3.4' }, { name: names()[14], m: 'ipWhitelist', ips: 'nope' }, { name: names()[15], m: 'usernamePassword' }, { name: 'PRX-NOPE-0000', m: 'usernamePassword' }],
			/holds \u201cnope\u201d/,
		],
	];
	const cases = CASES.flatMap(([label, parameters, items, stop]) => MODES.map((mode) => [label, mode, parameters, items, stop] as const));
	it.each(cases)('%s \u2014 %s', async (label, mode, parameters, items, stop) => {
		const result = await run(parameters, items(), { onError: mode });
		const failing = label === 'Set IPv4' ? [1, 2] : [1, 3];
		const succeeding = label === 'Set IPv4' ? [0] : [0, 2];
		if (mode === 'stopWorkflow') {
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(stop);
			return;
		}
		expect(result.status).toBe('success');
		if (mode === 'continueRegularOutput') {
			const all = result.output('Node Under Test', 0);
			const bad = all.filter((item) => item.json.error !== undefined);
			expect(paired(bad)).toEqual(failing);
			for (const item of bad) expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
			expect(paired(all.filter((item) => item.json.error === undefined))).toEqual(succeeding);
		} else {
			expect(paired(result.output('Node Under Test', 0))).toEqual(succeeding);
			const bad = result.output('Node Under Test', 1);
			expect(paired(bad)).toEqual(failing);
			for (const item of bad) expect(String(item.json.message)).not.toBe('');
		}
		const passwords = names().map((n) => record(n).password);
		const text = visibleText(result.output('Node Under Test', 0));
		for (const pw of passwords) expect(text).not.toContain(pw);
	});
});
