import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/*
 * The Proxy Account Trigger's *Fetch Test Event* (and a manual run) returns made-up examples marked
 * `sample: true`. An operation that spends, removes, moves or commits must not act on one: in the
 * shipped examples a made-up "city became available" would buy a proxy.
 */

const TRIGGER_TYPE = /(^|\.)proxyAccountTrigger$/;

/** Whether the items a node gave in this execution include a made-up test event. */
function gaveTestEvents(ctx: IExecuteFunctions, name: string): boolean {
	try {
		const node = ctx.getWorkflowDataProxy(0).$(name) as {
			isExecuted?: boolean;
			all?: () => Array<{ json?: { sample?: unknown } }>;
		};
		if (node.isExecuted !== true || typeof node.all !== 'function') return false;
		return node.all().some((item) => item.json?.sample === true);
	} catch {
		// Not run in this execution (or no data of it): it gave nothing.
		return false;
	}
}

/** Why an operation refuses a run that started from a made-up test event, unless it is a Dry Run. */
export function testEventRefusal(
	ctx: IExecuteFunctions,
	operation: string,
	dryRun: () => boolean,
	asTool: boolean,
): NodeOperationError | undefined {
	// As a tool, n8n's AI Agent (v3 and later) hands the tool its own input item: a test event there
	// reached the agent. (A model that sends `sample` itself can only make the tool refuse.) Elsewhere
	// (a sub-workflow's input, a Code node's output) each such item is refused alone: `testItemRefusals`.
	const toolInput = asTool && ctx.getInputData().some((item) => item.json.sample === true);
	// Else a Proxy Account Trigger before this node whose output in this execution is a test event.
	const trigger = toolInput
		? 'the Proxy Account Trigger'
		: ctx
				.getParentNodes(ctx.getNode().name)
				.filter((parent) => TRIGGER_TYPE.test(parent.type))
				.map((parent) => parent.name)
				.find((name) => gaveTestEvents(ctx, name));
	if (trigger === undefined || dryRun()) return undefined;
	return new NodeOperationError(
		ctx.getNode(),
		`${operation} does not act on a test event: this run started from an example that ${toolInput ? trigger : `\u201c${trigger}\u201d`} made up (sample: true), not from a real change`,
		{
			description:
				'Fetch Test Event and a manual run of the workflow give examples shaped like real events, so that the next nodes can be set up; they describe nothing that happened. To see what this node would do, turn on Options > Dry Run (where the operation has one), or activate the workflow and let a real event run it. Nothing was sent.',
		},
	);
}

/**
 * The refusal of each input item that is a made-up test event (`sample: true`), by item, whatever
 * node passed it on (Edit Fields, Code, a sub-workflow's input) and in every mode; none under a Dry
 * Run. The other items of the run go ahead: only these are refused, before anything is sent.
 */
export function testItemRefusals(
	ctx: IExecuteFunctions,
	operation: string,
	items: INodeExecutionData[],
	dryRun: () => boolean,
): Map<number, NodeOperationError> {
	const refusals = new Map<number, NodeOperationError>();
	const marked = items.flatMap((item, i) => (item.json?.sample === true ? [i] : []));
	if (marked.length === 0 || dryRun()) return refusals;
	for (const i of marked)
		refusals.set(
			i,
			new NodeOperationError(
				ctx.getNode(),
				`${operation} does not act on a test event: item ${i} is an example the Proxy Account Trigger made up (sample: true), not a real change [item ${i}]`,
				{
					description: `Fetch Test Event and a manual run give examples shaped like real events, so that the next nodes can be set up; they describe nothing that happened. Item ${i} still carries sample: true, passed on by a node between the trigger and this one. Nothing was sent for it; the run's other items were not held back. To see what this node would do, turn on Options > Dry Run (where the operation has one); to act, let a real event run the workflow, or leave the sample field out of items you build yourself.`,
					itemIndex: i,
				},
			),
		);
	return refusals;
}
