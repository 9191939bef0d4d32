/**
 * The discovery documents of the SCIM service provider (RFC 7643 5-7, RFC 7644 4): what it
 * supports, its one resource type and the schemas of a User as this service keeps it.
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** Most resources one list answers (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 200;

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'API token', description: 'Authorization: Bearer dst_... (POST /api/api-tokens with scopes ["scim"])', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A contact of the directory',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
  ];
}

type Attr = Record<string, unknown>;
const attr = (name: string, extra: Attr = {}): Attr => ({
  name, type: 'string', multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra,
});
const sub = (name: string, extra: Attr = {}) => attr(name, extra);

export function schemas(base: string) {
  const user = {
    id: USER_SCHEMA,
    name: 'User',
    description: 'A contact of the directory',
    attributes: [
      attr('userName', { required: true, uniqueness: 'server', description: 'The e-mail address the contact signs in with' }),
      attr('externalId', { caseExact: true, description: "The identity provider's id, unique within the organization" }),
      attr('name', { type: 'complex', subAttributes: [sub('formatted'), sub('givenName'), sub('familyName')] }),
      attr('displayName'),
      attr('title', { description: 'The designation, by name' }),
      attr('active', { type: 'boolean' }),
      attr('emails', { type: 'complex', multiValued: true, subAttributes: [sub('value'), sub('type'), sub('primary', { type: 'boolean' })] }),
      attr('phoneNumbers', { type: 'complex', multiValued: true, subAttributes: [sub('value'), sub('type', { canonicalValues: ['work', 'mobile', 'other'] })] }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  };
  const enterprise = {
    id: ENTERPRISE_SCHEMA,
    name: 'EnterpriseUser',
    description: 'The enterprise extension',
    attributes: [
      attr('employeeNumber', { uniqueness: 'global', description: 'The service number' }),
      attr('department', { description: 'A department of the division, by name' }),
      attr('division', { description: 'The unit, by name or code' }),
      attr('manager', { type: 'complex', subAttributes: [sub('value', { description: "The manager's id: the parent in the directory's tree" }), sub('displayName', { mutability: 'readOnly' })] }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${ENTERPRISE_SCHEMA}` },
  };
  return [user, enterprise].map((s) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], ...s }));
}
