import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import { closeApp, createApp } from '../../src/app';
import type { Config } from '../../src/config';
import { createDb, ensureDatabase, type Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';

/** knex's own messages (a failed connection attempt, say) go to a silent logger: a passing run prints only the runner's output. */
export const quietLogger = createLogger({ level: 'silent' });
import { prepareDatabase } from '../../src/startup';
import { TokenService } from '../../src/modules/access';
import { contractApp } from './openapi';
import { TMP_DIR, isMysql, sqliteTemplate, testConfig } from './config';

export interface TestContext {
  app: Express;
  db: Db;
  config: Readonly<Config>;
  tokens: TokenService;
}

let fileCounter = 0;

/**
 * Resolves once the search backlog is empty (at most 10 s): an import's drain runs after it
 * answers (src/modules/contacts/search/backlog.ts), and must not outlive the database. A
 * database without the table (a test took the schema down) or out of reach has nothing to wait for.
 */
export async function backlogDrained(db: Db): Promise<void> {
  try {
    if (!(await db.schema.hasTable('contact_search_backlog'))) return;
    for (let waited = 0; waited < 10_000; waited += 20) {
      if (Number((await db('contact_search_backlog').count({ n: '*' }))[0].n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch {
    // out of reach: nothing drains there either
  }
}

/** A database of its own for a SQLite test file (a copy of the seeded template); the shared one on MySQL. */
export function openTestDb(overrides: Record<string, string> = {}): { db: Db; config: Readonly<Config>; cleanup: () => void } {
  if (isMysql()) {
    const config = testConfig(overrides);
    return { db: createDb(config.db, quietLogger), config, cleanup: () => undefined };
  }
  const file = path.join(TMP_DIR, `test-${process.pid}-${Date.now()}-${++fileCounter}.sqlite3`);
  fs.copyFileSync(sqliteTemplate(), file);
  const config = testConfig({ SQLITE_FILENAME: file, ...overrides });
  const cleanup = () => {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  };
  return { db: createDb(config.db, quietLogger), config, cleanup };
}

/**
 * A seeded database no other test file touches, for tests that count or alter the whole
 * database: on SQLite the file's own copy of the template, on MySQL the database
 * `<DB_NAME>_<suffix>_<pid>`, made afresh and dropped by `done`.
 */
export async function openOwnSeededDb(
  suffix: string,
  overrides: Record<string, string> = {},
): Promise<{ db: Db; config: Readonly<Config>; done: () => Promise<void> }> {
  if (!isMysql()) {
    const { db, config, cleanup } = openTestDb(overrides);
    return { db, config, done: async () => { await backlogDrained(db); await db.destroy(); cleanup(); } };
  }
  // the process in the name: two runs on one server make and drop databases of their own
  const name = `${process.env.DB_NAME || 'directory_test'}_${suffix}_${process.pid}`;
  const config = testConfig({ ...overrides, DB_NAME: name });
  const admin = createDb({ ...config.db, database: '' });
  const db = createDb(config.db, quietLogger);
  const done = async () => {
    await backlogDrained(db);
    await db.destroy();
    await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
    await admin.destroy();
  };
  try {
    await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
    await ensureDatabase(config.db);
    await prepareDatabase(db, config, createLogger({ level: 'silent' }));
  } catch (err) {
    await done();
    throw err;
  }
  return { db, config, done };
}

/**
 * Builds the app over the run's database before the file's tests and closes it after them.
 * The returned object is filled in by beforeAll.
 */
export function setupTestContext(overrides: Record<string, string> = {}): TestContext {
  const ctx = {} as TestContext;
  let cleanup = () => undefined as void;
  let app: Express | undefined;
  beforeAll(() => {
    const opened = openTestDb(overrides);
    cleanup = opened.cleanup;
    ctx.db = opened.db;
    ctx.config = opened.config;
    ctx.tokens = new TokenService(opened.config.jwt);
    app = createApp({ db: opened.db, config: opened.config, logger: createLogger({ level: opened.config.logLevel }) });
    ctx.app = contractApp(app);
  });
  afterAll(async () => {
    if (app) await closeApp(app);
    if (ctx.db) await backlogDrained(ctx.db);
    await ctx.db?.destroy();
    cleanup();
  });
  return ctx;
}

/**
 * setupTestContext over a database of its own (openOwnSeededDb), for tests that must see no
 * other file's writes: on MySQL the test files share one database, and a version another file
 * bumps, or a row it adds inside a gap a test made by hand, would change what these tests compare.
 */
export function setupOwnTestContext(suffix: string, overrides: Record<string, string> = {}): TestContext {
  const ctx = {} as TestContext;
  let done = async () => undefined as void;
  let app: Express | undefined;
  beforeAll(async () => {
    const opened = await openOwnSeededDb(suffix, overrides);
    done = opened.done;
    ctx.db = opened.db;
    ctx.config = opened.config;
    ctx.tokens = new TokenService(opened.config.jwt);
    app = createApp({ db: opened.db, config: opened.config, logger: createLogger({ level: opened.config.logLevel }) });
    ctx.app = contractApp(app);
  });
  afterAll(async () => {
    if (app) await closeApp(app);
    await done();
  });
  return ctx;
}
