import { DELIVERY_STATUSES, EVENT_PATTERNS, OTHER_ORGANIZATION, TEST_EVENT, WEBHOOK_NOT_FOUND, WEBHOOK_PAGE } from '../../modules/webhooks';
import { ADMINS, arrayOf, bool, body, E404, errorResponse, int, nullable, obj, operation, paging, pathId, query, ref, str, success, timestamp, type Schema } from '../builders';
import { NOW, UPDATED_AT } from '../examples';
import { paged } from '../paging';

/** Signed webhooks (docs/changes.md, Webhooks): /api/webhooks. */

const tags = ['Webhooks'];
const PERMISSION = 'webhooks.manage';
const SCOPE =
  'An Admin\'s hooks get the own organization\'s contact changes and an Admin sees only them; a Super_admin sees every hook, and may subscribe one organization (`organization_id`) or all (null). Another organization\'s hook is 404.';
const NOT_FOUND = E404(WEBHOOK_NOT_FOUND);
const secret = str({ pattern: '^whsec_[A-Za-z0-9+/=]+$', description: 'the signing secret, shown this once: `whsec_` and base64 of 32 random bytes (Standard Webhooks)' });
const events = arrayOf(str({ enum: [...EVENT_PATTERNS] }), { minItems: 1, uniqueItems: true, description: '`contact.<type>` of the change feed, or `contact.*` for all' });

export const webhookSchemas: Record<string, Schema> = {
  Webhook: obj({
    id: int(),
    organization_id: nullable(int({ description: 'null: every organization (a Super_admin\'s hook)' })),
    url: str({ format: 'uri' }),
    events,
    description: nullable(str()),
    active: bool(),
    disabled_reason: nullable(str({ description: 'why the service disabled it (failing for WEBHOOK_DISABLE_AFTER_DAYS); cleared when made active again' })),
    disabled_at: nullable(timestamp()),
    failing_since: nullable({ ...timestamp(), description: 'when its deliveries started failing without a success since' }),
    previous_secret_expires_at: nullable({ ...timestamp(), description: 'after a rotation: until when the secret before it still signs too' }),
    created_by: nullable(int()),
    created_at: timestamp(),
    updated_at: timestamp(),
  }),
  WebhookAttempt: obj({
    attempted_at: timestamp(),
    status: str({ enum: ['delivered', 'failed'] }),
    response_code: nullable(int()),
    duration_ms: int({ minimum: 0 }),
    error: nullable(str({ description: 'short: `HTTP 500`, `Connection refused (ECONNREFUSED)`, `Timed out after 10000 ms`, `Target address not allowed (private)`' })),
  }),
  WebhookDelivery: obj({
    id: int(),
    event_id: str({ description: 'the `webhook-id` header: the same on every attempt' }),
    type: str({ examples: ['contact.moved', TEST_EVENT] }),
    status: str({ enum: [...DELIVERY_STATUSES] }),
    attempts: int({ minimum: 0 }),
    next_attempt_at: nullable({ ...timestamp(), description: 'pending: when the next attempt is due (null while its hook is inactive)' }),
    created_at: timestamp(),
    attempt_log: arrayOf(ref('WebhookAttempt')),
  }),
};

const hookExample = {
  id: 7,
  organization_id: 1,
  url: 'https://hr.example.com/hooks/directory',
  events: ['contact.created', 'contact.moved'],
  description: 'HR system',
  active: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_by: 1,
  created_at: NOW,
  updated_at: UPDATED_AT,
};
const secretExample = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1ZB9Y8mJ5vE=';
const pagination = (total: number) => ({ page: 1, limit: WEBHOOK_PAGE.defaultLimit, total, total_pages: total === 0 ? 0 : 1, has_more: false });
const withSecret = obj({ webhook: ref('Webhook'), secret });
const one = obj({ webhook: ref('Webhook') });
const E400_URL = errorResponse('Validation failed: a field, or a `url` that is not https or points to a private, loopback or link-local address');

