import type { Express } from 'express';
import type Redis from 'ioredis';
import { createApp } from '../../src/app';
import { createDb, type Db } from '../../src/lib/db';
import { createLogger, type Logger } from '../../src/lib/logger';
import { quietLogger } from '../helpers/context';
import { testConfig } from '../helpers/config';
import type { TestContext } from '../helpers/context';
import { contractApp } from '../helpers/openapi';

/**
 * Another app over the database of a test context, built with its own settings (rate limits,
 * CORS, NODE_ENV...) and, when given, its own logger and Redis client. Every app has fresh
 * in-memory rate-limit counters, so tests about limits do not share them.
 */
export function appWith(
  ctx: TestContext,
  overrides: Record<string, string> = {},
  deps: { logger?: Logger; redis?: Redis } = {},
): Express {
  const config = testConfig({ SQLITE_FILENAME: ctx.config.db.sqliteFilename, ...overrides });
  return contractApp(createApp({ db: ctx.db, config, logger: deps.logger ?? createLogger({ level: 'silent' }), redis: deps.redis }));
}

/** A knex instance of the run's database client that has been destroyed: every query fails. */
export async function destroyedDb(ctx: TestContext): Promise<Db> {
  const db = createDb(ctx.config.db, quietLogger);
  await db.destroy();
  return db;
}

/** A pino logger at level info that keeps every line in memory. */
export function memoryLogger(): { logger: Logger; lines: () => string[]; records: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const logger = createLogger({ level: 'info' }, { write: (chunk: string) => void written.push(chunk) });
  const lines = () => written.flatMap((chunk) => chunk.split('\n')).filter((line) => line.trim() !== '');
  return { logger, lines, records: () => lines().map((line) => JSON.parse(line) as Record<string, unknown>) };
}

