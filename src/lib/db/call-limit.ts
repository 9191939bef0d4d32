import type { Knex } from 'knex';
import { noteTransactionState, type GuardedConnection } from './pool-guard';

/**
 * The time limit of every call on a MySQL connection (DB_QUERY_TIMEOUT_MS).
 *
 * A server that froze (SIGSTOP, a network that drops packets) answers nothing and closes
 * nothing: a call waiting for it would hold its request and its pooled connection for as long
 * as it stays frozen. mysql2's own `timeout` starts only when its command reaches the head of the
 * connection's queue, and a prepared statement's `execute` first queues a PREPARE, which has none:
 * on a connection that had not prepared that statement yet, the session's read and a contact's
 * waited until the client gave up. So the limit is kept here, from the moment of the call,
 * whatever the driver does with it: a query, a transaction's statements, LOAD DATA, a prepare
 * and execute. When it runs out the connection is closed at once (never lent again, and no late
 * answer can be read as another call's), and the call fails with a code that the service answers
 * 503 for. A streamed read is limited per wait for its next row (stream.ts).
 */

/** The code of a call that ran out of time (mysql2's for its own timeout); lib/db/errors.ts counts it as unavailable. */
const TIMED_OUT = 'PROTOCOL_SEQUENCE_TIMEOUT';
/** The code of a call on a connection closed that way. */
const CLOSED = 'PROTOCOL_CONNECTION_LOST';

type Callback = (err: (Error & { code?: string }) | null, ...rest: unknown[]) => void;
type DriverCall = (options: unknown, values?: unknown, cb?: Callback) => unknown;

/** A mysql2 connection, as far as the limit needs it. */
export interface LimitedConnection extends GuardedConnection {
  query: DriverCall;
  execute: DriverCall;
  destroy(): void;
  stream?: { destroy(): void };
  /** the limit of each call, in ms (0: none); set by limitCalls */
  __callLimitMs?: number;
  /** closed by closeConnection */
  __closed?: boolean;
}

function codedError(message: string, code: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** The error of a call on a MySQL connection that ran out of its time (503). */
export function callTimedOut(limitMs: number): Error & { code: string } {
  return codedError(`the database did not answer within ${limitMs} ms`, TIMED_OUT);
}

/**
 * Closes a connection now, with whatever it has in flight: mysql2's `destroy` only half-closes
 * the socket and waits for the server's answer, which a frozen server never sends. The pool
 * checks every connection before it lends one and drops this one (knex: `_closing`).
 */
export function closeConnection(conn: LimitedConnection): void {
  if (conn.__closed) return;
  conn.__closed = true;
  conn.destroy();
  conn.stream?.destroy();
}

/** The limit of each call on a connection that limitCalls prepared (0: none). */
export function callLimitOf(conn: unknown): number {
  return (conn as LimitedConnection).__callLimitMs ?? 0;
}

/**
 * Wraps `query` and `execute` of a connection (once; again is a no-op). Each call with a callback:
 * - gets `limitMs` (> 0) from now: past it, the connection is closed and the callback gets a
 *   TIMED_OUT error (any later word from the driver is dropped);
 * - fails at once with CLOSED on a connection closed so, instead of mysql2's uncoded error
 *   (a transaction's ROLLBACK after its statement timed out, say);
 * - notes whether it leaves the connection inside a transaction (pool-guard.ts).
 * A call without a callback (a stream) is passed as it is.
 */
export function limitCalls(conn: LimitedConnection, limitMs: number): void {
  if (conn.__callLimitMs !== undefined) return;
  conn.__callLimitMs = Math.max(0, limitMs);
  for (const method of ['query', 'execute'] as const) {
    const call = conn[method].bind(conn);
    conn[method] = (options, values, cb) => {
      const callback = typeof values === 'function' ? (values as Callback) : cb;
      if (!callback) return call(options, values, cb);
      if (conn.__closed) {
        process.nextTick(callback, codedError('the connection was closed after a call ran out of time', CLOSED));
        return undefined;
      }
      let settled = false;
      const done: Callback = (err, ...rest) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err?.code === TIMED_OUT) closeConnection(conn);
        noteTransactionState(conn, options, err, rest[0]);
        callback(err, ...rest);
      };
      const timer = limitMs > 0 ? setTimeout(() => done(callTimedOut(limitMs)), limitMs) : undefined;
      try {
        return typeof values === 'function' ? call(options, done) : call(options, values, done);
      } catch (err) {
        // thrown before anything was sent (bindings the driver refuses)
        settled = true;
        clearTimeout(timer);
        throw err;
      }
    };
  }
}

/**
 * knex reads the server's version on its first connection, before the pool's afterCreate
 * (connection.ts) prepares it: that call gets the limit too, or a freeze at that moment would
 * hold every connection the pool opens until the server answers.
 */
export function limitVersionCheck(db: Knex, limitMs: number): void {
  const client = db.client as { checkVersion?: (conn: LimitedConnection) => Promise<unknown> };
  const check = client.checkVersion?.bind(client);
  if (!check) return;
  client.checkVersion = (conn) => {
    limitCalls(conn, limitMs);
    return check(conn);
  };
}
