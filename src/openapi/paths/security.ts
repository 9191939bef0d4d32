import { CHANGE_TYPES, FAILED_LOGIN_REASON, RECENT_EVENTS, SECURITY_PAGE, TOP_COUNT } from '../../modules/security';
import {
  ANY_USER,
  arrayOf,
  constant,
  int,
  timeRange,
  nullable,
  obj,
  operation,
  paging,
  query,
  ref,
  str,
  success,
  timestamp,
  type Param,
  type Schema,
} from '../builders';
import { paged } from '../paging';
import { NOW, pagination } from '../examples';
import { contactExample } from './contacts.examples';

/**
 * /api/security: the failed sign-ins and password changes, read-only (docs/api.md, Security
 * records). No route checks a permission: the caller's permissions choose the scope.
 */

const tags = ['Security'];
const count = int({ minimum: 0 });

const SCOPE = [
  'Any signed-in user; what each caller sees comes from its permissions, never from a parameter:',
  '`security.read_all` (Super_admin) every organization, and the failed sign-ins with none;',
  '`security.read_organization` (Admin) the own organization;',
  'anyone else the own records within the own organization (failed sign-ins whose `login_id` is the',
  "caller's e-mail address or service number, password changes whose `user_id` is the caller).",
].join(' ');

const failedLoginFields: Record<string, Schema> = {
  id: int(),
  login_id: nullable(str({ maxLength: 100, description: 'as typed; an e-mail address in lower case' })),
  organization_id: nullable(int({ description: 'null for an unknown identifier or a removed organization' })),
  organization_name: nullable(str()),
  ip_address: nullable(str({ maxLength: 45 })),
  attempted_at: timestamp(),
  reason: str({ maxLength: 255, examples: Object.values(FAILED_LOGIN_REASON) }),
};

const passwordChangeFields: Record<string, Schema> = {
  id: int(),
  user_id: int({ description: 'the user whose password changed' }),
  changed_by: int({ description: 'the user who made the change' }),
  organization_id: int(),
  organization_name: nullable(str()),
  changed_at: timestamp(),
  change_type: str({ enum: [...CHANGE_TYPES] }),
};

export const securitySchemas: Record<string, Schema> = {
  FailedLogin: obj(failedLoginFields),
  PasswordChange: obj(passwordChangeFields),
  FailedLoginSummary: obj({
    total: int({ minimum: 0, description: 'the records matching the scope and filters (= pagination.total)' }),
    unique_login_ids: int({ minimum: 0, description: 'distinct non-null login identifiers' }),
    unique_ips: int({ minimum: 0, description: 'distinct non-null addresses' }),
    by_reason: { type: 'object', additionalProperties: count, description: 'records per reason present, largest first' },
    last_24h: int({ minimum: 0, description: 'matching records from 24 hours before the request on' }),
    top_login_ids: arrayOf(obj({ login_id: str(), count }), {
      maxItems: TOP_COUNT,
      description: 'the identifiers with most failures, largest first, ties by value; nulls left out',
    }),
    top_ips: arrayOf(obj({ ip_address: str(), count }), {
      maxItems: TOP_COUNT,
      description: 'the addresses with most failures, largest first, ties by value; nulls left out',
    }),
    generated_at: timestamp(),
  }),
  PasswordChangeSummary: obj({
    total: int({ minimum: 0, description: 'the records matching the scope and filters (= pagination.total)' }),
    by_type: obj(Object.fromEntries(CHANGE_TYPES.map((type) => [type, count]))),
    last_24h: int({ minimum: 0, description: 'matching records from 24 hours before the request on' }),
    generated_at: timestamp(),
  }),
  SecurityEvent: {
    oneOf: [
      obj({ type: constant('failed_login'), at: timestamp(), ...failedLoginFields }),
      obj({ type: constant('password_change'), at: timestamp(), ...passwordChangeFields }),
    ],
    description: 'a record of either kind, with `type` and `at` (its attempted_at or changed_at)',
  },
};

const organizationId = query(
  'organization_id',
  { anyOf: [int({ minimum: 1 }), { type: 'string', const: 'null' }] },
  'a positive integer, or `null` for the failed sign-ins with no organization. Validated for everyone, obeyed only with `security.read_all`',
);

