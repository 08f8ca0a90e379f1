/**
 * The scenarios of test:agent: each scripts the model, runs the agent through its webhook and checks
 * the simulator and what the model read. `ctx` (run.mjs): n8n, s (simulator helpers), model, check,
 * assert, log, take(n) (proxies of its own), run31 / run22 (call an agent), limits, stockCity.
 */
const short = (text, n = 160) => String(text ?? '').replace(/\s+/g, ' ').slice(0, n);
const calls = (tool, argsList) => argsList.map((args) => ({ tool, args }));

/** The tool results of one tool of a scenario, as the model read them. */
function resultsOf(model, id, tool) {
	return model.toolResults(id).filter((r) => r.tool === tool);
}

/** The tool results of a scenario, each holding content (the check fails when a call got no answer). */
function answered(ctx, id, tool, count) {
	const found = resultsOf(ctx.model, id, tool);
	ctx.assert(found.length === count, `${found.length} ${tool} results reached the model, ${count} expected (model requests: ${ctx.model.requestsOf(id).length})`);
	for (const r of found) ctx.assert(typeof r.content === 'string', `${tool} call ${r.id} got no tool message`);
	return found;
}

async function reads(ctx) {
	const { s, model, check, assert } = ctx;
	const [one] = ctx.take(1);
	const id = 'reads';
	const stock = await s.api('GET', '/v1/stock');
	const city = stock.find((c) => c.open && c.tmobile > 0)?.city;
	model.script(id, [
		{
			calls: [
				{ tool: 'get_funds', args: {} },
				{ tool: 'get_proxies', args: {} },
				{ tool: 'get_stock', args: {} },
				{ tool: 'quote', args: { carrier: 'T-Mobile', city, weeks: 2 } },
				{ tool: 'get_proxy', args: { proxy_name: one } },
			],
		},
		{ content: 'read everything' },
	]);
	const mark = await s.mark();
	const charges = (await s.ledger()).length;
	const reply = await ctx.run31(id);
	await check('the agent (3.1) runs through the webhook and answers with the model\u2019s last turn', async () => {
		assert(reply.status === 200, `HTTP ${reply.status}: ${short(reply.text, 300)}`);
		assert(/read everything/.test(reply.text), short(reply.text, 300));
		return `HTTP ${reply.status}, ${model.requestsOf(id).length} model requests`;
	});
	await check('n8n declares every tool to the model: $fromAI keys as the schema, a description each', async () => {
		const declared = model.toolsDeclared(id);
		const names = declared.map((t) => t.name).sort();
		const expected = ctx.workflow31.nodes.filter((n) => n.type.endsWith('proxyAccountTool')).map((n) => n.name).sort();
		assert(JSON.stringify(names) === JSON.stringify(expected), `declared ${names.join(', ')}`);
		const extend = declared.find((t) => t.name === 'extend_proxy');
		const keys = Object.keys(extend.parameters?.properties ?? {}).sort();
		assert(JSON.stringify(keys) === JSON.stringify(['days', 'proxy_name']), `extend_proxy declares ${keys.join(', ')}`);
		const byInput = declared.find((t) => t.name === 'remove_by_input');
		const inputKeys = Object.keys(byInput.parameters?.properties ?? {});
		assert(!inputKeys.includes('proxy_name'), `remove_by_input declares ${inputKeys.join(', ')}`);
		assert(declared.every((t) => typeof t.description === 'string' && t.description.length > 0), 'a tool has no description');
		return `${names.length} tools; extend_proxy(${keys.join(', ')}): “${short(extend.description, 120)}”; remove_by_input(${inputKeys.join(', ') || 'no keys'})`;
	});
	await check('Get Funds: the model reads the wallet the simulator holds', async () => {
		const [r] = answered(ctx, id, 'get_funds', 1);
		const funds = await s.balance();
		assert(r.content.includes(String(funds)) && !/"error"/.test(r.content), short(r.content, 300));
		return short(r.content, 100);
	});
	await check('Get Many and Get: the model reads the proxies the service lists', async () => {
		const [many] = answered(ctx, id, 'get_proxies', 1);
		const listed = await s.proxies();
		assert(listed.every((p) => many.content.includes(p.proxy_name)), `not every proxy name in ${short(many.content, 200)}`);
		const [got] = answered(ctx, id, 'get_proxy', 1);
		assert(got.content.includes(one) && !/"error"/.test(got.content), short(got.content, 300));
		return `${listed.length} proxies; ${one}: ${short(got.content, 80)}`;
	});
	await check('Stock Get Many and Quote: the model reads the stock and the price; nothing charged', async () => {
		const [st] = answered(ctx, id, 'get_stock', 1);
		assert(st.content.includes(city), `${city} not in ${short(st.content, 200)}`);
		const [q] = answered(ctx, id, 'quote', 1);
		assert(/total/.test(q.content) && !/"error"/.test(q.content), short(q.content, 300));
		assert((await s.ledger()).length === charges, 'something was charged');
		const sent = (await s.since(mark)).filter((r) => r.method !== 'GET' && r.path !== '/v1/price');
		assert(sent.length === 0, `requests that change things: ${sent.map((r) => `${r.method} ${r.path}`).join(', ')}`);
		return short(q.content, 100);
	});
}

export const scenarios = { reads };
