import { createServer } from 'node:http';
import { config as loadEnv } from 'dotenv';
import Redis from 'ioredis';
import { createApp, searchBacklog } from './app';
import { developmentDefaultsInUse, loadConfig } from './config';
import { createDb, drain } from './lib/db';
import { serveGracefully } from './lib/http/graceful-server';
import { createLogger, type Logger } from './lib/logger';
import { ensureDatabase, prepareDatabase } from './startup';

loadEnv({ quiet: true });

/** How long the start waits for Redis before it listens without it (the limits then pass until it connects). */
const REDIS_START_WAIT_MS = 5_000;

/**
 * Resolves once the client is connected, or after `ms`. The client has no offline queue, so
 * until then the rate limiters cannot count: each request would pass uncounted (and the
 * limiters' scripts, loaded when the app is built, would be loaded again on first use). An
 * instance that joins a running deployment must not open such a gap in the shared limits.
 */
function redisReady(redis: Redis, ms: number, logger: Logger): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      logger.warn({ waitedMs: ms }, 'redis not reachable yet; listening without it: rate limits are not counted until it connects');
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

  await ensureDatabase(config.db);
  // migrations may run for long on a large database: their own connection, with no query time limit
  const setup = createDb({ ...config.db, queryTimeoutMs: 0 }, logger);
  try {
    await prepareDatabase(setup, config, logger);
  } finally {
    await setup.destroy();
  }
  const db = createDb(config.db, logger);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    : undefined;
  redis?.on('error', (err) => logger.warn({ err }, 'redis connection problem'));
  if (redis) await redisReady(redis, REDIS_START_WAIT_MS, logger);

  const server = createServer();
  const web = serveGracefully(server, createApp({ db, config, logger, redis, warmSearchIndex: true }));
  server.listen(config.port, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, database: config.db.client }, 'directory service listening');
  });
  // what a drain cut short (a crash, a shutdown) left of an import's search grams
  searchBacklog({ db, logger }).schedule();

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
      // handlers whose client went away may still be running queries: let them end first
      await drain(db, config.shutdownTimeoutMs);
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
  // configuration and start-up errors: say what is wrong and stop
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`directory-service failed to start: ${message}\n`);
  process.exit(1);
});
