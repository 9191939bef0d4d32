import request from 'supertest';
import { pruneAuditTrail } from '../../src/modules/audit';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { createOrgWithMembers, SECURITY_TEST_ENV, signIn, SUPER_ADMIN, type Org } from '../security/security-support';
import type { AuditEvent } from './audit-support';

/**
 * Reading the trail (docs/audit.md, Reading it): who sees what, the filters and their
 * validation, the order and the pages, a contact's history; and that nothing changes an entry.
 */
const ctx = setupTestContext(SECURITY_TEST_ENV);
let superAdmin: { token: string; id: number };
let orgA: Org;
let orgB: Org;
/** each organization's own entries: its Admin's and its User's profile updates */
const own = new Map<number, number[]>();

const list = (caller: { token: string }, query: Record<string, unknown> = {}) =>
  request(ctx.app).get('/api/audit-events').set(bearer(caller)).query(query);
const ids = (res: request.Response) => (res.body.data.events as AuditEvent[]).map((e) => e.id);

async function profileUpdate(member: { token: string; id: number }): Promise<number> {
  const res = await request(ctx.app).put('/api/auth/profile').set(bearer(member)).send({ mobile: `017${Date.now() % 1e8}` });
  expect(res.status).toBe(200);
  const row = await ctx.db('audit_events').where({ action: 'profile.update', target_id: member.id }).orderBy('id', 'desc').first('id');
  return Number(row.id);
}

beforeAll(async () => {
  const token = await signIn(ctx, SUPER_ADMIN.email, SUPER_ADMIN.password);
  superAdmin = { token, id: Number((await ctx.db('users').where({ email: SUPER_ADMIN.email }).first('id')).id) };
  orgA = await createOrgWithMembers(ctx, token);
  orgB = await createOrgWithMembers(ctx, token);
  for (const org of [orgA, orgB]) own.set(org.id, [await profileUpdate(org.admin), await profileUpdate(org.user)]);
});

describe('who sees what', () => {
  test('an Admin sees the own organization entries and none of another (by ids)', async () => {
    for (const [org, other] of [[orgA, orgB], [orgB, orgA]]) {
      const seen = ids(await list(org.admin, { limit: 500 }));
      expect(seen).toEqual(expect.arrayContaining(own.get(org.id)!));
      for (const id of own.get(other.id)!) expect(seen).not.toContain(id);
      const events = (await list(org.admin, { limit: 500 })).body.data.events as AuditEvent[];
      expect(new Set(events.map((e) => e.organization_id))).toEqual(new Set([org.id]));
    }
  });

  test('an Admin cannot widen the scope with organization_id: it is ignored', async () => {
    const seen = ids(await list(orgA.admin, { organization_id: orgB.id, limit: 500 }));
    for (const id of own.get(orgB.id)!) expect(seen).not.toContain(id);
    expect(seen).toEqual(expect.arrayContaining(own.get(orgA.id)!));
  });

  test('the Super_admin sees every organization, or one with organization_id', async () => {
    const everything = ids(await list(superAdmin, { action: 'profile.update', limit: 500 }));
    expect(everything).toEqual(expect.arrayContaining([...own.get(orgA.id)!, ...own.get(orgB.id)!]));
    const onlyB = (await list(superAdmin, { organization_id: orgB.id, limit: 500 })).body.data.events as AuditEvent[];
    expect(onlyB.map((e) => e.id)).toEqual(expect.arrayContaining(own.get(orgB.id)!));
    // the registrations into B (filed under B) and B's members' own changes, nothing else
    expect(new Set(onlyB.map((e) => e.organization_id))).toEqual(new Set([orgB.id]));
  });

  test('a User gets 403 Insufficient permissions, before the query is even checked', async () => {
    for (const query of [{}, { limit: 0 }]) {
      const res = await list(orgA.user, query);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
    }
  });

  test('no token: 401', async () => {
    expect((await request(ctx.app).get('/api/audit-events')).status).toBe(401);
  });
});

