import Redis, { type RedisOptions } from 'ioredis';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { appWith } from './http-helpers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ctx = setupTestContext();
const clients: Redis[] = [];
const prefixes: string[] = [];
let user: TestUser;

beforeAll(async () => {
  user = await createUser(ctx);
});

afterAll(async () => {
  const admin = new Redis(REDIS_URL);
  try {
    for (const prefix of prefixes) {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length > 0) await admin.del(...keys);
    }
  } finally {
    await admin.quit();
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
});

function client(options: RedisOptions = {}): Redis {
  const redis = new Redis(REDIS_URL, options);
  clients.push(redis);
  return redis;
}

/** Two instances of the service sharing one Redis under the same, fresh key prefix. */
function twoInstances(settings: Record<string, string>, options?: RedisOptions) {
  const prefix = `${unique('test:rl:')}:`;
  prefixes.push(prefix);
  const overrides = { ...settings, RATE_LIMIT_REDIS_PREFIX: prefix };
  return [appWith(ctx, overrides, { redis: client(options) }), appWith(ctx, overrides, { redis: client(options) })];
}

describe('rate limits with REDIS_URL', () => {
  test('two instances share one global count', async () => {
    const [a, b] = twoInstances({ RATE_LIMIT_MAX: '4' });
    const statuses: number[] = [];
    for (const app of [a, b, a, b]) statuses.push((await request(app).get('/api/units').set(bearer(user))).status);
    expect(statuses).toEqual([200, 200, 200, 200]);

    // each instance alone saw only two requests; together they reached the limit
    const blockedA = await request(a).get('/api/units').set(bearer(user));
    const blockedB = await request(b).get('/api/units').set(bearer(user));
    expect([blockedA.status, blockedB.status]).toEqual([429, 429]);
    expect(blockedB.body).toEqual({ status: 'error', message: 'Too many requests, please try again later' });
    expect(Number(blockedB.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('two instances share one count of failed sign-ins', async () => {
    const [a, b] = twoInstances({ LOGIN_RATE_LIMIT_MAX: '2' });
    const fail = (app: typeof a) => request(app).post('/api/auth/login').send({ email: user.email, password: 'Wr0ngPassword' });
    expect((await fail(a)).status).toBe(401);
    expect((await fail(b)).status).toBe(401);
    const blocked = await fail(a);
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe('Too many login attempts, please try again later');
  });

  test('instances under different prefixes keep separate counts', async () => {
    const [a] = twoInstances({ RATE_LIMIT_MAX: '2' });
    const [c] = twoInstances({ RATE_LIMIT_MAX: '2' });
    for (let i = 0; i < 2; i++) expect((await request(a).get('/api/units').set(bearer(user))).status).toBe(200);
    expect((await request(a).get('/api/units').set(bearer(user))).status).toBe(429);
    expect((await request(c).get('/api/units').set(bearer(user))).status).toBe(200);
  });

  test('the counts are kept in Redis under the configured prefix', async () => {
    const [a] = twoInstances({ RATE_LIMIT_MAX: '10' });
    await request(a).get('/api/units').set(bearer(user));
    const prefix = prefixes[prefixes.length - 1];
    const keys = await clients[clients.length - 1].keys(`${prefix}api:*`);
    expect(keys).toHaveLength(1);
    expect(Number(await clients[clients.length - 1].get(keys[0]))).toBe(1);
  });

  // server.ts builds its client with enableOfflineQueue false and builds the app before the
  // connection is up: the limiter must still count once Redis is there.
  test('a client built as server.ts builds it still limits once connected', async () => {
    const [a, b] = twoInstances({ RATE_LIMIT_MAX: '3' }, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    await Promise.all(clients.slice(-2).map((c) => (c.status === 'ready' ? undefined : new Promise((r) => c.once('ready', r)))));
    const statuses: number[] = [];
    for (const app of [a, b, a, b, a]) statuses.push((await request(app).get('/api/units').set(bearer(user))).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
