import { randomBytes } from 'node:crypto';
import { inTransaction, isForeignKeyViolation, type Db } from '../../lib/db';
import { paginationOf } from '../../lib/http/paging';
import { pageOf } from '../../lib/http/validate';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { reachesEveryOrganization } from '../access';
import type { Actor, AuditTrail } from '../audit';
import { insertDelivery, parkDeliveries, resumeDeliveries } from './deliveries.queries';
import { deliveryPage } from './delivery-page.queries';
import * as hooks from './webhooks.queries';
import { WebhookDelivery } from './webhook.delivery';
import { eventBody, TEST_EVENT } from './webhook.events';
import { newSecret } from './webhook.signature';
import { leaseMs, type WebhookSettings } from './webhook.settings';
import { checkTarget } from './webhook.targets';
import { WEBHOOK_PAGE } from './webhooks.validators';

const DAY_MS = 24 * 60 * 60 * 1000;

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const OTHER_ORGANIZATION = 'Admins may subscribe to their own organization\'s changes only';

export interface CreateInput {
  url: string;
  events: string[];
  description?: string | null;
  organization_id?: number | null;
}

export interface ChangeInput {
  url?: string;
  events?: string[];
  description?: string | null;
  active?: boolean;
}

/** Which hooks a caller sees and changes: a Super_admin every one, anyone else their organization's. */
const scopeOf = (actor: Actor): hooks.HookScope => (reachesEveryOrganization(actor) ? null : actor.organizationId);

/** What the audit trail keeps of a hook: never a secret. */
const audited = (w: hooks.Webhook) => ({ url: w.url, events: w.events, description: w.description, active: w.active, organization_id: w.organization_id });

/** /api/webhooks (docs/changes.md, Webhooks): the hooks of an organization, their secrets and deliveries. */
export class WebhooksService {
  private readonly db: Db;
  private readonly audit: AuditTrail;
  private readonly settings: WebhookSettings;
  private readonly delivery: WebhookDelivery;

  constructor(deps: { db: Db; audit: AuditTrail; settings: WebhookSettings }) {
    this.db = deps.db;
    this.audit = deps.audit;
    this.settings = deps.settings;
    this.delivery = new WebhookDelivery(deps.db, deps.settings);
  }

  async list(actor: Actor, input: { page?: number; limit?: number }) {
    const { page, limit, offset } = pageOf(input, WEBHOOK_PAGE.defaultLimit);
    const { rows, total } = await hooks.listWebhooks(this.db, scopeOf(actor), { limit, offset });
    return { webhooks: rows, pagination: paginationOf(page, limit, total) };
  }

