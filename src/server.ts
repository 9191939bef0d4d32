import { createServer } from 'node:http';
import { config as loadEnv } from 'dotenv';
import type Redis from 'ioredis';
import { changesPruning, closeApp, createApp, searchBacklog, webhookDispatcher } from './app';
import { developmentDefaultsInUse, loadConfig } from './config';
import { createDb, drain } from './lib/db';
import { serveGracefully } from './lib/http/graceful-server';
import { createLogger } from './lib/logger';
import { createRedisClient, logStartFailure, prepareDatabase, waitForDatabase } from './startup';

loadEnv({ quiet: true });

/** How long the start waits for Redis before it listens without it (the limits then pass until it connects). */
const REDIS_START_WAIT_MS = 5_000;

/**
 * Resolves once the client is connected, or after `ms`. The client has no offline queue, so
 * until then the rate limiters cannot count: each request would pass uncounted. An instance
 * that joins a running deployment must not open such a gap in the shared limits. An outage is
 * the watch's to log (createRedisClient); the line saying the service listens tells whether
 * Redis was there.
 */
function redisReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      resolve();
    }, ms);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', ready);
  });
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const defaults = developmentDefaultsInUse(process.env);
  if (defaults.length > 0) {
    logger.warn({ settings: defaults }, 'using development defaults; set these before exposing the service');
  }

  await waitForDatabase(config.db, config.dbStartTimeoutS, logger);
  // migrations may run for long on a large database: their own connection, with no query time limit
  const setup = createDb({ ...config.db, queryTimeoutMs: 0 }, logger);
  try {
    await prepareDatabase(setup, config, logger);
  } finally {
    await setup.destroy();
  }
  const db = createDb(config.db, logger);
  const redis = config.redisUrl ? createRedisClient(config.redisUrl, logger) : undefined;
  if (redis) await redisReady(redis, REDIS_START_WAIT_MS);

  const server = createServer();
  const app = createApp({ db, config, logger, redis, warmSearchIndex: true });
  const web = serveGracefully(server, app);
  server.listen(config.port, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const redisState = redis ? { redis: redis.status === 'ready' ? 'up' : 'down' } : {};
    logger.info({ port, database: config.db.client, ...redisState }, 'directory service listening');
  });
  // what a drain cut short (a crash, a shutdown) left of an import's search grams
  searchBacklog({ db, logger }).schedule();
  // the change feed keeps CHANGES_RETENTION_DAYS: older entries go once an hour (docs/changes.md)
  const pruning = changesPruning({ db, config, logger });
  // webhooks: the change feed fanned out into signed deliveries, sent with retries (docs/changes.md)
  const dispatcher = webhookDispatcher({ db, config, logger });

  let stopping = false;
  const stop = (signal: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inFlight: web.inFlight }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // no new connection, idle ones closed, the requests in flight answered with `Connection: close`
    void web.close().then(async () => {
      await pruning.stop();
      // a delivery in flight is recorded first; one cut short is sent again after its claim lapses
      await dispatcher.stop();
      // handlers whose client went away may still be running queries: let them end first
      await drain(db, config.shutdownTimeoutMs);
      // the search walk threads: no request walks any more
      await closeApp(app);
      await db.destroy();
      await redis?.quit().catch(() => undefined);
      logger.info({ refused: web.refused }, 'stopped');
      process.exit(code);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled rejection');
    stop('unhandledRejection', 1);
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    stop('uncaughtException', 1);
  });
}

main().catch((err: unknown) => {
  // configuration and start-up errors: one JSON line saying what is wrong, and stop
  logStartFailure(err);
  process.exit(1);
});
