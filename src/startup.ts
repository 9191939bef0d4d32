import type { Config } from './config';
import type { Db } from './lib/db';
import type { Logger } from './lib/logger';
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
