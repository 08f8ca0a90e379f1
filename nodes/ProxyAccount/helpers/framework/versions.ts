import type { INode, INodeProperties } from 'n8n-workflow';

/*
 * The versions of both nodes. n8n keeps a saved node's version and does not store a parameter
 * equal to its default, so a changed default or a moved parameter would change saved workflows:
 * version 1 keeps its panel and behaviour exactly, and a new node is version 2. What version 2
 * changes (issue 37): Stock > Get Many filters only when Only Available is added; the trigger's
 * Simplify is a top-level parameter, not an option; Set Auto-Renew's switch starts off.
 */

/** The node description's `version` and `defaultVersion`. */
export const NODE_VERSIONS = { version: [1, 2], defaultVersion: 2 };

/** Whether a node was saved as version 1 (it keeps version 1's behaviour). */
export const isVersion1 = (node: INode): boolean => node.typeVersion < 2;

const SHOWN_IN = { 1: [1], 2: [{ _cnd: { gte: 2 } }] };

/** `properties` shown (and given their defaults) only on nodes of version 1, or of version 2 on. */
export function inVersion(version: 1 | 2, properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, '@version': SHOWN_IN[version] },
		},
	}));
}
