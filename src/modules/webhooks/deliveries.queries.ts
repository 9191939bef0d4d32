import type { Knex } from 'knex';
import { dialectOf, inTransaction, type Db, type Queryable } from '../../lib/db';
import { toIso } from '../../lib/time';

/** The SQL of the outbox's deliveries, their attempts and the fan-out's cursor (webhook_state). */

export const DELIVERIES = 'webhook_deliveries';
export const ATTEMPTS = 'webhook_attempts';

export interface NewDelivery {
  webhook_id: number;
  event_id: string;
  type: string;
  payload: string;
}

/** A delivery claimed for sending. */
export interface Claimed {
  id: number;
  webhook_id: number;
  event_id: string;
  type: string;
  payload: string;
  attempts: number;
}

/** How far the feed is fanned out: the place after the last change fanned out. */
export async function fanOutCursor(db: Queryable): Promise<{ version: number; contactId: number }> {
  const row = await db('webhook_state').where({ id: 1 }).first('after_version', 'after_contact_id');
  return { version: Number(row?.after_version ?? 0), contactId: Number(row?.after_contact_id ?? 0) };
}

/**
 * Moves the cursor from `from` to `to` and writes the deliveries of the changes between, in one
 * transaction: a compare-and-set of the one row (which locks it on MySQL until the commit), so
 * of two instances that fanned out the same changes one writes them and the other writes
 * nothing (false). Unique (webhook_id, event_id) stands behind it.
 */
export async function advanceFanOut(db: Db, from: { version: number; contactId: number }, to: { version: number; contactId: number }, rows: NewDelivery[]): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const moved = await trx('webhook_state')
      .where({ id: 1, after_version: from.version, after_contact_id: from.contactId })
      .update({ after_version: to.version, after_contact_id: to.contactId });
    if (Number(moved) !== 1) return false;
    const now = new Date();
    for (let i = 0; i < rows.length; i += 200) {
      await trx(DELIVERIES).insert(rows.slice(i, i + 200).map((r) => ({ ...r, status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })));
    }
    return true;
  });
}

/** A delivery of its own (the test event), due now; its id. */
export async function insertDelivery(db: Queryable, row: NewDelivery, leaseUntil: Date): Promise<number> {
  const [id] = await db(DELIVERIES).insert({ ...row, status: 'pending', attempts: 0, next_attempt_at: leaseUntil, locked_until: leaseUntil, created_at: new Date() });
  return Number(id);
}

const CLAIMED = ['id', 'webhook_id', 'event_id', 'type', 'payload', 'attempts'];

const claimedOf = (r: Record<string, unknown>): Claimed => ({
  id: Number(r.id),
  webhook_id: Number(r.webhook_id),
  event_id: String(r.event_id),
  type: String(r.type),
  payload: String(r.payload),
  attempts: Number(r.attempts),
});

/**
 * Claims up to `limit` due deliveries for this instance until `leaseUntil`: their
 * `next_attempt_at` moves to the lease's end, so no other instance sees them due until then,
 * and a crash before the outcome is recorded leaves them due again once it passes
 * (at-least-once). MySQL: SELECT ... FOR UPDATE SKIP LOCKED in a short transaction, so instances
 * claiming at once take different rows instead of waiting for each other. SQLite: one
 * conditional UPDATE ... RETURNING, atomic on its own (SQLite has one writer at a time).
 */
