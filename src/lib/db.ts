import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { DbConfig } from '../config';
import type { Logger } from './logger';
import { migrationSource } from '../../migrations';

export type Db = Knex;
/** A query helper takes either the knex instance or an open transaction. */
export type Queryable = Knex | Knex.Transaction;
type Dialect = 'mysql' | 'sqlite';

const MYSQL_SESSION: Array<{ sql: string; optional?: boolean }> = [
  { sql: "SET time_zone = '+00:00'" },
  {
    sql: "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
  },
  // Tree queries walk up parent chains with recursive CTEs; depth is unlimited. MySQL 8 stops
  // at 1000 levels by default; MariaDB has no such variable (and no such limit), hence optional.
  { sql: 'SET SESSION cte_max_recursion_depth = 4294967295', optional: true },
];

type RawConnection = {
  query?: (sql: string, cb: (err: Error | null) => void) => void;
  pragma?: (sql: string) => unknown;
};

/** Where knex's own warnings go: one line with the message, never a stack or a statement. */
function knexLog(logger?: Logger): Knex.Config['log'] {
  if (!logger) return undefined;
  const text = (message: unknown) => (message instanceof Error ? message.message : String(message)).split(' - ').pop()!.slice(0, 300);
  return {
    warn: (message: unknown) => logger.warn({ knex: text(message) }, 'database warning'),
    error: (message: unknown) => logger.error({ knex: text(message) }, 'database error'),
    deprecate: (method: string, alternative: string) => logger.warn({ knex: `${method} is deprecated; use ${alternative}` }, 'database warning'),
    debug: () => undefined,
  };
}

export function knexConfig(db: DbConfig, logger?: Logger): Knex.Config {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  const log = knexLog(logger);
  if (db.client === 'sqlite') {
    return {
      client: 'better-sqlite3',
      connection: { filename: db.sqliteFilename },
      compileSqlOnError: false,
      useNullAsDefault: true,
      log,
      // One connection: SQLite has one writer, and knex queues everything else behind an
      // open transaction, which serializes tree changes for free.
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) {
          try {
            conn.pragma?.('journal_mode = WAL');
            conn.pragma?.('synchronous = NORMAL');
            conn.pragma?.('foreign_keys = ON');
            conn.pragma?.('busy_timeout = 5000');
            done(null, conn);
          } catch (err) {
            done(err as Error, conn);
          }
        },
      },
      migrations,
    };
  }
  const connection = db.url
    ? { uri: db.url }
    : { host: db.host, port: db.port, user: db.user, password: db.password, database: db.database };
  return {
    client: 'mysql2',
    log,
    compileSqlOnError: false,
    connection: {
      ...connection,
      charset: 'utf8mb4',
      timezone: 'Z',
      supportBigNumbers: true,
      decimalNumbers: true,
      // DATETIME values stay text ('YYYY-MM-DD HH:MM:SS.fff', UTC by the session time zone);
      // lib/time.ts turns them into ISO strings
      dateStrings: true,
    } as Knex.MySql2ConnectionConfig,
    pool: {
      min: 0,
      max: db.poolMax,
      afterCreate(conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) {
        const run = (i: number): void => {
          if (i === MYSQL_SESSION.length) return done(null, conn);
          conn.query!(MYSQL_SESSION[i].sql, (err) => {
            if (err && !MYSQL_SESSION[i].optional) done(err, conn);
            else run(i + 1);
          });
        };
        run(0);
      },
    },
    migrations,
  };
}

/** Builds the one knex instance of a process (or of a test). Creates the SQLite folder if needed. */
export function createDb(db: DbConfig, logger?: Logger): Db {
  if (db.client === 'sqlite' && db.sqliteFilename !== ':memory:') {
    fs.mkdirSync(path.dirname(db.sqliteFilename), { recursive: true });
  }
  const instance = knex(knexConfig(db, logger));
  // knex puts the failed statement in front of the driver's message (its values too, unless
  // compileSqlOnError is off, as it is here): taken off again, so that no error that reaches a
  // log line carries SQL, whatever its code
  instance.on('query-error', (err: unknown, query: { sql?: unknown }) => {
    const prefix = `${String(query?.sql)} - `;
    // by shape, not instanceof: a driver's error may come from another realm (Jest's, say)
    const failed = err as { message?: unknown };
    if (typeof failed?.message === 'string' && failed.message.startsWith(prefix)) failed.message = failed.message.slice(prefix.length);
  });
  return instance;
}

/** Waits (up to `timeoutMs`) until no query holds or waits for a connection: for a clean shutdown. */
export async function drain(db: Db, timeoutMs: number): Promise<void> {
  const pool = (db.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const deadline = Date.now() + timeoutMs;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function dialectOf(db: Queryable): Dialect {
  const name = db.client.config.client as string;
  return name === 'mysql2' || name === 'mysql' ? 'mysql' : 'sqlite';
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const code = codeOf(err);
  return (
    code === 'ER_NO_REFERENCED_ROW_2' ||
    code === 'ER_ROW_IS_REFERENCED_2' ||
    code === 'ER_NO_REFERENCED_ROW' ||
    code === 'ER_ROW_IS_REFERENCED' ||
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
  );
}

/** Errors after which the whole transaction may simply be run again. */
function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY';
}

/**
 * Runs `work` in one transaction, and runs it again (a bounded number of times, with a short
 * jittered pause) when the database chose it as a deadlock victim or a lock wait timed out.
 * On MySQL the transaction reads committed data: each statement sees what committed before
 * it, which is what a transaction that starts by taking a lock needs to see.
 */
export async function inTransaction<T>(
  db: Db,
  work: (trx: Knex.Transaction) => Promise<T>,
  attempts = 4,
): Promise<T> {
  const options: Knex.TransactionConfig = dialectOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : {};
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work, options);
    } catch (err) {
      if (attempt >= attempts || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20 * attempt));
    }
  }
}

/** `SELECT 1` against the database: true when it answers. */
export async function ping(db: Db): Promise<boolean> {
  try {
    await db.raw('select 1 as ok');
    return true;
  } catch {
    return false;
  }
}

/** A LIKE pattern matching `term` anywhere, with %, _ and the escape character taken literally. */
function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** Adds `LOWER(column) LIKE '%term%'` (case-insensitive, wildcards literal) to a query. */
export function whereContains(query: Knex.QueryBuilder, columns: string[], term: string): Knex.QueryBuilder {
  const pattern = containsPattern(term);
  return query.where((q) => {
    for (const column of columns) q.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, pattern]);
  });
}

/** The database name that a MySQL configuration points at. */
function mysqlDatabaseName(db: DbConfig): string {
  if (!db.url) return db.database;
  return decodeURIComponent(new URL(db.url).pathname.replace(/^\//, '')) || db.database;
}

/**
 * Creates the MySQL database when it does not exist yet (utf8mb4, binary collation), so a
 * fresh server needs no manual step. SQLite creates its file by itself.
 */
export async function ensureDatabase(db: DbConfig): Promise<void> {
  if (db.client !== 'mysql') return;
  const name = mysqlDatabaseName(db);
  const server = db.url ? { ...db, url: db.url.replace(/\/[^/?]*(\?|$)/, '/$1') } : { ...db, database: '' };
  const config = knexConfig(server);
  const admin = knex({ ...config, pool: { ...config.pool, min: 0, max: 1 } });
  try {
    await admin.raw('CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', [name]);
  } finally {
    await admin.destroy();
  }
}

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
