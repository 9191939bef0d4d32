import { setupTestContext } from '../helpers/context';
import { createOrganization, createUser, unique, type TestUser } from '../helpers/factory';
import { api, expectError, failingFields, ISO_MS, makeCallers, type Callers } from './reference-support';

const ctx = setupTestContext();
const http = api(ctx);
let as: Callers;

beforeAll(async () => {
  as = await makeCallers(ctx);
});

async function newOrganization(fields: Record<string, unknown> = {}) {
  const res = await http.post('/api/organizations', as.Super_admin, { name: unique('Org '), code: unique('O').slice(0, 30), ...fields });
  expect(res.status).toBe(201);
  return res.body.data.organization as { id: number; name: string; code: string | null };
}

describe('Super_admin', () => {
  test('creates (201), reads, updates (200) and deletes (200) an organization', async () => {
    const name = unique('Org ');
    const created = await http.post('/api/organizations', as.Super_admin, { name });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Organization created successfully');
    expect(created.body.data.organization).toEqual({
      id: expect.any(Number),
      name,
      code: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    const { id } = created.body.data.organization;

    const got = await http.get(`/api/organizations/${id}`, as.Super_admin);
    expect(got.body).toMatchObject({ message: 'Organization retrieved successfully', data: { organization: { id, name } } });

    const code = unique('O').slice(0, 30);
    const updated = await http.put(`/api/organizations/${id}`, as.Super_admin, { name: `${name} Ltd`, code });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe('Organization updated successfully');
    expect(updated.body.data.organization).toMatchObject({ id, name: `${name} Ltd`, code });

    const deleted = await http.del(`/api/organizations/${id}`, as.Super_admin);
    expect(deleted.body).toEqual({ status: 'success', message: 'Organization deleted successfully', data: {} });
    expectError(await http.get(`/api/organizations/${id}`, as.Super_admin), 404, 'Organization not found');
  });

  test('lists every organization, with search and pagination', async () => {
    const token = unique('org');
    const a = await newOrganization({ name: `A ${token}` });
    const b = await newOrganization({ name: `B ${token}` });
    const res = await http.get(`/api/organizations?search=${token}`, as.Super_admin);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Organizations retrieved successfully');
    expect(res.body.data.organizations.map((o: { id: number }) => o.id)).toEqual([a.id, b.id]);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 50, total: 2, total_pages: 1, has_more: false });
    const all = await http.get('/api/organizations?limit=500', as.Super_admin);
    expect(all.body.data.pagination.total).toBeGreaterThanOrEqual(3);
  });

  test('refuses a duplicate name, compared case-insensitively, and a duplicate code: 409', async () => {
    const org = await newOrganization();
    expectError(await http.post('/api/organizations', as.Super_admin, { name: org.name.toUpperCase() }), 409, 'An organization with this name already exists');
    expectError(
      await http.post('/api/organizations', as.Super_admin, { name: unique('Org '), code: org.code }),
      409,
      'An organization with this code already exists',
    );
  });

  test('needs a name', async () => {
    expect(failingFields(await http.post('/api/organizations', as.Super_admin, { code: 'X' }))).toEqual(['name']);
  });

  test('cannot delete an organization that still has users: 409', async () => {
    const org = await newOrganization();
    await createUser(ctx, { organization_id: org.id });
    expectError(await http.del(`/api/organizations/${org.id}`, as.Super_admin), 409, 'Organization is in use and cannot be deleted');
    expect(await ctx.db('organizations').where({ id: org.id }).first()).toBeDefined();
  });

  test('cannot delete organization 1: 409', async () => {
    // organization 1 has users too: the message shows that the rule of its own refused it
    expectError(await http.del('/api/organizations/1', as.Super_admin), 409, 'The default organization cannot be deleted');
    expect(await ctx.db('organizations').where({ id: 1 }).first()).toBeDefined();
  });

  test('answers 404 Organization not found on update and delete of an unknown id', async () => {
    expectError(await http.put('/api/organizations/999999999', as.Super_admin, { name: unique('Org ') }), 404, 'Organization not found');
    expectError(await http.del('/api/organizations/999999999', as.Super_admin), 404, 'Organization not found');
  });
});

describe.each(['Admin', 'User'] as const)('%s', (role) => {
  let org: { id: number; name: string };
  let caller: TestUser;

  beforeAll(async () => {
    const id = await createOrganization(ctx);
    org = { id, name: (await ctx.db('organizations').where({ id }).first()).name };
    caller = await createUser(ctx, { role, organization_id: id });
  });

  test('lists only the own organization', async () => {
    await newOrganization();
    const res = await http.get('/api/organizations?limit=500', caller);
    expect(res.status).toBe(200);
    expect(res.body.data.organizations.map((o: { id: number }) => o.id)).toEqual([org.id]);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 500, total: 1, total_pages: 1, has_more: false });
  });

  test('a search that the own organization does not match lists nothing', async () => {
    const other = await newOrganization();
    const res = await http.get(`/api/organizations?search=${encodeURIComponent(other.name)}`, caller);
    expect(res.body.data.organizations).toEqual([]);
    expect(res.body.data.pagination.total).toBe(0);
  });

  test('gets the own organization, and another one is 404 Organization not found', async () => {
    const own = await http.get(`/api/organizations/${org.id}`, caller);
    expect(own.status).toBe(200);
    expect(own.body.data.organization).toMatchObject({ id: org.id, name: org.name });
    expectError(await http.get('/api/organizations/1', caller), 404, 'Organization not found');
    const other = await newOrganization();
    expectError(await http.get(`/api/organizations/${other.id}`, caller), 404, 'Organization not found');
  });

  test('may not create, update or delete organizations: 403', async () => {
    const name = unique('Org ');
    expectError(await http.post('/api/organizations', caller, { name }), 403, 'Insufficient permissions');
    expect(await ctx.db('organizations').where({ name }).first()).toBeUndefined();
    expectError(await http.put(`/api/organizations/${org.id}`, caller, { name }), 403, 'Insufficient permissions');
    const other = await newOrganization();
    expectError(await http.del(`/api/organizations/${other.id}`, caller), 403, 'Insufficient permissions');
    expect(await ctx.db('organizations').where({ id: other.id }).first()).toBeDefined();
  });
});
