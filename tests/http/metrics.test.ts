import request from 'supertest';
import { changeDirectory } from '../../src/modules/contacts';
import { setupTestContext, type TestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { holdDirectoryLock } from '../helpers/tree';

/**
 * GET /metrics (README, Operations): off unless METRICS_ENABLED, Prometheus's text format,
 * requests by route pattern, the database pool and the search index read at the scrape, and a
 * bearer token when METRICS_TOKEN is set.
 */

const TOKEN = 'metrics-test-token-0123456789abcdef';
const MISSING = 2_000_000_000;

/** The value of the sample `name{labels}` (exactly those labels) in a scrape, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]);
    if (JSON.stringify(have.sort()) === wanted) return Number(match[3]);
  }
  return undefined;
}

const scrape = async (ctx: TestContext) => {
  const res = await request(ctx.app).get('/metrics');
  expect(res.status).toBe(200);
  return res.text;
};

/** How many requests the histogram counted for `method route status`. */
const counted = (text: string, method: string, route: string, status: number) =>
  sample(text, 'http_request_duration_seconds_count', { method, route, status_code: String(status) }) ?? 0;

describe('GET /metrics without METRICS_ENABLED', () => {
  const ctx = setupTestContext();

  test('is an unknown route: 404 Route not found', async () => {
    const res = await request(ctx.app).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Route not found' });
  });
});

describe('GET /metrics with METRICS_ENABLED=true', () => {
  // one connection, so that a test can hold it and make a query wait for it, on both databases
  const ctx = setupTestContext({ METRICS_ENABLED: 'true', DB_POOL_MAX: '1' });
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser(ctx);
  });

  test('answers Prometheus text with the request, pool, search index, event-loop and process metrics', async () => {
    const res = await request(ctx.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    for (const [name, type] of [
      ['http_request_duration_seconds', 'histogram'],
      ['directory_db_pool_connections_in_use', 'gauge'],
      ['directory_db_pool_connections_idle', 'gauge'],
      ['directory_db_pool_acquires_pending', 'gauge'],
      ['directory_db_pool_connections_max', 'gauge'],
      ['directory_changes_in_flight', 'gauge'],
      ['directory_search_index_builds_total', 'counter'],
      ['directory_search_index_age_seconds', 'gauge'],
      ['directory_search_walks_total', 'counter'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['nodejs_eventloop_lag_p99_seconds', 'gauge'],
      ['process_cpu_seconds_total', 'counter'],
      ['process_resident_memory_bytes', 'gauge'],
    ]) {
      expect(res.text).toContain(`# TYPE ${name} ${type}\n`);
    }
  });

  test('counts a request under its route pattern and status, never under its raw path', async () => {
    const before = await scrape(ctx);
    const found = await request(ctx.app).get(`/api/contacts/${user.id}`).set(bearer(user));
    expect(found.status).toBe(200);
    // an error answer leaves the contacts router before it is sent: still its pattern, not `/:id`
    const missing = await request(ctx.app).get(`/api/contacts/${MISSING}`).set(bearer(user));
    expect(missing.status).toBe(404);
    const third = await request(ctx.app).get('/api/contacts/123').set(bearer(user));
    const after = await scrape(ctx);

    const delta = (status: number) => counted(after, 'GET', '/api/contacts/:id', status) - counted(before, 'GET', '/api/contacts/:id', status);
    expect(delta(200)).toBe(1 + (third.status === 200 ? 1 : 0));
    expect(delta(404)).toBe(1 + (third.status === 404 ? 1 : 0));
    expect(after).not.toMatch(/route="[^"]*\d/);
    expect(after).not.toContain('route="/:id"');
    // the histogram's buckets hold the same requests
    expect(sample(after, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/contacts/:id', status_code: '404', le: '+Inf' })).toBe(
      counted(after, 'GET', '/api/contacts/:id', 404),
    );
  });

  test('a router\'s own root and a path before a parameter keep their patterns', async () => {
    const before = await scrape(ctx);
    expect((await request(ctx.app).get('/api/contacts?limit=1').set(bearer(user))).status).toBe(200);
    expect((await request(ctx.app).get(`/api/locations/divisions/country/${MISSING}`).set(bearer(user))).status).toBe(404);
    const after = await scrape(ctx);
    expect(counted(after, 'GET', '/api/contacts', 200) - counted(before, 'GET', '/api/contacts', 200)).toBe(1);
    const children = '/api/locations/divisions/country/:country_id';
    expect(counted(after, 'GET', children, 404) - counted(before, 'GET', children, 404)).toBe(1);
  });

  test('an unknown path, and a request refused before any route took it, count as `unmatched`', async () => {
    const before = await scrape(ctx);
    expect((await request(ctx.app).get('/api/no-such-route/42')).status).toBe(404);
    // the contacts router authenticates before its routes match
    expect((await request(ctx.app).get('/api/contacts/5')).status).toBe(401);
    const after = await scrape(ctx);
    expect(counted(after, 'GET', 'unmatched', 404) - counted(before, 'GET', 'unmatched', 404)).toBe(1);
    expect(counted(after, 'GET', 'unmatched', 401) - counted(before, 'GET', 'unmatched', 401)).toBe(1);
    expect(after).not.toContain('no-such-route');
  });

  test('scrapes are not counted as requests', async () => {
    await scrape(ctx);
    const text = await scrape(ctx);
    expect(text).not.toContain('route="/metrics"');
    expect(text).not.toMatch(/route="unmatched",status_code="200"/);
  });

  test('the pool gauges are read from the live pool at the scrape: in use, waiting, idle, max', async () => {
    const pool = async () => {
      const text = await scrape(ctx);
      const read = (name: string) => sample(text, `directory_db_pool_${name}`);
      return { inUse: read('connections_in_use'), idle: read('connections_idle'), pending: read('acquires_pending'), max: read('connections_max') };
    };
    const trx = await ctx.db.transaction();
    let waiting: Promise<unknown> | undefined;
    try {
      await trx.raw('select 1 as one');
      // the only connection is held: this query waits for it
      waiting = ctx.db.raw('select 2 as two').then(() => 'done');
      let held = await pool();
      for (let i = 0; i < 50 && held.pending !== 1; i++) held = await pool();
      expect(held).toEqual({ inUse: 1, idle: 0, pending: 1, max: 1 });
    } finally {
      await trx.commit();
    }
    expect(await waiting).toBe('done');
    expect(await pool()).toEqual({ inUse: 0, idle: 1, pending: 0, max: 1 });
  });
});

describe('the directory changes in flight', () => {
  const ctx = setupTestContext({ METRICS_ENABLED: 'true' });

  test("counts this process's changes that hold the directory lock or wait for it, and none after", async () => {
    const inFlight = async () => sample(await scrape(ctx), 'directory_changes_in_flight');
    expect(await inFlight()).toBe(0);
    const lock = await holdDirectoryLock(ctx.db);
    const waiting = changeDirectory(ctx.db, async () => 'second');
    try {
      expect(await inFlight()).toBe(2);
    } finally {
      await lock.release();
    }
    expect(await waiting).toBe('second');
    expect(await inFlight()).toBe(0);
  });
});

describe('the search index metrics', () => {
  const ctx = setupTestContext({ METRICS_ENABLED: 'true' });

  test('count the builds and tell the age of the index, absent before the first build', async () => {
    const user = await createUser(ctx);
    const before = await scrape(ctx);
    expect(sample(before, 'directory_search_index_builds_total', { result: 'success' })).toBe(0);
    expect(sample(before, 'directory_search_index_builds_total', { result: 'failure' })).toBe(0);
    expect(sample(before, 'directory_search_index_age_seconds')).toBeUndefined();

    // the tests build the index for the search that needs it (SEARCH_INDEX_REFRESH_MS=0)
    const started = Date.now();
    const res = await request(ctx.app).get(`/api/contacts/search?q=${encodeURIComponent(user.name)}`).set(bearer(user));
    expect(res.status).toBe(200);
    const after = await scrape(ctx);
    expect(sample(after, 'directory_search_index_builds_total', { result: 'success' })).toBe(1);
    const age = sample(after, 'directory_search_index_age_seconds');
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((Date.now() - started) / 1000);
  });

  test("count a search's walk of its term where it ran: in the service's thread below SEARCH_THREADS_FROM", async () => {
    const user = await createUser(ctx);
    const before = await scrape(ctx);
    const res = await request(ctx.app).get(`/api/contacts/search?q=${encodeURIComponent(user.name)}`).set(bearer(user));
    expect(res.status).toBe(200);
    const after = await scrape(ctx);
    const walks = (text: string, on: string) => sample(text, 'directory_search_walks_total', { on });
    expect(walks(after, 'service')! - walks(before, 'service')!).toBe(1);
    expect(walks(after, 'thread')).toBe(0);
    // the same term again, over the same snapshot: the walk kept in the service's thread answers
    const kept = (text: string, on: string) => sample(text, 'directory_search_walks_kept_total', { on });
    await request(ctx.app).get(`/api/contacts/search?q=${encodeURIComponent(user.name)}`).set(bearer(user)).expect(200);
    const again = await scrape(ctx);
    expect(walks(again, 'service')! - walks(after, 'service')!).toBe(1);
    // on MySQL another file's write may bring a new snapshot in between: then nothing was kept over it (on SQLite never)
    const builds = (text: string) => sample(text, 'directory_search_index_builds_total', { result: 'success' });
    expect(kept(again, 'service')! - kept(after, 'service')!).toBe(builds(again) === builds(after) ? 1 : 0);
    expect(kept(again, 'thread')).toBe(0);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  // a limit of 2 API requests: /metrics is outside /api, so scrapes never meet it
  const ctx = setupTestContext({ METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN, RATE_LIMIT_MAX: '2' });

  test.each([
    ['no Authorization header', undefined, 'Metrics token is required'],
    ['a wrong token', `Bearer ${TOKEN.slice(0, -1)}x`, 'Invalid metrics token'],
    ['a longer token that starts with the right one', `Bearer ${TOKEN}0`, 'Invalid metrics token'],
    ['the token without the Bearer scheme', TOKEN, 'Invalid metrics token'],
    ['another scheme', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, 'Invalid metrics token'],
  ])('refuses %s: 401 in the error envelope', async (_label, authorization, message) => {
    const req = request(ctx.app).get('/metrics');
    const res = await (authorization ? req.set('Authorization', authorization) : req);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message });
    expect(res.text).not.toContain('http_request_duration_seconds');
  });

  test('answers the scraper that sends it, however often, while the API limit is in force', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await request(ctx.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    }
    const api = [];
    for (let i = 0; i < 3; i++) api.push((await request(ctx.app).get('/api/no-such-route')).status);
    expect(api).toEqual([404, 404, 429]);
  });
});
