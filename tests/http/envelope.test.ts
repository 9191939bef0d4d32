import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';

const ctx = setupTestContext();
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Admin' });
  user = await createUser(ctx, { role: 'User' });
});

describe('success and error envelopes', () => {
  test('a success carries status "success", a message and data', async () => {
    const res = await request(ctx.app).get('/api/designations').set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      status: 'success',
      message: 'Designations retrieved successfully',
      data: expect.objectContaining({ designations: expect.any(Array), pagination: expect.any(Object) }),
    });
  });

  test('an error carries status "error" and a message, and no data', async () => {
    const res = await request(ctx.app).get('/api/designations/999999999').set(bearer(user));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Designation not found' });
  });

  test('a request without a token gets the 401 envelope', async () => {
    const res = await request(ctx.app).get('/api/units');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Access token is required' });
  });
});

describe('validation failures', () => {
  test('list every failing field as {field, message}, not only the first', async () => {
    const res = await request(ctx.app)
      .post('/api/ranks')
      .set(bearer(admin))
      .send({ name: 'x', code: 'c'.repeat(31), level: -1 });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.message).toBe('Validation failed');
    const fields = (res.body.errors as Array<{ field: string; message: string }>).map((e) => e.field).sort();
    expect(fields).toEqual(['code', 'level', 'name']);
    for (const entry of res.body.errors) {
      expect(Object.keys(entry).sort()).toEqual(['field', 'message']);
      expect(typeof entry.message).toBe('string');
      expect(entry.message.length).toBeGreaterThan(0);
    }
  });

  test('a missing required field is named', async () => {
    const res = await request(ctx.app).post('/api/departments').set(bearer(admin)).send({});
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'unit_id']);
  });

  test.each(['abc', '0', '1.5', '-3', '1e3', '99999999999999999999'])(
    'a path id %p that is not a positive integer fails on field id',
    async (id) => {
      const res = await request(ctx.app).get(`/api/units/${id}`).set(bearer(user));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation failed');
      expect(res.body.errors).toEqual([{ field: 'id', message: expect.any(String) }]);
    },
  );

  test('a bad path id on a write is also refused on field id', async () => {
    const res = await request(ctx.app).put('/api/designations/abc').set(bearer(admin)).send({ name: unique('D ') });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'id', message: expect.any(String) }]);
  });
});

