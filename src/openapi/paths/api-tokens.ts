import { API_TOKEN_PAGE, API_TOKEN_SCOPES } from '../../modules/api-tokens';
import { ADMINS, arrayOf, body, bool, E404, errorResponse, int, nullable, obj, operation, paging, pathId, query, ref, str, success, timestamp } from '../builders';
import { NOW, pagination } from '../examples';
import { paged } from '../paging';

/**
 * API tokens (docs/scim.md): the credentials of machine clients. The SCIM routes they open
 * (/scim/v2) are described by their own discovery documents (ServiceProviderConfig,
 * ResourceTypes, Schemas), as RFC 7644 has it, and are not in this document.
 */

const tags = ['API tokens'];
const permission = 'contacts.create + contacts.update';

const defaults = obj({ unit_id: int(), department_id: nullable(int()), designation_id: int(), rank_id: nullable(int()) }, ['unit_id', 'department_id', 'designation_id', 'rank_id']);

export const apiTokenSchemas = {
  ApiToken: obj({
    id: int(),
    name: str(),
    scopes: arrayOf(str({ enum: [...API_TOKEN_SCOPES] })),
    organization_id: int(),
    prefix: str({ description: 'the first characters of the secret, to tell tokens apart' }),
    scim_defaults: { ...defaults, description: 'what users the identity provider creates without a unit, department, designation or rank get' },
    can_deactivate: bool({ description: 'whether it deactivates and deletes users (SCIM active false, DELETE): fixed at creation, true when its creator held contacts.delete (a Super_admin)' }),
    created_by: nullable(int()),
    created_at: timestamp(),
    expires_at: nullable(timestamp()),
    last_used_at: nullable({ ...timestamp(), description: 'updated at most once a minute' }),
  }),
};

const tokenExample = {
  id: 7,
  name: 'Entra ID provisioning',
  scopes: ['scim'],
  organization_id: 1,
  prefix: 'dst_Qm9vZ3xh',
  scim_defaults: { unit_id: 3, designation_id: 12 },
  can_deactivate: true,
  created_by: 2,
  created_at: NOW,
  expires_at: '2027-06-30T00:00:00.000Z',
  last_used_at: null,
};

export const apiTokenPaths = {
  '/api/api-tokens': {
    post: operation({
      id: 'createApiToken',
      tags,
      summary: 'Create an API token (its secret is answered once)',
      description:
        'An Admin creates tokens of the own organization (another `organization_id` is 403); a Super_admin of any (the own by default). Only the SHA-256 of the secret is kept. ' +
        'A token acts with its creator\'s rights capped at an Admin\'s; it deactivates and deletes users only when its creator holds `contacts.delete` (a Super_admin), recorded as `can_deactivate`. ' +
        'An unknown `organization_id` or `scim_defaults` id, or a default department not of the default unit, is 400 Validation failed.',
      roles: ADMINS,
      permission,
      requestBody: body(
        {
          name: str({ minLength: 1, maxLength: 100 }),
          scopes: arrayOf(str({ enum: [...API_TOKEN_SCOPES] }), { minItems: 1 }),
          expires_at: nullable(str({ format: 'date-time', description: 'in the future; none: no expiry' })),
          organization_id: int({ minimum: 1 }),
          scim_defaults: defaults,
        },
        ['name', 'scopes'],
      ),
      requestExample: { name: 'Entra ID provisioning', scopes: ['scim'], expires_at: '2027-06-30T00:00:00.000Z', scim_defaults: { unit_id: 3, designation_id: 12 } },
      responses: {
        201: success('API token created; its secret is shown only now', obj({ token: str({ pattern: '^dst_' }), api_token: ref('ApiToken') }), {
          token: 'dst_Qm9vZ3xhbXBsZS1zZWNyZXQtbm90LXJlYWwtMDEyMzQ1Njc',
          api_token: tokenExample,
        }),
        400: errorResponse('Validation failed: a field, an unknown organization_id or scim_defaults id, or a default department not of the default unit'),
        403: errorResponse('The role lacks the permission, or an Admin named another organization', ['Insufficient permissions', 'An Admin makes tokens of the own organization only']),
      },
    }),
    get: operation({
      id: 'listApiTokens',
      tags,
      summary: 'The API tokens not revoked, newest first',
      description: 'An Admin sees the own organization\'s; a Super_admin every organization\'s, or one (`organization_id`).',
      roles: ADMINS,
      permission,
      params: [query('organization_id', int({ minimum: 1 }), 'obeyed for a Super_admin only'), ...paging(API_TOKEN_PAGE.defaultLimit, API_TOKEN_PAGE.maxLimit)],
      responses: {
        200: paged(success('API tokens retrieved successfully', obj({ api_tokens: arrayOf(ref('ApiToken')), pagination: ref('Pagination') }), { api_tokens: [tokenExample], pagination: pagination(1, 50) })),
      },
    }),
  },
  '/api/api-tokens/{id}': {
    delete: operation({
      id: 'revokeApiToken',
      tags,
      summary: 'Revoke an API token: its next use is 401, on every instance',
      description: "Another organization's token is 404 for an Admin.",
      roles: ADMINS,
      permission,
      params: [pathId()],
      responses: { 200: success('API token revoked'), 404: E404('API token not found') },
    }),
  },
};
