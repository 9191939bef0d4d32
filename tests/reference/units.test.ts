import { setupTestContext } from '../helpers/context';
import { createDepartment, createUser, unique } from '../helpers/factory';
import { api, expectError, failingFields, ISO_MS, makeCallers, type Callers } from './reference-support';

const ctx = setupTestContext();
const http = api(ctx);
let as: Callers;

beforeAll(async () => {
  as = await makeCallers(ctx);
});

/** A unit made through the API by an Admin. */
async function newUnit(fields: Record<string, unknown> = {}) {
  const res = await http.post('/api/units', as.Admin, { name: unique('Unit '), code: unique('C').slice(0, 30), ...fields });
  expect(res.status).toBe(201);
  return res.body.data.unit as { id: number; name: string; code: string | null; parent_id: number | null };
}

describe('GET /api/units', () => {
  test('lists units under data.units with pagination {page, limit, total, total_pages}, ordered by name', async () => {
    const parent = await newUnit();
    const token = unique('t');
    const names = [`B ${token}`, `A ${token}`, `C ${token}`];
    for (const name of names) await newUnit({ name, parent_id: parent.id });

    const res = await http.get(`/api/units?parent_id=${parent.id}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', message: 'Units retrieved successfully' });
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 50, total: 3, total_pages: 1, has_more: false });
    expect(res.body.data.units.map((u: { name: string }) => u.name)).toEqual([...names].sort());
    const [first] = res.body.data.units;
    expect(first).toEqual({
      id: expect.any(Number),
      name: `A ${token}`,
      code: expect.any(String),
      parent_id: parent.id,
      parent_name: parent.name,
      description: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
  });

  test('pages with page and limit', async () => {
    const parent = await newUnit();
    for (let i = 0; i < 3; i++) await newUnit({ parent_id: parent.id });
    const page1 = await http.get(`/api/units?parent_id=${parent.id}&limit=2`, as.User);
    expect(page1.body.data.units).toHaveLength(2);
    expect(page1.body.data.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2, has_more: true });
    const page2 = await http.get(`/api/units?parent_id=${parent.id}&limit=2&page=2`, as.User);
    expect(page2.body.data.units).toHaveLength(1);
    expect(page2.body.data.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2, has_more: false });
    const ids = [...page1.body.data.units, ...page2.body.data.units].map((u: { id: number }) => u.id);
    expect(new Set(ids).size).toBe(3);
    const beyond = await http.get(`/api/units?parent_id=${parent.id}&limit=2&page=3`, as.User);
    expect(beyond.body.data.units).toEqual([]);
  });

  test('the default page holds at most 50 units', async () => {
    const res = await http.get('/api/units', as.User);
    expect(res.body.data.pagination.limit).toBe(50);
    expect(res.body.data.units.length).toBeLessThanOrEqual(50);
  });

  test('takes limit up to 500 and refuses 501, 0 and page 0', async () => {
    expect((await http.get('/api/units?limit=500', as.User)).status).toBe(200);
    expect(failingFields(await http.get('/api/units?limit=501', as.User))).toEqual(['limit']);
    expect(failingFields(await http.get('/api/units?limit=0', as.User))).toEqual(['limit']);
    expect(failingFields(await http.get('/api/units?page=0', as.User))).toEqual(['page']);
    expect(failingFields(await http.get('/api/units?page=x&limit=y', as.User))).toEqual(['limit', 'page']);
  });

  test('search matches name or code case-insensitively', async () => {
    const token = unique('srch');
    const byName = await newUnit({ name: `North ${token} Office` });
    const byCode = await newUnit({ code: `${token}`.slice(0, 30).toUpperCase() });
    await newUnit();
    const res = await http.get(`/api/units?search=${token.toUpperCase()}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.data.units.map((u: { id: number }) => u.id).sort()).toEqual([byName.id, byCode.id].sort());
    expect(res.body.data.pagination.total).toBe(2);
  });

  test('search takes % and _ literally', async () => {
    const token = unique('lit');
    await newUnit({ name: `${token}xx` });
    const pct = await http.get(`/api/units?search=${encodeURIComponent(`${token}%`)}`, as.User);
    expect(pct.body.data.units).toEqual([]);
    const under = await http.get(`/api/units?search=${encodeURIComponent(`${token}_x`)}`, as.User);
    expect(under.body.data.units).toEqual([]);
    const literal = await newUnit({ name: `${token}_%` });
    const found = await http.get(`/api/units?search=${encodeURIComponent(`${token}_%`)}`, as.User);
    expect(found.body.data.units.map((u: { id: number }) => u.id)).toEqual([literal.id]);
  });

  test('parent_id=null lists the top-level units only', async () => {
    const token = unique('top');
    const top = await newUnit({ name: `${token} top` });
    await newUnit({ name: `${token} child`, parent_id: top.id });
    const res = await http.get(`/api/units?parent_id=null&search=${token}`, as.User);
    expect(res.body.data.units.map((u: { id: number }) => u.id)).toEqual([top.id]);
    const all = await http.get('/api/units?parent_id=null&limit=500', as.User);
    for (const unit of all.body.data.units) expect(unit.parent_id).toBeNull();
  });

  test('code filters by the exact code', async () => {
    const unit = await newUnit();
    const res = await http.get(`/api/units?code=${encodeURIComponent(unit.code!)}`, as.User);
    expect(res.body.data.units.map((u: { id: number }) => u.id)).toEqual([unit.id]);
    const none = await http.get(`/api/units?code=${encodeURIComponent(`${unit.code}z`)}`, as.User);
    expect(none.body.data.pagination.total).toBe(0);
  });

  test('refuses a parent_id filter that is neither a positive integer nor null', async () => {
    for (const value of ['abc', '0', '-1', '1.5']) {
      expect(failingFields(await http.get(`/api/units?parent_id=${value}`, as.User))).toEqual(['parent_id']);
    }
  });

  test('needs a token', async () => {
    expectError(await http.get('/api/units', { token: 'x' } as never), 401, 'Invalid or expired token');
  });
});

