/**
 * The workflows of test:agent, built in code: Webhook → Edit Fields (the agent's input item:
 * `chatInput` and `proxy_name` from the request body) → AI Agent (Tools Agent, typeVersion 3.1 or 2.2)
 * with the OpenAI Chat Model (typeVersion 1.2, the scripted model server) and Proxy Account tool
 * nodes (`n8n-nodes-proxy-account.proxyAccountTool`, typeVersion 1) on `ai_tool`.
 *
 * A tool's name (what the model calls) is its node name: the names here use only [a-z_] so n8n
 * keeps them as they are.
 */
import { randomUUID } from 'node:crypto';

import { PACKAGE_NAME } from '../e2e/n8n-server.mjs';

export const TOOL_TYPE = `${PACKAGE_NAME}.proxyAccountTool`;

/** A Proxy parameter (resource locator, by name). */
const proxy = (value) => ({ __rl: true, mode: 'name', value });
/** A Proxy the model names: declared to it as `proxy_name`. */
const fromAI = (key, description, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;
const declaredProxy = proxy(fromAI('proxy_name', 'Name of the proxy, as get_proxies lists it'));
/** A Proxy read from the tool call's input item (what the agent passed, or its own input item). */
const inputProxy = proxy('={{ $json.proxy_name }}');

const EXTEND_LIMITS = { maxTotalCost: 50, keepWalletAtLeast: 100, onlyIfExpiringWithinHours: 24 };

/**
 * The tools of the main (v3.1) workflow: name → parameters. `limits` are the values the scenarios
 * set per run (the move and renewal caps depend on the simulator's prices).
 */
export function toolParameters(limits) {
	return {
		// ----- reads and free device commands
		get_funds: { resource: 'account', operation: 'getFunds' },
		get_proxies: { resource: 'proxy', operation: 'getAll', returnAll: true, sort: 'none' },
		get_proxy: { resource: 'proxy', operation: 'get', proxyName: declaredProxy },
		quote: {
			resource: 'price',
			operation: 'quote',
			lines: { line: [{ carrier: fromAI('carrier', 'Carrier, as get_stock lists it'), city: fromAI('city', 'City, as get_stock lists it'), interval: fromAI('weeks', 'Weeks, 1 to 52', 'number'), period: 'weekly' }] },
		},
		get_stock: { resource: 'stock', operation: 'getAll', returnAll: true, filters: { onlyAvailable: true } },
		rotate_ip: { resource: 'proxy', operation: 'rotateIp', proxyName: declaredProxy, options: {} },
		reboot: { resource: 'proxy', operation: 'reboot', proxyName: declaredProxy, options: {} },
		set_auto_rotation: { resource: 'proxy', operation: 'setAutoRotation', proxyName: declaredProxy, autoRotationEnabled: true, rateMinutes: 10, options: {} },
		// ----- targets read from the tool call's input item: refused
		remove_by_input: { resource: 'proxy', operation: 'remove', proxyName: inputProxy, confirmCount: 1, options: { dryRun: false } },
		extend_by_input: { resource: 'proxy', operation: 'extend', proxyName: inputProxy, interval: 1, period: 'daily', options: { ...EXTEND_LIMITS } },
		extend_by_field: { resource: 'proxy', operation: 'extend', proxySource: 'field', proxyNameField: 'proxy_name', interval: 1, period: 'daily', options: { ...EXTEND_LIMITS } },
		rotate_by_input: { resource: 'proxy', operation: 'rotateIp', proxyName: inputProxy, options: {} },
		// ----- the target the model declares
		extend_proxy: { resource: 'proxy', operation: 'extend', proxyName: declaredProxy, interval: fromAI('days', 'Days to add, e.g. 1', 'number'), period: 'daily', options: { ...EXTEND_LIMITS } },
		// ----- Remove: Dry Run off is refused; Dry Run on previews
		remove_proxy: { resource: 'proxy', operation: 'remove', proxyName: declaredProxy, confirmCount: 5, options: { dryRun: false } },
		remove_preview: { resource: 'proxy', operation: 'remove', proxyName: declaredProxy, confirmCount: 1, options: { dryRun: true } },
		// ----- Change Location: builder's floor and Maximum Cost per Move
		move_proxy: {
			resource: 'proxy',
			operation: 'changeLocation',
			proxyName: declaredProxy,
			carrier: fromAI('carrier', 'Carrier to move to, as get_stock lists it'),
			city: fromAI('city', 'City to move to, as get_stock lists it'),
			copySettings: true,
			options: { allowAsTool: true, keepWalletAtLeast: 100, maxMoveCost: 60 },
		},
		// ----- Set Auto-Renew: the builder's Maximum Renewal Commitment
		auto_renew_on: { resource: 'proxy', operation: 'setAutoRenew', proxyName: declaredProxy, autoRenew: true, interval: 1, options: { maxRenewalCommitment: limits.renewalCap } },
		// ----- Set Authentication and Set IPv4: need Allow as AI Tool
		whitelist_no_allow: { resource: 'proxy', operation: 'setAuthentication', proxyName: declaredProxy, authMethod: 'ipWhitelist', whitelist: fromAI('ip', 'IP address to allow'), options: {} },
		whitelist_allowed: { resource: 'proxy', operation: 'setAuthentication', proxyName: declaredProxy, authMethod: 'ipWhitelist', whitelist: fromAI('ip', 'IP address to allow'), options: { allowAsTool: true } },
		ipv4_no_allow: { resource: 'proxy', operation: 'setIpv4', proxyName: declaredProxy, ipv4Enabled: true, options: {} },
		ipv4_allowed: { resource: 'proxy', operation: 'setIpv4', proxyName: declaredProxy, ipv4Enabled: true, options: { allowAsTool: true } },
		// ----- Buy: Maximum Total Cost and Keep Wallet At Least
		buy_proxy: {
			resource: 'proxy',
			operation: 'buy',
			carrier: fromAI('carrier', 'Carrier, as get_stock lists it'),
			city: fromAI('city', 'City, as get_stock lists it'),
			quantity: 1,
			interval: 1,
			period: 'weekly',
			options: { maxTotalCost: limits.buyCap, keepWalletAtLeast: limits.buyFloor },
		},
	};
}

/** The tools of the v2.2 workflow (what v2.2 passes the model is measured on a few). */
export const V22_TOOLS = ['get_funds', 'extend_proxy', 'remove_by_input', 'remove_proxy', 'get_proxy'];

/** A workflow: Webhook → Edit Fields → AI Agent (version) ← model, ← tools. */
export function agentWorkflow({ name, path, agentVersion, tools, credentials, reviewed = [], responseMode = 'lastNode' }) {
	const nodes = [];
	const connections = {};
	const add = (node) => {
		nodes.push({ id: randomUUID(), position: [nodes.length * 200, 0], ...node });
		return node.name;
	};
	const webhook = add({
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode, options: {} },
	});
	const fields = add({
		name: 'Agent Input',
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		parameters: {
			mode: 'manual',
			assignments: {
				assignments: [
					{ id: randomUUID(), name: 'chatInput', value: '={{ $json.body.chatInput }}', type: 'string' },
					{ id: randomUUID(), name: 'proxy_name', value: '={{ $json.body.proxy_name }}', type: 'string' },
				],
			},
			options: {},
		},
	});
	const agentOptions = { systemMessage: 'You manage a Proxy Account with tools. Follow the scenario.', maxIterations: 12 };
	if (agentVersion >= 3) agentOptions.enableStreaming = false;
	const agent = add({
		name: 'AI Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: agentVersion,
		parameters: { promptType: 'define', text: '={{ $json.chatInput }}', options: agentOptions },
	});
	const model = add({
		name: 'OpenAI Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		parameters: { model: { __rl: true, mode: 'id', value: 'scripted' }, options: {} },
		credentials: { openAiApi: credentials.openAi },
	});
	connections[webhook] = { main: [[{ node: fields, type: 'main', index: 0 }]] };
	connections[fields] = { main: [[{ node: agent, type: 'main', index: 0 }]] };
	connections[model] = { ai_languageModel: [[{ node: agent, type: 'ai_languageModel', index: 0 }]] };
	// Human review (n8n's human-in-the-loop for tools): the Email Send node's review variant between
	// the reviewed tools and the agent; it mails the approve and decline links (test/agent/smtp-server.mjs).
	const review =
		reviewed.length === 0
			? undefined
			: add({
					name: 'Human Review',
					type: 'n8n-nodes-base.emailSendHitlTool',
					typeVersion: 2.1,
					parameters: {
						fromEmail: 'agent@example.com',
						toEmail: 'reviewer@example.com',
						subject: 'Approve a Proxy Account tool call',
						message: '=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}',
						approvalOptions: { values: { approvalType: 'double' } },
						options: { appendAttribution: false },
					},
					credentials: { smtp: credentials.smtp },
				});
	if (review) connections[review] = { ai_tool: [[{ node: agent, type: 'ai_tool', index: 0 }]] };
	for (const [toolName, parameters] of Object.entries(tools)) {
		add({ name: toolName, type: TOOL_TYPE, typeVersion: 1, parameters, credentials: { proxyAccountApi: credentials.proxyAccount } });
		const to = reviewed.includes(toolName) ? review : agent;
		connections[toolName] = { ai_tool: [[{ node: to, type: 'ai_tool', index: 0 }]] };
	}
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}
