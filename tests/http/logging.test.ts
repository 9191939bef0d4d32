import Redis from 'ioredis';
import express from 'express';
import { errorHandler } from '../../src/lib/http/errors';
import request from 'supertest';
import { createApp } from '../../src/app';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { appWith, destroyedDb, memoryLogger } from './http-helpers';

const ctx = setupTestContext();

/** What a stack trace looks like in a log line: "    at fn (file.ts:12:34)" or a raw `stack` field. */
const STACK = /\bat [^"]*\(?[^"]*\.(?:ts|js):\d+:\d+|"stack"\s*:/;

describe('request logs', () => {
  let user: TestUser;
  let mem: ReturnType<typeof memoryLogger>;
  const requestIds: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    user = await createUser(ctx, { role: 'Admin' });
    mem = memoryLogger();
    const app = appWith(ctx, {}, { logger: mem.logger });
    const track = (res: request.Response) => {
      requestIds.push(String(res.headers['x-request-id']));
      return res;
    };

    // a request with an Authorization header and a cookie
    const authorized = track(
      await request(app).get('/api/units').set(bearer(user)).set('Cookie', 'session=cookie-secret-value').set('X-Request-Id', 'log-probe-1'),
    );
    expect(authorized.status).toBe(200);

    // a sign-in with a password, whose answer carries a token and a refresh token
    const login = track(await request(app).post('/api/auth/login').send({ email: user.email, password: user.password }));
    expect(login.status).toBe(200);

    // a failed sign-in with another password
    const wrongPassword = 'Wr0ng-Password-Secret';
    track(await request(app).post('/api/auth/login').send({ login_id: user.email, password: wrongPassword }));

    // a refresh with the refresh token in the body
    const refreshed = track(await request(app).post('/api/auth/refresh-token').send({ refreshToken: login.body.data.refreshToken }));
    expect(refreshed.status).toBe(200);

    // failing requests: a 404, a bad token, and a 500 from a database that is gone
    track(await request(app).get('/api/units/999999999').set(bearer(user)));
    track(await request(app).get('/api/units').set('Authorization', 'Bearer not-a-real-token-value'));
    const broken = createApp({ db: await destroyedDb(ctx), config: ctx.config, logger: mem.logger });
    const failed = track(await request(broken).get('/api/units').set(bearer(user)));
    expect(failed.status).toBe(500);

    secrets.push(
      user.password,
      wrongPassword,
      user.token,
      user.refreshToken,
      login.body.data.token,
      login.body.data.refreshToken,
      refreshed.body.data.token,
      'not-a-real-token-value',
      'cookie-secret-value',
    );
    if (refreshed.body.data.refreshToken) secrets.push(refreshed.body.data.refreshToken);
  });

  test('every request is logged with its request id', () => {
    const logged = new Set(mem.records().map((r) => (r.req as { id?: string } | undefined)?.id));
    expect(requestIds).toContain('log-probe-1');
    for (const id of requestIds) expect(logged).toContain(id);
  });

  test('every line about a request carries the id that the response carried', () => {
    const records = mem.records().filter((r) => r.req !== undefined || r.res !== undefined);
    expect(records.length).toBeGreaterThanOrEqual(requestIds.length);
    for (const record of records) {
      const id = (record.req as { id?: string }).id;
      expect(requestIds).toContain(id);
    }
  });

  test('no line holds a password, a token, an authorization header or a cookie value', () => {
    const text = mem.lines().join('\n');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(5);
      expect(text).not.toContain(secret);
    }
    // request lines carry method, URL and id, and no headers at all
    expect(text).toContain('"method":"GET","path":"/api/units"');
    expect(text).not.toMatch(/"headers"|authorization|cookie/i);
  });

  test('each request has one line when it is answered: info for success and for 4xx, error for 5xx', () => {
    const done = mem.records().filter((r) => r.msg === 'request completed');
    const levelOf = (status: number) => done.filter((r) => (r.res as { statusCode: number }).statusCode === status).map((r) => r.level);
    expect(done).toHaveLength(requestIds.length);
    expect(new Set(levelOf(200))).toEqual(new Set([30]));
    expect(new Set([...levelOf(401), ...levelOf(404)])).toEqual(new Set([30]));
    expect(levelOf(500)).toEqual([50]);
    for (const r of done) expect(r.responseTime).toEqual(expect.any(Number));
  });

  test('no line holds a stack trace', () => {
    for (const line of mem.lines()) expect(line).not.toMatch(STACK);
  });

  test('the unexpected failure is logged at error level with its cause, its request id and no stack', () => {
    const errors = mem.records().filter((r) => r.msg === 'unexpected error');
    expect(errors).toHaveLength(1);
    const [line] = errors;
    expect(line.level).toBe(50);
    expect(requestIds).toContain((line.req as { id: string }).id);
    const err = line.err as Record<string, unknown>;
    // the cause is named, not "[object Object]"
    expect(typeof err.message).toBe('string');
    expect(err.message).not.toBe('[object Object]');
    expect(err.type).toEqual(expect.any(String));
    expect(err).not.toHaveProperty('stack');
  });
});