describe('filters, order and pages', () => {
  test('actor_id and action narrow the list to what that actor did', async () => {
    const res = await list(superAdmin, { actor_id: orgA.admin.id, action: 'profile.update' });
    expect(ids(res)).toEqual([own.get(orgA.id)![0]]);
  });

  test('target_type with target_id gives the entries about that record', async () => {
    const res = await list(superAdmin, { target_type: 'contact', target_id: orgB.user.id });
    expect(ids(res)).toContain(own.get(orgB.id)![1]);
    expect((res.body.data.events as AuditEvent[]).every((e) => e.target_id === orgB.user.id)).toBe(true);
  });

  test('from and to bound the time: a range in the future is empty, one around now holds the entries', async () => {
    expect(ids(await list(superAdmin, { actor_id: orgA.admin.id, from: '2999-01-01' }))).toEqual([]);
    const around = await list(superAdmin, { actor_id: orgA.admin.id, from: '2000-01-01', to: '2999-12-31' });
    expect(ids(around)).toContain(own.get(orgA.id)![0]);
  });

  test('newest first; limit pages with has_more, and page 2 holds the next older entries', async () => {
    const all = (await list(orgA.admin, { limit: 500 })).body.data.events as AuditEvent[];
    expect(all.length).toBeGreaterThanOrEqual(2);
    const keys = all.map((e) => `${e.at}|${String(e.id).padStart(12, '0')}`);
    expect(keys).toEqual([...keys].sort().reverse());
    const first = await list(orgA.admin, { limit: 1 });
    expect(first.body.data.pagination).toEqual({ page: 1, limit: 1, has_more: true });
    const second = await list(orgA.admin, { limit: 1, page: 2 });
    expect(ids(second)).toEqual([all[1].id]);
    const last = await list(orgA.admin, { limit: 500 });
    expect(last.body.data.pagination.has_more).toBe(false);
  });

  test.each([
    [{ target_id: 5 }, 'target_id'],
    [{ target_type: 'planet' }, 'target_type'],
    [{ limit: 501 }, 'limit'],
    [{ page: 0 }, 'page'],
    [{ actor_id: 'abc' }, 'actor_id'],
    [{ from: '2026-02-30' }, 'from'],
    [{ from: '2026-11-22', to: '2026-11-21' }, 'to'],
    [{ organization_id: -1 }, 'organization_id'],
  ])('refuses %j with 400 on %s', async (query, field) => {
    const res = await list(superAdmin, query);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Validation failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });
});

describe('GET /api/contacts/:id/history', () => {
  const history = (caller: { token: string }, id: number | string) => request(ctx.app).get(`/api/contacts/${id}/history`).set(bearer(caller));

  test("gives the contact's entries, newest first, to an Admin of its organization", async () => {
    const res = await history(orgA.admin, orgA.user.id);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Contact history retrieved successfully');
    expect(res.body.data.contact_id).toBe(orgA.user.id);
    expect(ids(res)).toContain(own.get(orgA.id)![1]);
    expect((res.body.data.events as AuditEvent[]).every((e) => e.target_id === orgA.user.id || e.target_id === null)).toBe(true);
  });

  test("an Admin of another organization sees none of the contact's entries", async () => {
    const res = await history(orgB.admin, orgA.user.id);
    expect(res.status).toBe(200);
    expect(res.body.data.events).toEqual([]);
  });

  test('404 Contact not found for an unknown contact; 400 for a bad id; 403 for a User', async () => {
    expect((await history(superAdmin, 999_999_999)).body).toEqual({ status: 'error', message: 'Contact not found' });
    expect((await history(superAdmin, 'abc')).status).toBe(400);
    expect((await history(orgA.user, orgA.user.id)).status).toBe(403);
  });

  test('a deleted contact keeps its history, the delete included', async () => {
    const gone = await createUser(ctx, { role: 'User' });
    const res = await request(ctx.app).delete(`/api/contacts/${gone.id}`).set(bearer(superAdmin));
    expect(res.status).toBe(200);
    const events = (await history(superAdmin, gone.id)).body.data.events as AuditEvent[];
    expect(events.map((e) => e.action)).toEqual(['contact.delete']);
  });
});

describe('append-only', () => {
  test('no route changes or deletes an entry', async () => {
    const id = own.get(orgA.id)![0];
    for (const method of ['put', 'patch', 'delete', 'post'] as const) {
      const res = await request(ctx.app)[method](`/api/audit-events/${id}`).set(bearer(superAdmin)).send({ action: 'x' });
      expect(res.status).toBe(404);
    }
    expect((await request(ctx.app).delete('/api/audit-events').set(bearer(superAdmin))).status).toBe(404);
    expect(await ctx.db('audit_events').where({ id }).first('action')).toEqual({ action: 'profile.update' });
  });

  test('pruning (npm run audit:prune) deletes only the entries older than the cut, with their targets', async () => {
    const old = new Date(Date.UTC(2001, 0, 1));
    const row = { at: old, actor_id: null, actor_role: null, organization_id: 999_999, action: 'unit.update', target_type: 'unit', target_id: 1, changes: '{}' };
    const [oldId] = await ctx.db('audit_events').insert(row);
    await ctx.db('audit_event_targets').insert({ event_id: oldId, target_type: 'unit', target_id: 1 });
    const kept = own.get(orgA.id)![0];
    expect(await pruneAuditTrail(ctx.db, new Date(Date.UTC(2002, 0, 1)))).toBeGreaterThanOrEqual(1);
    expect(await ctx.db('audit_events').where({ id: oldId }).first('id')).toBeUndefined();
    expect(await ctx.db('audit_event_targets').where({ event_id: oldId }).first('event_id')).toBeUndefined();
    expect(await ctx.db('audit_events').where({ id: kept }).first('id')).toBeDefined();
  });
});

describe('AUDIT_ENABLED=false (the benchmark comparison only)', () => {
  const off = setupTestContext({ ...SECURITY_TEST_ENV, AUDIT_ENABLED: 'false' });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(off, { role: 'Admin' });
  });

  test('records nothing', async () => {
    const res = await request(off.app).put('/api/auth/profile').set(bearer(admin)).send({ mobile: '01511111111' });
    expect(res.status).toBe(200);
    expect(await off.db('audit_events').where({ target_id: admin.id }).first('id')).toBeUndefined();
  });
});
