import bcrypt from 'bcrypt';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser } from '../helpers/factory';
import { epochOf, expectError, failingFields, login, messageFor, signedInUser, userRow } from './auth-support';

describe('PUT /api/auth/change-password', () => {
  const ctx = setupTestContext();
  const changePassword = (user: { token: string }, body: Record<string, unknown>) =>
    request(ctx.app).put('/api/auth/change-password').set(bearer(user)).send(body);
  const profile = (token: string) => request(ctx.app).get('/api/auth/profile').set('Authorization', `Bearer ${token}`);
  const refresh = (refreshToken: string) => request(ctx.app).post('/api/auth/refresh-token').send({ refreshToken });
  const changesOf = (userId: number) => ctx.db('password_change_logs').where({ user_id: userId });

  describe('success', () => {
    test('answers 200 `Password changed successfully` with a fresh token and refreshToken', async () => {
      const user = await signedInUser(ctx);
      const res = await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', message: 'Password changed successfully' });
      expect(Object.keys(res.body.data).sort()).toEqual(['refreshToken', 'token']);
      expect(typeof res.body.data.token).toBe('string');
      expect(typeof res.body.data.refreshToken).toBe('string');
      expect(res.body.data.token).not.toBe(user.token);
      expect(res.body.data.refreshToken).not.toBe(user.refreshToken);
    });

    test('the fresh tokens work: the access token authenticates and the refresh token refreshes', async () => {
      const user = await signedInUser(ctx);
      const { body } = await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' });
      const me = await profile(body.data.token);
      expect(me.status).toBe(200);
      expect(me.body.data.user.id).toBe(user.id);
      const refreshed = await refresh(body.data.refreshToken);
      expect(refreshed.status).toBe(200);
      expect((await profile(refreshed.body.data.token)).status).toBe(200);
    });

    test('the earlier access and refresh tokens stop working', async () => {
      const user = await signedInUser(ctx);
      expect((await profile(user.token)).status).toBe(200);
      const res = await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' });
      expect(res.status).toBe(200);
      expectError(await profile(user.token), 401, 'Invalid or expired token');
      expectError(await refresh(user.refreshToken), 401, 'Invalid or expired refresh token');
      expectError(
        await request(ctx.app).post('/api/auth/logout').set(bearer(user)),
        401,
        'Invalid or expired token',
      );
    });

    test('the tokens of every other session of the user stop working too', async () => {
      const user = await signedInUser(ctx);
      const other = await login(ctx, { email: user.email, password: user.password });
      expect((await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' })).status).toBe(200);
      expectError(await profile(other.body.data.token), 401, 'Invalid or expired token');
      expectError(await refresh(other.body.data.refreshToken), 401, 'Invalid or expired refresh token');
    });

    test('the new password signs in and the old one no longer does', async () => {
      const user = await createUser(ctx);
      expect((await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' })).status).toBe(200);
      expectError(await login(ctx, { email: user.email, password: user.password }), 401, 'Invalid credentials');
      expect((await login(ctx, { email: user.email, password: 'Fresh1Pass' })).status).toBe(200);
    });

    test('stores a bcrypt hash of the new password and increments token_version', async () => {
      const user = await createUser(ctx);
      const before = await userRow(ctx, user.id);
      expect((await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' })).status).toBe(200);
      const after = await userRow(ctx, user.id);
      expect(String(after.password_hash)).toMatch(/^\$2b\$04\$/);
      expect(await bcrypt.compare('Fresh1Pass', String(after.password_hash))).toBe(true);
      expect(Number(after.token_version)).toBe(Number(before.token_version) + 1);
    });

    test('writes a password change record: change_type self, changed_by the user, the user organization', async () => {
      const organizationId = await createOrganization(ctx);
      const user = await createUser(ctx, { organization_id: organizationId });
      const started = Date.now();
      const res = await changePassword(user, { currentPassword: user.password, newPassword: 'Fresh1Pass' }).set(
        'User-Agent',
        'change-password-test/1.0',
      );
      expect(res.status).toBe(200);
      const rows = await changesOf(user.id);
      expect(rows).toHaveLength(1);
      const [record] = rows;
      expect(record.change_type).toBe('self');
      expect(Number(record.user_id)).toBe(user.id);
      expect(Number(record.changed_by)).toBe(user.id);
      expect(Number(record.organization_id)).toBe(organizationId);
      expect(String(record.ip_address)).toMatch(/127\.0\.0\.1|::1/);
      expect(record.user_agent).toBe('change-password-test/1.0');
      expect(epochOf(record.changed_at)).toBeGreaterThanOrEqual(started - 1000);
    });

    test('accepts a new password of exactly 6 characters with each class', async () => {
      const user = await createUser(ctx);
      expect((await changePassword(user, { currentPassword: user.password, newPassword: 'Abcde1' })).status).toBe(200);
      expect((await login(ctx, { email: user.email, password: 'Abcde1' })).status).toBe(200);
    });

    test('accepts a new password of exactly 72 UTF-8 bytes in multi-byte characters', async () => {
      const user = await createUser(ctx);
      const newPassword = `Aa1${'€'.repeat(23)}`; // 26 characters, 72 bytes
      expect(Buffer.byteLength(newPassword)).toBe(72);
      expect((await changePassword(user, { currentPassword: user.password, newPassword })).status).toBe(200);
      expect((await login(ctx, { email: user.email, password: newPassword })).status).toBe(200);
    });
  });

  describe('refusals', () => {
    test('refuses a wrong current password with 400 `Current password is incorrect` and changes nothing', async () => {
      const user = await signedInUser(ctx);
      const before = await userRow(ctx, user.id);
      const res = await changePassword(user, { currentPassword: 'Not1TheRight', newPassword: 'Fresh1Pass' });
      expectError(res, 400, 'Current password is incorrect');
      const after = await userRow(ctx, user.id);
      expect(after.password_hash).toBe(before.password_hash);
      expect(Number(after.token_version)).toBe(Number(before.token_version));
      expect(await changesOf(user.id)).toHaveLength(0);
      expect((await profile(user.token)).status).toBe(200);
    });

    test('refuses a new password equal to the current one with 400', async () => {
      const user = await createUser(ctx);
      const res = await changePassword(user, { currentPassword: user.password, newPassword: user.password });
      expectError(res, 400, 'New password must be different from current password');
      expect(await changesOf(user.id)).toHaveLength(0);
    });

    test('refuses any current password for an account without a password', async () => {
      const user = await createUser(ctx, { password: null });
      const res = await changePassword(user, { currentPassword: 'Anything1', newPassword: 'Fresh1Pass' });
      expectError(res, 400, 'Current password is incorrect');
      expect((await userRow(ctx, user.id)).password_hash).toBeNull();
    });

    test('requires a token', async () => {
      const res = await request(ctx.app).put('/api/auth/change-password').send({ currentPassword: 'Passw0rd!', newPassword: 'Fresh1Pass' });
      expectError(res, 401, 'Access token is required');
    });
  });

  describe('validation', () => {
    test('lists both missing fields of an empty body', async () => {
      const user = await createUser(ctx);
      expect(failingFields(await changePassword(user, {}))).toEqual(['currentPassword', 'newPassword']);
    });

    test('refuses a new password of 5 characters', async () => {
      const user = await createUser(ctx);
      const res = await changePassword(user, { currentPassword: user.password, newPassword: 'Abcd1' });
      expect(failingFields(res)).toEqual(['newPassword']);
      expect(messageFor(res, 'newPassword')).toBe('New password must be at least 6 characters');
    });

    test.each([
      ['no lower-case letter', 'ABCDEF12'],
      ['no upper-case letter', 'abcdef12'],
      ['no digit', 'Abcdefgh'],
    ])('refuses a new password with %s, with the spec message', async (_label, newPassword) => {
      const user = await createUser(ctx);
      const res = await changePassword(user, { currentPassword: user.password, newPassword });
      expect(failingFields(res)).toEqual(['newPassword']);
      expect(messageFor(res, 'newPassword')).toBe(
        'New password must contain at least one lowercase letter, one uppercase letter, and one number',
      );
      expect(await changesOf(user.id)).toHaveLength(0);
    });

    test('refuses a new password over 72 UTF-8 bytes in fewer than 72 characters', async () => {
      const user = await createUser(ctx);
      const newPassword = `Aa1${'é€'.repeat(24)}`; // 51 characters, 123 bytes
      expect(newPassword.length).toBeLessThan(72);
      const res = await changePassword(user, { currentPassword: user.password, newPassword });
      expect(failingFields(res)).toEqual(['newPassword']);
      expect(messageFor(res, 'newPassword')).toBe('Password must be at most 72 bytes');
    });

    test('refuses a new password of 73 bytes', async () => {
      const user = await createUser(ctx);
      const res = await changePassword(user, { currentPassword: user.password, newPassword: `Aa1${'€'.repeat(23)}x` });
      expect(messageFor(res, 'newPassword')).toBe('Password must be at most 72 bytes');
    });

    test('refuses a current password over 72 bytes', async () => {
      const user = await createUser(ctx);
      const res = await changePassword(user, { currentPassword: 'é€'.repeat(24), newPassword: 'Fresh1Pass' });
      expect(failingFields(res)).toEqual(['currentPassword']);
      expect(messageFor(res, 'currentPassword')).toBe('Password must be at most 72 bytes');
    });

    test('refuses values of the wrong JSON type with 400, not 500', async () => {
      const user = await createUser(ctx);
      for (const value of [123456, { a: 'Fresh1Pass' }, ['Fresh1Pass'], true]) {
        const res = await changePassword(user, { currentPassword: value, newPassword: value });
        expect(failingFields(res)).toEqual(['currentPassword', 'newPassword']);
      }
      expect(await changesOf(user.id)).toHaveLength(0);
    });
  });
});