describe('what a request line keeps of the URL', () => {
  let mem: ReturnType<typeof memoryLogger>;
  /** Values no line may hold, each with a unique token, so that no encoding of it slips through. */
  const secret = {
    term: unique('secretterm'),
    login: `${unique('someone')}@example.com`,
    search: unique('searchword'),
    format: `${unique('formatted')}@example.com`,
    name: `${unique('named')}@example.com`,
    segment: `${unique('pathpart')}@example.com`,
    failure: unique('failingsearch'),
  };
  const lineOf = (res: request.Response) => {
    const id = String(res.headers['x-request-id']);
    const lines = mem.records().filter((r) => r.msg === 'request completed' && (r.req as { id: string }).id === id);
    expect(lines).toHaveLength(1);
    return lines[0].req as { path: string; query?: string };
  };
  const answers: Record<string, request.Response> = {};
  let admin: TestUser;

  beforeAll(async () => {
    mem = memoryLogger();
    const app = appWith(ctx, {}, { logger: mem.logger });
    admin = await createUser(ctx, { role: 'Super_admin' });
    answers.search = await request(app).get('/api/contacts/search').query({ q: secret.term, limit: 5 }).set(bearer(admin));
    answers.failedLogins = await request(app)
      .get('/api/security/failed-logins')
      .query({ login_id: secret.login, page: 2, limit: 10 })
      .set(bearer(admin));
    answers.list = await request(app)
      .get('/api/contacts')
      .query({ search: secret.search, format: 'flat', page: 1, limit: 20, include_inactive: 'true', unit_id: admin.unit_id })
      .set(bearer(admin));
    answers.oddValue = await request(app).get('/api/contacts').query({ format: secret.format, page: 1 }).set(bearer(admin));
    answers.oddName = await request(app).get(`/api/contacts?${encodeURIComponent(secret.name)}=1&limit=3`).set(bearer(admin));
    answers.oddSegment = await request(app).get(`/api/contacts/${encodeURIComponent(secret.segment)}`).set(bearer(admin));
    answers.document = await request(app).get('/api/openapi.json');
    const broken = createApp({ db: await destroyedDb(ctx), config: ctx.config, logger: mem.logger });
    answers.failure = await request(broken).get('/api/units').query({ search: secret.failure, include_inactive: 'true' }).set(bearer(admin));
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.status]));
    expect(statuses).toEqual({ search: 200, failedLogins: 200, list: 200, oddValue: 400, oddName: 200, oddSegment: 400, document: 200, failure: 500 });
  });

  test('no line holds a search term, a login identifier or any other value a client put in the URL', () => {
    const text = mem.lines().join('\n');
    expect(mem.records().filter((r) => r.msg === 'request completed')).toHaveLength(Object.keys(answers).length);
    for (const value of Object.values(secret)) {
      const token = value.split('@')[0];
      expect(text).not.toContain(token);
    }
    expect(text).not.toMatch(/example\.com|%40/);
  });

  test('the path and the names of the parameters are logged, their values masked', () => {
    expect(lineOf(answers.search)).toEqual({ id: expect.any(String), method: 'GET', path: '/api/contacts/search', query: 'q=[Redacted]&limit=5' });
    expect(lineOf(answers.failedLogins)).toMatchObject({ path: '/api/security/failed-logins', query: 'login_id=[Redacted]&page=2&limit=10' });
  });

  test('page, limit, format, flags and row ids keep their values', () => {
    expect(lineOf(answers.list)).toMatchObject({
      path: '/api/contacts',
      query: `search=[Redacted]&format=flat&page=1&limit=20&include_inactive=true&unit_id=${admin.unit_id}`,
    });
  });

  test('a kept parameter keeps only a value of its own shape, and an odd name or path segment is masked', () => {
    expect(lineOf(answers.oddValue).query).toBe('format=[Redacted]&page=1');
    expect(lineOf(answers.oddName).query).toBe('[Redacted]&limit=3');
    expect(lineOf(answers.oddSegment).path).toBe('/api/contacts/[Redacted]');
    expect(lineOf(answers.document)).toMatchObject({ path: '/api/openapi.json' });
  });

  test('the line of an unexpected failure follows the same rule', () => {
    const id = String(answers.failure.headers['x-request-id']);
    const failures = mem.records().filter((r) => r.msg === 'unexpected error' && (r.req as { id: string }).id === id);
    expect(failures).toHaveLength(1);
    expect(failures[0].req).toEqual({ id, method: 'GET', path: '/api/units', query: 'search=[Redacted]&include_inactive=true' });
  });
});

describe('rate limiter problems', () => {
  test('a Redis store that cannot be reached lets requests through and logs no stack', async () => {
    // a client whose connection is closed: every command fails at once
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect();
    await redis.quit();
    const mem = memoryLogger();
    const app = appWith(ctx, { RATE_LIMIT_MAX: '1' }, { logger: mem.logger, redis });
    const user = await createUser(ctx);
    for (let i = 0; i < 3; i++) {
      expect((await request(app).get('/api/units').set(bearer(user))).status).toBe(200);
    }
    // one line for the outage (lines are paced: tests/http/redis-outage.test.ts), not one per request
    const problems = mem.records().filter((r) => r.msg === 'redis unavailable: rate limits are not counted');
    expect(problems).toHaveLength(1);
    expect((problems[0].err as { message?: string }).message).toEqual(expect.any(String));
    for (const line of mem.lines()) expect(line).not.toMatch(STACK);
  });
});

describe('an error after the response began', () => {
  test('is logged without its stack and cuts the connection; nothing reaches stderr', async () => {
    const mem = memoryLogger();
    const app = express();
    app.get('/half', (_req, res, next) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      next(new Error('failed half way'));
    });
    app.use(errorHandler(mem.logger));
    const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expect(request(app).get('/half')).rejects.toThrow();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
    const logged = mem.records().filter((r) => r.msg === 'error after the response began');
    expect(logged).toHaveLength(1);
    expect(logged[0].err).toMatchObject({ message: 'failed half way' });
    for (const line of mem.lines()) expect(line).not.toMatch(STACK);
  });
});
