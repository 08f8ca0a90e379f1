import { defineTrigger } from '../registry';
import { ipChanged } from './ipChanged.event';
import { lowFunds } from './lowFunds.event';
import { newProxy } from './newProxy.event';
import { proxyExpiring } from './proxyExpiring.event';
import { proxyRemoved } from './proxyRemoved.event';
import { proxyStatusChanged } from './proxyStatusChanged.event';
import { stockChanged } from './stockChanged.event';

/** The trigger's events, in the order the node description names them: one line per event. */
const EVENTS = [
	stockChanged,
	proxyExpiring,
	proxyStatusChanged,
	newProxy,
	proxyRemoved,
	ipChanged,
	lowFunds,
] as const;

export type TriggerState = NonNullable<ReturnType<(typeof EVENTS)[number]['loadState']>>;

export type TriggerEvent = TriggerState['event'];

export const TRIGGER = defineTrigger([...EVENTS], stockChanged);
