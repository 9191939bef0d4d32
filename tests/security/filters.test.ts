import { setupTestContext } from '../helpers/context';
import { createOrganization, createUser, unique, type TestUser } from '../helpers/factory';
import { getAs, idsOf, insertFailedLogin, insertPasswordChange, SECURITY_TEST_ENV } from './security-support';

const ctx = setupTestContext(SECURITY_TEST_ENV);

const HOUR = 60 * 60 * 1000;
const at = (iso: string) => new Date(iso);
const IP1 = '192.0.2.10';
const IP2 = '2001:db8::20';
const IP3 = '198.51.100.30';

describe('GET /api/security/failed-logins filters, paging and summary', () => {
  let admin: TestUser;
  // login identifiers in alphabetical order: alice < bob < carol
  const alice = `${unique('alice')}@example.test`;
  const bob = unique('bob-sn');
  const carol = `${unique('carol')}@example.test`;
  const r: Record<string, number> = {};

  beforeAll(async () => {
    const org = await createOrganization(ctx);
    admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    const now = Date.now();
    const add = async (name: string, login_id: string, ip_address: string, reason: string, when: Date) => {
      r[name] = await insertFailedLogin(ctx, { login_id, organization_id: org, ip_address, reason, attempted_at: when });
    };
    await add('r1', alice, IP1, 'Invalid password', at('2025-03-10T08:00:00.000Z'));
    await add('r2', alice, IP2, 'Invalid password', at('2025-03-10T23:59:59.999Z'));
    await add('r3', bob, IP1, 'Account is deactivated', at('2025-03-11T00:00:00.000Z'));
    await add('r4', bob, IP1, 'Invalid password', at('2025-03-12T12:00:00.000Z'));
    await add('r5', carol, IP3, 'Invalid password', at('2025-03-12T12:00:00.000Z'));
    await add('r6', alice, IP2, 'Invalid password', new Date(now - HOUR));
    await add('r7', carol, IP1, 'Account is deactivated', new Date(now - 23 * HOUR));
    await add('r8', bob, IP2, 'Invalid password', new Date(now - 25 * HOUR));
  });

  const list = async (query: Record<string, unknown> = {}) => {
    const res = await getAs(ctx, admin, 'failed-logins', query);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const ids = (...names: string[]) => names.map((n) => r[n]);

  test('lists newest first, ties in time by id, newest first', async () => {
    const data = await list();
    expect(idsOf(data.attempts)).toEqual(ids('r6', 'r7', 'r8', 'r5', 'r4', 'r3', 'r2', 'r1'));
  });

  test('a date-only range covers whole days', async () => {
    expect(idsOf((await list({ from: '2025-03-10', to: '2025-03-10' })).attempts)).toEqual(ids('r2', 'r1'));
    expect(idsOf((await list({ from: '2025-03-11', to: '2025-03-12' })).attempts)).toEqual(ids('r5', 'r4', 'r3'));
  });

  test('date-time bounds are inclusive to the millisecond', async () => {
    const data = await list({ from: '2025-03-10T23:59:59.999Z', to: '2025-03-11T00:00:00.000Z' });
    expect(idsOf(data.attempts)).toEqual(ids('r3', 'r2'));
    const after = await list({ from: '2025-03-11T00:00:00.001Z', to: '2025-03-12T11:59:59.999Z' });
    expect(after.attempts).toEqual([]);
  });

  test('a zone offset is honoured and a date-time without one is UTC', async () => {
    // 01:00 at +01:00 is midnight UTC
    expect(idsOf((await list({ from: '2025-03-11T01:00:00+01:00', to: '2025-03-11' })).attempts)).toEqual(ids('r3'));
    expect(idsOf((await list({ to: '2025-03-10T08:00:00' })).attempts)).toEqual(ids('r1'));
  });

  test('filters by login_id, e-mail addresses case-insensitively', async () => {
    expect(idsOf((await list({ login_id: alice.toUpperCase() })).attempts)).toEqual(ids('r6', 'r2', 'r1'));
    expect(idsOf((await list({ login_id: bob })).attempts)).toEqual(ids('r8', 'r4', 'r3'));
    expect((await list({ login_id: bob.toUpperCase() })).attempts).toEqual([]);
  });

  test('filters by ip_address and by reason, alone and together', async () => {
    expect(idsOf((await list({ ip_address: IP1 })).attempts)).toEqual(ids('r7', 'r4', 'r3', 'r1'));
    expect(idsOf((await list({ reason: 'Account is deactivated' })).attempts)).toEqual(ids('r7', 'r3'));
    expect(idsOf((await list({ login_id: bob, ip_address: IP1, reason: 'Invalid password' })).attempts)).toEqual(ids('r4'));
  });

  test('an empty text filter is no filter', async () => {
    expect((await list({ login_id: '', ip_address: '', reason: '' })).pagination.total).toBe(8);
  });

  test('pages through the list', async () => {
    const second = await list({ limit: 3, page: 2 });
    expect(idsOf(second.attempts)).toEqual(ids('r5', 'r4', 'r3'));
    expect(second.pagination).toEqual({ page: 2, limit: 3, total: 8, total_pages: 3, has_more: true });
    const last = await list({ limit: 3, page: 3 });
    expect(idsOf(last.attempts)).toEqual(ids('r2', 'r1'));
    const beyond = await list({ limit: 3, page: 4 });
    expect(beyond.attempts).toEqual([]);
    expect(beyond.pagination.total).toBe(8);
  });

  test('summarizes the whole filtered set, not the page', async () => {
    const { summary } = await list({ limit: 1 });
    expect(summary).toEqual({
      generated_at: expect.any(String),
      total: 8,
      unique_login_ids: 3,
      unique_ips: 3,
      by_reason: { 'Invalid password': 6, 'Account is deactivated': 2 },
      last_24h: 2,
      top_login_ids: [
        { login_id: alice, count: 3 },
        { login_id: bob, count: 3 },
        { login_id: carol, count: 2 },
      ],
      top_ips: [
        { ip_address: IP1, count: 4 },
        { ip_address: IP2, count: 3 },
        { ip_address: IP3, count: 1 },
      ],
    });
  });

  test('the summary follows the filters', async () => {
    const byReason = (await list({ reason: 'Invalid password' })).summary;
    expect(byReason).toMatchObject({ total: 6, unique_login_ids: 3, unique_ips: 3, by_reason: { 'Invalid password': 6 }, last_24h: 1 });
    const byTime = (await list({ from: '2025-03-10', to: '2025-03-12' })).summary;
    expect(byTime).toMatchObject({ total: 5, unique_ips: 3, last_24h: 0 });
    expect(byTime.top_login_ids).toEqual([
      { login_id: alice, count: 2 },
      { login_id: bob, count: 2 },
      { login_id: carol, count: 1 },
    ]);
  });
});

describe('GET /api/security/failed-logins top lists', () => {
  test('rank the ten login identifiers and addresses with most failures, nulls left out', async () => {
    const org = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    const prefix = unique('top');
    const counts = [5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1];
    const loginIds = counts.map((_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
    const ips = counts.map((_, i) => `10.9.${i}.1`);
    for (const [i, count] of counts.entries()) {
      for (let k = 0; k < count; k++) {
        await insertFailedLogin(ctx, { login_id: loginIds[i], organization_id: org, ip_address: ips[i], attempted_at: new Date() });
      }
    }
    await insertFailedLogin(ctx, { login_id: null, organization_id: org, ip_address: null, attempted_at: new Date() });
    await insertFailedLogin(ctx, { login_id: null, organization_id: org, ip_address: null, attempted_at: new Date() });

    const res = await getAs(ctx, admin, 'failed-logins');
    const { summary } = res.body.data;
    expect(summary).toMatchObject({ total: 24, unique_login_ids: 12, unique_ips: 12, last_24h: 24 });
    // ties in count go by the identifier, ascending
    expect(summary.top_login_ids).toEqual(loginIds.slice(0, 10).map((login_id, i) => ({ login_id, count: counts[i] })));
    const ipOrder = [...ips.slice(0, 4), ...ips.slice(4).sort()].slice(0, 10);
    expect(summary.top_ips).toEqual(ipOrder.map((ip_address) => ({ ip_address, count: counts[ips.indexOf(ip_address)] })));
  });
});

describe('GET /api/security/password-changes filters, paging and summary', () => {
  let admin: TestUser;
  let u1: TestUser;
  let u2: TestUser;
  const c: Record<string, number> = {};

  beforeAll(async () => {
    const org = await createOrganization(ctx);
    admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    u1 = await createUser(ctx, { organization_id: org });
    u2 = await createUser(ctx, { organization_id: org });
    const now = Date.now();
    const add = async (name: string, user: TestUser, by: TestUser, change_type: string, changed_at: Date) => {
      c[name] = await insertPasswordChange(ctx, { user_id: user.id, changed_by: by.id, organization_id: org, change_type, changed_at });
    };
    await add('c1', u1, u1, 'self', at('2025-03-10T10:00:00.000Z'));
    await add('c2', u1, admin, 'admin_reset', at('2025-03-11T10:00:00.000Z'));
    await add('c3', u2, admin, 'forced', at('2025-03-12T10:00:00.000Z'));
    await add('c4', u2, u2, 'self', new Date(now - 2 * HOUR));
    await add('c5', u1, u1, 'self', new Date(now - 30 * HOUR));
  });

  const list = async (query: Record<string, unknown> = {}) => {
    const res = await getAs(ctx, admin, 'password-changes', query);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const ids = (...names: string[]) => names.map((n) => c[n]);

  test('lists newest first with the changing user', async () => {
    const data = await list();
    expect(idsOf(data.changes)).toEqual(ids('c4', 'c5', 'c3', 'c2', 'c1'));
    expect(data.changes[3]).toEqual({
      id: c.c2,
      user_id: u1.id,
      changed_by: admin.id,
      organization_id: expect.any(Number),
      organization_name: expect.any(String),
      changed_at: '2025-03-11T10:00:00.000Z',
      change_type: 'admin_reset',
    });
  });

  test('filters by user_id, change_type and time', async () => {
    expect(idsOf((await list({ user_id: u1.id })).changes)).toEqual(ids('c5', 'c2', 'c1'));
    expect(idsOf((await list({ change_type: 'admin_reset' })).changes)).toEqual(ids('c2'));
    expect(idsOf((await list({ from: '2025-03-11', to: '2025-03-12' })).changes)).toEqual(ids('c3', 'c2'));
    expect(idsOf((await list({ user_id: u1.id, change_type: 'self' })).changes)).toEqual(ids('c5', 'c1'));
  });

  test('pages through the list', async () => {
    const data = await list({ limit: 2, page: 3 });
    expect(idsOf(data.changes)).toEqual(ids('c1'));
    expect(data.pagination).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3, has_more: false });
  });

  test('summarizes the filtered set, with every change type', async () => {
    expect((await list({ limit: 1 })).summary).toEqual({ generated_at: expect.any(String), total: 5, by_type: { self: 3, admin_reset: 1, forced: 1 }, last_24h: 1 });
    expect((await list({ user_id: u2.id })).summary).toEqual({ generated_at: expect.any(String), total: 2, by_type: { self: 1, admin_reset: 0, forced: 1 }, last_24h: 1 });
    expect((await list({ change_type: 'forced', from: '2025-03-13' })).summary).toEqual({
      generated_at: expect.any(String),
      total: 0,
      by_type: { self: 0, admin_reset: 0, forced: 0 },
      last_24h: 0,
    });
  });
});
