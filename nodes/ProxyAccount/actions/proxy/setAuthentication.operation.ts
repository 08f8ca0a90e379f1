import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { permissionNeeded, rawParameter } from '../../helpers/framework/agent';
import { changeRetryRefusal } from '../../helpers/guards/runGuards';
import {
	allowAsToolOption,
	asToolNotice,
	optionsCollection,
	proxyLocator,
	readTimeoutOption,
} from '../../helpers/framework/descriptions';
import type { ItemExecute } from '../../helpers/framework/itemLoop';
import { parseWhitelist, whitelistList } from './setAuthentication.whitelist';
import { paired, readRequest } from '../../helpers/framework/output';
import { invalidParameter, shown } from '../../helpers/framework/validation';
import { send } from '../../transport';
import type { OperationInfo } from '../registry';

export const operation: OperationInfo = {
	value: 'setAuthentication',
	name: 'Set Authentication',
	description: 'Switch a proxy to username and password authentication, or to an IP whitelist',
	action: 'Set authentication for a proxy',
	subtitle: 'Set Authentication',
};

const basic = { authMethod: ['usernamePassword'] };
const whitelist = { authMethod: ['ipWhitelist'] };

export const properties: INodeProperties[] = [
	asToolNotice(
		'authToolNotice',
		'turn on Options > Allow as AI Tool, or every change is refused (a wrong password or whitelist cuts off the proxy\u2019s clients).',
	),
	proxyLocator('The proxy to change'),
	{
		displayName: 'Method',
		name: 'authMethod',
		type: 'options',
		default: 'usernamePassword',
		options: [
			{
				name: 'Username and Password',
				value: 'usernamePassword',
				description: 'Clients log in with a username and password; the IP whitelist is turned off',
			},
			{
				name: 'IP Whitelist',
				value: 'ipWhitelist',
				description:
					'Clients from the listed addresses connect without logging in; username and password are turned off',
			},
		],
	},
	{
		displayName: 'Username',
		name: 'username',
		type: 'string',
		default: '',
		placeholder: 'e.g. scraper01',
		displayOptions: { show: basic },
		description: 'The new username. Leave empty to let the service generate one.',
	},
	{
		displayName: 'Password',
		name: 'password',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		displayOptions: { show: basic },
		description:
			'The new password. Leave empty to let the service generate one; it is returned only when Include Password is on.',
	},
	{
		displayName: 'IP Whitelist',
		name: 'whitelist',
		type: 'string',
		default: '',
		// Not marked required: n8n would then demand it whenever Method is an expression, also one that
		// resolves to Username and Password. An empty whitelist is refused before anything is sent.
		placeholder: 'e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32',
		displayOptions: { show: whitelist },
		description:
			'The addresses allowed to use the proxy (at least one): IPv4 or IPv6 addresses and CIDR ranges, separated by commas. Replaces the current list.',
	},
	optionsCollection([
		allowAsToolOption(
			'change how clients log in to a proxy (a wrong whitelist or password cuts off its clients)',
		),
		{
			displayName: 'Include Password',
			name: 'includePassword',
			type: 'boolean',
			default: false,
			description:
				'Whether to include the password in the output (Username and Password only; e.g. a generated one a later step must store). Leave off otherwise: anyone who can see the execution can read it.',
		},
		readTimeoutOption,
	]),
];

/**
 * One request per item, every input checked before it is sent. The reply's password is a secret:
 * it leaves the node only with Include Password.
 */
