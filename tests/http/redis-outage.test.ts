import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { REDIS_OUTAGE_LOG_INTERVAL_MS } from '../../src/lib/http/redis-watch';
import { createRedisClient } from '../../src/startup';
import { isMysql, sqliteTemplate, TMP_DIR } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { startServer, stopAll } from '../helpers/server-process';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { appWith, memoryLogger } from './http-helpers';

/**
 * Redis going away under a running service (README, When things fail): the service reaches a
 * real Redis through a proxy that the test cuts (connections closed, the port refusing) and
 * opens again. While it is cut the service still answers every request, the rate limits let
 * them through uncounted, /ready stays 200 and says `redis: down`, `directory_redis_up` is 0,
 * and the log has one redis line per interval at most, none per request; once it is back, one
 * line says so and the limits count again. The client is the one server.ts builds.
 */
const REDIS = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const OUTAGE_MS = 10_000;

const ctx = setupTestContext();
const prefix = `${unique('test:outage:')}:`;
let user: TestUser;
let proxy: TcpProxy;
const clients: Redis[] = [];

beforeAll(async () => {
  user = await createUser(ctx);
  proxy = await tcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
});

afterAll(async () => {
  await stopAll();
  for (const client of clients) client.disconnect();
  await proxy.close();
  const admin = new Redis(REDIS.href);
  try {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
  } finally {
    await admin.quit();
  }
});

/** The service as server.ts runs it with REDIS_URL, metrics on, logging to memory. */
function service() {
  const log = memoryLogger();
  const redis = createRedisClient(`redis://127.0.0.1:${proxy.port}`, log.logger);
  clients.push(redis);
  const app = appWith(ctx, { METRICS_ENABLED: 'true', RATE_LIMIT_REDIS_PREFIX: prefix }, { logger: log.logger, redis });
  return { app, redis, log };
}

const connected = (redis: Redis) => new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));

/** `directory_redis_up` in a scrape, or undefined when absent. */
async function redisUp(app: ReturnType<typeof service>['app']): Promise<number | undefined> {
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  const match = /^directory_redis_up (\S+)$/m.exec(res.text);
  return match ? Number(match[1]) : undefined;
}

/** Lines about Redis at warn or above, and every line at error or above. */
function lines(log: ReturnType<typeof memoryLogger>) {
  const records = log.records();
  return {
    redisWarnings: records.filter((r) => Number(r.level) >= 40 && /redis/i.test(String(r.msg))),
    errors: records.filter((r) => Number(r.level) >= 50),
    all: records,
  };
}

