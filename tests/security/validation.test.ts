import { setupTestContext } from '../helpers/context';
import { createUser, type TestUser } from '../helpers/factory';
import { failingFields, getAs, SECURITY_TEST_ENV } from './security-support';

const ctx = setupTestContext(SECURITY_TEST_ENV);

let admin: TestUser;
beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Admin' });
});

const fieldsOf = async (path: string, query: Record<string, unknown>) => failingFields(await getAs(ctx, admin, path, query));

describe('security list validation', () => {
  test.each([
    ['not a date', { from: 'yesterday' }, 'from'],
    ['a day that does not exist', { from: '2026-02-30' }, 'from'],
    ['a month out of range', { to: '2026-13-01' }, 'to'],
    ['an hour out of range', { from: '2026-11-22T25:00:00Z' }, 'from'],
    ['a number of seconds', { to: '1732262400' }, 'to'],
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 501', { limit: 501 }, 'limit'],
    ['a limit that is no integer', { limit: '2.5' }, 'limit'],
    ['page 0', { page: 0 }, 'page'],
    ['a login_id over 100 characters', { login_id: 'x'.repeat(101) }, 'login_id'],
    ['an ip_address over 45 characters', { ip_address: '1'.repeat(46) }, 'ip_address'],
    ['an organization_id that is no id', { organization_id: 'abc' }, 'organization_id'],
    ['organization_id 0', { organization_id: 0 }, 'organization_id'],
  ])('failed-logins refuses %s', async (_name, query, field) => {
    expect(await fieldsOf('failed-logins', query)).toEqual([field]);
  });

  test('organization_id: the message for a bad one; "null" and digits with spaces are taken', async () => {
    const res = await getAs(ctx, admin, 'failed-logins', { organization_id: '-3' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'organization_id', message: 'organization_id must be a positive integer or null' })]);
    for (const organization_id of ['null', ' 1 ']) {
      expect((await getAs(ctx, admin, 'failed-logins', { organization_id })).status).toBe(200);
    }
  });

  test('failed-logins refuses from after to, on field to', async () => {
    expect(await fieldsOf('failed-logins', { from: '2026-11-23', to: '2026-11-22' })).toEqual(['to']);
    expect(await fieldsOf('failed-logins', { from: '2026-11-22T10:00:00.001Z', to: '2026-11-22T10:00:00Z' })).toEqual(['to']);
  });

  test('a date-only from and to of the same day is a valid range', async () => {
    const res = await getAs(ctx, admin, 'failed-logins', { from: '2026-11-22', to: '2026-11-22' });
    expect(res.status).toBe(200);
  });

  test('lists every failing field at once', async () => {
    expect(await fieldsOf('failed-logins', { from: 'x', limit: 0, page: -1 })).toEqual(['from', 'limit', 'page']);
  });

  test('a repeated parameter where a single value belongs is a validation failure, not a server error', async () => {
    const res = await getAs(ctx, admin, 'failed-logins', { login_id: ['a', 'b'], from: ['2026-11-01', '2026-11-02'], limit: ['1', '2'] });
    expect(failingFields(res)).toEqual(['from', 'limit', 'login_id']);
    const changes = await getAs(ctx, admin, 'password-changes', { change_type: ['self', 'forced'], organization_id: ['1', '2'] });
    expect(failingFields(changes)).toEqual(['change_type', 'organization_id']);
  });

  test.each([
    ['an unknown change_type', { change_type: 'stolen' }, 'change_type'],
    ['user_id 0', { user_id: 0 }, 'user_id'],
    ['limit 501', { limit: 501 }, 'limit'],
    ['a bad to', { to: '2026-11-22T10:61:00Z' }, 'to'],
  ])('password-changes refuses %s', async (_name, query, field) => {
    expect(await fieldsOf('password-changes', query)).toEqual([field]);
  });

  test.each([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
  ])('recent-events refuses %s', async (_name, query) => {
    expect(await fieldsOf('recent-events', query)).toEqual(['limit']);
  });

  test('accepts the limits at both ends of their ranges', async () => {
    for (const [path, limit] of [
      ['failed-logins', 1],
      ['failed-logins', 500],
      ['password-changes', 500],
      ['recent-events', 100],
    ] as const) {
      const res = await getAs(ctx, admin, path, { limit });
      expect({ path, limit, status: res.status }).toEqual({ path, limit, status: 200 });
    }
  });
});
