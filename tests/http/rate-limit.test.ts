import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { appWith } from './http-helpers';

const ctx = setupTestContext();
let user: TestUser;

beforeAll(async () => {
  user = await createUser(ctx);
});

const LOGIN_MESSAGE = 'Too many login attempts, please try again later';
const API_MESSAGE = 'Too many requests, please try again later';

function expectLimitHeaders(res: request.Response, name: string, quota: number): void {
  expect(res.headers['ratelimit-policy']).toEqual(expect.stringContaining(`"${name}"; q=${quota}; w=900`));
  expect(String(res.headers.ratelimit)).toMatch(new RegExp(`"${name}"; r=\\d+; t=\\d+`));
}

describe('login limiter (per client IP and login identifier)', () => {
  const LIMIT = 3;
  const settings = { LOGIN_RATE_LIMIT_MAX: String(LIMIT) };
  const fail = (app: ReturnType<typeof appWith>, body: Record<string, unknown>) =>
    request(app).post('/api/auth/login').send({ password: 'Wr0ngPassword', ...body });

  test(`answers 429 after ${LIMIT} failed attempts, with RateLimit headers and Retry-After`, async () => {
    const app = appWith(ctx, settings);
    for (let i = 0; i < LIMIT; i++) {
      const res = await fail(app, { email: user.email });
      expect(res.status).toBe(401);
      expectLimitHeaders(res, 'login', LIMIT);
    }
    const blocked = await fail(app, { email: user.email });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ status: 'error', message: LOGIN_MESSAGE });
    expectLimitHeaders(blocked, 'login', LIMIT);
    expect(String(blocked.headers.ratelimit)).toMatch(/"login"; r=0;/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);

    // the right password is refused too while the identifier is blocked
    const correct = await request(app).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(correct.status).toBe(429);
  });

  test('counts the same identifier whatever its case and whether it comes as email or login_id', async () => {
    const app = appWith(ctx, settings);
    expect((await fail(app, { email: user.email.toUpperCase() })).status).toBe(401);
    expect((await fail(app, { login_id: user.email })).status).toBe(401);
    expect((await fail(app, { email: ` ${user.email} ` })).status).toBe(401);
    const blocked = await fail(app, { login_id: user.email.toUpperCase() });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(LOGIN_MESSAGE);
  });

  test('does not block another identifier from the same IP', async () => {
    const app = appWith(ctx, settings);
    for (let i = 0; i <= LIMIT; i++) await fail(app, { email: user.email });
    expect((await fail(app, { email: user.email })).status).toBe(429);

    const other = await createUser(ctx);
    expect((await fail(app, { email: other.email })).status).toBe(401);
    const signIn = await request(app).post('/api/auth/login').send({ email: other.email, password: other.password });
    expect(signIn.status).toBe(200);
  });

  test("counts an account's e-mail and service number together", async () => {
    const app = appWith(ctx, settings);
    const account = await createUser(ctx);
    expect((await fail(app, { email: account.email })).status).toBe(401);
    expect((await fail(app, { login_id: account.service_no })).status).toBe(401);
    expect((await fail(app, { login_id: account.email.toUpperCase() })).status).toBe(401);
    // the fourth guess at the same account, by its service number: over the limit of 3
    const blocked = await fail(app, { login_id: account.service_no });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(LOGIN_MESSAGE);
    expect((await fail(app, { email: account.email })).status).toBe(429);
  });

  test('counts an identifier that names no account on its own, whatever its case', async () => {
    const app = appWith(ctx, settings);
    const nobody = `Nobody-${user.service_no}`;
    for (let i = 0; i < LIMIT; i++) expect((await fail(app, { login_id: i % 2 ? nobody : nobody.toLowerCase() })).status).toBe(401);
    expect((await fail(app, { login_id: nobody.toUpperCase() })).status).toBe(429);
    // the account itself is still free to try
    expect((await fail(app, { email: user.email })).status).toBe(401);
  });

  test('caps failed sign-ins per IP across identifiers (LOGIN_IP_RATE_LIMIT_MAX)', async () => {
    const CAP = 4;
    const app = appWith(ctx, { LOGIN_RATE_LIMIT_MAX: '100', LOGIN_IP_RATE_LIMIT_MAX: String(CAP) });
    for (let i = 0; i < CAP; i++) {
      const res = await fail(app, { login_id: `guess-${i}-${user.service_no}` });
      expect(res.status).toBe(401);
      expectLimitHeaders(res, 'login-ip', CAP);
    }
    const blocked = await fail(app, { login_id: `guess-last-${user.service_no}` });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ status: 'error', message: LOGIN_MESSAGE });
    expect(String(blocked.headers.ratelimit)).toMatch(/"login-ip"; r=0;/);
    // another client address is not capped
    const other = appWith(ctx, { LOGIN_RATE_LIMIT_MAX: '100', LOGIN_IP_RATE_LIMIT_MAX: String(CAP), TRUST_PROXY: 'true' });
    expect((await fail(other, { login_id: 'guess-elsewhere' }).set('X-Forwarded-For', '203.0.113.50')).status).toBe(401);
  });

  test('does not count successful sign-ins', async () => {
    const app = appWith(ctx, settings);
    const signIn = () => request(app).post('/api/auth/login').send({ email: user.email, password: user.password });
    for (let i = 0; i < LIMIT * 2; i++) expect((await signIn()).status).toBe(200);
    // failures after those successes still get their full allowance
    for (let i = 0; i < LIMIT; i++) expect((await fail(app, { email: user.email })).status).toBe(401);
    expect((await fail(app, { email: user.email })).status).toBe(429);
  });

  test('with TRUST_PROXY off, a forged X-Forwarded-For does not dodge the limit', async () => {
    const app = appWith(ctx, settings);
    for (let i = 0; i < LIMIT; i++) {
      const res = await fail(app, { email: user.email }).set('X-Forwarded-For', `203.0.113.${i + 1}`);
      expect(res.status).toBe(401);
    }
    const blocked = await fail(app, { email: user.email }).set('X-Forwarded-For', '198.51.100.77');
    expect(blocked.status).toBe(429);
  });

  test('with TRUST_PROXY on, the client address comes from X-Forwarded-For', async () => {
    const app = appWith(ctx, { ...settings, TRUST_PROXY: 'true' });
    for (let i = 0; i < LIMIT; i++) {
      expect((await fail(app, { email: user.email }).set('X-Forwarded-For', '203.0.113.10')).status).toBe(401);
    }
    expect((await fail(app, { email: user.email }).set('X-Forwarded-For', '203.0.113.10')).status).toBe(429);
    // another client behind the proxy is a separate count
    expect((await fail(app, { email: user.email }).set('X-Forwarded-For', '203.0.113.11')).status).toBe(401);
  });
});

