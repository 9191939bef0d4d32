import { createServer } from 'node:http';
import { config as loadEnv } from 'dotenv';
import Redis from 'ioredis';
import { createApp } from './app';
import { developmentDefaultsInUse, loadConfig } from './config';
import { createDb, drain } from './lib/db';
import { serveGracefully } from './lib/http/graceful-server';
import { createLogger } from './lib/logger';
import { ensureDatabase, prepareDatabase } from './startup';

loadEnv({ quiet: true });

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

  const server = createServer();
  const web = serveGracefully(server, createApp({ db, config, logger, redis }));
  server.listen(config.port, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, database: config.db.client }, 'directory service listening');
  });

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
