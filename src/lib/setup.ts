import type { Config } from '../config';
import { seedDatabase } from '../../seeds';
import { ensureDatabase, type Db } from './db';
import type { Logger } from './logger';

/** Migrates to the latest schema and seeds what is missing. Safe to run on every start. */
export async function prepareDatabase(db: Db, config: Readonly<Config>, logger: Logger): Promise<void> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied migrations');
  await seedDatabase(db, config, logger);
}

export { ensureDatabase };
