import { setupTestContext } from '../helpers/context';
import { createOrganization, createUser, type TestUser } from '../helpers/factory';
import { getAs, insertFailedLogin, insertPasswordChange, SECURITY_TEST_ENV } from './security-support';

const ctx = setupTestContext(SECURITY_TEST_ENV);

const MINUTE = 60 * 1000;
type Event = { type: string; id: number; at: string } & Record<string, unknown>;
const keyOf = (e: Event) => `${e.type}:${e.id}`;

describe('GET /api/security/recent-events', () => {
  let org: number;
  let admin: TestUser;
  let user: TestUser;
  const k: Record<string, string> = {};

  beforeAll(async () => {
    org = await createOrganization(ctx);
    admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    user = await createUser(ctx, { organization_id: org });
    const now = Date.now();
    const tie = new Date(now - 5 * MINUTE);
    const failed = async (name: string, login_id: string, attempted_at: Date) => {
      k[name] = `failed_login:${await insertFailedLogin(ctx, { login_id, organization_id: org, attempted_at })}`;
    };
    const changed = async (name: string, who: TestUser, changed_at: Date) => {
      const id = await insertPasswordChange(ctx, { user_id: who.id, changed_by: who.id, organization_id: org, changed_at });
      k[name] = `password_change:${id}`;
    };
    await failed('f1', user.email, new Date(now - 10 * MINUTE));
    await changed('p1', user, new Date(now - 9 * MINUTE));
    await failed('f2', admin.email, new Date(now - 8 * MINUTE));
    await changed('p2', admin, new Date(now - 7 * MINUTE));
    await failed('f3', user.service_no, new Date(now - 6 * MINUTE));
    await changed('p3', user, tie);
    await failed('f4', user.email, tie);
  });

  const keys = (...names: string[]) => names.map((n) => k[n]);

  test('merges both kinds newest first; at the same time a failed sign-in comes first', async () => {
    const res = await getAs(ctx, admin, 'recent-events');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Recent security events retrieved successfully');
    expect(res.body.data.events.map(keyOf)).toEqual(keys('f4', 'p3', 'f3', 'p2', 'f2', 'p1', 'f1'));
  });

  test('limit caps the events of both kinds together', async () => {
    const res = await getAs(ctx, admin, 'recent-events', { limit: 3 });
    expect(res.body.data.events.map(keyOf)).toEqual(keys('f4', 'p3', 'f3'));
  });

  test('each event carries its type, its time as at, and the fields of its record', async () => {
    const res = await getAs(ctx, admin, 'recent-events', { limit: 2 });
    const [failed, changed] = res.body.data.events as Event[];
    expect(Object.keys(failed).sort()).toEqual(
      ['type', 'at', 'id', 'login_id', 'organization_id', 'organization_name', 'ip_address', 'attempted_at', 'reason'].sort(),
    );
    expect(failed).toMatchObject({ type: 'failed_login', login_id: user.email, organization_id: org });
    expect(failed.at).toBe(failed.attempted_at);
    expect(Object.keys(changed).sort()).toEqual(
      ['type', 'at', 'id', 'user_id', 'changed_by', 'organization_id', 'organization_name', 'changed_at', 'change_type'].sort(),
    );
    expect(changed).toMatchObject({ type: 'password_change', user_id: user.id, change_type: 'self' });
    expect(changed.at).toBe(changed.changed_at);
    expect(changed.at).toBe(failed.at);
  });

  test('a User gets only its own events', async () => {
    const res = await getAs(ctx, user, 'recent-events');
    expect(res.body.data.events.map(keyOf)).toEqual(keys('f4', 'p3', 'f3', 'p1', 'f1'));
  });

  test('the Super_admin gets the organization it names, and every organization newest first', async () => {
    const superAdmin = await createUser(ctx, { role: 'Super_admin' });
    const named = await getAs(ctx, superAdmin, 'recent-events', { organization_id: org });
    expect(named.body.data.events.map(keyOf)).toEqual(keys('f4', 'p3', 'f3', 'p2', 'f2', 'p1', 'f1'));
    const all = await getAs(ctx, superAdmin, 'recent-events', { limit: 100 });
    const times = (all.body.data.events as Event[]).map((e) => Date.parse(e.at));
    expect(times.length).toBeGreaterThanOrEqual(7);
    expect(times.length).toBeLessThanOrEqual(100);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test('defaults to 20 events', async () => {
    const busy = await createOrganization(ctx);
    const busyAdmin = await createUser(ctx, { role: 'Admin', organization_id: busy });
    const base = Date.now() - 60 * MINUTE;
    const expected: string[] = [];
    for (let i = 0; i < 15; i++) {
      const f = await insertFailedLogin(ctx, { login_id: busyAdmin.email, organization_id: busy, attempted_at: new Date(base + 2 * i * MINUTE) });
      const p = await insertPasswordChange(ctx, {
        user_id: busyAdmin.id,
        changed_by: busyAdmin.id,
        organization_id: busy,
        changed_at: new Date(base + (2 * i + 1) * MINUTE),
      });
      expected.unshift(`failed_login:${f}`);
      expected.unshift(`password_change:${p}`);
    }
    const res = await getAs(ctx, busyAdmin, 'recent-events');
    expect(res.body.data.events.map(keyOf)).toEqual(expected.slice(0, 20));
    const more = await getAs(ctx, busyAdmin, 'recent-events', { limit: 100 });
    expect(more.body.data.events.map(keyOf)).toEqual(expected);
  });
});
