import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression } from 'n8n-workflow';

/**
 * Credentials helper for tests. Unlike n8n's own test harness, it applies a credential's generic
 * `authenticate` block the way n8n's server does: each `={{$credentials.x}}` expression is
 * resolved by the workflow's expression engine, so the header the simulator sees is the one a
 * real n8n would send.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	/** Every set of options handed to `authenticate`, for tests that check what was applied. */
	readonly authenticated: IHttpRequestOptions[] = [];

	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions;
		const type = this.types[typeName];
		const auth = type?.authenticate;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		if (auth && auth.type === 'generic') {
			if (!workflow || !node) throw new Error('generic authentication needs the workflow and node');
			for (const [outerKey, values] of Object.entries(auth.properties)) {
				const target = ((requestOptions as unknown as Record<string, Record<string, unknown>>)[outerKey] ??= {});
				for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
					target[resolve(workflow, node, key, credentials)] = resolve(workflow, node, String(value), credentials);
				}
			}
		}
		this.authenticated.push(requestOptions);
		return requestOptions;
	}

	async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new Error(`getCredentials(${type}) is not available in tests`);
	}

	async getDecrypted(
		_additionalData: unknown,
		_details: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.data[type];
		if (!found) throw new Error(`no test credentials of type ${type}`);
		// A copy, as n8n decrypts afresh for every use: a node must not be able to change them.
		return { ...found };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}
}

/** Resolves one value of a credential's `authenticate` block as n8n's server does. */
export function resolve(
	workflow: Workflow,
	node: INode,
	value: string,
	credentials: ICredentialDataDecryptedObject,
): string {
	if (!isExpression(value)) return value;
	const resolved = workflow.expression.getSimpleParameterValue(
		node,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
	return resolved ? String(resolved) : '';
}