describe('global limiter (per client IP)', () => {
  const LIMIT = 4;

  test(`answers 429 past RATE_LIMIT_MAX=${LIMIT} requests, with RateLimit headers and Retry-After`, async () => {
    const app = appWith(ctx, { RATE_LIMIT_MAX: String(LIMIT) });
    for (let i = 0; i < LIMIT; i++) {
      const res = await request(app).get('/api/units').set(bearer(user));
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 'api', LIMIT);
    }
    const blocked = await request(app).get('/api/units').set(bearer(user));
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ status: 'error', message: API_MESSAGE });
    expectLimitHeaders(blocked, 'api', LIMIT);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['x-request-id']).toBeDefined();

    // every /api path shares the count: unknown routes and sign-in too
    expect((await request(app).get('/api/no-such-thing')).status).toBe(429);
    expect((await request(app).post('/api/auth/login').send({ email: user.email, password: user.password })).status).toBe(429);
  });

  test('counts every kind of request, failures and unknown routes included', async () => {
    const app = appWith(ctx, { RATE_LIMIT_MAX: String(LIMIT) });
    expect((await request(app).get('/api/no-such-thing')).status).toBe(404);
    expect((await request(app).get('/api/units')).status).toBe(401);
    expect((await request(app).get('/api/units/abc').set(bearer(user))).status).toBe(400);
    expect((await request(app).get('/api/units').set(bearer(user))).status).toBe(200);
    expect((await request(app).get('/api/units').set(bearer(user))).status).toBe(429);
  });

  test('does not limit /health and /ready', async () => {
    const app = appWith(ctx, { RATE_LIMIT_MAX: '1' });
    for (let i = 0; i < 5; i++) {
      expect((await request(app).get('/health')).status).toBe(200);
      expect((await request(app).get('/ready')).status).toBe(200);
    }
    expect((await request(app).get('/api/units').set(bearer(user))).status).toBe(200);
  });

  test('with TRUST_PROXY off, a forged X-Forwarded-For does not dodge the limit', async () => {
    const app = appWith(ctx, { RATE_LIMIT_MAX: String(LIMIT) });
    for (let i = 0; i < LIMIT; i++) {
      const res = await request(app).get('/api/units').set(bearer(user)).set('X-Forwarded-For', `203.0.113.${i + 1}`);
      expect(res.status).toBe(200);
    }
    const blocked = await request(app).get('/api/units').set(bearer(user)).set('X-Forwarded-For', '198.51.100.1');
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(API_MESSAGE);
  });

  test('the default settings allow 1000 requests per 15 minutes', async () => {
    const res = await request(appWith(ctx)).get('/api/units').set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toEqual(expect.stringContaining('"api"; q=1000; w=900'));
  });
});
