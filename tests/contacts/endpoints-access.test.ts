import type request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, unique, type RoleName, type TestUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { contactsFixture } from './contacts-support';

/**
 * Who may call which /api/contacts endpoint (spec 4.2, 5.6; DECISIONS 2): the role matrix,
 * the missing token, and the privilege ceiling of an Admin.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const { api, contactBody, row } = contactsFixture(ctx, { references: true });

/** A unit of the test's own with a caller of `role`, a root contact and a child of it. */
async function world(role: RoleName) {
  const unit = await createUnit(ctx);
  const caller = await createUser(ctx, { role, unit_id: unit.id });
  const root = await createUser(ctx, { unit_id: unit.id, name: `Root ${unique()}` });
  const child = await createUser(ctx, { unit_id: unit.id, parent_id: root.id, name: `Child ${unique()}` });
  return { unit, caller, root, child };
}

type Call = (caller: TestUser, w: Awaited<ReturnType<typeof world>>) => request.Test;

const READS: Array<[string, Call]> = [
  ['GET /api/contacts', (c, w) => api().get('/api/contacts').query({ unit_id: w.unit.id }).set(bearer(c))],
  ['GET /api/contacts/:id', (c, w) => api().get(`/api/contacts/${w.root.id}`).set(bearer(c))],
  ['GET /api/contacts/search', (c, w) => api().get('/api/contacts/search').query({ q: w.root.name }).set(bearer(c))],
  ['GET /api/contacts/statistics', (c) => api().get('/api/contacts/statistics').set(bearer(c))],
  ['GET /api/contacts/organizational-hierarchy', (c) => api().get('/api/contacts/organizational-hierarchy').set(bearer(c))],
  ['GET /api/contacts/unit/:unitId', (c, w) => api().get(`/api/contacts/unit/${w.unit.id}`).set(bearer(c))],
  ['GET /api/contacts/:id/children', (c, w) => api().get(`/api/contacts/${w.root.id}/children`).set(bearer(c))],
];

const WRITES: Record<string, Call> = {
  create: (c, w) => api().post('/api/contacts').set(bearer(c)).send(contactBody(w.unit.id)),
  update: (c, w) => api().put(`/api/contacts/${w.child.id}`).set(bearer(c)).send({ name: `Renamed ${unique()}` }),
  delete: (c, w) => api().delete(`/api/contacts/${w.child.id}`).set(bearer(c)),
  move: (c, w) => api().put(`/api/contacts/${w.child.id}/move`).set(bearer(c)).send({ parent_id: null }),
  'bulk-delete': (c, w) => api().post('/api/contacts/bulk-delete').set(bearer(c)).send({ contactIds: [w.child.id] }),
  'bulk-move': (c, w) => api().post('/api/contacts/bulk-move').set(bearer(c)).send({ contactIds: [w.child.id], parent_id: null }),
  'password reset': (c, w) => api().put(`/api/contacts/${w.child.id}/password`).set(bearer(c)).send({ newPassword: 'Fresh1Pass' }),
};

const FORBIDDEN = { status: 'error', message: 'Insufficient permissions' };

describe('reads', () => {
  test.each(['User', 'Admin', 'Super_admin'] as RoleName[])('a %s gets 200 on every read endpoint', async (role) => {
    const w = await world(role);
    for (const [name, call] of READS) {
      const res = await call(w.caller, w);
      expect({ name, status: res.status, envelope: res.body.status }).toEqual({ name, status: 200, envelope: 'success' });
    }
  });
});

describe('User', () => {
  test.each(Object.keys(WRITES))('gets 403 `Insufficient permissions` on %s and nothing changes', async (name) => {
    const w = await world('User');
    const before = await row(w.child.id);
    const countBefore = await ctx.db('users').where({ unit_id: w.unit.id }).count({ n: '*' });
    const res = await WRITES[name](w.caller, w);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await row(w.child.id)).toEqual(before);
    expect(await ctx.db('users').where({ unit_id: w.unit.id }).count({ n: '*' })).toEqual(countBefore);
  });
});

describe('Admin', () => {
  test.each(['delete', 'bulk-delete', 'bulk-move'])('gets 403 `Insufficient permissions` on %s and nothing changes', async (name) => {
    const w = await world('Admin');
    const before = await row(w.child.id);
    const res = await WRITES[name](w.caller, w);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await row(w.child.id)).toEqual(before);
  });

  test.each([
    ['create', 201],
    ['update', 200],
    ['move', 200],
    ['password reset', 200],
  ] as const)('succeeds on %s', async (name, status) => {
    const w = await world('Admin');
    const res = await WRITES[name](w.caller, w);
    expect(res.status).toBe(status);
    expect(res.body.status).toBe('success');
  });
});

