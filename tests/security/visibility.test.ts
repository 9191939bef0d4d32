import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { unique } from '../helpers/factory';
import {
  changePassword,
  createOrgWithMembers,
  failSignIn,
  getAs,
  insertFailedLogin,
  SECURITY_TEST_ENV,
  signIn,
  sorted,
  sortedIds,
  SUPER_ADMIN,
  type Org,
} from './security-support';

const ctx = setupTestContext(SECURITY_TEST_ENV);

interface OrgRecords {
  /** every failed sign-in recorded for the organization */
  failed: number[];
  /** the failed sign-ins under the User's own e-mail or service number */
  userFailed: number[];
  changes: number[];
  userChanges: number[];
}

let superAdmin: { token: string };
let orgA: Org;
let orgB: Org;
const records = new Map<number, OrgRecords>();
let unknownId: string;
let unknownRecord: number;

/** Failed sign-ins and password changes of one organization, through the real flows. */
async function recordActivity(org: Org): Promise<OrgRecords> {
  const userFailed = [
    await failSignIn(ctx, org.user.email),
    // e-mail addresses compare case-insensitively
    await failSignIn(ctx, org.user.email.toUpperCase(), { ip: '203.0.113.9' }),
    await failSignIn(ctx, org.user.service_no, { field: 'login_id' }),
  ];
  const adminFailed = [await failSignIn(ctx, org.admin.email), await failSignIn(ctx, org.admin.service_no)];
  const userChanges = [await changePassword(ctx, org.user)];
  const adminChanges = [await changePassword(ctx, org.admin), await changePassword(ctx, org.admin)];
  return {
    failed: sorted([...userFailed, ...adminFailed]),
    userFailed: sorted(userFailed),
    changes: sorted([...userChanges, ...adminChanges]),
    userChanges,
  };
}

beforeAll(async () => {
  superAdmin = { token: await signIn(ctx, SUPER_ADMIN.email, SUPER_ADMIN.password) };
  orgA = await createOrgWithMembers(ctx, superAdmin.token);
  orgB = await createOrgWithMembers(ctx, superAdmin.token);
  records.set(orgA.id, await recordActivity(orgA));
  records.set(orgB.id, await recordActivity(orgB));
  unknownId = `${unique('ghost')}@example.test`;
  unknownRecord = await failSignIn(ctx, unknownId);
});

const ofOrg = (org: Org) => records.get(org.id)!;

