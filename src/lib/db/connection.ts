import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { Logger } from '../logger';
import { Throttle } from '../throttle';
import { limitCalls, limitVersionCheck, type LimitedConnection } from './call-limit';
import { guardReleases, outsideTransaction } from './pool-guard';
import type { Db } from './types';

export type DbClient = 'sqlite' | 'mysql';

/** Where the database is: the embedded SQLite file, or a MySQL/MariaDB server. */
export interface DbConfig {
  client: DbClient;
  sqliteFilename: string;
  /** SQLite's page cache in MiB (SQLITE_CACHE_MIB); SQLITE_CACHE_MIB_DEFAULT when absent */
  sqliteCacheMib?: number;
  url?: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolMax: number;
  /** how long opening a MySQL connection may take */
  connectTimeoutMs: number;
  /** how long a query may wait for a connection from the pool (then: the database is unavailable) */
  acquireTimeoutMs: number;
  /**
   * how long any MySQL call may wait for its answer (a query, a transaction's statement, a
   * prepared statement, LOAD DATA; a stream per row): call-limit.ts; 0: no limit (migrations, bulk loads)
   */
  queryTimeoutMs: number;
}

/**
 * SQLite's page cache when SQLITE_CACHE_MIB is not set: 2 MiB, SQLite's own default (the build of
 * better-sqlite3 sets 16). It lives in the service's process, and a large write fills it with
 * pages it writes once: a written import of 100,000 contacts peaked 18 to 20 MiB higher with 16
 * MiB, and the lists and reads of 100,000 contacts were as fast with 2, the file's pages staying
 * in the system's cache (docs/performance.md, "An import's memory").
 */
export const SQLITE_CACHE_MIB_DEFAULT = 2;

const MYSQL_SESSION: Array<{ sql: string; optional?: boolean }> = [
  { sql: "SET time_zone = '+00:00'" },
  {
    sql: "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
  },
  // Tree queries walk up parent chains with recursive CTEs; depth is unlimited. MySQL 8 stops
  // at 1000 levels by default; MariaDB has no such variable (and no such limit), hence optional.
  { sql: 'SET SESSION cte_max_recursion_depth = 4294967295', optional: true },
  // Every transaction reads committed data (transaction.ts): set once for the session instead
  // of a SET TRANSACTION before each BEGIN. A transaction that needs another level still asks
  // for it (the directory check's repeatable read, integrity.ts).
  { sql: 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED' },
];

type RawConnection = {
  query?: (sql: string, cb: (err: Error | null) => void) => void;
  pragma?: (sql: string) => unknown;
};

/**
 * Where knex's own warnings go: one line with the message (its first line: never a stack or a
 * statement), at most once per 10 s for the same kind of message (a database that is down makes
 * knex warn on every attempt to connect), with the number left out since.
 */
function knexLog(logger?: Logger): Knex.Config['log'] {
  if (!logger) return undefined;
  const text = (message: unknown) =>
    (message instanceof Error ? message.message : String(message)).split('\n')[0].split(' - ').pop()!.slice(0, 300);
  const throttle = new Throttle(10_000);
  const write = (level: 'warn' | 'error', message: unknown, msg: string) => {
    const line = text(message);
    const suppressed = throttle.pass(`${level}:${line.slice(0, 40)}`);
    if (suppressed !== null) logger[level]({ knex: line, ...(suppressed ? { suppressed } : {}) }, msg);
  };
  return {
    warn: (message: unknown) => write('warn', message, 'database warning'),
    error: (message: unknown) => write('error', message, 'database error'),
    deprecate: (method: string, alternative: string) => logger.warn({ knex: `${method} is deprecated; use ${alternative}` }, 'database warning'),
    debug: () => undefined,
  };
}

/** knex settings for a database; migrations are not among them: start-up passes its migration source to `migrate`. */
export function knexConfig(db: DbConfig, logger?: Logger): Knex.Config {
  const log = knexLog(logger);
  if (db.client === 'sqlite') {
    return {
      client: 'better-sqlite3',
      connection: { filename: db.sqliteFilename },
      compileSqlOnError: false,
      useNullAsDefault: true,
      acquireConnectionTimeout: db.acquireTimeoutMs,
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
            // negative: in KiB
            conn.pragma?.(`cache_size = ${-1024 * (db.sqliteCacheMib ?? SQLITE_CACHE_MIB_DEFAULT)}`);
            done(null, conn);
          } catch (err) {
            done(err as Error, conn);
          }
        },
      },
    };
  }
  const connection = db.url
    ? { uri: db.url }
    : { host: db.host, port: db.port, user: db.user, password: db.password, database: db.database };
  return {
    client: 'mysql2',
    log,
    compileSqlOnError: false,
    acquireConnectionTimeout: db.acquireTimeoutMs,
    connection: {
      ...connection,
      charset: 'utf8mb4',
      connectTimeout: db.connectTimeoutMs,
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
      // never lend a connection that is inside a transaction: it is destroyed instead (pool-guard.ts)
      validate: outsideTransaction(logger),
      afterCreate(conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) {
        limitCalls(conn as unknown as LimitedConnection, db.queryTimeoutMs);
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
  };
}

/** Builds the one knex instance of a process (or of a test). Creates the SQLite folder if needed. */
export function createDb(db: DbConfig, logger?: Logger): Db {
  if (db.client === 'sqlite' && db.sqliteFilename !== ':memory:') {
    fs.mkdirSync(path.dirname(db.sqliteFilename), { recursive: true });
  }
  const instance = knex(knexConfig(db, logger));
  guardReleases(instance, logger);
  if (db.client === 'mysql') limitVersionCheck(instance, db.queryTimeoutMs);
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

