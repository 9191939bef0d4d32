import type { Knex } from 'knex';
import { dialectOf, inTransaction, isForeignKeyViolation, type Db, type Queryable } from '../../lib/db';

/** The SQL of the outbox's deliveries, their attempts and the fan-out's cursor (webhook_state). */

export const DELIVERIES = 'webhook_deliveries';
export const ATTEMPTS = 'webhook_attempts';

export interface NewDelivery {
  webhook_id: number;
  event_id: string;
  type: string;
  payload: string;
}

/** A delivery the fan-out writes: `parked` for an inactive hook's (no time to be due until it is active again). */
export interface FannedOut extends NewDelivery {
  parked: boolean;
}

/** A delivery claimed for sending. */
export interface Claimed {
  id: number;
  webhook_id: number;
  event_id: string;
  type: string;
  payload: string;
  attempts: number;
  /** the claim: the `locked_until` it set, which its outcome must still find to be recorded */
  lockedUntil: Date;
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
 * nothing (false). Unique (webhook_id, event_id) stands behind it. A hook deleted after the
 * fan-out read it has no row for its deliveries to name: nothing is written either (false), and
 * the next round fans the same changes out to the hooks left: a hook deleted meanwhile is no
 * failure of the dispatch.
 */
export async function advanceFanOut(db: Db, from: { version: number; contactId: number }, to: { version: number; contactId: number }, rows: FannedOut[]): Promise<boolean> {
  try {
    return await inTransaction(db, async (trx) => {
      const moved = await trx('webhook_state')
        .where({ id: 1, after_version: from.version, after_contact_id: from.contactId })
        .update({ after_version: to.version, after_contact_id: to.contactId });
      if (Number(moved) !== 1) return false;
      const now = new Date();
      for (let i = 0; i < rows.length; i += 200) {
        const batch = rows.slice(i, i + 200).map(({ parked, ...r }) => ({ ...r, status: 'pending', attempts: 0, next_attempt_at: parked ? null : now, created_at: now }));
        await trx(DELIVERIES).insert(batch);
      }
      return true;
    });
  } catch (err) {
    // only a hook that is really gone: any other broken key is the dispatch's failure, logged
    if (isForeignKeyViolation(err) && (await someHookGone(db, rows))) return false;
    throw err;
  }
}

/** Whether a hook that one of `rows` names no longer exists. */
async function someHookGone(db: Db, rows: FannedOut[]): Promise<boolean> {
  const named = [...new Set(rows.map((r) => r.webhook_id))];
  const left = await db('webhooks').whereIn('id', named).count({ n: '*' });
  return Number(left[0].n) < named.length;
}

/** A delivery of its own (the test event), due now; its id. */
export async function insertDelivery(db: Queryable, row: NewDelivery, leaseUntil: Date): Promise<number> {
  const [id] = await db(DELIVERIES).insert({ ...row, status: 'pending', attempts: 0, next_attempt_at: leaseUntil, locked_until: leaseUntil, created_at: new Date() });
  return Number(id);
}

const CLAIMED = ['id', 'webhook_id', 'event_id', 'type', 'payload', 'attempts'];

const claimedOf = (r: Record<string, unknown>, lockedUntil: Date): Claimed => ({
  id: Number(r.id),
  webhook_id: Number(r.webhook_id),
  event_id: String(r.event_id),
  type: String(r.type),
  payload: String(r.payload),
  attempts: Number(r.attempts),
  lockedUntil,
});

/**
 * Claims up to `limit` due deliveries for this instance until `leaseUntil`: their
 * `next_attempt_at` moves to the lease's end, so no other instance sees them due until then,
 * and a crash before the outcome is recorded leaves them due again once it passes
 * (at-least-once). Each claim's `locked_until` is later than any before it on the row (a row is
 * claimed only once the last claim's end has passed), so it tells this claim from any other.
 * Oldest due first, and in the order they were written (id) among those due together. MySQL: SELECT ... FOR UPDATE SKIP LOCKED in a short transaction, so instances
 * claiming at once take different rows instead of waiting for each other. SQLite: one
 * conditional UPDATE ... RETURNING, atomic on its own (SQLite has one writer at a time).
 */
export async function claimDue(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<Claimed[]> {
  if (dialectOf(db) === 'mysql') {
    return inTransaction(db, async (trx) => {
      const [rows] = await trx.raw(
        `SELECT ${CLAIMED.join(', ')} FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      const claimed = (rows as Array<Record<string, unknown>>).map((r) => claimedOf(r, leaseUntil));
      if (claimed.length > 0) await lease(trx, claimed.map((c) => c.id), leaseUntil);
      return claimed;
    });
  }
  const rows = await db.raw(
    `UPDATE ${DELIVERIES} SET next_attempt_at = ?, locked_until = ? WHERE id IN (SELECT id FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?) RETURNING ${CLAIMED.join(', ')}`,
    [leaseUntil.getTime(), leaseUntil.getTime(), now.getTime(), limit],
  );
  return (rows as Array<Record<string, unknown>>).map((r) => claimedOf(r, leaseUntil));
}

async function lease(trx: Knex.Transaction, ids: number[], until: Date): Promise<void> {
  await trx(DELIVERIES).whereIn('id', ids).update({ next_attempt_at: until, locked_until: until });
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
 *
 * Only while the claim holds: an outcome is written only if its delivery is still pending with
 * the `locked_until` its claim set (read FOR UPDATE on MySQL, so nothing changes it before the
 * commit; SQLite has one writer). An outcome whose claim lapsed (another instance claimed the
 * delivery again and may have recorded a newer outcome), was parked (its hook paused) or whose
 * delivery is gone (its hook deleted) is dropped, not written, and does not fail the others.
 * Returns the outcomes recorded.
 */
export async function recordAttempts<T extends AttemptDone>(db: Db, done: readonly T[]): Promise<T[]> {
  if (done.length === 0) return [];
  return inTransaction(db, async (trx) => {
    const held = await stillClaimed(trx, done.map((d) => d.delivery));
    const kept = done.filter((d) => held.has(d.delivery.id));
    if (kept.length === 0) return kept;
    await trx(ATTEMPTS).insert(kept.map((d) => ({ delivery_id: d.delivery.id, attempted_at: d.at, ...d.attempt })));
    const delivered = kept.filter((d) => d.attempt.status === 'delivered');
    // a claimed delivery's attempts are this instance's to count while the claim holds (the row is locked)
    for (const group of groupBy(delivered, (d) => d.delivery.attempts)) {
      await trx(DELIVERIES).whereIn('id', group.map((d) => d.delivery.id)).update({ status: 'delivered', attempts: group[0].delivery.attempts + 1, next_attempt_at: null, locked_until: null });
    }
    for (const d of kept.filter((x) => x.attempt.status !== 'delivered')) {
      const status = d.nextAt ? 'pending' : 'failed';
      await trx(DELIVERIES).where({ id: d.delivery.id }).update({ status, attempts: d.delivery.attempts + 1, next_attempt_at: d.nextAt, locked_until: null });
    }
    return kept;
  });
}

/** The ids of `claims` whose claim still holds: pending, with the `locked_until` the claim set. Locked on MySQL until the commit. */
async function stillClaimed(trx: Knex.Transaction, claims: readonly Claimed[]): Promise<Set<number>> {
  const held = new Set<number>();
  for (const group of groupBy(claims, (c) => c.lockedUntil.getTime())) {
    const q = trx(DELIVERIES).whereIn('id', group.map((c) => c.id)).where({ status: 'pending', locked_until: group[0].lockedUntil });
    const ids = await (dialectOf(trx) === 'mysql' ? q.forUpdate() : q).pluck('id');
    for (const id of ids) held.add(Number(id));
  }
  return held;
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

/** Claimed deliveries whose hook is inactive: they wait for the hook's return (those whose claim still holds). */
export async function parkClaimed(db: Queryable, claims: readonly Claimed[]): Promise<void> {
  for (const group of groupBy(claims, (c) => c.lockedUntil.getTime())) {
    await db(DELIVERIES).whereIn('id', group.map((c) => c.id)).where({ status: 'pending', locked_until: group[0].lockedUntil }).update({ next_attempt_at: null, locked_until: null });
  }
}

/**
 * The parked deliveries of hooks that are active now: due now. The fan-out writes an inactive
 * hook's deliveries parked; a hook made active between its read and that commit would leave
 * them parked, so the fan-out asks again after its commit (and the PATCH that made it active
 * resumes what it finds committed).
 */
export async function resumeIfActive(db: Queryable, webhookIds: readonly number[]): Promise<void> {
  if (webhookIds.length === 0) return;
  const active = await db('webhooks').whereIn('id', [...webhookIds]).where({ active: true }).pluck('id');
  for (const id of active) await resumeDeliveries(db, Number(id));
}

/** Rows deleted per statement while pruning: short statements beside the dispatchers' claims. */
const PRUNE_ROWS = 2000;

/**
 * Deletes the deliveries made before `before` that are finished (delivered, failed) or parked
 * (pending with no time: an inactive hook's), with their attempts (ON DELETE CASCADE); how
 * many. A hook inactive for longer than the change feed keeps changes loses its oldest parked
 * events as the feed does, so what it accumulates is bounded by the retention.
 */
export async function pruneDeliveries(db: Db, before: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = await db(DELIVERIES)
      .whereIn('status', ['delivered', 'failed', 'pending'])
      .where('created_at', '<', before)
      .where((q) => q.whereNot('status', 'pending').orWhereNull('next_attempt_at'))
      .limit(PRUNE_ROWS)
      .pluck('id');
    if (ids.length > 0) await db(DELIVERIES).whereIn('id', ids).delete();
    removed += ids.length;
    if (ids.length < PRUNE_ROWS) return removed;
  }
}