export const webhookPaths = {
  '/api/webhooks': {
    get: operation({
      id: 'listWebhooks',
      tags,
      summary: 'The webhooks the caller manages',
      description: SCOPE,
      roles: ADMINS,
      permission: PERMISSION,
      params: paging(WEBHOOK_PAGE.defaultLimit, WEBHOOK_PAGE.maxLimit),
      responses: { 200: paged(success('Webhooks retrieved successfully', obj({ webhooks: arrayOf(ref('Webhook')), pagination: ref('Pagination') }), { webhooks: [hookExample], pagination: pagination(1) })) },
    }),
    post: operation({
      id: 'createWebhook',
      tags,
      summary: 'Subscribe a URL to contact changes (the secret is shown once)',
      description: `Deliveries follow the Standard Webhooks specification: signed, retried for more than 24 h, each event's \`webhook-id\` the same on every attempt. The hook gets the changes committed after it is made. ${SCOPE}`,
      roles: ADMINS,
      permission: PERMISSION,
      requestBody: body({ url: str({ maxLength: 2048, format: 'uri' }), events, description: nullable(str({ maxLength: 255 })), organization_id: nullable(int({ minimum: 1 })) }, ['url', 'events']),
      requestExample: { url: 'https://hr.example.com/hooks/directory', events: ['contact.created', 'contact.moved'], description: 'HR system' },
      responses: {
        201: success('Webhook created successfully', withSecret, { webhook: hookExample, secret: secretExample }),
        400: E400_URL,
        403: errorResponse('The role lacks the permission, or an Admin named another organization', ['Insufficient permissions', OTHER_ORGANIZATION]),
      },
    }),
  },
  '/api/webhooks/{id}': {
    get: operation({
      id: 'getWebhook',
      tags,
      summary: 'One webhook (never its secret)',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId()],
      responses: { 200: success('Webhook retrieved successfully', one, { webhook: hookExample }), 404: NOT_FOUND },
    }),
    patch: operation({
      id: 'updateWebhook',
      tags,
      summary: 'Change a webhook\'s url, events, description, or turn it on or off',
      description: '`active: true` on a disabled hook clears `disabled_reason` and sends its pending deliveries; `active: false` holds them.',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId()],
      requestBody: body({ url: str({ maxLength: 2048, format: 'uri' }), events, description: nullable(str({ maxLength: 255 })), active: bool() }),
      requestExample: { active: true },
      responses: { 200: success('Webhook updated successfully', one, { webhook: hookExample }), 400: E400_URL, 404: NOT_FOUND },
    }),
    delete: operation({
      id: 'deleteWebhook',
      tags,
      summary: 'Delete a webhook with its deliveries',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId()],
      responses: { 200: success('Webhook deleted successfully'), 404: NOT_FOUND },
    }),
  },
  '/api/webhooks/{id}/rotate-secret': {
    post: operation({
      id: 'rotateWebhookSecret',
      tags,
      summary: 'A new signing secret (shown once); the old one keeps signing for 24 h',
      description: 'Until `previous_secret_expires_at` every delivery carries two signatures in `webhook-signature`, one per secret, separated by a space.',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId()],
      responses: { 200: success('Webhook secret rotated successfully', withSecret, { webhook: { ...hookExample, previous_secret_expires_at: NOW }, secret: secretExample }), 404: NOT_FOUND },
    }),
  },
  '/api/webhooks/{id}/test': {
    post: operation({
      id: 'testWebhook',
      tags,
      summary: `Send a \`${TEST_EVENT}\` event now, and tell how the attempt went`,
      description: 'The event goes through the delivery path (signed, recorded in the deliveries; a failed one is retried on the schedule).',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId()],
      responses: {
        200: success(
          'Test event sent',
          obj({ result: obj({ delivery_id: int(), event_id: str(), delivered: bool(), response_code: nullable(int()), duration_ms: int({ minimum: 0 }), error: nullable(str()) }) }),
          { result: { delivery_id: 91, event_id: 'msg_test_5f0c9a2e4b7d1c3a8e6f0b2d_7', delivered: true, response_code: 200, duration_ms: 84, error: null } },
        ),
        404: NOT_FOUND,
      },
    }),
  },
  '/api/webhooks/{id}/deliveries': {
    get: operation({
      id: 'listWebhookDeliveries',
      tags,
      summary: 'A webhook\'s deliveries, newest first, each with its attempts',
      roles: ADMINS,
      permission: PERMISSION,
      params: [pathId(), ...paging(WEBHOOK_PAGE.defaultLimit, WEBHOOK_PAGE.maxLimit), query('status', str({ enum: [...DELIVERY_STATUSES] }))],
      responses: {
        200: paged(success('Webhook deliveries retrieved successfully', obj({ deliveries: arrayOf(ref('WebhookDelivery')), pagination: ref('Pagination') }), {
          deliveries: [
            {
              id: 90,
              event_id: 'msg_MTIwOC40Mg_7',
              type: 'contact.moved',
              status: 'pending',
              attempts: 1,
              next_attempt_at: UPDATED_AT,
              created_at: NOW,
              attempt_log: [{ attempted_at: NOW, status: 'failed', response_code: 503, duration_ms: 41, error: 'HTTP 503' }],
            },
          ],
          pagination: pagination(1),
        })),
        404: NOT_FOUND,
      },
    }),
  },
};
