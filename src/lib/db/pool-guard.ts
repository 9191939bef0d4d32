import type { Knex } from 'knex';
import type { Logger } from '../logger';
import { Throttle } from '../throttle';

/**
 * What keeps a pooled connection out of a transaction it does not belong to.
 *
 * knex's own `.stream()` releases its connection twice, once when the query settles and once
 * when the stream closes (knex/knex#6288). When the pool is busy, the second release hands back
 * a connection that a waiting transaction has been given in between: the pool then lends it to
 * a third caller, whose statements run, commit and roll back inside that transaction. Under a
 * mixed load this answered 500 (`SET TRANSACTION` inside a transaction, errno 1568) and left
 * contacts with a depth and an order key from two half-applied moves. The project does not call
 * knex's stream (streamRows, stream.ts); these guards make sure that no other path can do the
 * same harm:
 *
 * - a connection is released once per time it was lent: a second release is refused, and so is
 *   a release of a connection that a knex transaction holds (knex marks such a connection with
 *   `__knexTxId` and takes the mark off before its own release);
 * - every MySQL connection notes whether it is inside a transaction, from what the server says
 *   after each statement (the status flag of an OK packet) and from the statements that open and
 *   end one; the pool refuses to lend one that is (or may be) inside a transaction, and destroys
 *   it instead: the server rolls back what was left open.
 */

/** The server status flag "in transaction" of the MySQL protocol (SERVER_STATUS_IN_TRANS). */
const SERVER_STATUS_IN_TRANS = 1;

const OPENS = /^\s*(?:BEGIN|START\s+TRANSACTION)\b/i;
const ENDS = /^\s*(?:COMMIT|ROLLBACK)\b(?!\s+TO\b)/i;

/** A raw connection with what the guards note on it. */
export interface GuardedConnection {
  /** inside a transaction, or unknown (a COMMIT or ROLLBACK that failed): not to be lent */
  __inTransaction?: boolean;
  /** set by knex while one of its transactions holds the connection */
  __knexTxId?: string;
}

function sqlOf(options: unknown): string {
  if (typeof options === 'string') return options;
  const sql = (options as { sql?: unknown } | null)?.sql;
  return typeof sql === 'string' ? sql : '';
}

/**
 * Notes, after each statement with a callback, whether the connection is inside a transaction.
 * Call it on the connection's `query` and `execute` callbacks (call-limit.ts wraps them).
 */
export function noteTransactionState(conn: GuardedConnection, options: unknown, err: unknown, result: unknown): void {
  const sql = sqlOf(options);
  const status = (result as { serverStatus?: unknown } | null)?.serverStatus;
  if (!err && typeof status === 'number') conn.__inTransaction = (status & SERVER_STATUS_IN_TRANS) !== 0;
  else if (OPENS.test(sql)) conn.__inTransaction = true;
  else if (ENDS.test(sql)) conn.__inTransaction = Boolean(err);
}

/**
 * The pool's check before it lends a connection: false destroys it. A connection found inside a
 * transaction is a caller's defect (one that gave it back too early): logged once per minute at
 * most, as an error line without SQL.
 */
export function outsideTransaction(logger?: Logger): (conn: GuardedConnection) => boolean {
  const throttle = new Throttle(60_000);
  return (conn) => {
    if (!conn.__inTransaction) return true;
    const suppressed = throttle.pass('inside');
    if (suppressed !== null) logger?.error({ ...(suppressed ? { suppressed } : {}) }, 'destroyed a pooled connection left inside a transaction');
    return false;
  };
}

/**
 * Refuses a release of a connection that is not lent (released already) or that a knex
 * transaction holds (see above), with one error line per minute at most: such a release is a
 * defect of the caller's, and the connection stays with whoever holds it, who releases it.
 */
export function guardReleases(db: Knex, logger?: Logger): void {
  const client = db.client as {
    acquireConnection(): Promise<GuardedConnection>;
    releaseConnection(conn: GuardedConnection): Promise<unknown>;
  };
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  const lent = new WeakSet<GuardedConnection>();
  const throttle = new Throttle(60_000);
  client.acquireConnection = async () => {
    const conn = await acquire();
    lent.add(conn);
    return conn;
  };
  client.releaseConnection = (conn) => {
    if (!conn || !lent.has(conn) || conn.__knexTxId !== undefined) {
      const suppressed = throttle.pass('release');
      if (suppressed !== null) logger?.error({ ...(suppressed ? { suppressed } : {}) }, 'refused to release a connection that is not lent or that a transaction holds');
      return Promise.resolve();
    }
    lent.delete(conn);
    return release(conn);
  };
}