  async get(actor: Actor, id: number): Promise<hooks.Webhook> {
    const hook = await hooks.findWebhook(this.db, id, scopeOf(actor));
    if (!hook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    return hook;
  }

  /** A new hook, and its secret (shown this once). Its events are the changes after the caller's session read the directory. */
  async create(actor: Actor, input: CreateInput): Promise<{ webhook: hooks.Webhook; secret: string }> {
    let organizationId: number | null = actor.organizationId;
    if (input.organization_id !== undefined) {
      if (!reachesEveryOrganization(actor) && input.organization_id !== actor.organizationId) throw new ForbiddenError(OTHER_ORGANIZATION);
      organizationId = input.organization_id;
    }
    await checkTarget(input.url, this.settings.allowPrivate, this.settings.timeoutMs);
    const secret = newSecret();
    try {
      const webhook = await inTransaction(this.db, async (trx) => {
        const id = await hooks.insertWebhook(trx, {
          organization_id: organizationId,
          url: input.url,
          events: JSON.stringify(input.events),
          description: input.description ?? null,
          secret,
          active: true,
          after_version: actor.versions.directory,
          created_by: actor.userId,
        });
        const created = (await hooks.findWebhook(trx, id, null))!;
        await this.audit.record(trx, actor, { action: 'webhook.create', targetType: 'webhook', targetId: id, organizationId, changes: Object.fromEntries(Object.entries(audited(created)).map(([k, v]) => [k, [null, v]])) });
        return created;
      });
      return { webhook, secret };
    } catch (err) {
      if (isForeignKeyViolation(err)) throw ValidationError.field('organization_id', 'Organization not found');
      throw err;
    }
  }

  async change(actor: Actor, id: number, input: ChangeInput): Promise<hooks.Webhook> {
    const before = await this.get(actor, id);
    if (Object.values(input).every((v) => v === undefined)) throw ValidationError.field('body', 'Give at least one of url, events, description, active');
    if (input.url !== undefined) await checkTarget(input.url, this.settings.allowPrivate, this.settings.timeoutMs);
    const values: Record<string, unknown> = {};
    if (input.url !== undefined) values.url = input.url;
    if (input.events !== undefined) values.events = JSON.stringify(input.events);
    if (input.description !== undefined) values.description = input.description;
    if (input.active !== undefined && input.active !== before.active) {
      values.active = input.active;
      // made active again: the reason it was disabled is history, its failing streak starts afresh
      if (input.active) Object.assign(values, { disabled_reason: null, disabled_at: null, failing_since: null });
    }
    return inTransaction(this.db, async (trx) => {
      if (Object.keys(values).length > 0) await hooks.updateWebhook(trx, id, values);
      if (values.active === true) await resumeDeliveries(trx, id);
      if (values.active === false) await parkDeliveries(trx, id);
      const after = (await hooks.findWebhook(trx, id, null))!;
      await this.audit.recordChange(trx, actor, { action: 'webhook.update', targetType: 'webhook', targetId: id, organizationId: after.organization_id }, audited(before), audited(after));
      return after;
    });
  }

  async remove(actor: Actor, id: number): Promise<void> {
    const before = await this.get(actor, id);
    await inTransaction(this.db, async (trx) => {
      await hooks.deleteWebhook(trx, id);
      await this.audit.record(trx, actor, { action: 'webhook.delete', targetType: 'webhook', targetId: id, organizationId: before.organization_id, changes: Object.fromEntries(Object.entries(audited(before)).map(([k, v]) => [k, [v, null]])) });
    });
  }

  /** A new secret (shown this once); the one before keeps signing for 24 hours beside it. */
  async rotateSecret(actor: Actor, id: number): Promise<{ webhook: hooks.Webhook; secret: string }> {
    await this.get(actor, id);
    const secret = newSecret();
    const webhook = await inTransaction(this.db, async (trx) => {
      const current = (await hooks.hooksByIds(trx, [id])).get(id)!;
      await hooks.updateWebhook(trx, id, { secret, previous_secret: current.secret, previous_secret_expires_at: new Date(Date.now() + DAY_MS) });
      const after = (await hooks.findWebhook(trx, id, null))!;
      await this.audit.record(trx, actor, { action: 'webhook.rotate_secret', targetType: 'webhook', targetId: id, organizationId: after.organization_id, details: { previous_secret_expires_at: after.previous_secret_expires_at } });
      return after;
    });
    return { webhook, secret };
  }

  /** Sends a `webhook.test` event through the delivery path at once; the attempt's outcome (a failure is retried as any delivery). */
  async test(actor: Actor, id: number) {
    await this.get(actor, id);
    const hook = (await hooks.hooksByIds(this.db, [id])).get(id)!;
    const eventId = `msg_test_${randomBytes(12).toString('hex')}_${id}`;
    const timestamp = new Date().toISOString();
    const payload = eventBody(TEST_EVENT, timestamp, { webhook_id: id });
    const lease = new Date(Date.now() + leaseMs(this.settings, 1));
    const deliveryId = await insertDelivery(this.db, { webhook_id: id, event_id: eventId, type: TEST_EVENT, payload }, lease);
    const outcome = await this.delivery.send(hook, { id: deliveryId, webhook_id: id, event_id: eventId, type: TEST_EVENT, payload, attempts: 0, lockedUntil: lease });
    return {
      delivery_id: deliveryId,
      event_id: eventId,
      delivered: outcome.ok,
      response_code: outcome.responseCode,
      duration_ms: outcome.durationMs,
      error: outcome.error,
    };
  }

  async deliveries(actor: Actor, id: number, input: { page?: number; limit?: number; status?: string }) {
    await this.get(actor, id);
    const { page, limit, offset } = pageOf(input, WEBHOOK_PAGE.defaultLimit);
    const { deliveries, total } = await deliveryPage(this.db, id, { limit, offset, status: input.status });
    return { deliveries, pagination: paginationOf(page, limit, total) };
  }
}