export const executeItem: ItemExecute = async function (i, run) {
	const node = this.getNode();
	const name = run.proxyName(i);
	const method = this.getNodeParameter('authMethod', i, 'usernamePassword') as string;
	const { timeoutMs, includePassword } = readRequest(this, i);
	const call = { proxyName: name, itemIndex: i, timeoutMs };
	if (method === 'ipWhitelist') {
		const body = parseWhitelist(node, i, this.getNodeParameter('whitelist', i, ''));
		const { result, message } = await send(this, 'setWhitelist', { ...call, body });
		const json: IDataObject = {
			...(result as IDataObject),
			authentication: 'ip_whitelist',
			whitelist_entries: whitelistList(result.whitelist),
		};
		delete json.password;
		if (message !== undefined) json.message = message;
		return [paired(json, i)];
	}
	if (method !== 'usernamePassword') {
		throw invalidParameter(
			node,
			i,
			'Method',
			`must be Username and Password or IP Whitelist, but it is ${shown(method)}`,
			'Open the node and pick a method from the list.',
		);
	}
	const username = credentialValue(this, i, 'Username', this.getNodeParameter('username', i, ''));
	const password = credentialValue(this, i, 'Password', this.getNodeParameter('password', i, ''));
	let reply;
	try {
		reply = await send(this, 'setBasicAuth', { ...call, body: { username, password } });
	} catch (error) {
		throw withoutSecret(error, password);
	}
	const { result, message } = reply;
	const json: IDataObject = { ...(result as IDataObject), authentication: 'username_password' };
	delete json.password;
	json.username_generated = username === null;
	json.password_generated = password === null;
	if (includePassword) json.password = result.password;
	if (message !== undefined) json.message = message;
	return [paired(json, i)];
};

const needsPermission = permissionNeeded(
	'Set Authentication',
	'A new password or IP whitelist cuts off every client of the proxy that does not have it.',
);
const retried = changeRetryRefusal('the authentication change', 'authentication');

/** n8n's retries, then (as an AI agent's tool) the builder's permission. */
export const refuseRun = (ctx: IExecuteFunctions) => retried(ctx) ?? needsPermission(ctx);

/** Characters a username or password must not hold: whitespace and control characters. */
const hasInvisible = (text: string) =>
	[...text].some((char) => char <= ' ' || char === '\u007f' || /\s/.test(char));

/** Username or Password: empty = generated by the service (sent as null); a secret is never shown. */
function credentialValue(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: 'Username' | 'Password',
	value: unknown,
): string | null {
	const secret = field === 'Password';
	const name = field.toLowerCase();
	const refuse = (problem: string, fix: string) =>
		invalidParameter(ctx.getNode(), itemIndex, field, problem, fix);
	if (value === undefined || value === null || value === '') {
		// Left empty: the service generates one. An expression that gives nothing is not a choice
		// to let it: the proxy's clients would be locked out by a password nobody holds.
		if (!isExpression(rawParameter(ctx, name))) return null;
		throw refuse(
			`is an expression that gives ${value === '' ? 'an empty text' : String(value)}`,
			`Make the expression give the ${name}, or clear the field (no expression) to let the service generate one. Nothing was sent.`,
		);
	}
	const orGenerated = 'or leave it empty to let the service generate one.';
	if (typeof value !== 'string')
		throw refuse(
			`must be text, but it is ${secret ? typeof value : shown(value)}`,
			`Enter the ${name} as text, ${orGenerated}`,
		);
	if (hasInvisible(value))
		throw refuse(
			'contains a space, a line break or another invisible character',
			`Enter the ${name} as one unbroken piece of text, ${orGenerated}`,
		);
	if (secret && value.length < MIN_PASSWORD_LENGTH)
		throw refuse(
			`is shorter than ${MIN_PASSWORD_LENGTH} characters`,
			`Enter a password of at least ${MIN_PASSWORD_LENGTH} characters, ${orGenerated}`,
		);
	return value;
}

/** The service refuses shorter passwords: refused before anything is sent. */
const MIN_PASSWORD_LENGTH = 8;

const isExpression = (raw: unknown) => typeof raw === 'string' && raw.startsWith('=');

/** The error without the password the user entered (a service may repeat what it was sent). */
function withoutSecret(error: unknown, secret: string | null): unknown {
	if (secret === null || secret.length < 3) return error;
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	const hide = (text: string | undefined | null) => text?.split(secret).join('***');
	error.message = hide(error.message) ?? error.message;
	if (error.description) error.description = hide(error.description) ?? null;
	if (error.stack) error.stack = hide(error.stack);
	error.messages = error.messages.map((text) => hide(text) ?? text);
	if (error instanceof NodeApiError && error.errorResponse) {
		for (const [key, value] of Object.entries(error.errorResponse))
			if (typeof value === 'string') error.errorResponse[key] = hide(value) ?? value;
	}
	return error;
}
