import fs from 'node:fs';
import { createDb, ensureDatabase } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/startup';
import path from 'node:path';
import { TMP_DIR, isMysql, testConfig } from './helpers/config';

/**
 * Migrates and seeds once per run. On SQLite into a template file that each test file copies
 * (so files run in parallel without sharing a writer); on MySQL into the one test database
 * that all files share (so every test makes its own rows with unique values).
 */
export default async function globalSetup(): Promise<void> {
  fs.mkdirSync(TMP_DIR, { recursive: true });
  process.env.TEST_SQLITE_TEMPLATE = path.join(TMP_DIR, `template-${process.pid}.sqlite3`);
  const config = testConfig();
  await ensureDatabase(config.db);
  const db = createDb(config.db);
  try {
    await prepareDatabase(db, config, createLogger({ level: 'silent' }));
    if (!isMysql()) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.destroy();
  }
}
