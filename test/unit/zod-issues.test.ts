/**
 * The one place that reads a zod issue (`describeIssue`) says the same as zod 3 does, and gives the
 * same answer for an issue shaped as zod 4 reports it (no `received`; `invalid_value` for
 * literals), so n8n moving to zod 4 breaks nothing silently.
 */
import { z } from 'zod';

import { describeIssue, proxyRecordSchema, responseSchemas } from '../../nodes/ProxyAccount/transport/schemas';

const record = (patch: Record<string, unknown> = {}) => ({
	proxy_name: 'PRX-1', nickname: null, isp: 'AT&T', period: 'weekly', auto_renew: false, auto_renew_interval: 1,
	added_at: '2026-01-01T00:00:00.000-06:00', expires_at: '2026-02-01T00:00:00.000-06:00', network_status: 'online',
	server_ip: '203.0.113.1', h_port: 8001, s_port: 9001, auth_method: 'basic', username: 'u', password: 'p', whitelist: null,
	auto_change: false, auto_change_time: 0, last_ip_change: '2026-01-01T00:00:00.000-06:00', last_reboot: '2026-01-01T00:00:00.000-06:00',
	traffic: 0, h_threads: 1, s_threads: 1, city: 'Austin', state: 'TX', ...patch,
});

describe('describeIssue', () => {
	it.each([
		['a missing field', { expires_at: undefined }, 'data[0].expires_at', 'is missing'],
		['a string for a number', { h_port: '8001' }, 'data[0].h_port', 'should be number but is string'],
		['a float for an integer', { h_port: 80.5 }, 'data[0].h_port', 'should be integer but is float'],
		['null for a boolean', { auto_renew: null }, 'data[0].auto_renew', 'should be boolean but is null'],
		['an array for a string', { city: ['Austin'] }, 'data[0].city', 'should be string but is array'],
	])('%s: what zod 3 says, and the same for a zod 4 issue', (_label, patch, field, issue) => {
		const body = { ok: true, data: [record(patch)] };
		const parsed = responseSchemas.proxyList.safeParse(body);
		expect(parsed.success).toBe(false);
		const zod3 = parsed.success ? undefined : parsed.error.issues[0];
		expect(describeIssue(zod3!, body)).toEqual({ field, issue });
		// zod 3 itself agrees on what it received:
		if (zod3?.code === 'invalid_type') expect(issue).toBe(zod3.received === 'undefined' ? 'is missing' : `should be ${zod3.expected} but is ${zod3.received}`);
		// zod 4 drops `received`: the answer comes from the body, the same.
		const zod4: Partial<z.ZodInvalidTypeIssue> = { ...(zod3 as z.ZodInvalidTypeIssue), message: 'Invalid input' };
		delete zod4.received;
		expect(describeIssue(zod4, body)).toEqual({ field, issue });
	});

	it('a literal: zod 3 invalid_literal and zod 4 invalid_value read the same', () => {
		const schema = z.object({ ok: z.literal(true) });
		const body = { ok: 'yes' };
		const parsed = schema.safeParse(body);
		const zod3 = parsed.success ? undefined : parsed.error.issues[0];
		expect(describeIssue(zod3!, body)).toEqual({ field: 'ok', issue: 'should be true' });
		expect(describeIssue({ code: 'invalid_value', values: [true], path: ['ok'], message: 'Invalid input' }, body)).toEqual({ field: 'ok', issue: 'should be true' });
	});

	it('anything else names zod\u2019s message; the root is "(body)"', () => {
		expect(describeIssue({ code: 'custom', path: [], message: 'Bad thing' }, {})).toEqual({ field: '(body)', issue: 'is invalid (Bad thing)' });
		expect(proxyRecordSchema.safeParse(record()).success).toBe(true);
	});
});
