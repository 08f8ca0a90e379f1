/**
 * The endpoint catalogue (transport/catalogue.ts) against the specs: every endpoint of the interface
 * document (proxy-account-api.md, 5) and of the account operations (account-operations.md, 12) is
 * declared exactly once, with its idempotency (`read`: retried; `sent-once`: never sent again once it
 * may have reached the service) and what it does to money, both required; every reply schema it names
 * is in `responseSchemas`, and every schema there is some endpoint's.
 */
import type { Idempotency, MoneyEffect } from '../../nodes/ProxyAccount/transport';
import { CATALOGUE, responseSchemas } from '../../nodes/ProxyAccount/transport';

/** Every endpoint of the two spec documents, with what its idempotency and money effect must be. */
const SPECS: Record<string, [Idempotency, MoneyEffect]> = {
	// proxy-account-api.md, section 4
	'POST /v1/price': ['read', 'none'],
	'POST /v1/proxies/allocate': ['sent-once', 'charges'],
	'GET /v1/proxies': ['read', 'none'],
	'GET /v1/proxies/{proxyName}': ['read', 'none'],
	'GET /v1/stock': ['read', 'none'],
	// account-operations.md, #1 to #12
	'GET /v1/funds': ['read', 'none'],
	'POST /v1/proxies/changeip/{proxyName}': ['sent-once', 'none'],
	'GET /v1/proxies/changeip/{limitedApiKey}/{proxyName}': ['sent-once', 'none'],
	'POST /v1/proxies/reboot/{proxyName}': ['sent-once', 'none'],
	'POST /v1/proxies/autochangeip/{proxyName}': ['sent-once', 'none'],
	'POST /v1/proxies/ipv4/{proxyName}': ['sent-once', 'none'],
	'PATCH /v1/proxies/auth/basic/{proxyName}': ['sent-once', 'none'],
	'PATCH /v1/proxies/auth/whitelist/{proxyName}': ['sent-once', 'none'],
	'PATCH /v1/proxies/allocate/renew': ['sent-once', 'commits'],
	'POST /v1/proxies/deploy': ['sent-once', 'charges'],
	'POST /v1/proxies/swap/{proxyName}': ['sent-once', 'may charge'],
	'DELETE /v1/proxies/remove': ['sent-once', 'destroys paid time'],
};

const entries = Object.entries(CATALOGUE).map(([name, entry]) => ({ name, label: `${entry.method} ${entry.path}`, entry }));

describe('the endpoint catalogue', () => {
	it('declares every endpoint of the specs once, and nothing else', () => {
		expect(entries.map((e) => e.label).sort()).toEqual(Object.keys(SPECS).sort());
	});

	it.each(entries)('$label ($name): idempotency and money effect as the specs say', ({ label, entry }) => {
		expect([entry.idempotency, entry.money]).toEqual(SPECS[label]);
	});

	it('retries only what changes nothing: every read moves no money, every other effect is sent once', () => {
		for (const { entry } of entries) expect(entry.money === 'none' || entry.idempotency === 'sent-once').toBe(true);
		for (const { entry } of entries) if (entry.idempotency === 'read') expect(entry.money).toBe('none');
	});

	it('gives every request sent once what its failures must say: the charge, or the change and how to look', () => {
		for (const { name, entry } of entries) {
			if (entry.idempotency !== 'sent-once') continue;
			const facts = entry as { change?: { what: string; check: string }; walletUse?: { what: string } };
			if (entry.money !== 'charges') expect([name, typeof facts.change?.what, typeof facts.change?.check]).toEqual([name, 'string', 'string']);
			if (entry.money === 'charges' || entry.money === 'may charge') expect([name, typeof facts.walletUse?.what]).toEqual([name, 'string']);
		}
	});

	it('names reply schemas of responseSchemas only, and every schema there is some endpoint\u2019s', () => {
		const used = new Set(entries.map((e) => e.entry.schema));
		expect([...used].filter((key) => !(key in responseSchemas))).toEqual([]);
		expect(Object.keys(responseSchemas).filter((key) => !used.has(key as never))).toEqual([]);
	});
});
