import type { Knex } from 'knex';
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
 * `build` gets placeholder values to compile with.
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