describe('GET /api/units/:id', () => {
  test('returns data.unit with its parent name', async () => {
    const parent = await newUnit();
    const child = await newUnit({ parent_id: parent.id, description: 'A field office' });
    const res = await http.get(`/api/units/${child.id}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Unit retrieved successfully');
    expect(res.body.data.unit).toMatchObject({
      id: child.id,
      name: child.name,
      parent_id: parent.id,
      parent_name: parent.name,
      description: 'A field office',
    });
  });

  test('answers 404 Unit not found for an unknown id', async () => {
    expectError(await http.get('/api/units/999999999', as.User), 404, 'Unit not found');
  });
});

describe('POST, PUT and DELETE /api/units', () => {
  test('an empty code is no code: two units sent with code "" are both made, with code null', async () => {
    const first = await newUnit({ code: '' });
    const second = await newUnit({ code: '  ' });
    expect([first.code, second.code]).toEqual([null, null]);
  });

  test.each(['Admin', 'Super_admin'] as const)('an %s creates, updates and deletes a unit', async (role) => {
    const name = unique('Unit ');
    const created = await http.post('/api/units', as[role], { name, code: unique('K').slice(0, 30) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'success', message: 'Unit created successfully' });
    const { id } = created.body.data.unit;
    expect(created.body.data.unit).toMatchObject({ name, parent_id: null, description: null });

    const renamed = unique('Renamed ');
    const updated = await http.put(`/api/units/${id}`, as[role], { name: renamed, description: 'Moved' });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe('Unit updated successfully');
    expect(updated.body.data.unit).toMatchObject({ id, name: renamed, description: 'Moved' });
    expect((await ctx.db('units').where({ id }).first()).name).toBe(renamed);

    const deleted = await http.del(`/api/units/${id}`, as[role]);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'success', message: 'Unit deleted successfully', data: {} });
    expect(await ctx.db('units').where({ id }).first()).toBeUndefined();
    expectError(await http.get(`/api/units/${id}`, as.User), 404, 'Unit not found');
  });

  test('a User reads but may not write: 403 Insufficient permissions', async () => {
    const unit = await newUnit();
    expectError(await http.post('/api/units', as.User, { name: unique('Unit ') }), 403, 'Insufficient permissions');
    expectError(await http.put(`/api/units/${unit.id}`, as.User, { name: unique('Unit ') }), 403, 'Insufficient permissions');
    expectError(await http.del(`/api/units/${unit.id}`, as.User), 403, 'Insufficient permissions');
    expect((await ctx.db('units').where({ id: unit.id }).first()).name).toBe(unit.name);
  });

  test('needs a name of 2 to 150 characters', async () => {
    expect(failingFields(await http.post('/api/units', as.Admin, {}))).toEqual(['name']);
    expect(failingFields(await http.post('/api/units', as.Admin, { name: 'x' }))).toEqual(['name']);
    expect(failingFields(await http.post('/api/units', as.Admin, { name: 'x'.repeat(151) }))).toEqual(['name']);
  });

  test('refuses a duplicate name, compared case-insensitively: 409', async () => {
    const unit = await newUnit();
    const res = await http.post('/api/units', as.Admin, { name: unit.name.toUpperCase() });
    expectError(res, 409, 'A unit with this name already exists');
  });

  test('refuses a duplicate code, compared case-insensitively: 409', async () => {
    const unit = await newUnit();
    const res = await http.post('/api/units', as.Admin, { name: unique('Unit '), code: unit.code!.toLowerCase() });
    expectError(res, 409, 'A unit with this code already exists');
  });

  test('refuses renaming to the name of another unit, and keeps its own name on update', async () => {
    const a = await newUnit();
    const b = await newUnit();
    expectError(await http.put(`/api/units/${b.id}`, as.Admin, { name: a.name.toLowerCase() }), 409, 'A unit with this name already exists');
    const same = await http.put(`/api/units/${b.id}`, as.Admin, { name: b.name, code: b.code });
    expect(same.status).toBe(200);
  });

  test('answers 404 Unit not found when updating or deleting an unknown unit', async () => {
    expectError(await http.put('/api/units/999999999', as.Admin, { name: unique('Unit ') }), 404, 'Unit not found');
    expectError(await http.del('/api/units/999999999', as.Admin), 404, 'Unit not found');
  });

  test('refuses an unknown parent on create and update', async () => {
    expect(failingFields(await http.post('/api/units', as.Admin, { name: unique('Unit '), parent_id: 999999999 }))).toEqual(['parent_id']);
    const unit = await newUnit();
    expect(failingFields(await http.put(`/api/units/${unit.id}`, as.Admin, { parent_id: 999999999 }))).toEqual(['parent_id']);
  });

  test('refuses placing a unit under itself: 400 on parent_id', async () => {
    const unit = await newUnit();
    const res = await http.put(`/api/units/${unit.id}`, as.Admin, { parent_id: unit.id });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'parent_id', message: expect.any(String) }]);
    expect((await ctx.db('units').where({ id: unit.id }).first()).parent_id).toBeNull();
  });

  test('refuses placing a unit under its own sub-unit: 400 on parent_id', async () => {
    const top = await newUnit();
    const middle = await newUnit({ parent_id: top.id });
    const bottom = await newUnit({ parent_id: middle.id });
    for (const under of [middle.id, bottom.id]) {
      const res = await http.put(`/api/units/${top.id}`, as.Admin, { parent_id: under });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'parent_id', message: expect.any(String) }]);
    }
    expect((await ctx.db('units').where({ id: top.id }).first()).parent_id).toBeNull();
  });

  test('moves a unit under another branch, and back to the top with parent_id null', async () => {
    const a = await newUnit();
    const b = await newUnit();
    const child = await newUnit({ parent_id: a.id });
    const moved = await http.put(`/api/units/${child.id}`, as.Admin, { parent_id: b.id });
    expect(moved.body.data.unit).toMatchObject({ parent_id: b.id, parent_name: b.name });
    const top = await http.put(`/api/units/${child.id}`, as.Admin, { parent_id: null });
    expect(top.status).toBe(200);
    expect(top.body.data.unit).toMatchObject({ parent_id: null, parent_name: null });
  });

  test('refuses deleting a unit that contacts belong to: 409', async () => {
    const unit = await newUnit();
    await createUser(ctx, { unit_id: unit.id });
    expectError(await http.del(`/api/units/${unit.id}`, as.Admin), 409, 'Unit is in use and cannot be deleted');
    expect(await ctx.db('units').where({ id: unit.id }).first()).toBeDefined();
  });

  test('refuses deleting a unit that has departments: 409', async () => {
    const unit = await newUnit();
    await createDepartment(ctx, unit.id);
    expectError(await http.del(`/api/units/${unit.id}`, as.Admin), 409, 'Unit is in use and cannot be deleted');
  });

  test('refuses deleting a unit that has sub-units: 409', async () => {
    const unit = await newUnit();
    await newUnit({ parent_id: unit.id });
    expectError(await http.del(`/api/units/${unit.id}`, as.Admin), 409, 'Unit is in use and cannot be deleted');
  });
});
