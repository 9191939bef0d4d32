import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { appWith } from './http-helpers';

const ctx = setupTestContext({ BODY_LIMIT: '1kb' });
let admin: TestUser;

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Admin' });
});

describe('BODY_LIMIT', () => {
  test('a body over the limit is 413 Request body too large', async () => {
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .send({ name: unique('D '), padding: 'x'.repeat(2048) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 'error', message: 'Request body too large' });
  });

  test('a body over the limit is refused even without a token', async () => {
    const res = await request(ctx.app).post('/api/auth/login').send({ email: 'a@b.test', password: 'x'.repeat(4096) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 'error', message: 'Request body too large' });
  });

  test('a body under the limit goes through', async () => {
    const name = unique('D ');
    const res = await request(ctx.app)
      .post('/api/designations')
      .set(bearer(admin))
      .send({ name, padding: 'x'.repeat(600) });
    expect(res.status).toBe(201);
    expect(res.body.data.designation.name).toBe(name);
  });

  test('the default limit (100kb) takes a body of 10 kB that 1kb refuses', async () => {
    const app = appWith(ctx);
    const res = await request(app)
      .post('/api/designations')
      .set(bearer(admin))
      .send({ name: unique('D '), padding: 'x'.repeat(10_000) });
    expect(res.status).toBe(201);

    const big = await request(app)
      .post('/api/designations')
      .set(bearer(admin))
      .send({ name: unique('D '), padding: 'x'.repeat(101 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ status: 'error', message: 'Request body too large' });
  });
});
