/**
 * The script of test:durable: the same changes of the account, poll rounds and SIGKILLs, run on
 * each scheduler against its own simulator (same seed, same proxies). Each step names the kill point
 * it exercises and returns the events the changes must produce, one key per event (workflows.mjs
 * `eventKey`), with the documented reason when the default scheduler may miss one.
 *
 * The simulator's clock is frozen and moves 30 minutes per step, so Proxy Removed's grace period
 * (3 polls and an hour) is a matter of rounds, and nothing else expires on its own.
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Why the default scheduler may miss an event: README's Restarts section. */
export const DOCUMENTED = {
	cameAndWent: 'Restarts: Stock Changed compares with the stock of the last poll that emitted (a sell-out seen by a quiet poll is forgotten)',
	beforeFirstEvent: 'Restarts: a restart before the trigger\u2019s first event records a new baseline',
	killedMidEmit: 'Restarts (default scheduler): killed right after a poll found changes, n8n may have saved the memory but not the execution',
};

/** Why the durable scheduler may repeat an event: README's Restarts section (measured, n8n 2.41.1). */
export const DURABLE_REPEAT =
	'Restarts (durable scheduler): after a kill during a poll, the events of that poll have reached the workflow twice (two executions)';

export const KILL_POINTS = {
	none: 'no kill (reference)',
	idle: 'between polls (down while the account changed)',
	heldReply: 'during a poll (list reply held)',
	execution: 'during the execution (downstream held)',
	afterReply: 'right after the list reply was served',
	tail: 'after the restarts',
};

/** What the script needs of the simulator, chosen once from its state (same seed, same choice). */
export async function prepareAccount(I) {
	const { sim } = I;
	await sim.control('POST', '/__sim/orders', { deployDelayMs: 0 });
	const state = await sim.control('GET', '/__sim/state');
	const names = state.proxies.map((p) => p.proxy_name).sort();
	if (names.length < 11) throw new Error(`the simulator has ${names.length} proxies, 11 needed`);
	// Every proxy online and a month from expiry: only the script's changes make events.
	for (const name of names) await sim.control('POST', '/__sim/proxy', { name, expiresInHours: 720, network_status: 'online' });
	const open = state.stock.filter((c) => c.open).map((c) => c.city).sort();
	if (open.length < 5) throw new Error(`the simulator has ${open.length} open cities, 5 needed`);
	const [A, B, C, D, Z] = open;
	const tmobile = async (city, count) => sim.control('POST', '/__sim/stock', { city, carrier: 'tmobile', count });
	await tmobile(A, 0);
	await tmobile(B, 6);
	await tmobile(C, 0);
	await tmobile(D, 0);
	return {
		status: names.slice(0, 5),
		expiry: names.slice(5, 10),
		removed: names[10],
		cities: { A, B, C, D },
		deployCity: Z,
		tmobile,
	};
}

