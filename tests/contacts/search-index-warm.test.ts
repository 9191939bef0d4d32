import request from 'supertest';
import { createApp } from '../../src/app';
import type { Config } from '../../src/config';
import type { Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { openTestDb } from '../helpers/context';
import { contractApp } from '../helpers/openapi';
import { bearer, createUser } from '../helpers/factory';
import { TokenService } from '../../src/modules/access';

/**
 * The search index built at start (server.ts: createApp with warmSearchIndex), and what
 * GET /ready says of it (`search_index`, in the OpenAPI document: contractApp checks each
 * answer against it): `built`, `building`, `none` (no build asked for yet), `off` (SEARCH_INDEX=sql).
 */
let db: Db;
let config: Readonly<Config>;
let cleanup: () => void;

beforeAll(() => {
  ({ db, config, cleanup } = openTestDb({ SEARCH_INDEX: 'memory' }));
});
afterAll(async () => {
  await db.destroy();
  cleanup();
});

const appOf = (settings: Readonly<Config>, warmSearchIndex: boolean) =>
  contractApp(createApp({ db, config: settings, logger: createLogger({ level: 'silent' }), warmSearchIndex }));

async function indexState(app: ReturnType<typeof appOf>): Promise<string> {
  const res = await request(app).get('/ready');
  expect(res.status).toBe(200);
  return res.body.data.search_index;
}

async function eventually(app: ReturnType<typeof appOf>, state: string): Promise<void> {
  for (let waited = 0; waited < 10_000 && (await indexState(app)) !== state; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await indexState(app)).toBe(state);
}

test('warmed at start: the index is building or built at once, then built, before any search', async () => {
  const app = appOf(config, true);
  expect(['building', 'built']).toContain(await indexState(app));
  await eventually(app, 'built');
});

test('not warmed (as the tests build their apps): none until the first search starts a build', async () => {
  const app = appOf(config, false);
  expect(await indexState(app)).toBe('none');
  const user = await createUser({ app, db, config, tokens: new TokenService(config.jwt) });
  expect((await request(app).get('/api/contacts/search?q=test').set(bearer(user))).status).toBe(200);
  expect(['building', 'built']).toContain(await indexState(app));
  await eventually(app, 'built');
});

test('with SEARCH_INDEX=sql there is no index: off, warmed or not', async () => {
  const sql = { ...config, searchIndex: 'sql' as const };
  expect(await indexState(appOf(sql, true))).toBe('off');
  expect(await indexState(appOf(sql, false))).toBe('off');
});
