import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config';

export const TMP_DIR = path.join(__dirname, '..', '..', 'tmp');
/** Set by global-setup for the run's workers: one template per run, so runs may overlap. */
export const sqliteTemplate = () => process.env.TEST_SQLITE_TEMPLATE ?? path.join(TMP_DIR, 'test-template.sqlite3');

export const isMysql = () => process.env.DB_CLIENT === 'mysql';

/**
 * The configuration tests run with: the database of the run (SQLite files under tmp/, or the
 * MySQL database DB_NAME, default directory_test), a low bcrypt cost for speed, no logs.
 */
export function testConfig(overrides: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    BCRYPT_COST: '4',
    // summaries exactly as the rows stand (the cache is tested on its own)
    SECURITY_SUMMARY_CACHE_MS: '0',
    // every contact search from the in-memory index, built for the version it needs (the SQL
    // search has its own run: endpoints-search-sql.test.ts)
    SEARCH_INDEX: 'memory',
    SEARCH_INDEX_REFRESH_MS: '0',
    // two test files share the MySQL test database and a 2-CPU machine with the server: a
    // statement may wait seconds for the directory lock or the CPU there, and the production
    // limit (10 s) would fail it. The tests of the limit set their own (database-frozen, lock-wait).
    DB_QUERY_TIMEOUT_MS: '60000',
    DB_NAME: process.env.DB_NAME || 'directory_test',
    SQLITE_FILENAME: sqliteTemplate(),
    JWT_SECRET: 'test-access-secret-0123456789abcdef',
    JWT_REFRESH_SECRET: 'test-refresh-secret-0123456789abcdef',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'Admin@12345',
    ...overrides,
  });
}

export function describeMachine(): string {
  return `${os.cpus().length} cpus, ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
}
