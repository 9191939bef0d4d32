import request from 'supertest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/lib/logger';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { appWith, destroyedDb } from './http-helpers';

const ctx = setupTestContext();
let user: TestUser;

beforeAll(async () => {
  user = await createUser(ctx);
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'production-access-secret-0123456789abcdef',
  JWT_REFRESH_SECRET: 'production-refresh-secret-0123456789abcdef',
  ADMIN_EMAIL: 'root@example.test',
  ADMIN_PASSWORD: 'Pr0duction-Admin-Password',
};

describe('X-Request-Id', () => {
  test.each([
    ['a uuid', '0b6c7a52-3d4e-4f5a-8b9c-0d1e2f3a4b5c'],
    ['a word with dots, colons and underscores', 'gateway:req_42.7'],
    ['128 characters', 'a'.repeat(128)],
  ])('a sane incoming id (%s) is echoed', async (_label, id) => {
    const res = await request(ctx.app).get('/api/designations').set(bearer(user)).set('X-Request-Id', id);
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe(id);
  });

  test.each([
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'abc def'],
    ['with quotes', '"abc"'],
    ['with a newline-ish escape', 'abc\\r\\nSet-Cookie:x'],
    ['with angle brackets', '<script>'],
  ])('an insane incoming id (%s) is replaced by a fresh one', async (_label, id) => {
    const res = await request(ctx.app).get('/api/designations').set(bearer(user)).set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.headers['x-request-id']).not.toBe(id);
  });

  test('every response carries one, and two requests get different ones', async () => {
    const responses = await Promise.all([
      request(ctx.app).get('/health'),
      request(ctx.app).get('/ready'),
      request(ctx.app).get('/api/units'),
      request(ctx.app).get('/api/no-such-thing'),
      request(ctx.app).post('/api/auth/login').set('Content-Type', 'application/json').send('{bad'),
      request(ctx.app).get('/api/units').set(bearer(user)),
      request(ctx.app).options('/api/units').set('Origin', 'https://x.example').set('Access-Control-Request-Method', 'GET'),
    ]);
    const ids = responses.map((res) => res.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('CORS exposes X-Request-Id to browsers', async () => {
    const res = await request(ctx.app).get('/health').set('Origin', 'https://x.example');
    expect(res.headers['access-control-expose-headers']).toMatch(/X-Request-Id/i);
  });
});

describe('security headers', () => {
  const csp = (res: request.Response) => String(res.headers['content-security-policy']);

  test('helmet headers are set and X-Powered-By is not', async () => {
    for (const res of [await request(ctx.app).get('/health'), await request(ctx.app).get('/api/no-such-thing')]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(csp(res)).toMatch(/default-src 'self'/);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  test('over plain HTTP: no HSTS, and the CSP does not upgrade the page\'s requests to https', async () => {
    for (const path of ['/health', '/api/docs/', '/api/no-such-thing']) {
      const res = await request(ctx.app).get(path);
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(csp(res)).not.toMatch(/upgrade-insecure-requests/);
    }
  });

  test('X-Forwarded-Proto: https from a proxy that is not trusted does not count as TLS', async () => {
    const res = await request(ctx.app).get('/health').set('X-Forwarded-Proto', 'https');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(csp(res)).not.toMatch(/upgrade-insecure-requests/);
  });

  describe('behind a trusted proxy (TRUST_PROXY)', () => {
    let app: ReturnType<typeof appWith>;
    beforeAll(() => {
      app = appWith(ctx, { TRUST_PROXY: 'loopback' });
    });

    test('a request that came over TLS (X-Forwarded-Proto: https) gets HSTS and upgrade-insecure-requests', async () => {
      for (const path of ['/health', '/api/docs/']) {
        const res = await request(app).get(path).set('X-Forwarded-Proto', 'https');
        expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
        expect(csp(res)).toMatch(/upgrade-insecure-requests/);
      }
    });

    test('a request that came over plain HTTP (X-Forwarded-Proto: http) gets neither', async () => {
      const res = await request(app).get('/health').set('X-Forwarded-Proto', 'http');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(csp(res)).not.toMatch(/upgrade-insecure-requests/);
    });
  });
});

describe('CORS', () => {
  const preflight = (app: ReturnType<typeof appWith>, origin: string) =>
    request(app)
      .options('/api/units')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'Authorization, Content-Type');

  describe('with CORS_ORIGINS set', () => {
    let app: ReturnType<typeof appWith>;
    beforeAll(() => {
      app = appWith(ctx, { CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });
    });

    test.each(['https://app.example.com', 'https://admin.example.com'])('allows the listed origin %s', async (origin) => {
      const pre = await preflight(app, origin);
      expect(pre.status).toBeLessThan(300);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      expect(pre.headers['access-control-allow-methods']).toMatch(/POST/);

      const simple = await request(app).get('/api/units').set(bearer(user)).set('Origin', origin);
      expect(simple.status).toBe(200);
      expect(simple.headers['access-control-allow-origin']).toBe(origin);
    });

    test.each(['https://evil.example.com', 'https://app.example.com.evil.test', 'http://app.example.com'])(
      'does not allow an unlisted origin %s',
      async (origin) => {
        const pre = await preflight(app, origin);
        expect(pre.headers['access-control-allow-origin']).toBeUndefined();
        const simple = await request(app).get('/api/units').set(bearer(user)).set('Origin', origin);
        expect(simple.headers['access-control-allow-origin']).toBeUndefined();
      },
    );
  });

  test('without CORS_ORIGINS, development and test reflect any origin', async () => {
    for (const env of ['development', 'test']) {
      const app = appWith(ctx, { NODE_ENV: env });
      const pre = await preflight(app, 'https://anything.example');
      expect(pre.headers['access-control-allow-origin']).toBe('https://anything.example');
      const simple = await request(app).get('/api/units').set(bearer(user)).set('Origin', 'https://other.example');
      expect(simple.headers['access-control-allow-origin']).toBe('https://other.example');
    }
  });

  test('without CORS_ORIGINS, production allows no origin', async () => {
    const app = appWith(ctx, PRODUCTION);
    const pre = await preflight(app, 'https://anything.example');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const simple = await request(app).get('/api/units').set(bearer(user)).set('Origin', 'https://anything.example');
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('with CORS_ORIGINS, production allows the listed origin only', async () => {
    const app = appWith(ctx, { ...PRODUCTION, CORS_ORIGINS: 'https://app.example.com' });
    expect((await preflight(app, 'https://app.example.com')).headers['access-control-allow-origin']).toBe(
      'https://app.example.com',
    );
    expect((await preflight(app, 'https://other.example.com')).headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('GET /ready', () => {
  test('answers 503 Database unavailable when the database is unreachable', async () => {
    const db = await destroyedDb(ctx);
    const app = createApp({ db, config: ctx.config, logger: createLogger({ level: 'silent' }) });
    const res = await request(app).get('/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'error', message: 'Database unavailable' });
    // the process itself is up
    expect((await request(app).get('/health')).status).toBe(200);
  });

  test('answers 200 over the same settings while the database answers', async () => {
    const res = await request(ctx.app).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
  });
});
