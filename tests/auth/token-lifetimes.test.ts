import jwt from 'jsonwebtoken';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createUser, unique } from '../helpers/factory';

/** Spec 5.3 and 8: lifetimes are configuration (24 h and 7 d by default); spec 2.7: login_id keeps 100 characters. */
function lifetimes(token: string, refreshToken: string) {
  const access = jwt.decode(token) as { iat: number; exp: number };
  const refresh = jwt.decode(refreshToken) as { iat: number; exp: number };
  return [access.exp - access.iat, refresh.exp - refresh.iat];
}

describe('token lifetimes, by default', () => {
  const ctx = setupTestContext();
  test('an access token lives 24 hours and a refresh token 7 days', async () => {
    const user = await createUser(ctx);
    const res = await request(ctx.app).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(lifetimes(res.body.data.token, res.body.data.refreshToken)).toEqual([24 * 3600, 7 * 86400]);
  });

  test('a failed sign-in keeps the first 100 characters of a longer identifier', async () => {
    const email = `${unique('x')}@${'a'.repeat(60)}.${'b'.repeat(60)}.test`.toLowerCase();
    const res = await request(ctx.app).post('/api/auth/login').send({ email, password: 'Whatever1' });
    expect(res.status).toBe(401);
    const row = await ctx.db('failed_login_attempts').where({ login_id: email.slice(0, 100) }).orderBy('id', 'desc').first('login_id');
    expect(row.login_id).toBe(email.slice(0, 100));
  });
});

describe('token lifetimes, configured', () => {
  const ctx = setupTestContext({ JWT_EXPIRES_IN: '15m', JWT_REFRESH_EXPIRES_IN: '2d' });
  test('follow JWT_EXPIRES_IN and JWT_REFRESH_EXPIRES_IN', async () => {
    const user = await createUser(ctx);
    const res = await request(ctx.app).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(lifetimes(res.body.data.token, res.body.data.refreshToken)).toEqual([15 * 60, 2 * 86400]);
  });
});