/** The script's changes, on one instance (I) with its account (acc). */
function changes(I, acc) {
	const { sim } = I;
	const api = async (method, path, body) => {
		const response = await fetch(`${sim.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json', 'x-test-process': 'driver' },
			body: JSON.stringify(body),
		});
		const json = await response.json();
		if (!response.ok) throw new Error(`simulator ${method} ${path} → ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
		return json.data;
	};
	return {
		/** Buys one proxy (deployed at once); returns the event key of its New Proxy. */
		async newProxy() {
			const before = new Set((await sim.control('GET', '/__sim/state')).proxies.map((p) => p.proxy_name));
			await api('POST', '/v1/proxies/deploy', { proxies: [{ isp: 'AT&T', location: acc.deployCity, interval: 1, period: 'weekly' }] });
			const added = (await sim.control('GET', '/__sim/state')).proxies.map((p) => p.proxy_name).filter((n) => !before.has(n));
			if (added.length !== 1) throw new Error(`the deploy added ${added.length} proxies`);
			return `new ${added[0]}`;
		},
		async offline(i) {
			await sim.control('POST', '/__sim/proxy', { name: acc.status[i], network_status: 'offline' });
			return `status ${acc.status[i]} online>offline`;
		},
		async expiring(i, hours) {
			await sim.control('POST', '/__sim/proxy', { name: acc.expiry[i], expiresInHours: hours });
			return `expiring ${acc.expiry[i]}`;
		},
		/** Sets T-Mobile's count in a city; returns the Became Available key when it came from 0. */
		async stock(city, count) {
			await acc.tmobile(acc.cities[city], count);
			return `stock ${acc.cities[city]} tmobile became_available ${count}`;
		},
		async discard() {
			await sim.control('POST', '/__sim/discard-proxy', { name: acc.removed });
			return `removed ${acc.removed}`;
		},
		clock: () => sim.control('POST', '/__sim/clock', { advanceMs: 30 * 60_000 }),
	};
}

/**
 * Runs the script on one instance. `recorder` holds executions for the in-execution kill; `events`
 * reads what the recorder got for this instance (keys). Returns the expected events:
 * [{ key, point, documented? }] and the facts measured on the way.
 */
export async function runScript(I, { acc, recorder, receivedKeys, say }) {
	const ch = changes(I, acc);
	const expected = [];
	const expect = (point, key, documented, mayRepeat) => expected.push({ key, point, ...(documented ? { documented } : {}), ...(mayRepeat ? { mayRepeat } : {}) });
	const facts = {};
	/** Waits (up to timeoutMs) until the recorder got every key; returns the missing ones. */
	const waitFor = async (keys, timeoutMs = 15_000) => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const got = new Set(receivedKeys());
			const missing = keys.filter((k) => !got.has(k));
			if (missing.length === 0 || Date.now() > deadline) return missing;
			await sleep(250);
		}
	};
	const restart = async (point) => {
		const seconds = await I.restart();
		say(`restarted after the kill ${KILL_POINTS[point]} in ${seconds.toFixed(1)} s`);
		await I.waitRound();
	};

	// 1. Reference: a poll sees the changes; nobody is killed.
	let keys = [await ch.newProxy(), await ch.offline(0), await ch.expiring(0, 2), await ch.stock('A', 4)];
	await ch.clock();
	for (const k of keys) expect('none', k);
	await I.waitRound();
	await waitFor(keys);

	// 2. A quiet poll: T-Mobile sells out in city B (not an event for Became Available).
	await ch.stock('B', 0);
	await ch.clock();
	await I.waitRound();
	await sleep(1500);

	// 3. Killed between polls; the account changes while n8n is down; B gets stock back (after a
	//    sell-out only a quiet poll saw), and a proxy is removed.
	await I.kill('idle');
	say('killed between polls');
	keys = [await ch.stock('B', 5), await ch.newProxy(), await ch.offline(1), await ch.expiring(1, 3)];
	expect('idle', keys[0], DOCUMENTED.cameAndWent);
	for (const k of keys.slice(1)) expect('idle', k);
	expect('idle', await ch.discard(), DOCUMENTED.beforeFirstEvent);
	await ch.clock();
	await restart('idle');
	await waitFor(keys.slice(1));

	// 4. Killed during a poll: the simulator holds every list reply; n8n dies waiting for them.
	keys = [await ch.newProxy(), await ch.offline(2), await ch.expiring(2, 4), await ch.stock('C', 3)];
	for (const k of keys) expect('heldReply', k, undefined, DURABLE_REPEAT);
	await ch.clock();
	await I.sim.control('POST', '/__sim/faults', { route: 'GET /v1/proxies', kind: 'latency', delayMs: 120_000, when: 'before', times: 4 });
	await I.sim.control('POST', '/__sim/faults', { route: 'GET /v1/stock', kind: 'latency', delayMs: 120_000, when: 'before', times: 1 });
	for (let deadline = Date.now() + 90_000; ; ) {
		const arrived = await I.pollsSince(I.mark, { served: false });
		if (arrived.filter((r) => r.fault === 'latency:before').length >= 5) break;
		if (Date.now() > deadline) throw new Error('the held poll requests did not arrive');
		await sleep(100);
	}
	await I.kill('heldReply');
	say('killed while the simulator held its list replies');
	await I.sim.control('DELETE', '/__sim/faults');
	await I.markNow();
	await restart('heldReply');
	await waitFor(keys);

	// 5. Killed during the executions: the recorder takes the items but does not answer.
	keys = [await ch.newProxy(), await ch.offline(3), await ch.expiring(3, 5), await ch.stock('D', 2)];
	for (const k of keys) expect('execution', k);
	await ch.stock('A', 0);
	await ch.clock();
	recorder.hold(I.scheduler, true);
	await I.waitRound();
	const missingHeld = await waitFor(keys, 20_000);
	facts.heldExecutions = keys.length - missingHeld.length;
	await I.kill('execution');
	say(`killed while ${facts.heldExecutions} of ${keys.length} executions waited for the recorder`);
	recorder.hold(I.scheduler, false);
	await I.markNow();
	await restart('execution');

	// 6. Killed right after the simulator served the list replies (the poll's items in flight).
	keys = [await ch.newProxy(), await ch.offline(4), await ch.expiring(4, 6), await ch.stock('A', 3)];
	for (const k of keys) expect('afterReply', k, DOCUMENTED.killedMidEmit);
	await ch.clock();
	await I.markNow();
	for (let deadline = Date.now() + 90_000; ; ) {
		const served = await I.pollsSince(I.mark);
		if (served.length >= 5) {
			await I.kill('afterReply');
			break;
		}
		if (Date.now() > deadline) throw new Error('the poll round did not come');
		await sleep(5);
	}
	say('killed right after the list replies were served');
	await I.markNow();
	await restart('afterReply');

	// 7. An hour later, four more rounds: a removal seen missing since the last restart is due. (The
	//    trigger takes a jump of the service's clock once a second reply in a row confirms it, so the
	//    clock jumps once and the rounds after it keep it.)
	await ch.clock();
	await ch.clock();
	for (let i = 0; i < 4; i++) await I.waitRound();
	await waitFor(expected.filter((e) => !e.documented || I.scheduler === 'durable').map((e) => e.key), 10_000);
	await sleep(3000);
	return { expected, facts };
}