describe('Super_admin', () => {
  test.each([
    ['create', 201, 'Contact created successfully'],
    ['update', 200, 'Contact updated successfully'],
    ['delete', 200, 'Contact deleted successfully'],
    ['move', 200, 'Contact moved successfully'],
    ['bulk-delete', 200, '1 contacts deleted successfully'],
    ['bulk-move', 200, '1 contacts moved successfully'],
    ['password reset', 200, 'Password reset successfully'],
  ] as const)('succeeds on %s', async (name, status, message) => {
    const w = await world('Super_admin');
    const res = await WRITES[name](w.caller, w);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status: 'success', message });
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

describe('without a valid token', () => {
  const id = 1;
  const ALL: Array<[string, () => request.Test]> = [
    ['GET /api/contacts', () => api().get('/api/contacts')],
    ['GET /api/contacts/:id', () => api().get(`/api/contacts/${id}`)],
    ['GET /api/contacts/search', () => api().get('/api/contacts/search?q=ab')],
    ['GET /api/contacts/statistics', () => api().get('/api/contacts/statistics')],
    ['GET /api/contacts/organizational-hierarchy', () => api().get('/api/contacts/organizational-hierarchy')],
    ['GET /api/contacts/unit/:unitId', () => api().get('/api/contacts/unit/1')],
    ['GET /api/contacts/:id/children', () => api().get(`/api/contacts/${id}/children`)],
    ['POST /api/contacts', () => api().post('/api/contacts').send({ name: 'No Token' })],
    ['PUT /api/contacts/:id', () => api().put(`/api/contacts/${id}`).send({ name: 'No Token' })],
    ['DELETE /api/contacts/:id', () => api().delete(`/api/contacts/${id}`)],
    ['PUT /api/contacts/:id/move', () => api().put(`/api/contacts/${id}/move`).send({ parent_id: null })],
    ['POST /api/contacts/bulk-delete', () => api().post('/api/contacts/bulk-delete').send({ contactIds: [id] })],
    ['POST /api/contacts/bulk-move', () => api().post('/api/contacts/bulk-move').send({ contactIds: [id], parent_id: null })],
    ['PUT /api/contacts/:id/password', () => api().put(`/api/contacts/${id}/password`).send({ newPassword: 'Fresh1Pass' })],
  ];

  test.each(ALL)('%s without a token answers 401 `Access token is required`', async (_name, call) => {
    const res = await call();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Access token is required' });
  });

  test.each(ALL)('%s with a forged token answers 401 `Invalid or expired token`', async (_name, call) => {
    const res = await call().set('Authorization', 'Bearer not.a.token');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Invalid or expired token' });
  });
});

describe('privilege ceiling of an Admin (DECISIONS 2)', () => {
  test.each([1, '1'])('cannot create a contact with role_id %j', async (role_id) => {
    const w = await world('Admin');
    const body = contactBody(w.unit.id, { role_id });
    const res = await api().post('/api/contacts').set(bearer(w.caller)).send(body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await ctx.db('users').where({ email: body.email }).first()).toBeUndefined();
  });

  test('may create contacts with role_id 2 or 3', async () => {
    const w = await world('Admin');
    for (const role_id of [2, 3]) {
      const res = await api().post('/api/contacts').set(bearer(w.caller)).send(contactBody(w.unit.id, { role_id }));
      expect(res.status).toBe(201);
      expect(res.body.data.contact.role_id).toBe(role_id);
    }
  });

  test('cannot update a Super_admin contact', async () => {
    const w = await world('Admin');
    const top = await createUser(ctx, { role: 'Super_admin', unit_id: w.unit.id });
    const before = await row(top.id);
    const res = await api().put(`/api/contacts/${top.id}`).set(bearer(w.caller)).send({ phone: '0999' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await row(top.id)).toEqual(before);
  });

  test('cannot give role_id 1 on update', async () => {
    const w = await world('Admin');
    const res = await api().put(`/api/contacts/${w.child.id}`).set(bearer(w.caller)).send({ role_id: 1 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(Number((await row(w.child.id)).role_id)).toBe(3);
  });

  test('may give role_id 2 on update', async () => {
    const w = await world('Admin');
    const res = await api().put(`/api/contacts/${w.child.id}`).set(bearer(w.caller)).send({ role_id: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ role_id: 2, role_name: 'Admin' });
  });

  test('cannot move a Super_admin contact', async () => {
    const w = await world('Admin');
    const top = await createUser(ctx, { role: 'Super_admin', unit_id: w.unit.id, parent_id: w.root.id });
    const res = await api().put(`/api/contacts/${top.id}/move`).set(bearer(w.caller)).send({ parent_id: null });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(Number((await row(top.id)).parent_id)).toBe(w.root.id);
  });

  test('cannot reset the password of a Super_admin contact', async () => {
    const w = await world('Admin');
    const top = await createUser(ctx, { role: 'Super_admin', unit_id: w.unit.id });
    const before = await row(top.id);
    const res = await api().put(`/api/contacts/${top.id}/password`).set(bearer(w.caller)).send({ newPassword: 'Fresh1Pass' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await row(top.id)).toEqual(before);
    expect(await ctx.db('password_change_logs').where({ user_id: top.id })).toEqual([]);
  });

  test('a Super_admin may give role_id 1', async () => {
    const w = await world('Super_admin');
    const res = await api().put(`/api/contacts/${w.child.id}`).set(bearer(w.caller)).send({ role_id: 1 });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ role_id: 1, role_name: 'Super_admin' });
  });
});

describe('nobody can delete their own account', () => {
  test('DELETE of oneself answers 400 `You cannot delete your own account` and the account stays active', async () => {
    const w = await world('Super_admin');
    const res = await api().delete(`/api/contacts/${w.caller.id}`).set(bearer(w.caller));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'You cannot delete your own account' });
    expect(Boolean(Number((await row(w.caller.id)).is_active))).toBe(true);
    // the token still works: nothing was revoked
    expect((await api().get(`/api/contacts/${w.caller.id}`).set(bearer(w.caller))).status).toBe(200);
  });

  test('a bulk delete that names oneself answers 400 and deletes nobody', async () => {
    const w = await world('Super_admin');
    const res = await api().post('/api/contacts/bulk-delete').set(bearer(w.caller)).send({ contactIds: [w.child.id, w.caller.id] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'You cannot delete your own account' });
    expect(Boolean(Number((await row(w.caller.id)).is_active))).toBe(true);
    expect(Boolean(Number((await row(w.child.id)).is_active))).toBe(true);
  });
});
