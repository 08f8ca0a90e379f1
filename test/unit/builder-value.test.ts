/**
 * Which raw parameter values are the builder's own (helpers/framework/agent.ts `isBuilderValue`): a literal,
 * or an expression that reads no agent input. As an AI agent's tool, only those count as limits.
 */
import { isBuilderOrDeclared, isBuilderValue } from '../../nodes/ProxyAccount/helpers/framework/agent';

describe('isBuilderValue', () => {
	it.each([
		[100, 'a number'],
		[true, 'a boolean'],
		['250', 'a text that is no expression'],
		['={{ 500 * 2 }}', 'an expression of constants'],
		['={{ $vars.maxSpend }}', 'a workflow variable'],
		["={{ $('Config').first().json.cap }}", 'another node by name'],
		['={{ $node["Config"].json.cap }}', 'another node by the legacy name'],
		['={{ $now.hour < 6 ? 50 : 100 }}', 'the clock'],
		['={{ "costs $json" }}', '$json only inside a string'],
		["={{ $max(10, 20) }}", "n8n's pure helpers"],
	])('%p (%s) is the builder\u2019s', (...[raw]: [unknown, string]) => {
		expect(isBuilderValue(raw)).toBe(true);
	});

	it.each([
		[undefined, 'not set'],
		["={{ $fromAI('cap', 'the cap', 'number') }}", '$fromAI'],
		["={{ $fromai('cap') }}", '$fromai'],
		["={{ $FROMAI('cap') }}", 'any case'],
		["={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('cap') }}", "n8n's generated override"],
		["={{ '$fromAI' }}", '$fromAI even inside a string (a nested expression could evaluate it)'],
		['={{ $json.cap }}', 'the tool input'],
		['={{ $input.first().json.cap }}', '$input'],
		['={{ $binary.data }}', '$binary'],
		['={{ $parameter.options }}', "the node's own parameters (the agent may fill some)"],
		['={{ $item(0).$node }}', 'the legacy $item'],
		['={{ `${$json.cap}` }}', 'a template literal interpolating $json'],
		['={{ Math.min(100, $json.cap) }}', 'an expression that could only lower it'],
	])('%p (%s) is not', (...[raw]: [unknown, string]) => {
		expect(isBuilderValue(raw)).toBe(false);
	});
});

describe('isBuilderOrDeclared (a target: the builder\u2019s, or the agent\u2019s declared choice)', () => {
	it.each([
		[undefined, 'not set (the node\u2019s own check names it)'],
		['PRX-US-AU1-0001', 'a typed name'],
		["={{ $('Config').first().json.proxy }}", 'another node by name'],
		["={{ $fromAI('proxy_name', 'the proxy', 'string') }}", '$fromAI'],
		["={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Proxy', ``, 'string') }}", "n8n's generated override"],
		["={{ $fromai('proxy').trim() }}", '$fromai with a method'],
		["={{ $fromAI('proxy') || $vars.defaultProxy }}", '$fromAI or a workflow variable'],
	])('%p (%s) may pick the target', (...[raw]: [unknown, string]) => {
		expect(isBuilderOrDeclared(raw)).toBe(true);
	});

	it.each([
		['={{ $json.proxy_name }}', 'the tool input, which the model can overwrite'],
		['={{ $input.first().json.proxy_name }}', 'the tool input through $input'],
		["={{ $fromAI('proxy') || $json.proxy_name }}", '$fromAI with the tool input as a fallback'],
		["={{ $fromAI('p', `${$json.x}`) }}", 'the tool input inside a template literal'],
		['={{ $parameter.other }}', 'another parameter'],
	])('%p (%s) may not', (...[raw]: [unknown, string]) => {
		expect(isBuilderOrDeclared(raw)).toBe(false);
	});
});
