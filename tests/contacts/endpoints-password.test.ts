import { toIsoRequired } from '../../src/lib/time';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUnit, createUser, type TestUser } from '../helpers/factory';
import { contactsFixture } from './contacts-support';

/** Admin password reset, PUT /api/contacts/:id/password (DECISIONS 2, 3). */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const { api, login, row } = contactsFixture(ctx);

const reset = (caller: TestUser, id: number, newPassword: unknown) =>
  api().put(`/api/contacts/${id}/password`).set(bearer(caller)).send({ newPassword });
const logsOf = (userId: number) =>
  ctx.db('password_change_logs').where({ user_id: userId }).select('user_id', 'changed_by', 'organization_id', 'change_type', 'changed_at', 'ip_address');

async function pair(adminRole: 'Admin' | 'Super_admin' = 'Admin', targetRole: 'User' | 'Admin' | 'Super_admin' = 'User') {
  const unit = await createUnit(ctx);
  const admin = await createUser(ctx, { role: adminRole, unit_id: unit.id });
  const target = await createUser(ctx, { role: targetRole, unit_id: unit.id });
  return { admin, target };
}

describe('PUT /api/contacts/:id/password', () => {
  test('answers 200; the contact signs in with the new password and no longer with the old one', async () => {
    const { admin, target } = await pair();
    const res = await reset(admin, target.id, 'Brand1New');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'Password reset successfully', data: {} });
    expect((await login(target.email, 'Brand1New')).status).toBe(200);
    const old = await login(target.email, target.password);
    expect(old.status).toBe(401);
    expect(old.body.message).toBe('Invalid credentials');
  });

  test('revokes the contact\'s earlier access and refresh tokens', async () => {
    const { admin, target } = await pair();
    expect((await api().get(`/api/contacts/${target.id}`).set(bearer(target))).status).toBe(200);
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    const access = await api().get(`/api/contacts/${target.id}`).set(bearer(target));
    expect(access.status).toBe(401);
    expect(access.body.message).toBe('Invalid or expired token');
    const refresh = await api().post('/api/auth/refresh-token').send({ refreshToken: target.refreshToken });
    expect(refresh.status).toBe(401);
  });

  test('leaves the admin\'s own tokens working', async () => {
    const { admin, target } = await pair();
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    expect((await api().get(`/api/contacts/${target.id}`).set(bearer(admin))).status).toBe(200);
  });

  test('writes a password change record: admin_reset, changed_by the admin, the contact\'s organization', async () => {
    const organizationId = await createOrganization(ctx);
    const unit = await createUnit(ctx);
    const admin = await createUser(ctx, { role: 'Super_admin', unit_id: unit.id });
    const target = await createUser(ctx, { unit_id: unit.id, organization_id: organizationId });
    const before = Date.now();
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    const logs = await logsOf(target.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ user_id: target.id, changed_by: admin.id, organization_id: organizationId, change_type: 'admin_reset' });
    const changedAt = Date.parse(toIsoRequired(logs[0].changed_at));
    expect(changedAt).toBeGreaterThanOrEqual(before - 2000);
  });

  test('the record is visible to the admin in the security list', async () => {
    const { admin, target } = await pair('Super_admin');
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    const res = await api().get('/api/security/password-changes').query({ user_id: target.id }).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data.changes).toEqual([expect.objectContaining({ user_id: target.id, change_type: 'admin_reset' })]);
  });

  test('an Admin may reset the password of another Admin', async () => {
    const { admin, target } = await pair('Admin', 'Admin');
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    expect((await login(target.email, 'Brand1New')).status).toBe(200);
  });

  test('a Super_admin may reset the password of a Super_admin', async () => {
    const { admin, target } = await pair('Super_admin', 'Super_admin');
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    expect((await login(target.email, 'Brand1New')).status).toBe(200);
  });

  test('a contact created without a password can sign in after a reset', async () => {
    const unit = await createUnit(ctx);
    const admin = await createUser(ctx, { role: 'Admin', unit_id: unit.id });
    const target = await createUser(ctx, { unit_id: unit.id, password: null });
    expect((await login(target.email, 'Brand1New')).status).toBe(401);
    expect((await reset(admin, target.id, 'Brand1New')).status).toBe(200);
    expect((await login(target.email, 'Brand1New')).status).toBe(200);
  });

  test('an Admin on a Super_admin: 403 `Insufficient permissions`, nothing changes, nothing recorded', async () => {
    const { admin, target } = await pair('Admin', 'Super_admin');
    const before = await row(target.id);
    const res = await reset(admin, target.id, 'Brand1New');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
    expect(await row(target.id)).toEqual(before);
    expect(await logsOf(target.id)).toEqual([]);
    expect((await login(target.email, target.password)).status).toBe(200);
  });

  test('a User: 403 `Insufficient permissions`, also on itself', async () => {
    const { target } = await pair();
    const other = await createUser(ctx, { unit_id: target.unit_id });
    for (const id of [other.id, target.id]) {
      const res = await reset(target, id, 'Brand1New');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
    }
    expect((await login(target.email, target.password)).status).toBe(200);
    expect((await login(other.email, other.password)).status).toBe(200);
  });

  test.each([
    ['shorter than 6 characters', 'Ab1cd', 'New password must be at least 6 characters'],
    ['without a digit', 'Abcdefgh', 'New password must contain at least one lowercase letter, one uppercase letter, and one number'],
    ['without an upper-case letter', 'abcdefg1', 'New password must contain at least one lowercase letter, one uppercase letter, and one number'],
    ['without a lower-case letter', 'ABCDEFG1', 'New password must contain at least one lowercase letter, one uppercase letter, and one number'],
    ['of 73 bytes in UTF-8', `Aa1${'é'.repeat(35)}`, 'Password must be at most 72 bytes'],
    ['of 73 ASCII bytes', `Aa1${'x'.repeat(70)}`, 'Password must be at most 72 bytes'],
  ])('refuses a password %s with 400 on newPassword, and changes nothing', async (_what, password, message) => {
    const { admin, target } = await pair();
    const before = await row(target.id);
    const res = await reset(admin, target.id, password);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field: 'newPassword', message }] });
    expect(await row(target.id)).toEqual(before);
    expect(await logsOf(target.id)).toEqual([]);
  });

  test.each([
    ['exactly 6 characters', 'Abcde1'],
    ['exactly 72 bytes', `Aa1${'x'.repeat(69)}`],
    ['72 bytes with multi-byte characters', `Aa1${'x'.repeat(1)}${'é'.repeat(34)}`],
  ])('accepts a password of %s, and it works in full', async (_what, password) => {
    const { admin, target } = await pair();
    expect(Buffer.byteLength(password, 'utf8')).toBeLessThanOrEqual(72);
    expect((await reset(admin, target.id, password)).status).toBe(200);
    expect((await login(target.email, password)).status).toBe(200);
  });

  test.each([
    ['an unknown contact', async () => 2_000_000_000],
    ['an inactive contact', async () => (await createUser(ctx, { is_active: false })).id],
  ])('answers 404 `Contact not found` for %s', async (_what, idOf) => {
    const { admin } = await pair();
    const id = await idOf();
    const res = await reset(admin, id, 'Brand1New');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
    expect(await logsOf(id)).toEqual([]);
  });
});
