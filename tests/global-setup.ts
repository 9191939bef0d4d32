import fs from 'node:fs';
import { createDb, ensureDatabase } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/lib/setup';
import { SQLITE_TEMPLATE, TMP_DIR, isMysql, testConfig } from './helpers/config';

/**
 * Migrates and seeds once per run. On SQLite into a template file that each test file copies
 * (so files run in parallel without sharing a writer); on MySQL into the one test database
 * that all files share (so every test makes its own rows with unique values).
 */
export default async function globalSetup(): Promise<void> {
  const config = testConfig();
  fs.mkdirSync(TMP_DIR, { recursive: true });
  if (!isMysql()) {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(SQLITE_TEMPLATE + suffix, { force: true });
  }
  await ensureDatabase(config.db);
  const db = createDb(config.db);
  try {
    await prepareDatabase(db, config, createLogger({ level: 'silent' }));
    if (!isMysql()) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.destroy();
  }
}
