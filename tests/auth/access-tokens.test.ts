import jwt from 'jsonwebtoken';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createUser, type TestUser } from '../helpers/factory';
import { accessClaims, expectError, forge, forgeWithout, nowSeconds, profileWith, signedInUser, unsignedToken } from './auth-support';

describe('access tokens (Authorization: Bearer)', () => {
  const ctx = setupTestContext();
  const probe = (token: string) => profileWith(ctx, `Bearer ${token}`);
  const claimsOf = (user: TestUser, overrides: Record<string, unknown> = {}) =>
    accessClaims(user.id, { org: user.organization_id, ...overrides });

  test('accepts a token forged exactly as the service signs them (control for the cases below)', async () => {
    const user = await createUser(ctx);
    const res = await probe(forge(ctx, claimsOf(user)));
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(user.id);
  });

  describe('missing or malformed header: 401 `Access token is required`', () => {
    test.each([
      ['no Authorization header', undefined],
      ['a Basic header', 'Basic YWRtaW46cGFzc3dvcmQ='],
      ['the bare word Bearer', 'Bearer'],
      ['Bearer followed only by spaces', 'Bearer    '],
      ['a token without the Bearer scheme', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'],
      ['a Token scheme', 'Token abc.def.ghi'],
    ])('refuses %s', async (_label, header) => {
      const res = await profileWith(ctx, header);
      expectError(res, 401, 'Access token is required');
    });

    test('refuses a request with no token on every protected auth endpoint', async () => {
      const calls = [
        request(ctx.app).get('/api/auth/profile'),
        request(ctx.app).put('/api/auth/profile').send({ name: 'Nobody Here' }),
        request(ctx.app).put('/api/auth/change-password').send({ currentPassword: 'Passw0rd!', newPassword: 'N3wPassword' }),
        request(ctx.app).post('/api/auth/logout'),
        request(ctx.app).post('/api/auth/register').send({}),
      ];
      for (const res of await Promise.all(calls)) expectError(res, 401, 'Access token is required');
    });
  });

  describe('bad tokens: 401 `Invalid or expired token`', () => {
    test('refuses a string that is not a JWT', async () => {
      expectError(await probe('not-a-jwt'), 401, 'Invalid or expired token');
    });

    test('refuses a refresh token used as an access token', async () => {
      const user = await signedInUser(ctx);
      expectError(await probe(user.refreshToken), 401, 'Invalid or expired token');
    });

    test('refuses a refresh-type token signed with the access secret', async () => {
      const user = await createUser(ctx);
      const token = forge(ctx, { sub: String(user.id), ver: 0, typ: 'refresh' });
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses an access-type token signed with the refresh secret', async () => {
      const user = await createUser(ctx);
      const token = forge(ctx, claimsOf(user), { secret: ctx.config.jwt.refreshSecret });
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses a token without `typ`', async () => {
      const user = await createUser(ctx);
      const { typ: _typ, ...claims } = claimsOf(user);
      expectError(await probe(forge(ctx, claims)), 401, 'Invalid or expired token');
    });

    test('refuses a token that expired beyond the clock tolerance of 30 s, and accepts one within it', async () => {
      const user = await createUser(ctx);
      const late = forge(ctx, { ...claimsOf(user), iat: nowSeconds() - 3600, exp: nowSeconds() - 35 });
      expectError(await probe(late), 401, 'Invalid or expired token');
      const withinTolerance = forge(ctx, { ...claimsOf(user), iat: nowSeconds() - 3600, exp: nowSeconds() - 10 });
      expect((await probe(withinTolerance)).status).toBe(200);
    });

    test('refuses a token signed with another secret', async () => {
      const user = await createUser(ctx);
      const token = forge(ctx, claimsOf(user), { secret: 'some-other-secret-0123456789abcdefgh' });
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses a token signed with HS512 and the right secret', async () => {
      const user = await createUser(ctx);
      const token = forge(ctx, claimsOf(user), { algorithm: 'HS512' });
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg).toBe('HS512');
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses an unsigned token (`alg: none`)', async () => {
      const user = await createUser(ctx);
      expectError(await probe(unsignedToken(ctx, claimsOf(user))), 401, 'Invalid or expired token');
    });

    test('refuses a token without `exp`', async () => {
      const user = await createUser(ctx);
      const token = forgeWithout(ctx, claimsOf(user), 'exp');
      expect(jwt.decode(token)).not.toHaveProperty('exp');
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test.each([
      ['a wrong issuer', { iss: 'someone-else' }],
      ['a wrong audience', { aud: 'other-clients' }],
    ])('refuses a token with %s', async (_label, override) => {
      const user = await createUser(ctx);
      expectError(await probe(forge(ctx, { ...claimsOf(user), ...override })), 401, 'Invalid or expired token');
    });

    test('refuses a token without an issuer', async () => {
      const user = await createUser(ctx);
      const token = forgeWithout(ctx, claimsOf(user), 'iss');
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses a token without an audience', async () => {
      const user = await createUser(ctx);
      const token = forgeWithout(ctx, claimsOf(user), 'aud');
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test('refuses a token whose `ver` differs from the user token_version', async () => {
      const user = await createUser(ctx);
      expectError(await probe(forge(ctx, claimsOf(user, { ver: 1 }))), 401, 'Invalid or expired token');
    });

    test('refuses a token issued before the user token_version changed', async () => {
      const user = await signedInUser(ctx);
      expect((await probe(user.token)).status).toBe(200);
      await ctx.db('users').where({ id: user.id }).increment('token_version', 1);
      expectError(await probe(user.token), 401, 'Invalid or expired token');
    });

    test('refuses a token of a deactivated user', async () => {
      const user = await signedInUser(ctx);
      await ctx.db('users').where({ id: user.id }).update({ is_active: false });
      expectError(await probe(user.token), 401, 'Invalid or expired token');
    });

    test('refuses a token of a user that does not exist', async () => {
      const user = await createUser(ctx);
      const token = forge(ctx, accessClaims(user.id + 1_000_000));
      expectError(await probe(token), 401, 'Invalid or expired token');
    });

    test.each([
      ['a non-numeric subject', 'abc'],
      ['a zero subject', '0'],
      ['a negative subject', '-1'],
    ])('refuses a token with %s', async (_label, sub) => {
      expectError(await probe(forge(ctx, accessClaims(1, { sub }))), 401, 'Invalid or expired token');
    });

    test('refuses a token whose signature was altered', async () => {
      const user = await signedInUser(ctx);
      const [header, payload, signature] = user.token.split('.');
      const flipped = signature[0] === 'A' ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
      expectError(await probe(`${header}.${payload}.${flipped}`), 401, 'Invalid or expired token');
    });

    test('refuses a token whose payload was altered to another user', async () => {
      const user = await signedInUser(ctx);
      const other = await createUser(ctx);
      const [header, , signature] = user.token.split('.');
      const payload = Buffer.from(JSON.stringify({ ...(jwt.decode(user.token) as object), sub: String(other.id) })).toString('base64url');
      expectError(await probe(`${header}.${payload}.${signature}`), 401, 'Invalid or expired token');
    });
  });
});
