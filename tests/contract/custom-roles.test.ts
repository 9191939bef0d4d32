import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';

/**
 * Routes check permissions, not role names, so a custom role meets the 403 of every check its
 * permissions miss; the contract check after this file holds those answers to the document.
 */
const ctx = setupTestContext();

async function userWithRole(admin: TestUser, permissions: string[]): Promise<TestUser> {
  const created = await request(ctx.app).post('/api/roles').set(bearer(admin)).send({ name: unique('Role '), permissions });
  expect(created.status).toBe(201);
  const user = await createUser(ctx);
  await ctx.db('users').where({ id: user.id }).update({ role_id: created.body.data.role.id });
  return user;
}

const forbidden = { status: 'error', message: 'Insufficient permissions' };

describe('a custom role', () => {
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  test('without contacts.read is refused every contacts route, reads included', async () => {
    const user = await userWithRole(admin, []);
    const reads = ['', '/search?q=ab', '/statistics', '/organizational-hierarchy', `/unit/${user.unit_id}`, `/${user.id}`, `/${user.id}/children`];
    for (const path of reads) {
      const res = await request(ctx.app).get(`/api/contacts${path}`).set(bearer(user));
      expect([path, res.status, res.body]).toEqual([path, 403, forbidden]);
    }
  });

  test('with contacts.create but not contacts.read cannot create', async () => {
    const user = await userWithRole(admin, ['contacts.create']);
    const res = await request(ctx.app).post('/api/contacts').set(bearer(user)).send({});
    expect(res.status).toBe(403);
    expect(res.body).toEqual(forbidden);
  });

  test('reads locations, reference data and its own security records without any permission', async () => {
    const user = await userWithRole(admin, []);
    for (const path of ['/api/locations/countries', '/api/units', '/api/roles', '/api/organizations', '/api/security/failed-logins']) {
      expect([path, (await request(ctx.app).get(path).set(bearer(user))).status]).toEqual([path, 200]);
    }
    expect((await request(ctx.app).post('/api/units').set(bearer(user)).send({ name: 'Nope' })).status).toBe(403);
  });
});