describe('malformed and mis-shaped input', () => {
  test('a JSON array as the body is 400 Validation failed on body, and nothing is made', async () => {
    const name = unique('Arr ');
    const res = await request(ctx.app).post('/api/designations').set(bearer(admin)).send([{ name }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field: 'body', message: 'Body must be a JSON object' }] });
    expect(await ctx.db('designations').where({ name }).first()).toBeUndefined();
  });

  test('malformed JSON is 400 Malformed JSON body', async () => {
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .set('Content-Type', 'application/json')
      .send('{"name": "unterminated');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Malformed JSON body' });
  });

  test('a JSON body that is a bare string is malformed, not a 500', async () => {
    const res = await request(ctx.app)
      .post('/api/auth/login')
      .set('Content-Type', 'application/json')
      .send('"just a string"');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Malformed JSON body' });
  });

  test('an object where a string belongs is a validation failure', async () => {
    const res = await request(ctx.app).post('/api/designations').set(bearer(admin)).send({ name: { a: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'name', message: expect.any(String) }]);
  });

  test('an array where a string belongs is a validation failure', async () => {
    const res = await request(ctx.app).post('/api/designations').set(bearer(admin)).send({ name: ['Director', 'Clerk'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'name', message: expect.any(String) }]);
  });

  test('an array or object where an integer belongs is a validation failure', async () => {
    const res = await request(ctx.app)
      .post('/api/departments')
      .set(bearer(admin))
      .send({ name: unique('Dept '), unit_id: [1] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'unit_id', message: expect.any(String) }]);

    const res2 = await request(ctx.app)
      .post('/api/departments')
      .set(bearer(admin))
      .send({ name: unique('Dept '), unit_id: { id: 1 } });
    expect(res2.status).toBe(400);
    expect(res2.body.errors).toEqual([{ field: 'unit_id', message: expect.any(String) }]);
  });

  test('a top-level JSON array body is a validation failure, not a 500', async () => {
    const res = await request(ctx.app).post('/api/designations').set(bearer(admin)).send([{ name: 'x' }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Validation failed');
  });

  test('a login with an object for the password is a validation failure', async () => {
    const res = await request(ctx.app).post('/api/auth/login').send({ email: user.email, password: { $ne: '' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'password', message: expect.any(String) }]);
  });

  test('a repeated query parameter (?page=1&page=2) is a validation failure', async () => {
    const res = await request(ctx.app).get('/api/units?page=1&page=2').set(bearer(user));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'page', message: expect.any(String) }]);
  });

  test('a repeated search parameter is a validation failure', async () => {
    const res = await request(ctx.app).get('/api/ranks?search=ab&search=cd').set(bearer(user));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'search', message: expect.any(String) }]);
  });

  test('a bracketed query parameter (?page[a]=1) is never a 500', async () => {
    const res = await request(ctx.app).get('/api/units?page[a]=1&limit[]=2').set(bearer(user));
    expect(res.status).toBeLessThan(500);
  });

  // DECISIONS 1: `?id[a]=1` is a validation failure (the app parses brackets, so it is an object)
  test('a bracketed query parameter (?page[a]=1) is a validation failure on page', async () => {
    const res = await request(ctx.app).get('/api/units?page[a]=1').set(bearer(user));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'page', message: expect.any(String) }]);
  });

  test('an unsupported charset is refused with 415, not a 500', async () => {
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{"name":"x"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ status: 'error', message: 'Unsupported content encoding or charset' });
  });

  test('an unknown content encoding is refused with 415, not a 500', async () => {
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'x-unknown')
      .send('{"name":"x"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ status: 'error', message: 'Unsupported content encoding or charset' });
  });

  test('fields an endpoint does not accept are ignored', async () => {
    const name = unique('Desig ');
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .send({ name, id: 1, created_at: '2000-01-01T00:00:00.000Z', unknown_field: 'x' });
    expect(res.status).toBe(201);
    expect(res.body.data.designation.id).not.toBe(1);
    expect(res.body.data.designation.created_at).not.toBe('2000-01-01T00:00:00.000Z');
    expect(res.body.data.designation).not.toHaveProperty('unknown_field');
  });
});

describe('unknown routes', () => {
  test.each([
    ['GET', '/api/no-such-thing'],
    ['POST', '/api/no-such-thing'],
    ['GET', '/no-such-thing'],
    ['DELETE', '/api'],
  ])('%s %s without a token is 404 Route not found', async (method, path) => {
    const res = await request(ctx.app)[method.toLowerCase() as 'get' | 'post' | 'delete'](path).send({});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Route not found' });
  });

  test.each([
    ['GET', '/api/no-such-thing'],
    ['POST', '/api/no-such-thing'],
    ['GET', '/api/units/1/no-such-thing'],
  ])('%s %s with a token is 404 Route not found', async (method, path) => {
    const res = await request(ctx.app)[method.toLowerCase() as 'get' | 'post'](path).set(bearer(user)).send({ a: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Route not found' });
  });

  test('a known path with an unsupported method is 404 Route not found', async () => {
    const res = await request(ctx.app).patch('/api/units/1').set(bearer(admin)).send({ name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Route not found' });
  });
});

describe('GET /health and GET /ready', () => {
  test('GET /health answers 200 without a token', async () => {
    const res = await request(ctx.app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
  });

  test('GET /ready answers 200 without a token while the database answers', async () => {
    const res = await request(ctx.app).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
  });
});