// the example contact mistyped her password, and Kamal Hossain had reset it two days before
const failedLogin = {
  id: 311,
  login_id: contactExample.email,
  organization_id: 1,
  organization_name: 'Default Organization',
  ip_address: '203.0.113.24',
  attempted_at: '2026-03-14T08:58:41.907Z',
  reason: FAILED_LOGIN_REASON.invalidPassword,
};
const passwordChange = {
  id: 77,
  user_id: contactExample.id,
  changed_by: contactExample.parent_id,
  organization_id: 1,
  organization_name: 'Default Organization',
  changed_at: '2026-03-12T10:04:19.260Z',
  change_type: 'admin_reset',
};
const onePage = pagination(1, SECURITY_PAGE.defaultLimit);

const listParams: Param[] = [...paging(SECURITY_PAGE.defaultLimit, SECURITY_PAGE.maxLimit), ...timeRange];
const summary = 'The summary counts the whole filtered, scoped set (not the page), and is reused for SECURITY_SUMMARY_CACHE_MS (`generated_at` says when it was computed).';
const newestFirst = 'Newest first, then by id descending. A page past the end is empty, with the real totals.';

export const securityPaths = {
  '/api/security/failed-logins': {
    get: operation({
      id: 'listFailedLogins',
      tags,
      summary: 'Failed sign-ins',
      description: `${newestFirst} ${summary}\n\n${SCOPE}`,
      roles: ANY_USER,
      params: [
        ...listParams,
        query('login_id', str({ maxLength: 100 }), 'exact match (an e-mail address case-insensitively); empty is ignored'),
        query('ip_address', str({ maxLength: 45 }), 'exact match; empty is ignored'),
        query('reason', str({ maxLength: 255 }), 'exact match; empty is ignored'),
        organizationId,
      ],
      responses: {
        200: paged(success(
          'Failed login attempts retrieved successfully',
          obj({ attempts: arrayOf(ref('FailedLogin')), summary: ref('FailedLoginSummary'), pagination: ref('Pagination') }),
          {
            attempts: [failedLogin],
            summary: {
              total: 1,
              unique_login_ids: 1,
              unique_ips: 1,
              by_reason: { [failedLogin.reason]: 1 },
              last_24h: 1,
              top_login_ids: [{ login_id: failedLogin.login_id, count: 1 }],
              top_ips: [{ ip_address: failedLogin.ip_address, count: 1 }],
              generated_at: NOW,
            },
            pagination: onePage,
          },
        )),
      },
    }),
  },
  '/api/security/password-changes': {
    get: operation({
      id: 'listPasswordChanges',
      tags,
      summary: 'Password changes',
      description: `${newestFirst} ${summary}\n\n${SCOPE}`,
      roles: ANY_USER,
      params: [
        ...listParams,
        query('user_id', int({ minimum: 1 }), 'the user whose password changed'),
        query('change_type', str({ enum: [...CHANGE_TYPES] })),
        organizationId,
      ],
      responses: {
        200: paged(success(
          'Password changes retrieved successfully',
          obj({ changes: arrayOf(ref('PasswordChange')), summary: ref('PasswordChangeSummary'), pagination: ref('Pagination') }),
          {
            changes: [passwordChange],
            summary: { total: 1, by_type: { self: 0, admin_reset: 1, forced: 0 }, last_24h: 0, generated_at: NOW },
            pagination: onePage,
          },
        )),
      },
    }),
  },
  '/api/security/recent-events': {
    get: operation({
      id: 'listRecentSecurityEvents',
      tags,
      summary: 'Failed sign-ins and password changes together, newest first',
      description: `\`limit\` events in all (not per kind); at the same millisecond failed_login first, then by id descending.\n\n${SCOPE}`,
      roles: ANY_USER,
      params: [
        query('limit', int({ minimum: 1, maximum: RECENT_EVENTS.maxLimit, default: RECENT_EVENTS.defaultLimit })),
        organizationId,
      ],
      responses: {
        200: success(
          'Recent security events retrieved successfully',
          obj({ events: arrayOf(ref('SecurityEvent'), { maxItems: RECENT_EVENTS.maxLimit }) }),
          {
            events: [
              { type: 'failed_login', at: failedLogin.attempted_at, ...failedLogin },
              { type: 'password_change', at: passwordChange.changed_at, ...passwordChange },
            ],
          },
        ),
      },
    }),
  },
};