describe('GET /api/security/failed-logins visibility', () => {
  test('answers 401 without a token on every security endpoint', async () => {
    for (const path of ['failed-logins', 'password-changes', 'recent-events']) {
      const res = await request(ctx.app).get(`/api/security/${path}`);
      expect({ path, status: res.status, body: res.body }).toMatchObject({ path, status: 401, body: { status: 'error' } });
    }
  });

  test.each([['A'], ['B']])('an Admin of organization %s sees exactly its organization rows', async (which) => {
    const org = which === 'A' ? orgA : orgB;
    const res = await getAs(ctx, org.admin, 'failed-logins');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', message: 'Failed login attempts retrieved successfully' });
    expect(sortedIds(res.body.data.attempts)).toEqual(ofOrg(org).failed);
    expect(res.body.data.summary.total).toBe(ofOrg(org).failed.length);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 50, total: ofOrg(org).failed.length, total_pages: 1, has_more: false });
  });

  test.each([['A'], ['B']])('a User of organization %s sees only sign-ins under its own e-mail or service number', async (which) => {
    const org = which === 'A' ? orgA : orgB;
    const res = await getAs(ctx, org.user, 'failed-logins');
    expect(res.status).toBe(200);
    expect(sortedIds(res.body.data.attempts)).toEqual(ofOrg(org).userFailed);
    const loginIds = new Set(res.body.data.attempts.map((a: { login_id: string }) => a.login_id));
    expect(loginIds).toEqual(new Set([org.user.email, org.user.service_no]));
    expect(res.body.data.summary).toMatchObject({ total: 3, unique_login_ids: 2, by_reason: { 'Invalid password': 3 } });
  });

  test('lists records with exactly the specified fields, user agent left out', async () => {
    const res = await getAs(ctx, orgA.admin, 'failed-logins', { login_id: orgA.user.service_no });
    expect(res.body.data.attempts).toHaveLength(1);
    const [attempt] = res.body.data.attempts;
    expect(Object.keys(attempt).sort()).toEqual(
      ['attempted_at', 'id', 'ip_address', 'login_id', 'organization_id', 'organization_name', 'reason'].sort(),
    );
    const org = await ctx.db('organizations').where({ id: orgA.id }).first('name');
    expect(attempt).toMatchObject({
      login_id: orgA.user.service_no,
      organization_id: orgA.id,
      organization_name: org.name,
      ip_address: '198.51.100.7',
      reason: 'Invalid password',
    });
    expect(attempt.attempted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('an Admin asking for another organization_id still gets only its own organization', async () => {
    const res = await getAs(ctx, orgA.admin, 'failed-logins', { organization_id: orgB.id });
    expect(res.status).toBe(200);
    expect(sortedIds(res.body.data.attempts)).toEqual(ofOrg(orgA).failed);
    const nulls = await getAs(ctx, orgA.admin, 'failed-logins', { organization_id: 'null', login_id: unknownId });
    expect(nulls.body.data.attempts).toEqual([]);
  });

  test('a User asking for another organization_id or login_id still gets only its own rows', async () => {
    const other = await getAs(ctx, orgA.user, 'failed-logins', { organization_id: orgB.id });
    expect(sortedIds(other.body.data.attempts)).toEqual(ofOrg(orgA).userFailed);
    const someoneElse = await getAs(ctx, orgA.user, 'failed-logins', { login_id: orgA.admin.email });
    expect(someoneElse.body.data.attempts).toEqual([]);
    expect(someoneElse.body.data.summary.total).toBe(0);
  });

  test('no login_id filter reaches another organization', async () => {
    const res = await getAs(ctx, orgB.admin, 'failed-logins', { login_id: orgA.user.email });
    expect(res.body.data.attempts).toEqual([]);
    expect(res.body.data.summary).toMatchObject({ total: 0, unique_login_ids: 0, by_reason: {}, top_login_ids: [] });
  });

  test('a User does not see a record of its login identifier filed under another organization', async () => {
    const foreign = await insertFailedLogin(ctx, { login_id: orgA.user.email, organization_id: orgB.id, attempted_at: new Date() });
    try {
      const mine = await getAs(ctx, orgA.user, 'failed-logins');
      expect(sortedIds(mine.body.data.attempts)).toEqual(ofOrg(orgA).userFailed);
      const theirs = await getAs(ctx, orgB.admin, 'failed-logins', { login_id: orgA.user.email });
      expect(sortedIds(theirs.body.data.attempts)).toEqual([foreign]);
    } finally {
      await ctx.db('failed_login_attempts').where({ id: foreign }).delete();
    }
  });

  test('the Super_admin sees every organization when it names one', async () => {
    for (const org of [orgA, orgB]) {
      const res = await getAs(ctx, superAdmin, 'failed-logins', { organization_id: org.id });
      expect(sortedIds(res.body.data.attempts)).toEqual(ofOrg(org).failed);
    }
    // without organization_id: across organizations (narrowed here to this test's identifiers)
    const across = await Promise.all(
      [orgA.user.service_no, orgB.user.service_no].map((id) => getAs(ctx, superAdmin, 'failed-logins', { login_id: id })),
    );
    expect(across.map((res) => res.body.data.attempts.map((a: { organization_id: number }) => a.organization_id))).toEqual([
      [orgA.id],
      [orgB.id],
    ]);
  });

  test('the Super_admin sees failed sign-ins of unknown identifiers, with a null organization', async () => {
    const res = await getAs(ctx, superAdmin, 'failed-logins', { login_id: unknownId });
    expect(res.body.data.attempts).toEqual([
      expect.objectContaining({ id: unknownRecord, organization_id: null, organization_name: null, reason: 'User not found' }),
    ]);
    const onlyNull = await getAs(ctx, superAdmin, 'failed-logins', { organization_id: 'null', login_id: unknownId });
    expect(sortedIds(onlyNull.body.data.attempts)).toEqual([unknownRecord]);
    const byOrg = await getAs(ctx, superAdmin, 'failed-logins', { organization_id: orgA.id, login_id: unknownId });
    expect(byOrg.body.data.attempts).toEqual([]);
    for (const member of [orgA.admin, orgA.user, orgB.admin]) {
      const hidden = await getAs(ctx, member, 'failed-logins', { login_id: unknownId });
      expect(hidden.body.data.attempts).toEqual([]);
    }
  });
});

describe('GET /api/security/password-changes visibility', () => {
  test.each([['A'], ['B']])('an Admin of organization %s sees exactly its organization changes', async (which) => {
    const org = which === 'A' ? orgA : orgB;
    const res = await getAs(ctx, org.admin, 'password-changes');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Password changes retrieved successfully');
    expect(sortedIds(res.body.data.changes)).toEqual(ofOrg(org).changes);
    expect(res.body.data.summary).toEqual({ generated_at: expect.any(String), total: 3, by_type: { self: 3, admin_reset: 0, forced: 0 }, last_24h: 3 });
  });

  test.each([['A'], ['B']])('a User of organization %s sees only its own changes', async (which) => {
    const org = which === 'A' ? orgA : orgB;
    const res = await getAs(ctx, org.user, 'password-changes');
    expect(sortedIds(res.body.data.changes)).toEqual(ofOrg(org).userChanges);
    expect(res.body.data.changes[0]).toMatchObject({ user_id: org.user.id, changed_by: org.user.id, organization_id: org.id, change_type: 'self' });
    expect(res.body.data.summary.total).toBe(1);
  });

  test('a User filtering by another user_id gets nothing', async () => {
    const res = await getAs(ctx, orgA.user, 'password-changes', { user_id: orgA.admin.id });
    expect(res.status).toBe(200);
    expect(res.body.data.changes).toEqual([]);
  });

  test('an Admin asking for another organization, or its user, gets nothing of it', async () => {
    const res = await getAs(ctx, orgA.admin, 'password-changes', { organization_id: orgB.id });
    expect(sortedIds(res.body.data.changes)).toEqual(ofOrg(orgA).changes);
    const theirUser = await getAs(ctx, orgA.admin, 'password-changes', { user_id: orgB.user.id });
    expect(theirUser.body.data.changes).toEqual([]);
  });

  test('the Super_admin sees the changes of each organization it names', async () => {
    for (const org of [orgA, orgB]) {
      const res = await getAs(ctx, superAdmin, 'password-changes', { organization_id: org.id });
      expect(sortedIds(res.body.data.changes)).toEqual(ofOrg(org).changes);
    }
  });
});

describe('GET /api/security/recent-events visibility', () => {
  test('an Admin gets only its own organization events, a User only its own', async () => {
    const admin = await getAs(ctx, orgA.admin, 'recent-events', { limit: 100 });
    expect(admin.status).toBe(200);
    const adminIds = (type: string) =>
      sorted(admin.body.data.events.filter((e: { type: string }) => e.type === type).map((e: { id: number }) => e.id));
    expect(adminIds('failed_login')).toEqual(ofOrg(orgA).failed);
    expect(adminIds('password_change')).toEqual(ofOrg(orgA).changes);

    const user = await getAs(ctx, orgB.user, 'recent-events', { organization_id: orgA.id });
    const userIds = (type: string) =>
      sorted(user.body.data.events.filter((e: { type: string }) => e.type === type).map((e: { id: number }) => e.id));
    expect(userIds('failed_login')).toEqual(ofOrg(orgB).userFailed);
    expect(userIds('password_change')).toEqual(ofOrg(orgB).userChanges);
  });
});
