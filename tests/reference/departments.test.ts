import { setupTestContext } from '../helpers/context';
import { createUnit, createUser, unique } from '../helpers/factory';
import { api, expectError, failingFields, ISO_MS, makeCallers, type Callers } from './reference-support';

const ctx = setupTestContext();
const http = api(ctx);
let as: Callers;

beforeAll(async () => {
  as = await makeCallers(ctx);
});

async function newDepartment(unitId: number, fields: Record<string, unknown> = {}) {
  const res = await http.post('/api/departments', as.Admin, { name: unique('Dept '), unit_id: unitId, ...fields });
  expect(res.status).toBe(201);
  return res.body.data.department as { id: number; name: string; unit_id: number };
}

describe('GET /api/departments', () => {
  test('unit_id lists the departments of that unit, ordered by name, with pagination', async () => {
    const unit = await createUnit(ctx);
    const other = await createUnit(ctx);
    const b = await newDepartment(unit.id, { name: `B ${unique()}` });
    const a = await newDepartment(unit.id, { name: `A ${unique()}`, code: 'ADM' });
    await newDepartment(other.id);

    const res = await http.get(`/api/departments?unit_id=${unit.id}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Departments retrieved successfully');
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 50, total: 2, total_pages: 1, has_more: false });
    expect(res.body.data.departments.map((d: { id: number }) => d.id)).toEqual([a.id, b.id]);
    expect(res.body.data.departments[0]).toEqual({
      id: a.id,
      unit_id: unit.id,
      unit_name: unit.name,
      name: a.name,
      code: 'ADM',
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
  });

  test('search matches the name case-insensitively, within the unit filter', async () => {
    const unit = await createUnit(ctx);
    const token = unique('d');
    const match = await newDepartment(unit.id, { name: `Signals ${token}` });
    await newDepartment(unit.id);
    const res = await http.get(`/api/departments?unit_id=${unit.id}&search=SIGNALS ${token.toUpperCase()}`, as.User);
    expect(res.body.data.departments.map((d: { id: number }) => d.id)).toEqual([match.id]);
  });

  test('refuses a unit_id filter that is not a positive integer, and a limit over 500', async () => {
    expect(failingFields(await http.get('/api/departments?unit_id=abc', as.User))).toEqual(['unit_id']);
    expect(failingFields(await http.get('/api/departments?unit_id=1&unit_id=2', as.User))).toEqual(['unit_id']);
    expect(failingFields(await http.get('/api/departments?limit=501', as.User))).toEqual(['limit']);
  });
});

describe('GET /api/departments/:id', () => {
  test('returns data.department with its unit name', async () => {
    const unit = await createUnit(ctx);
    const dept = await newDepartment(unit.id);
    const res = await http.get(`/api/departments/${dept.id}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Department retrieved successfully');
    expect(res.body.data.department).toMatchObject({ id: dept.id, unit_id: unit.id, unit_name: unit.name });
  });

  test('answers 404 Department not found', async () => {
    expectError(await http.get('/api/departments/999999999', as.User), 404, 'Department not found');
  });
});

describe('POST, PUT and DELETE /api/departments', () => {
  test.each(['Admin', 'Super_admin'] as const)('an %s creates, updates and deletes a department', async (role) => {
    const unit = await createUnit(ctx);
    const name = unique('Dept ');
    const created = await http.post('/api/departments', as[role], { name, unit_id: unit.id });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Department created successfully');
    const { id } = created.body.data.department;

    const other = await createUnit(ctx);
    const updated = await http.put(`/api/departments/${id}`, as[role], { name: `${name} 2`, unit_id: other.id });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe('Department updated successfully');
    expect(updated.body.data.department).toMatchObject({ id, name: `${name} 2`, unit_id: other.id, unit_name: other.name });

    const deleted = await http.del(`/api/departments/${id}`, as[role]);
    expect(deleted.body).toEqual({ status: 'success', message: 'Department deleted successfully', data: {} });
    expect(await ctx.db('departments').where({ id }).first()).toBeUndefined();
  });

  test('a User gets 403 Insufficient permissions on every write', async () => {
    const unit = await createUnit(ctx);
    const dept = await newDepartment(unit.id);
    expectError(await http.post('/api/departments', as.User, { name: unique('D '), unit_id: unit.id }), 403, 'Insufficient permissions');
    expectError(await http.put(`/api/departments/${dept.id}`, as.User, { name: unique('D ') }), 403, 'Insufficient permissions');
    expectError(await http.del(`/api/departments/${dept.id}`, as.User), 403, 'Insufficient permissions');
  });

  test('needs a name and a unit_id, and the unit must exist', async () => {
    expect(failingFields(await http.post('/api/departments', as.Admin, {}))).toEqual(['name', 'unit_id']);
    expect(failingFields(await http.post('/api/departments', as.Admin, { name: unique('D '), unit_id: 999999999 }))).toEqual(['unit_id']);
  });

  test('refuses a name already used in the same unit, compared case-insensitively: 409', async () => {
    const unit = await createUnit(ctx);
    const dept = await newDepartment(unit.id);
    const res = await http.post('/api/departments', as.Admin, { name: dept.name.toUpperCase(), unit_id: unit.id });
    expectError(res, 409, 'A department with this name already exists in this unit');
  });

  test('takes a name used in another unit', async () => {
    const dept = await newDepartment((await createUnit(ctx)).id);
    const other = await createUnit(ctx);
    const res = await http.post('/api/departments', as.Admin, { name: dept.name, unit_id: other.id });
    expect(res.status).toBe(201);
  });

  test('refuses moving a department into a unit that has one of that name: 409', async () => {
    const a = await createUnit(ctx);
    const b = await createUnit(ctx);
    const name = unique('Dept ');
    await newDepartment(a.id, { name });
    const dept = await newDepartment(b.id, { name });
    expectError(await http.put(`/api/departments/${dept.id}`, as.Admin, { unit_id: a.id }), 409, 'A department with this name already exists in this unit');
  });

  test('refuses deleting a department that contacts belong to: 409', async () => {
    const unit = await createUnit(ctx);
    const dept = await newDepartment(unit.id);
    await createUser(ctx, { unit_id: unit.id, department_id: dept.id });
    expectError(await http.del(`/api/departments/${dept.id}`, as.Admin), 409, 'Department is in use and cannot be deleted');
    expect(await ctx.db('departments').where({ id: dept.id }).first()).toBeDefined();
  });

  test('refuses moving a department with contacts to another unit: 400', async () => {
    const unit = await createUnit(ctx);
    const dept = await newDepartment(unit.id);
    await createUser(ctx, { unit_id: unit.id, department_id: dept.id });
    const other = await createUnit(ctx);
    const res = await http.put(`/api/departments/${dept.id}`, as.Admin, { unit_id: other.id });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'unit_id', message: expect.any(String) }]);
    expect(Number((await ctx.db('departments').where({ id: dept.id }).first()).unit_id)).toBe(unit.id);
  });

  test('answers 404 Department not found on update and delete of an unknown id', async () => {
    expectError(await http.put('/api/departments/999999999', as.Admin, { name: unique('D ') }), 404, 'Department not found');
    expectError(await http.del('/api/departments/999999999', as.Admin), 404, 'Department not found');
  });
});
