import request from 'supertest';
import { PERMISSIONS, ROLES } from '../../seeds/access';
import { setupTestContext } from '../helpers/context';
import { createUser, unique } from '../helpers/factory';
import { api, expectError, failingFields, ISO_MS, makeCallers, type Callers } from './reference-support';

const ctx = setupTestContext();
const http = api(ctx);
let as: Callers;

beforeAll(async () => {
  as = await makeCallers(ctx);
});

async function newRole(permissions: string[] = ['contacts.read'], by = as.Super_admin) {
  const res = await http.post('/api/roles', by, { name: unique('Role'), description: 'made by a test', permissions });
  expect(res.status).toBe(201);
  return res.body.data.role as { id: number; name: string; permissions: string[] };
}

describe('GET /api/roles', () => {
  test('lists the built-in roles with their permissions, and every permission', async () => {
    const res = await http.get('/api/roles', as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Roles retrieved successfully');
    const byId = new Map((res.body.data.roles as Array<{ id: number }>).map((r) => [r.id, r]));
    for (const role of ROLES) {
      expect(byId.get(role.id)).toEqual({
        id: role.id,
        name: role.name,
        description: role.description,
        permissions: [...role.permissions].sort(),
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
    }
    const names = (res.body.data.permissions as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(Object.keys(PERMISSIONS)));
  });

  test('GET /:id returns data.role; an unknown id is 404 Role not found', async () => {
    const res = await http.get('/api/roles/2', as.User);
    expect(res.status).toBe(200);
    expect(res.body.data.role).toMatchObject({ id: 2, name: 'Admin' });
    expect(res.body.data.role.permissions).toContain('reference.write');
    expect(res.body.data.role.permissions).not.toContain('contacts.delete');
    expectError(await http.get('/api/roles/999999999', as.User), 404, 'Role not found');
    expect(failingFields(await http.get('/api/roles/abc', as.User))).toEqual(['id']);
  });
});

describe('built-in roles', () => {
  test.each([1, 2, 3])('role %i cannot be changed or deleted: 409', async (id) => {
    const before = await http.get(`/api/roles/${id}`, as.Super_admin);
    expectError(await http.put(`/api/roles/${id}`, as.Super_admin, { name: unique('Renamed') }), 409, 'Built-in roles cannot be changed or deleted');
    expectError(await http.put(`/api/roles/${id}`, as.Super_admin, { permissions: ['contacts.read'] }), 409, 'Built-in roles cannot be changed or deleted');
    expectError(await http.del(`/api/roles/${id}`, as.Super_admin), 409, 'Built-in roles cannot be changed or deleted');
    const after = await http.get(`/api/roles/${id}`, as.Super_admin);
    expect(after.body.data.role).toEqual(before.body.data.role);
  });
});

describe('custom roles', () => {
  test.each(['Admin', 'Super_admin'] as const)('an %s creates (201), updates (200) and deletes (200) one', async (role) => {
    const name = unique('Role');
    const created = await http.post('/api/roles', as[role], { name, permissions: ['contacts.read', 'contacts.create'] });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Role created successfully');
    const { id } = created.body.data.role;
    expect(created.body.data.role).toMatchObject({ name, description: null, permissions: ['contacts.create', 'contacts.read'] });

    const updated = await http.put(`/api/roles/${id}`, as[role], { name: `${name}x`, description: 'Readers', permissions: ['contacts.read'] });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe('Role updated successfully');
    expect(updated.body.data.role).toMatchObject({ id, name: `${name}x`, description: 'Readers', permissions: ['contacts.read'] });

    const deleted = await http.del(`/api/roles/${id}`, as[role]);
    expect(deleted.body).toEqual({ status: 'success', message: 'Role deleted successfully', data: {} });
    expectError(await http.get(`/api/roles/${id}`, as[role]), 404, 'Role not found');
    expect(await ctx.db('role_permissions').where({ role_id: id })).toEqual([]);
  });

  test('a User may not create, change or delete roles: 403', async () => {
    const role = await newRole();
    expectError(await http.post('/api/roles', as.User, { name: unique('Role') }), 403, 'Insufficient permissions');
    expectError(await http.put(`/api/roles/${role.id}`, as.User, { name: unique('Role') }), 403, 'Insufficient permissions');
    expectError(await http.del(`/api/roles/${role.id}`, as.User), 403, 'Insufficient permissions');
  });

  test('an Admin cannot grant a permission the Admin lacks: 403, and nothing is made', async () => {
    const name = unique('Role');
    const res = await http.post('/api/roles', as.Admin, { name, permissions: ['contacts.read', 'contacts.delete'] });
    expectError(res, 403, 'Insufficient permissions');
    expect(await ctx.db('roles').where({ name }).first()).toBeUndefined();

    const role = await newRole(['contacts.read'], as.Admin);
    expectError(await http.put(`/api/roles/${role.id}`, as.Admin, { permissions: ['organizations.manage'] }), 403, 'Insufficient permissions');
    expect((await http.get(`/api/roles/${role.id}`, as.Admin)).body.data.role.permissions).toEqual(['contacts.read']);
  });

  test('a Super_admin may grant any permission', async () => {
    const role = await newRole(['contacts.delete', 'organizations.manage']);
    expect(role.permissions).toEqual(['contacts.delete', 'organizations.manage']);
  });

  test('unknown permission names fail validation on permissions', async () => {
    const name = unique('Role');
    const res = await http.post('/api/roles', as.Super_admin, { name, permissions: ['contacts.read', 'contacts.teleport'] });
    expect(failingFields(res)).toEqual(['permissions']);
    expect(res.body.errors[0].message).toContain('contacts.teleport');
    expect(await ctx.db('roles').where({ name }).first()).toBeUndefined();
  });

  test.each([
    ['a string', 'contacts.read'],
    ['numbers', [1, 2]],
    ['null', null],
    ['an object', { 'contacts.read': true }],
  ])('permissions given as %s fail validation', async (_label, permissions) => {
    expect(failingFields(await http.post('/api/roles', as.Super_admin, { name: unique('Role'), permissions }))).toEqual(['permissions']);
  });

  test('needs a name of 2 to 50 characters', async () => {
    expect(failingFields(await http.post('/api/roles', as.Super_admin, {}))).toEqual(['name']);
    expect(failingFields(await http.post('/api/roles', as.Super_admin, { name: 'r'.repeat(51) }))).toEqual(['name']);
  });

  test('refuses a duplicate name, compared case-insensitively: 409', async () => {
    const role = await newRole();
    expectError(await http.post('/api/roles', as.Super_admin, { name: role.name.toUpperCase() }), 409, 'A role with this name already exists');
    expectError(await http.post('/api/roles', as.Super_admin, { name: 'admin' }), 409, 'A role with this name already exists');
    const other = await newRole();
    expectError(await http.put(`/api/roles/${other.id}`, as.Super_admin, { name: role.name.toLowerCase() }), 409, 'A role with this name already exists');
  });

  test('refuses deleting a role that users hold: 409', async () => {
    const role = await newRole();
    const holder = await createUser(ctx);
    await ctx.db('users').where({ id: holder.id }).update({ role_id: role.id });
    expectError(await http.del(`/api/roles/${role.id}`, as.Super_admin), 409, 'Role is in use and cannot be deleted');
    expect(await ctx.db('roles').where({ id: role.id }).first()).toBeDefined();
  });

  test('changing the permissions of a role signs its holders out (401), and nobody else', async () => {
    const role = await newRole(['contacts.read']);
    const holder = await createUser(ctx);
    await ctx.db('users').where({ id: holder.id }).update({ role_id: role.id });
    const bystander = await createUser(ctx);
    expect((await http.get('/api/units', holder)).status).toBe(200);

    const changed = await http.put(`/api/roles/${role.id}`, as.Super_admin, { permissions: ['contacts.read', 'reference.write'] });
    expect(changed.status).toBe(200);

    expectError(await http.get('/api/units', holder), 401, 'Invalid or expired token');
    expect((await http.get('/api/units', bystander)).status).toBe(200);
    expect((await http.get('/api/units', as.Super_admin)).status).toBe(200);
  });

  test('the holders of a custom role get exactly its permissions', async () => {
    const role = await newRole(['contacts.read', 'reference.write'], as.Admin);
    const holder = await createUser(ctx);
    await ctx.db('users').where({ id: holder.id }).update({ role_id: role.id });
    const created = await http.post('/api/designations', holder, { name: unique('Desig ') });
    expect(created.status).toBe(201);
    expectError(await http.post('/api/organizations', holder, { name: unique('Org ') }), 403, 'Insufficient permissions');
  });

  test('after its permissions change, a holder who signs in again gets exactly the new ones', async () => {
    const role = await newRole(['contacts.read', 'reference.write']);
    const holder = await createUser(ctx);
    await ctx.db('users').where({ id: holder.id }).update({ role_id: role.id });
    expect((await http.put(`/api/roles/${role.id}`, as.Super_admin, { permissions: ['contacts.read', 'organizations.manage'] })).status).toBe(200);

    const login = await request(ctx.app).post('/api/auth/login').send({ email: holder.email, password: holder.password });
    expect(login.status).toBe(200);
    const again = { ...holder, token: login.body.data.token as string };
    expectError(await http.post('/api/designations', again, { name: unique('Desig ') }), 403, 'Insufficient permissions');
    expect((await http.get('/api/contacts/statistics', again)).status).toBe(200);
    expect((await http.post('/api/organizations', again, { name: unique('Org ') })).status).toBe(201);
    // the session reads the names copied beside the role: they follow its grants
    const row = await ctx.db('roles').where({ id: role.id }).first('permission_names');
    expect(row.permission_names).toBe('contacts.read,organizations.manage');
  });

  test("an Admin's reach over a custom role's holders follows the role's permissions from the next request: 403 once it holds one the Admin lacks", async () => {
    const role = await newRole(['contacts.read']);
    const holder = await createUser(ctx, { organization_id: 1 });
    await ctx.db('users').where({ id: holder.id }).update({ role_id: role.id });
    const rename = () => http.put(`/api/contacts/${holder.id}`, as.Admin, { name: unique('Reached ') });
    expect((await rename()).status).toBe(200);
    expect((await http.put(`/api/roles/${role.id}`, as.Super_admin, { permissions: ['contacts.read', 'organizations.manage'] })).status).toBe(200);
    expectError(await rename(), 403, 'Insufficient permissions');
  });

  test('answers 404 Role not found on update and delete of an unknown id', async () => {
    expectError(await http.put('/api/roles/999999999', as.Super_admin, { name: unique('Role') }), 404, 'Role not found');
    expectError(await http.del('/api/roles/999999999', as.Super_admin), 404, 'Role not found');
  });
});