describe('Redis down under a running service', () => {
  test('/ready and directory_redis_up say Redis is up while it answers', async () => {
    const { app, redis } = service();
    await connected(redis);
    const ready = await request(app).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toMatchObject({ database: 'up', redis: 'up' });
    expect(await redisUp(app)).toBe(1);
  });

  test('an app without Redis says nothing of it: no redis field, no gauge', async () => {
    const log = memoryLogger();
    const app = appWith(ctx, { METRICS_ENABLED: 'true' }, { logger: log.logger });
    const ready = await request(app).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data).not.toHaveProperty('redis');
    expect(await redisUp(app)).toBeUndefined();
  });

  test(
    'a 10 s outage with requests flowing: all answered uncounted, /ready 200 redis down, gauge 0, one redis line per interval at most, none per request; then counted again',
    async () => {
      const { app, redis, log } = service();
      await connected(redis);
      const counted = await request(app).get('/api/units').set(bearer(user));
      expect(counted.status).toBe(200);
      expect(counted.headers.ratelimit).toBeDefined();

      await proxy.cut();
      const started = Date.now();
      const statuses = new Map<number, number>();
      let uncountedHeaders = 0;
      let requests = 0;
      while (Date.now() - started < OUTAGE_MS) {
        // the API limit, and the three limits of a sign-in (API, per IP, per IP and account)
        const units = await request(app).get('/api/units').set(bearer(user));
        const login = await request(app).post('/api/auth/login').send({ email: user.email, password: 'Wr0ngPassword' });
        for (const res of [units, login]) {
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.headers.ratelimit === undefined) uncountedHeaders++;
        }
        requests += 2;
        if (requests % 40 === 0) {
          const ready = await request(app).get('/ready');
          expect(ready.status).toBe(200);
          expect(ready.body.data).toMatchObject({ database: 'up', redis: 'down' });
          expect(await redisUp(app)).toBe(0);
        }
      }
      const elapsed = Date.now() - started;

      // far more sign-ins than LOGIN_RATE_LIMIT_MAX (10), none refused: nothing is counted
      expect(requests).toBeGreaterThan(40);
      expect([...statuses.keys()].sort()).toEqual([200, 401]);
      expect(uncountedHeaders).toBe(requests);

      const { redisWarnings, errors } = lines(log);
      expect(errors).toEqual([]);
      expect(redisWarnings.length).toBeGreaterThanOrEqual(1);
      expect(redisWarnings.length).toBeLessThanOrEqual(1 + Math.floor(elapsed / REDIS_OUTAGE_LOG_INTERVAL_MS));
      const times = redisWarnings.map((r) => Date.parse(String(r.time)));
      // the watch checks the interval by its own clock, and the logger stamps the line a moment
      // later, in whole milliseconds: two lines one interval apart were stamped 9,999 ms apart
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(REDIS_OUTAGE_LOG_INTERVAL_MS - 5);
      expect(redisWarnings.every((r) => r.msg === 'redis unavailable: rate limits are not counted')).toBe(true);
      const reported = redisWarnings.reduce((sum, r) => sum + Number(r.uncountedRequests), 0);
      expect(reported).toBeGreaterThan(0);

      await proxy.open();
      await connected(redis);
      const back = lines(log).all.filter((r) => r.msg === 'redis reachable again: rate limits are counted');
      expect(back).toHaveLength(1);
      expect(Number(back[0].downForMs)).toBeGreaterThanOrEqual(OUTAGE_MS - 1000);
      const ready = await request(app).get('/ready');
      expect(ready.body.data).toMatchObject({ redis: 'up' });
      expect(await redisUp(app)).toBe(1);
      const again = await request(app).get('/api/units').set(bearer(user));
      expect(again.status).toBe(200);
      expect(again.headers.ratelimit).toBeDefined();
      expect(lines(log).errors).toEqual([]);
    },
    OUTAGE_MS + 20_000,
  );
});

// SQLite only: the process is what is tested, not the database (as in shutdown.test.ts)
(isMysql() ? describe.skip : describe)('src/server.ts with Redis unreachable at start', () => {
  test('listens after its 5 s wait, says redis is down, logs one redis line and nothing on stderr; /ready 200 redis down', async () => {
    // the seeded template, copied: the process is what is tested (SQLite only, as shutdown.test.ts)
    const file = path.join(TMP_DIR, `${unique('redis-start-')}.sqlite3`);
    fs.copyFileSync(sqliteTemplate(), file);
    // port 1 (tcpmux), where nothing listens: a port found free and closed again was once taken,
    // before the service connected, by another test file's HTTP server, which answered "HTTP/1.1"
    const closed = 1;
    try {
      const running = await startServer(file, { REDIS_URL: `redis://127.0.0.1:${closed}` });
      const listening = running.records.find((r) => r.msg === 'directory service listening');
      expect(listening).toMatchObject({ redis: 'down' });
      const ready = await fetch(`http://127.0.0.1:${running.port}/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { data: unknown }).data).toMatchObject({ database: 'up', redis: 'down' });
      // some 5 s of reconnection attempts (every 2 s at most): one line for them all
      const redisLines = running.records.filter((r) => Number(r.level) >= 40 && /redis/i.test(String(r.msg)));
      expect(redisLines).toHaveLength(1);
      expect(redisLines[0]).toMatchObject({ msg: 'redis unavailable: rate limits are not counted', err: { code: 'ECONNREFUSED' } });
      expect(running.stderr()).toBe('');
    } finally {
      await stopAll();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    }
  }, 60_000);
});
