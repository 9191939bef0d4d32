import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createUser, type TestUser } from '../helpers/factory';
import { expectError, failingFields, forge, forgeWithout, nowSeconds, profileWith, signedInUser, unsignedToken } from './auth-support';

describe('POST /api/auth/refresh-token', () => {
  const ctx = setupTestContext();
  const refresh = (body: Record<string, unknown>) => request(ctx.app).post('/api/auth/refresh-token').send(body);
  const refreshClaims = (user: TestUser, overrides: Record<string, unknown> = {}) => ({
    sub: String(user.id),
    ver: 0,
    typ: 'refresh',
    ...overrides,
  });
  const forgeRefresh = (payload: Record<string, unknown>, options: Parameters<typeof forge>[2] = {}) =>
    forge(ctx, payload, { secret: ctx.config.jwt.refreshSecret, ...options });

  test('answers 200 `Token refreshed successfully` with a new access token that works', async () => {
    const user = await signedInUser(ctx);
    const res = await refresh({ refreshToken: user.refreshToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', message: 'Token refreshed successfully' });
    expect(typeof res.body.data.token).toBe('string');
    if ('refreshToken' in res.body.data) expect(typeof res.body.data.refreshToken).toBe('string');

    const profile = await profileWith(ctx, `Bearer ${res.body.data.token}`);
    expect(profile.status).toBe(200);
    expect(profile.body.data.user.id).toBe(user.id);
  });

  test('needs no Authorization header', async () => {
    const user = await signedInUser(ctx);
    const res = await refresh({ refreshToken: user.refreshToken }).set('Authorization', 'Bearer not-a-token');
    expect(res.status).toBe(200);
  });

  test('accepts a refresh token forged as the service signs them (control for the cases below)', async () => {
    const user = await createUser(ctx);
    expect((await refresh({ refreshToken: forgeRefresh(refreshClaims(user)) })).status).toBe(200);
  });

  test('issues an access token that is not accepted as a refresh token', async () => {
    const user = await signedInUser(ctx);
    const { body } = await refresh({ refreshToken: user.refreshToken });
    expectError(await refresh({ refreshToken: body.data.token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses an access token posted as the refresh token', async () => {
    const user = await signedInUser(ctx);
    expectError(await refresh({ refreshToken: user.token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a refresh-type token signed with the access secret', async () => {
    const user = await createUser(ctx);
    const token = forge(ctx, refreshClaims(user));
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses an expired refresh token', async () => {
    const user = await createUser(ctx);
    const token = forgeRefresh({ ...refreshClaims(user), iat: nowSeconds() - 7200, exp: nowSeconds() - 60 });
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a refresh token signed with another secret', async () => {
    const user = await createUser(ctx);
    const token = forgeRefresh(refreshClaims(user), { secret: 'yet-another-secret-0123456789abcdef' });
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a refresh token signed with HS512', async () => {
    const user = await createUser(ctx);
    const token = forgeRefresh(refreshClaims(user), { algorithm: 'HS512' });
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses an unsigned refresh token (`alg: none`)', async () => {
    const user = await createUser(ctx);
    expectError(await refresh({ refreshToken: unsignedToken(ctx, refreshClaims(user)) }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a refresh token without `exp`', async () => {
    const user = await createUser(ctx);
    const token = forgeWithout(ctx, refreshClaims(user), 'exp', { secret: ctx.config.jwt.refreshSecret });
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test.each([
    ['a wrong issuer', { iss: 'someone-else' }],
    ['a wrong audience', { aud: 'other-clients' }],
  ])('refuses a refresh token with %s', async (_label, override) => {
    const user = await createUser(ctx);
    const token = forgeRefresh({ ...refreshClaims(user), ...override });
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a refresh token issued before the user token_version changed', async () => {
    const user = await signedInUser(ctx);
    await ctx.db('users').where({ id: user.id }).increment('token_version', 1);
    expectError(await refresh({ refreshToken: user.refreshToken }), 401, 'Invalid or expired refresh token');
  });

  test('refuses the refresh token of a deactivated user', async () => {
    const user = await signedInUser(ctx);
    await ctx.db('users').where({ id: user.id }).update({ is_active: false });
    expectError(await refresh({ refreshToken: user.refreshToken }), 401, 'Invalid or expired refresh token');
  });

  test('refuses the refresh token of a user that does not exist', async () => {
    const user = await createUser(ctx);
    const token = forgeRefresh(refreshClaims(user, { sub: String(user.id + 1_000_000) }));
    expectError(await refresh({ refreshToken: token }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a string that is not a JWT', async () => {
    expectError(await refresh({ refreshToken: 'garbage' }), 401, 'Invalid or expired refresh token');
  });

  test('refuses a missing refresh token with 400 `Validation failed` on refreshToken', async () => {
    expect(failingFields(await refresh({}))).toEqual(['refreshToken']);
  });

  test.each([
    ['a number', 12345],
    ['an object', { token: 'x' }],
    ['an array', ['x.y.z']],
    ['an empty string', ''],
  ])('refuses %s as refreshToken with 400, not 500', async (_label, refreshToken) => {
    expect(failingFields(await refresh({ refreshToken }))).toEqual(['refreshToken']);
  });
});
