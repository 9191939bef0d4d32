import type { Knex } from 'knex';
import { dialectOf, type Db } from './types';

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}
interface Mysql2Streaming {
  query(sql: string, values: readonly unknown[]): { stream(options?: { highWaterMark?: number }): AsyncIterable<Record<string, unknown>> };
  destroy(): void;
}

/**
 * The rows of a query one at a time, without holding them all: on MySQL as the server sends them
 * (mysql2's result stream, paused while the caller is busy), on SQLite as one read (its driver
 * reads the whole result anyway, and its one connection is then free again at once).
 *
 * Used instead of knex's `.stream()`, which gives its connection back to the pool twice
 * (pool-guard.ts): this borrows the connection once and gives it back once, when the last row
 * is read. A caller that stops early (an error, a `break`) leaves a result half read on the
 * connection; it is destroyed then, not lent again.
 */
export async function* streamRows(db: Db, query: Knex.QueryBuilder): AsyncGenerator<Record<string, unknown>> {
  if (dialectOf(db) !== 'mysql') {
    yield* (await query) as Array<Record<string, unknown>>;
    return;
  }
  const { sql, bindings } = query.toSQL().toNative();
  const client = db.client as PoolClient;
  const connection = (await client.acquireConnection()) as Mysql2Streaming;
  let finished = false;
  try {
    for await (const row of connection.query(sql, bindings).stream({ highWaterMark: 1000 })) yield row;
    finished = true;
  } finally {
    if (!finished) connection.destroy();
    await client.releaseConnection(connection);
  }
}