export async function claimDue(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<Claimed[]> {
  if (dialectOf(db) === 'mysql') {
    return inTransaction(db, async (trx) => {
      const [rows] = await trx.raw(
        `SELECT ${CLAIMED.join(', ')} FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      const claimed = (rows as Array<Record<string, unknown>>).map(claimedOf);
      if (claimed.length > 0) await lease(trx, claimed.map((c) => c.id), leaseUntil);
      return claimed;
    });
  }
  const rows = await db.raw(
    `UPDATE ${DELIVERIES} SET next_attempt_at = ?, locked_until = ? WHERE id IN (SELECT id FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?) RETURNING ${CLAIMED.join(', ')}`,
    [leaseUntil.getTime(), leaseUntil.getTime(), now.getTime(), limit],
  );
  return (rows as Array<Record<string, unknown>>).map(claimedOf);
}

async function lease(trx: Knex.Transaction, ids: number[], until: Date): Promise<void> {
  await trx(DELIVERIES).whereIn('id', ids).update({ next_attempt_at: until, locked_until: until });
}

/** The delivery `id` of a hook, as the sender takes it (the test event, sent at once). */
export async function deliveryById(db: Queryable, id: number): Promise<Claimed | null> {
  const row = await db(DELIVERIES).where({ id }).first(CLAIMED);
  return row ? claimedOf(row) : null;
}

export interface AttemptRecord {
  status: 'delivered' | 'failed';
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** One attempt made, and what follows it: `nextAt` the retry's time, or null (delivered, or failed for good). */
export interface AttemptDone {
  delivery: Claimed;
  attempt: AttemptRecord;
  at: Date;
  nextAt: Date | null;
}

/**
 * Records the attempts of a round and what follows each (delivered, due again, failed) in one
 * transaction: one commit for a round's hundred attempts, not one each, which is what lets a
 * dispatcher deliver hundreds of events a second. The deliveries delivered are one UPDATE.
 */
export async function recordAttempts(db: Db, done: readonly AttemptDone[]): Promise<void> {
  if (done.length === 0) return;
  await inTransaction(db, async (trx) => {
    await trx(ATTEMPTS).insert(done.map((d) => ({ delivery_id: d.delivery.id, attempted_at: d.at, ...d.attempt })));
    const delivered = done.filter((d) => d.attempt.status === 'delivered');
    // a claimed delivery's attempts are this instance's to count: no one else touches it
    for (const group of groupBy(delivered, (d) => d.delivery.attempts)) {
      await trx(DELIVERIES).whereIn('id', group.map((d) => d.delivery.id)).update({ status: 'delivered', attempts: group[0].delivery.attempts + 1, next_attempt_at: null, locked_until: null });
    }
    for (const d of done.filter((x) => x.attempt.status !== 'delivered')) {
      const status = d.nextAt ? 'pending' : 'failed';
      await trx(DELIVERIES).where({ id: d.delivery.id }).update({ status, attempts: d.delivery.attempts + 1, next_attempt_at: d.nextAt, locked_until: null });
    }
  });
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/** A disabled hook's pending deliveries wait (no time to be due) until it is active again. */
export async function parkDeliveries(db: Queryable, webhookId: number): Promise<void> {
  await db(DELIVERIES).where({ webhook_id: webhookId, status: 'pending' }).update({ next_attempt_at: null, locked_until: null });
}

/** The parked deliveries of a hook made active again: due now. */
export async function resumeDeliveries(db: Queryable, webhookId: number): Promise<void> {
  await db(DELIVERIES).where({ webhook_id: webhookId, status: 'pending' }).whereNull('next_attempt_at').update({ next_attempt_at: new Date() });
}

/** Deliveries whose hook is inactive: they wait for the hook's return. */
export async function parkDeliveryIds(db: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db(DELIVERIES).whereIn('id', [...ids]).where({ status: 'pending' }).update({ next_attempt_at: null, locked_until: null });
}

/** Rows deleted per statement while pruning: short statements beside the dispatchers' claims. */
const PRUNE_ROWS = 2000;

/** Deletes the finished deliveries (delivered, failed) made before `before`, with their attempts (ON DELETE CASCADE); how many. */
export async function pruneDeliveries(db: Db, before: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = await db(DELIVERIES).whereIn('status', ['delivered', 'failed']).where('created_at', '<', before).limit(PRUNE_ROWS).pluck('id');
    if (ids.length > 0) await db(DELIVERIES).whereIn('id', ids).delete();
    removed += ids.length;
    if (ids.length < PRUNE_ROWS) return removed;
  }
}

/** A page of a hook's deliveries, newest first, each with its attempts oldest first. */
export async function deliveriesOf(db: Queryable, webhookId: number, page: { limit: number; offset: number; status?: string }) {
  const base = () => {
    const q = db(DELIVERIES).where({ webhook_id: webhookId });
    return page.status ? q.where({ status: page.status }) : q;
  };
  const [{ n }] = await base().count({ n: '*' });
  const rows = await base().orderBy('id', 'desc').limit(page.limit).offset(page.offset).select('id', 'event_id', 'type', 'status', 'attempts', 'next_attempt_at', 'created_at');
  const ids = rows.map((r) => Number(r.id));
  const attempts = ids.length === 0 ? [] : await db(ATTEMPTS).whereIn('delivery_id', ids).orderBy('id').select('*');
  const byDelivery = new Map<number, unknown[]>();
  for (const a of attempts) {
    const list = byDelivery.get(Number(a.delivery_id)) ?? [];
    list.push({
      attempted_at: toIso(a.attempted_at),
      status: String(a.status),
      response_code: a.response_code === null ? null : Number(a.response_code),
      duration_ms: Number(a.duration_ms),
      error: (a.error as string | null) ?? null,
    });
    byDelivery.set(Number(a.delivery_id), list);
  }
  const deliveries = rows.map((r) => ({
    id: Number(r.id),
    event_id: String(r.event_id),
    type: String(r.type),
    status: String(r.status),
    attempts: Number(r.attempts),
    next_attempt_at: toIso(r.next_attempt_at),
    created_at: toIso(r.created_at),
    attempt_log: byDelivery.get(Number(r.id)) ?? [],
  }));
  return { deliveries, total: Number(n) };
}
