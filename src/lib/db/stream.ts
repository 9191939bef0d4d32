import type { Knex } from 'knex';
import { callLimitOf, callTimedOut, closeConnection, type LimitedConnection } from './call-limit';
import { dialectOf, type Db } from './types';

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}
interface RowStream extends AsyncIterable<Record<string, unknown>> {
  destroy(err?: Error): void;
}
interface Mysql2Streaming extends Omit<LimitedConnection, 'query'> {
  query(sql: string, values: readonly unknown[]): { stream(options?: { highWaterMark?: number }): RowStream };
}

/**
 * The rows of a query one at a time, without holding them all: on MySQL as the server sends them
 * (mysql2's result stream, paused while the caller is busy), on SQLite as one read (its driver
 * reads the whole result anyway, and its one connection is then free again at once).
 *
 * Used instead of knex's `.stream()`, which gives its connection back to the pool twice
 * (pool-guard.ts): this borrows the connection once and gives it back once, when the last row
 * is read. A caller that stops early (an error, a `break`) leaves a result half read on the
 * connection; it is closed then, not lent again.
 *
 * Each wait for the database (for the first row, for the next once the caller asks for it) has
 * the connection's call limit (call-limit.ts), not the whole read: reading a large directory may
 * take longer than any one query should, while the caller works on the rows. Past it the
 * connection is closed and the read fails as a query that ran out of time does (503).
 */
export async function* streamRows(db: Db, query: Knex.QueryBuilder): AsyncGenerator<Record<string, unknown>> {
  if (dialectOf(db) !== 'mysql') {
    yield* (await query) as Array<Record<string, unknown>>;
    return;
  }
  const { sql, bindings } = query.toSQL().toNative();
  const client = db.client as PoolClient;
  const connection = (await client.acquireConnection()) as Mysql2Streaming;
  const limitMs = callLimitOf(connection);
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const rows = connection.query(sql, bindings).stream({ highWaterMark: 1000 });
    // when the wait for the database began; 0 while the caller holds a row
    let waitingSince = Date.now();
    const watch = () => {
      const waited = waitingSince === 0 ? 0 : Date.now() - waitingSince;
      if (waited < limitMs) {
        timer = setTimeout(watch, limitMs - waited);
        return;
      }
      closeConnection(connection as LimitedConnection);
      rows.destroy(callTimedOut(limitMs));
    };
    if (limitMs > 0) timer = setTimeout(watch, limitMs);
    for await (const row of rows) {
      waitingSince = 0;
      yield row;
      waitingSince = Date.now();
    }
    finished = true;
  } finally {
    clearTimeout(timer);
    if (!finished) closeConnection(connection as LimitedConnection);
    await client.releaseConnection(connection);
  }
}
