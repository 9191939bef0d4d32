import type { Knex } from 'knex';
import { writeRows } from './bulk';

/**
 * Writes that a transaction's work does not wait for. While the directory lock is held every
 * round trip is one that all other changes wait for (docs/performance.md, "Writes sent
 * behind"), and much of a change is written only to be kept: its savepoint, its audit entry.
 *
 * - A write sent behind (writeBehind) is one statement, started at once and not awaited: the
 *   work's next statement follows it on the connection (mysql2 runs a connection's statements in
 *   the order they were sent; better-sqlite3 runs each at once).
 * - A write kept for last (writeLast) needs what an earlier one answers (an audit entry's targets
 *   need its id): it runs once the work is done, before the commit. Rows kept for last
 *   (rowsLast) go into their table with those that the transaction's other parts kept for it,
 *   in one statement: a group of changes writes its audit entries' targets at once.
 *
 * Only a transaction whose owner settles them takes them (the directory's queue of changes,
 * change-queue.ts); elsewhere each write is awaited where it is made. The owner settles the
 * writes sent behind before it decides the outcome of any part of the transaction (a commit, a
 * rollback to a savepoint, which one still on its way would follow and outlive), drops the
 * writes kept for last by a part that it rolls back, and runs the others last. A write that
 * fails fails the whole transaction.
 */

/** A write kept for last, or rows kept for last for a table (written with the others for it). */
type Last = (() => Promise<unknown>) | { table: string; rows: () => Promise<Array<Record<string, unknown>>> };

interface Pending {
  sent: Array<Promise<unknown>>;
  last: Last[];
}

const pending = new WeakMap<Knex.Transaction, Pending>();

/** Lets the transaction's work send writes behind and keep writes for last; its owner settles them. */
export function acceptWritesBehind(trx: Knex.Transaction): void {
  pending.set(trx, { sent: [], last: [] });
}

/** Starts `write` (one statement) and, in a transaction that takes writes behind, returns without waiting for it. */
export async function writeBehind(trx: Knex.Transaction, write: () => PromiseLike<unknown>): Promise<void> {
  const writes = pending.get(trx);
  const started = Promise.resolve(write());
  if (!writes) {
    await started;
    return;
  }
  // its failure is thrown when the owner settles the writes, not left unhandled meanwhile
  started.catch(() => undefined);
  writes.sent.push(started);
  // a writer of many rows (an import's changes) waits for its oldest write instead of holding
  // a statement a row in flight
  if (writes.sent.length > IN_FLIGHT) await writes.sent.shift();
}

/** How many writes sent behind a transaction may be on their way at once. */
const IN_FLIGHT = 64;

/** Runs `write` after the transaction's work, before its commit, where the transaction takes writes behind; now elsewhere. */
export async function writeLast(trx: Knex.Transaction, write: () => Promise<unknown>): Promise<void> {
  const writes = pending.get(trx);
  if (writes) writes.last.push(write);
  else await write();
}

/**
 * Writes the rows that `rows` makes into `table`: after the transaction's work, before its
 * commit, in one statement with the rows that its other parts kept for that table, where the
 * transaction takes writes behind; now elsewhere.
 */
export async function rowsLast(trx: Knex.Transaction, table: string, rows: () => Promise<Array<Record<string, unknown>>>): Promise<void> {
  const writes = pending.get(trx);
  if (writes) writes.last.push({ table, rows });
  else await writeRows(trx, table, await rows());
}

/** Waits for the writes sent behind so far; rejects with the first that failed. */
export async function settleWritesBehind(trx: Knex.Transaction): Promise<void> {
  const writes = pending.get(trx);
  if (writes && writes.sent.length > 0) await Promise.all(writes.sent.splice(0));
}

/** Where the transaction's writes kept for last stand now: a part rolled back drops those kept since (dropWritesSince). */
export function writesMark(trx: Knex.Transaction): number {
  return pending.get(trx)?.last.length ?? 0;
}

/** Drops the writes kept for last since `mark`: the part of the transaction that kept them was rolled back. */
export function dropWritesSince(trx: Knex.Transaction, mark: number): void {
  pending.get(trx)?.last.splice(mark);
}

/** Settles the writes sent behind and runs those kept for last, side by side, the rows kept for a table in one write: the last thing before the commit. */
export async function finishWrites(trx: Knex.Transaction): Promise<void> {
  const writes = pending.get(trx);
  if (!writes) return;
  const byTable = new Map<string, Array<Promise<Array<Record<string, unknown>>>>>();
  const runs: Array<Promise<unknown>> = [settleWritesBehind(trx)];
  for (const last of writes.last.splice(0)) {
    if (typeof last === 'function') runs.push(last());
    else if (byTable.has(last.table)) byTable.get(last.table)!.push(last.rows());
    else byTable.set(last.table, [last.rows()]);
  }
  for (const [table, parts] of byTable) runs.push(Promise.all(parts).then((rows) => writeRows(trx, table, rows.flat())));
  await Promise.all(runs);
}
