import type { Knex } from 'knex';
import type { Queryable } from '../../lib/db';
import { toIso } from '../../lib/time';

/** The SQL of the webhooks table: a hook as GET shows it, and as the dispatcher and sender need it. */

export const WEBHOOKS = 'webhooks';

/** A webhook as the API shows it: never its secret. */
export interface Webhook {
  id: number;
  organization_id: number | null;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  /** until when the secret before the last rotation still signs too; null when none does */
  previous_secret_expires_at: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** What the dispatcher and the sender need of a hook: its secrets too. */
export interface HookRow {
  id: number;
  organization_id: number | null;
  url: string;
  events: string[];
  active: boolean;
  after_version: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
}

const SHOWN = [
  'id', 'organization_id', 'url', 'events', 'description', 'active', 'disabled_reason', 'disabled_at', 'failing_since',
  'previous_secret_expires_at', 'created_by', 'created_at', 'updated_at',
];

const dateOf = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(toIso(v)!));

function shown(r: Record<string, unknown>): Webhook {
  return {
    id: Number(r.id),
    organization_id: r.organization_id === null ? null : Number(r.organization_id),
    url: String(r.url),
    events: JSON.parse(String(r.events)) as string[],
    description: (r.description as string | null) ?? null,
    active: Boolean(r.active),
    disabled_reason: (r.disabled_reason as string | null) ?? null,
    disabled_at: toIso(r.disabled_at),
    failing_since: toIso(r.failing_since),
    previous_secret_expires_at: toIso(r.previous_secret_expires_at),
    created_by: r.created_by === null ? null : Number(r.created_by),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
  };
}

function hookRow(r: Record<string, unknown>): HookRow {
  return {
    id: Number(r.id),
    organization_id: r.organization_id === null ? null : Number(r.organization_id),
    url: String(r.url),
    events: JSON.parse(String(r.events)) as string[],
    active: Boolean(r.active),
    after_version: Number(r.after_version),
    secret: String(r.secret),
    previous_secret: (r.previous_secret as string | null) ?? null,
    previous_secret_expires_at: dateOf(r.previous_secret_expires_at),
    failing_since: dateOf(r.failing_since),
  };
}

/** Which hooks a caller sees: every one (null), or those of one organization. */
export type HookScope = number | null;

function scoped(q: Knex.QueryBuilder, scope: HookScope): Knex.QueryBuilder {
  return scope === null ? q : q.where('organization_id', scope);
}

export async function listWebhooks(db: Queryable, scope: HookScope, page: { limit: number; offset: number }): Promise<{ rows: Webhook[]; total: number }> {
  const [{ n }] = await scoped(db(WEBHOOKS), scope).count({ n: '*' });
  const rows = await scoped(db(WEBHOOKS), scope).orderBy('id').limit(page.limit).offset(page.offset).select(SHOWN);
  return { rows: rows.map(shown), total: Number(n) };
}

export async function findWebhook(db: Queryable, id: number, scope: HookScope): Promise<Webhook | null> {
  const row = await scoped(db(WEBHOOKS).where({ id }), scope).first(SHOWN);
  return row ? shown(row) : null;
}

export async function insertWebhook(trx: Knex.Transaction, values: Record<string, unknown>): Promise<number> {
  const now = new Date();
  const [id] = await trx(WEBHOOKS).insert({ ...values, created_at: now, updated_at: now });
  return Number(id);
}

export async function updateWebhook(trx: Knex.Transaction, id: number, values: Record<string, unknown>): Promise<void> {
  await trx(WEBHOOKS).where({ id }).update({ ...values, updated_at: new Date() });
}

export async function deleteWebhook(trx: Knex.Transaction, id: number): Promise<void> {
  // its deliveries and their attempts go with it (ON DELETE CASCADE)
  await trx(WEBHOOKS).where({ id }).delete();
}

/** Every hook, active or not (an inactive hook's deliveries are written parked), for the fan-out. */
export async function allHooks(db: Queryable): Promise<HookRow[]> {
  return (await db(WEBHOOKS).select('*')).map(hookRow);
}

/** Hooks by id, with their secrets, for the sender. */
export async function hooksByIds(db: Queryable, ids: readonly number[]): Promise<Map<number, HookRow>> {
  const hooks = new Map<number, HookRow>();
  if (ids.length === 0) return hooks;
  for (const r of await db(WEBHOOKS).whereIn('id', [...new Set(ids)]).select('*')) hooks.set(Number(r.id), hookRow(r));
  return hooks;
}

/** The secrets that sign now: the current one, and the one before a rotation for its 24 hours. */
export function signingSecrets(hook: HookRow, now = new Date()): string[] {
  const previous = hook.previous_secret && hook.previous_secret_expires_at && hook.previous_secret_expires_at > now ? [hook.previous_secret] : [];
  return [hook.secret, ...previous];
}
