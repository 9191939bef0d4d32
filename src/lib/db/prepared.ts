import type { Knex } from 'knex';
import DataLoader from 'dataloader';
import { chunks } from '../chunks';
import { dialectOf, type Db } from './types';

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}
type Mysql2Connection = {
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
};
type SqliteConnection = { prepare(sql: string): { all(...values: unknown[]): unknown } };

/**
 * A query compiled once and run many times with new bindings, for the hottest paths (the
 * session of every request, a contact by id): it borrows a connection from knex's pool and
 * hands the statement straight to the driver (a server-side prepared statement on MySQL),
 * skipping knex's per-call SQL building and bookkeeping, which cost more than the query.
 * `build` gets placeholder values to compile with. On MySQL the execute, with the PREPARE it
 * sends first on a connection that has not prepared the statement yet, has the connection's call
 * limit (call-limit.ts): past it the connection is closed, and given back to the pool only to be dropped.
 */
export function preparedQuery<A extends unknown[]>(
  db: Db,
  build: (...placeholders: A) => Knex.QueryBuilder,
  placeholders: A,
): (...values: A) => Promise<Record<string, unknown>[]> {
  const { sql } = build(...placeholders).toSQL().toNative();
  const mysql = dialectOf(db) === 'mysql';
  const client = db.client as PoolClient;
  const statements = new WeakMap<object, ReturnType<SqliteConnection['prepare']>>();
  const sqliteStatement = (connection: SqliteConnection) => {
    let statement = statements.get(connection);
    if (!statement) statements.set(connection, (statement = connection.prepare(sql)));
    return statement;
  };
  return async (...values: A) => {
    const connection = await client.acquireConnection();
    try {
      if (!mysql) return sqliteStatement(connection as SqliteConnection).all(...values) as Record<string, unknown>[];
      return await new Promise((resolve, reject) =>
        (connection as Mysql2Connection).execute(sql, values, (err, rows) =>
          err ? reject(err) : resolve(rows as Record<string, unknown>[]),
        ),
      );
    } finally {
      await client.releaseConnection(connection);
    }
  };
}

/**
 * A read of rows by id, prepared once per size of id list (`sizes`, ascending): a list is
 * padded to the next size with 0, which is no row's id, and a longer one is read in chunks of
 * the largest. Rows come in no particular order.
 */
export function preparedByIds(
  db: Db,
  build: (ids: number[]) => Knex.QueryBuilder,
  sizes: readonly number[],
): (ids: readonly number[]) => Promise<Record<string, unknown>[]> {
  const readers = new Map<number, (...ids: number[]) => Promise<Record<string, unknown>[]>>();
  const largest = sizes[sizes.length - 1];
  const readerOf = (size: number) => {
    let read = readers.get(size);
    if (!read) readers.set(size, (read = preparedQuery(db, (...ids: number[]) => build(ids), new Array<number>(size).fill(0))));
    return read;
  };
  return async (ids) => {
    const rows: Record<string, unknown>[] = [];
    for (const chunk of chunks(ids, largest)) {
      const size = sizes.find((s) => s >= chunk.length)!;
      rows.push(...(await readerOf(size)(...chunk, ...new Array<number>(size - chunk.length).fill(0))));
    }
    return rows;
  };
}

/** The sizes a coalesced read is prepared for. */
const COALESCED_SIZES = [1, 2, 4, 8, 16, 32];

/**
 * Reads of one row by id asked while the event loop handles one round of I/O go to the
 * database as one statement (DataLoader batches them; preparedByIds reads them): under load,
 * concurrent requests share a round trip instead of taking one each. The batch is sent from
 * setImmediate, after the poll phase, so that every request whose bytes arrived in this round
 * has asked by then (DataLoader's default, the end of the current tick, would batch only
 * within one socket's callback). Nothing is kept between rounds (DataLoader's cache is off):
 * every read is sent after the call that asked for it, and so sees every change committed
 * before that call, as a read of its own would. Each caller gets the row as read, or
 * undefined; callers of one round may get the same object, so none may change it.
 */
export function coalescedById(db: Db, build: (ids: number[]) => Knex.QueryBuilder): (id: number) => Promise<Record<string, unknown> | undefined> {
  const read = preparedByIds(db, build, COALESCED_SIZES);
  const loader = new DataLoader<number, Record<string, unknown> | undefined>(
    async (ids) => {
      const byId = new Map<number, Record<string, unknown>>();
      for (const row of await read([...new Set(ids)])) byId.set(Number(row.id), row);
      return ids.map((id) => byId.get(id));
    },
    { cache: false, maxBatchSize: COALESCED_SIZES[COALESCED_SIZES.length - 1], batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (id) => loader.load(id);
}
