import { AUDIT_PAGE, TARGET_TYPES } from '../../modules/audit';
import { ADMINS, arrayOf, E403, E404, int, nullable, obj, operation, paging, pathId, query, ref, str, success, timeRange, timestamp, type Schema } from '../builders';
import { paged } from '../paging';
import { NOW, UPDATED_AT } from '../examples';
import { contactExample } from './contacts.examples';

/**
 * The audit trail, read-only (docs/audit.md): who changed what, when, from where. Entries are
 * written by the changes themselves; no route changes or deletes one.
 */

const tags = ['Audit'];

const SCOPE = [
  'What each caller sees comes from its permissions: `audit.read_all` (Super_admin) every organization,',
  'optionally one (`organization_id`); `audit.read_organization` (Admin) the own organization; anyone else 403.',
  "An entry's organization is its target's; records that belong to none (locations, units, roles) are filed under the actor's.",
].join(' ');

const before = { description: 'the value before (null when created)' };

export const auditSchemas: Record<string, Schema> = {
  AuditEvent: obj({
    id: int(),
    at: timestamp(),
    actor_id: nullable(int()),
    actor_role: nullable(str()),
    actor_token_id: nullable(int({ description: 'the API token that made the change (then `actor_id` is null): a SCIM connection, say' })),
    organization_id: nullable(int()),
    action: str({ examples: ['contact.move', 'role.update', 'district.delete', 'contact.import'], description: '`<target_type>.<verb>`' }),
    target_type: str({ enum: [...TARGET_TYPES] }),
    target_id: nullable(int({ description: 'null for a change of many: their ids are in `details`' })),
    changes: {
      type: 'object',
      additionalProperties: { type: 'array', minItems: 2, maxItems: 2, ...before },
      description: '`{field: [before, after]}` for the fields that changed; never a password, hash, token or secret',
    },
    details: nullable({ type: 'object', description: 'a bulk change: `contact_ids` (and more); an import: its counts' }),
    request_id: nullable(str({ description: 'the X-Request-Id of the request that made the change' })),
    ip_address: nullable(str({ maxLength: 45 })),
    user_agent: nullable(str()),
  }),
};

const pageParams = [
  ...paging(AUDIT_PAGE.defaultLimit, AUDIT_PAGE.maxLimit),
  ...timeRange,
  query('action', str({ maxLength: 64 }), 'exact action, such as `contact.move`'),
];
const page = (extra: Record<string, Schema> = {}) => obj({ ...extra, events: arrayOf(ref('AuditEvent')), pagination: { ...ref('Pagination'), description: 'no total: counting the trail would cost more than the page; has_more says whether another follows' } });

/** The example contact's move under Kamal Hossain (paths/contacts.examples.ts), as the trail records it. */
const moveEvent = {
  id: 9001,
  at: NOW,
  actor_id: contactExample.parent_id,
  actor_role: 'Admin',
  actor_token_id: null,
  organization_id: 1,
  action: 'contact.move',
  target_type: 'contact',
  target_id: contactExample.id,
  changes: { parent_id: [null, contactExample.parent_id], updated_at: ['2026-03-01T07:00:00.000Z', UPDATED_AT] },
  details: null,
  request_id: '6f1c2a9e-8d3b-4b71-9c55-0e2f7a1d4b10',
  ip_address: '203.0.113.24',
  user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/134.0 Safari/537.36',
};
const pageExample = { events: [moveEvent], pagination: { page: 1, limit: AUDIT_PAGE.defaultLimit, has_more: false } };

export const auditPaths = {
  '/api/audit-events': {
    get: operation({
      id: 'listAuditEvents',
      tags,
      summary: 'The audit trail: every administrative change',
      description: `Newest first (by \`at\`, then id). ${SCOPE}`,
      roles: ADMINS,
      params: [
        ...pageParams,
        query('actor_id', int({ minimum: 1 }), 'who made the change'),
        query('target_type', str({ enum: [...TARGET_TYPES] })),
        query('target_id', int({ minimum: 1 }), 'with `target_type`: the entries about that record, bulk changes included'),
        query('organization_id', int({ minimum: 1 }), 'obeyed with `audit.read_all` only'),
      ],
      responses: { 200: paged(success('Audit events retrieved successfully', page(), pageExample)), 403: E403 },
    }),
  },
  '/api/contacts/{id}/history': {
    get: operation({
      id: 'getContactHistory',
      tags: [...tags, 'Contacts'],
      summary: "One contact's entries, newest first (deleted contacts too)",
      description: `Needs \`contacts.read\` and audit access. ${SCOPE}`,
      roles: ADMINS,
      permission: 'contacts.read',
      params: [pathId(), ...pageParams],
      responses: { 200: paged(success('Contact history retrieved successfully', page({ contact_id: int() }), { contact_id: contactExample.id, ...pageExample })), 403: E403, 404: E404('Contact not found') },
    }),
  },
};
