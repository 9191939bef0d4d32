/**
 * Webhooks (docs/changes.md, Webhooks): signed deliveries of the change feed. This module owns
 * `webhooks`, `webhook_deliveries`, `webhook_attempts` and `webhook_state`:
 *
 * - /api/webhooks (webhooksRouter, WebhooksService): hooks, their secrets, a test event, deliveries;
 * - the dispatcher (WebhookDispatcher): fans the change feed out into deliveries and sends them,
 *   started by server.ts (and by tests) beside the change feed's pruning.
 */
export { webhooksRouter } from './webhooks.router';
export { OTHER_ORGANIZATION, WEBHOOK_NOT_FOUND, WebhooksService } from './webhooks.service';
export { WebhookDispatcher } from './webhook.dispatcher';
export { DEFAULT_RETRY_SCHEDULE, JITTER, type WebhookSettings } from './webhook.settings';
export { EVENT_PATTERNS, EVENT_TYPES, TEST_EVENT } from './webhook.events';
export { DELIVERY_STATUSES, WEBHOOK_PAGE } from './webhooks.validators';
export { UNSAFE_TARGET } from './webhook.targets';
export { USER_AGENT } from './webhook.sender';
