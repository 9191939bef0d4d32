import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { isMysql, testConfig } from '../helpers/config';

/**
 * SQLite's page cache is set on the service's connection (connection.ts): 2 MiB unless
 * SQLITE_CACHE_MIB says otherwise, not the 16 MiB that better-sqlite3's build would give it;
 * it lives in the service's process, where a large import filled it (docs/performance.md, "An
 * import's memory"). SQLite only.
 */
(isMysql() ? describe.skip : describe)("SQLite's page cache", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cacheOf = async (overrides: Record<string, string>) => {
    const config = testConfig(overrides);
    const db = createDb({ ...config.db, sqliteFilename: path.join(dir, `${Object.values(overrides).join('-') || 'default'}.sqlite3`) }, createLogger({ level: 'silent' }));
    try {
      const [row] = (await db.raw('PRAGMA cache_size')) as Array<{ cache_size: number }>;
      return row.cache_size;
    } finally {
      await db.destroy();
    }
  };

  test('is 2 MiB (2048 KiB, as PRAGMA cache_size counts a negative size) by default', async () => {
    expect(await cacheOf({})).toBe(-2048);
  });

  test('takes SQLITE_CACHE_MIB', async () => {
    expect(await cacheOf({ SQLITE_CACHE_MIB: '24' })).toBe(-24 * 1024);
  });
});
