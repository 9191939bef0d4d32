import Redis from 'ioredis';
import knex from 'knex';
import { ConfigError, type Config } from './config';
import { ensureDatabase, isUnavailable, knexConfig, type Db, type DbConfig } from './lib/db';
import { watchRedis } from './lib/http/redis-watch';
import { createLogger, type Logger } from './lib/logger';
import { migrationSource } from '../migrations';
import { seedDatabase } from '../seeds';

export { ensureDatabase } from './lib/db';

/** The migrations, as knex records them (`knex_migrations`); knexfile.ts hands the CLI the same. */
export const MIGRATIONS = { migrationSource, tableName: 'knex_migrations' };

/** Migrates to the latest schema and seeds what is missing. Safe to run on every start. */
export async function prepareDatabase(db: Db, config: Readonly<Config>, logger: Logger): Promise<void> {
  const [, applied] = (await db.migrate.latest(MIGRATIONS)) as [number, string[]];
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied migrations');
  await seedDatabase(db, config, logger);
}

/** The pause after the first failed attempt, doubled after each, up to the longest. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5000;
/** While it waits, the start logs the first failure and then one line per this interval. */
const WAIT_LOG_INTERVAL_MS = 10_000;

/** The start gave up on the database: DB_START_TIMEOUT_S passed with it still unreachable. */
export class DatabaseStartTimeout extends Error {
  constructor(
    readonly timeoutS: number,
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(`the database was not reachable within DB_START_TIMEOUT_S (${timeoutS} s, ${attempts} attempts)`);
    this.name = 'DatabaseStartTimeout';
  }
}

/**
 * One connection to the MySQL server (no database named: it may not exist yet), closed at once.
 * ensureDatabase's own knex has no logger and would print each failed attempt as plain text;
 * this one's messages are dropped, since the wait's own line carries the error.
 */
async function reachServer(db: DbConfig): Promise<void> {
  if (db.client !== 'mysql') return;
  // as ensureDatabase: the URL without its path, or no database name
  const server = db.url ? { ...db, url: db.url.replace(/\/[^/?]*(\?|$)/, '/$1') } : { ...db, database: '' };
  const settings = knexConfig(server, createLogger({ level: 'silent' }));
  const probe = knex({ ...settings, pool: { min: 0, max: 1 } });
  try {
    await probe.raw('SELECT 1');
  } finally {
    await probe.destroy();
  }
}

/**
 * ensureDatabase, tried again with backoff while the database cannot be reached (refused, no
 * answer, a name that does not resolve yet) for up to `timeoutS` seconds, so that a database
 * started beside the service (compose, Kubernetes) needs no ordering. Any other error (a wrong
 * password, say) stops the start at once: waiting would not mend it.
 */
export async function waitForDatabase(db: DbConfig, timeoutS: number, logger: Logger): Promise<void> {
  const started = Date.now();
  const deadline = started + timeoutS * 1000;
  let pause = FIRST_PAUSE_MS;
  let loggedAt = -Infinity;
  for (let attempt = 1; ; attempt++) {
    try {
      await reachServer(db);
      await ensureDatabase(db);
      if (attempt > 1) logger.info({ attempts: attempt, waitedMs: Date.now() - started }, 'database reachable');
      return;
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) throw new DatabaseStartTimeout(timeoutS, attempt, err);
      pause = Math.min(pause, left);
      if (Date.now() - loggedAt >= WAIT_LOG_INTERVAL_MS) {
        loggedAt = Date.now();
        logger.warn({ err, attempts: attempt, waitedMs: loggedAt - started, timeoutS }, 'database not reachable yet; trying again until DB_START_TIMEOUT_S');
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}

/**
 * The rate limits' Redis client, as server.ts runs it: no offline queue (a request never waits
 * for a reconnection: its limits pass uncounted), and its outages logged by the watch, at its
 * pace, from before the first connection attempt.
 */
export function createRedisClient(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  watchRedis(redis, logger);
  redis.connect().catch(() => undefined); // failures reach the watch as 'error' events
  return redis;
}

/**
 * A start or a command that failed, as one JSON line at fatal, whatever LOG_LEVEL says (a
 * process that stops must say why): a bad configuration with every problem as an array, the
 * database that did not come up with its last error; never a stack trace.
 */
export function logStartFailure(err: unknown, what = 'directory service failed to start'): void {
  const logger = createLogger({ level: 'fatal' });
  if (err instanceof ConfigError) {
    logger.fatal({ problems: err.problems }, `${what}: invalid configuration`);
  } else if (err instanceof DatabaseStartTimeout) {
    const { timeoutS, attempts, lastError } = err;
    logger.fatal({ err: lastError, timeoutS, attempts }, `${what}: ${err.message}`);
  } else {
    logger.fatal({ err }, what);
  }
}
