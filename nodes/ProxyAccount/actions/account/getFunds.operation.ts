import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { optionsCollection, readTimeoutOption } from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import { paired, readRequest } from '../../helpers/framework/output';
import type { FundsData } from '../../transport';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'getFunds',
	name: 'Get Funds',
	description: 'Get the wallet balance and the renewals and expiries coming up',
	action: 'Get the account funds',
	subtitle: 'Get Funds',
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return the balance and the upcoming amounts as flat fields instead of the service\u2019s nested data',
	},
	optionsCollection([readTimeoutOption]),
];

export const executeItem: ItemExecute = async function (i, run) {
	const { timeoutMs, simplify } = readRequest(this, i);
	// The funds have no parameters: one read per execution, one output item per input item.
	const { result: funds } = await run.shared(
		'funds',
		async () => await send(this, 'getFunds', { timeoutMs }),
	);
	// Not simplified: a copy per item, so that a later node changing one item does not change the others.
	const json = simplify ? simplifyFunds(funds) : (JSON.parse(JSON.stringify(funds)) as IDataObject);
	return [paired(json, i)];
};

/** The funds as one flat object: what a balance check or an alert needs. */
function simplifyFunds(data: FundsData): IDataObject {
	const { renewing, expiring, total } = data.upcoming;
	return {
		funds: data.funds,
		renewing_count: renewing.count,
		renewing_amount: renewing.amount,
		expiring_count: expiring.count,
		expiring_amount: expiring.amount,
		renewal_required: total.renewal_required,
		total_required: total.total_required,
		total_commitment: total.total_commitment,
	};
}
