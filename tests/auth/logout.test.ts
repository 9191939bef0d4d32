import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer } from '../helpers/factory';
import { expectError, signedInUser, userRow } from './auth-support';

describe('POST /api/auth/logout', () => {
  const ctx = setupTestContext();

  test('answers 200 `Logout successful` to a signed-in user', async () => {
    const user = await signedInUser(ctx);
    const res = await request(ctx.app).post('/api/auth/logout').set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'Logout successful', data: {} });
  });

  test('requires a token', async () => {
    expectError(await request(ctx.app).post('/api/auth/logout'), 401, 'Access token is required');
  });

  test('refuses an invalid token', async () => {
    const res = await request(ctx.app).post('/api/auth/logout').set('Authorization', 'Bearer nonsense');
    expectError(res, 401, 'Invalid or expired token');
  });

  test('refuses a refresh token', async () => {
    const user = await signedInUser(ctx);
    const res = await request(ctx.app).post('/api/auth/logout').set('Authorization', `Bearer ${user.refreshToken}`);
    expectError(res, 401, 'Invalid or expired token');
  });

  test('changes nothing on the server: the tokens keep working after logout', async () => {
    const user = await signedInUser(ctx);
    const before = await userRow(ctx, user.id);
    expect((await request(ctx.app).post('/api/auth/logout').set(bearer(user))).status).toBe(200);
    expect(await userRow(ctx, user.id)).toEqual(before);
    expect((await request(ctx.app).get('/api/auth/profile').set(bearer(user))).status).toBe(200);
  });
});
