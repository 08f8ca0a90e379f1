/**
 * Changes (Set Authentication, Set IPv4, Set Auto-Rotation, Set Auto-Renew) are never repeated by
 * n8n's retries (issue 35): with Retry On Fail a change whose answer was lost after the service
 * acted would be sent again on each try; a Retry of the failed execution would send it again too.
 * Both are refused before anything is sent, in every On Error mode; a run without them changes once.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, credentialsFor } from '../../harness';
import type { NodeUnderTest } from '../../harness';
import { byName, harness, names, record, run, sim } from '../../harness/suites/device-settings';

const target = byName('={{ $json.name }}');
const CASES: Array<{ label: string; route: string; parameters: IDataObject; what: string }> = [
	{
		label: 'Set Authentication (generated password)',
		route: 'PATCH /v1/proxies/auth/basic/:name',
		parameters: { resource: 'proxy', operation: 'setAuthentication', proxyName: target, authMethod: 'usernamePassword', username: '', password: '' },
		what: 'the authentication change',
	},
	{
		label: 'Set IPv4',
		route: 'POST /v1/proxies/ipv4/:name',
		parameters: { resource: 'proxy', operation: 'setIpv4', proxyName: target, ipv4Enabled: false },
		what: 'the IPv4 setting',
	},
	{
		label: 'Set Auto-Rotation',
		route: 'POST /v1/proxies/autochangeip/:name',
		parameters: { resource: 'proxy', operation: 'setAutoRotation', proxyName: target, autoRotationEnabled: true, rateMinutes: 15 },
		what: 'the automatic rotation setting',
	},
	{
		label: 'Set Auto-Renew',
		route: 'PATCH /v1/proxies/allocate/renew',
		parameters: { resource: 'proxy', operation: 'setAutoRenew', proxyName: target, autoRenew: true, interval: 2, options: {} },
		what: 'the auto-renew change',
	},
];
const RETRY: Partial<NodeUnderTest> = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };

describe('Changes are never repeated by n8n\u2019s retries', () => {
	it.each(CASES)('$label: Retry On Fail is refused before anything is sent, though the answer is lost after the service acted', async ({ route, parameters, what }) => {
		const name = names()[3];
		const before = JSON.stringify(record(name));
		// Each try would meet a dropped connection after the service acted.
		sim.injectFault({ route: route as never, kind: 'reset', when: 'after', times: 3 });
		for (const onError of ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const) {
			const result = await run(parameters, [{ name }], { ...RETRY, onError });
			const message = `Retry On Fail is on, which could send ${what} twice`;
			const errors = [result.error?.message, ...result.items.map((item) => item.json.error), ...(onError === 'continueErrorOutput' ? result.output('Node Under Test', 1).map((item) => item.json.error) : [])].filter(Boolean);
			expect(errors).toContain(message);
			expect(JSON.stringify(result)).toMatch(/Turn off Retry On Fail in this node\u2019s settings/);
		}
		expect(apiRequests(sim, route as never)).toHaveLength(0);
		expect(JSON.stringify(record(name))).toBe(before);
	});

	it.each(CASES)('$label: a Retry of a failed execution is refused too; a run without retries sends the change once', async ({ route, parameters }) => {
		const name = names()[4];
		const retried = await harness.runNode({ type: 'proxyAccount', parameters }, { credentials: credentialsFor(sim), items: [{ name }], mode: 'retry' });
		expect(retried.error?.message ?? retried.items[0]?.json.error).toMatch(/^This is a retry of a failed execution, which could send .* twice$/);
		expect(apiRequests(sim, route as never)).toHaveLength(0);
		sim.injectFault({ route: route as never, kind: 'reset', when: 'after' });
		const once = await run(parameters, [{ name }], { onError: 'continueRegularOutput' });
		expect(String(once.items[0].json.message)).toMatch(/may have been made: the request may have reached the service, so it was not sent again/);
		expect(apiRequests(sim, route as never)).toHaveLength(1);
	});
});
