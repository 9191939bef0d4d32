import request from 'supertest';
import { bearer, unique, type TestUser } from '../helpers/factory';
import { BASE, ISO_MS, MISSING_ID, create, setupLocationsContext, softDelete, uniqueName } from './helpers';

const ctx = setupLocationsContext();
let admin: TestUser;
let superAdmin: TestUser;
let user: TestUser;
beforeAll(() => ({ admin, superAdmin, user } = ctx));

const api = () => request(ctx.app);

describe('POST /api/locations/countries', () => {
  test('creates a country with 201 and returns the record', async () => {
    const name = uniqueName('Country');
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name, code: 'XC' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'success', message: 'Country created successfully' });
    const country = res.body.data.country;
    expect(Object.keys(country).sort()).toEqual(['code', 'created_at', 'id', 'is_active', 'name', 'updated_at']);
    expect(country).toMatchObject({ name, code: 'XC', is_active: 1 });
    expect(Number.isInteger(country.id)).toBe(true);
    expect(country.created_at).toMatch(ISO_MS);
    expect(country.updated_at).toMatch(ISO_MS);
    const row = await ctx.db('countries').where({ id: country.id }).first();
    expect(row.name).toBe(name);
    expect(Number(row.is_active)).toBe(1);
  });

  test('lets a Super_admin create, and stores a missing code as null', async () => {
    const res = await api().post(`${BASE}/countries`).set(bearer(superAdmin)).send({ name: uniqueName('Country') });
    expect(res.status).toBe(201);
    expect(res.body.data.country.code).toBeNull();
  });

  test('ignores fields it does not accept, such as is_active', async () => {
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name: uniqueName('Country'), is_active: 0, id: MISSING_ID });
    expect(res.status).toBe(201);
    expect(res.body.data.country.is_active).toBe(1);
    expect(res.body.data.country.id).not.toBe(MISSING_ID);
  });

  test('round-trips a Bangla name exactly and finds it by a Bangla substring', async () => {
    const tag = unique('');
    const name = `বাংলাদেশ পরীক্ষা ${tag}`;
    const created = await create(ctx, admin, 'countries', { name, code: 'বাং' });
    expect(created.name).toBe(name);
    expect(created.code).toBe('বাং');
    expect((await ctx.db('countries').where({ id: created.id }).first()).name).toBe(name);
    const got = await api().get(`${BASE}/countries/${created.id}`).set(bearer(user));
    expect(got.body.data.country.name).toBe(name);
    const found = await api().get(`${BASE}/countries`).query({ search: `পরীক্ষা ${tag}` }).set(bearer(user));
    expect(found.body.data.countries.map((c: { id: number }) => c.id)).toEqual([created.id]);
  });

  test('refuses a name already taken with 409', async () => {
    const name = uniqueName('Country');
    await create(ctx, admin, 'countries', { name });
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ status: 'error', message: 'A country with this name already exists' });
  });

  test('refuses a name taken by an inactive country too', async () => {
    const name = uniqueName('Country');
    const first = await create(ctx, admin, 'countries', { name });
    await softDelete(ctx, admin, 'countries', first.id);
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name });
    expect(res.status).toBe(409);
  });

  test('compares names exactly: a name differing only in case is another name', async () => {
    const name = uniqueName('Casey');
    await create(ctx, admin, 'countries', { name });
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name: name.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body.data.country.name).toBe(name.toUpperCase());
  });

  test('accepts a name of exactly 100 characters and a code of 20', async () => {
    const name = `${unique('c')}${'n'.repeat(100)}`.slice(0, 100);
    const res = await api().post(`${BASE}/countries`).set(bearer(admin)).send({ name, code: 'c'.repeat(20) });
    expect(res.status).toBe(201);
    expect(res.body.data.country.name).toBe(name);
  });

});

describe('GET /api/locations/countries/:id', () => {
  test('returns one country to any signed-in user', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Country'), code: 'GT' });
    const res = await api().get(`${BASE}/countries/${created.id}`).set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'Country retrieved successfully', data: { country: created } });
  });

  test('answers 404 for an unknown id', async () => {
    const res = await api().get(`${BASE}/countries/${MISSING_ID}`).set(bearer(user));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Country not found' });
  });

  test('requires a bearer token', async () => {
    const res = await api().get(`${BASE}/countries/1`);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Access token is required');
  });
});

describe('PUT /api/locations/countries/:id', () => {
  test('changes name and code and moves updated_at', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Country'), code: 'AA' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const name = uniqueName('Renamed');
    const res = await api().put(`${BASE}/countries/${created.id}`).set(bearer(admin)).send({ name, code: 'BB' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Country updated successfully');
    expect(res.body.data.country).toMatchObject({ id: created.id, name, code: 'BB', is_active: 1, created_at: created.created_at });
    expect(Date.parse(res.body.data.country.updated_at)).toBeGreaterThan(Date.parse(String(created.updated_at)));
    expect((await ctx.db('countries').where({ id: created.id }).first()).name).toBe(name);
  });

  test('clears the code with null and keeps what it was not given', async () => {
    const name = uniqueName('Country');
    const created = await create(ctx, admin, 'countries', { name, code: 'AA' });
    const res = await api().put(`${BASE}/countries/${created.id}`).set(bearer(superAdmin)).send({ code: null });
    expect(res.status).toBe(200);
    expect(res.body.data.country).toMatchObject({ name, code: null });
  });

  test('keeps its own name without a conflict', async () => {
    const name = uniqueName('Country');
    const created = await create(ctx, admin, 'countries', { name });
    const res = await api().put(`${BASE}/countries/${created.id}`).set(bearer(admin)).send({ name });
    expect(res.status).toBe(200);
  });

  test('refuses a rename to a name another country has', async () => {
    const taken = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
    const other = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
    const res = await api().put(`${BASE}/countries/${other.id}`).set(bearer(admin)).send({ name: taken.name });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('A country with this name already exists');
    expect((await ctx.db('countries').where({ id: other.id }).first()).name).toBe(other.name);
  });

  test('answers 404 for an unknown id', async () => {
    const res = await api().put(`${BASE}/countries/${MISSING_ID}`).set(bearer(admin)).send({ name: uniqueName('X') });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Country not found');
  });

});

describe('DELETE /api/locations/countries/:id (soft delete) and reactivation', () => {
  const listIds = async (search: string, query: Record<string, string> = {}) => {
    const res = await api().get(`${BASE}/countries`).query({ search, ...query }).set(bearer(user));
    expect(res.status).toBe(200);
    return res.body.data.countries.map((c: { id: number }) => c.id);
  };

  test('marks the country inactive, keeps the row, and returns it', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
    const res = await api().delete(`${BASE}/countries/${created.id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Country deleted successfully');
    expect(res.body.data.country).toMatchObject({ id: created.id, name: created.name, is_active: 0 });
    const row = await ctx.db('countries').where({ id: created.id }).first();
    expect(Number(row.is_active)).toBe(0);
  });

  test('hides the country from lists but not from get', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Hidden') });
    expect(await listIds(created.name)).toEqual([created.id]);
    await softDelete(ctx, superAdmin, 'countries', created.id);
    expect(await listIds(created.name)).toEqual([]);
    expect(await listIds(created.name, { include_inactive: 'true' })).toEqual([created.id]);
    const got = await api().get(`${BASE}/countries/${created.id}`).set(bearer(user));
    expect(got.status).toBe(200);
    expect(got.body.data.country.is_active).toBe(0);
  });

  test('reactivates with is_active 1 or true, and deactivates with 0', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Phoenix') });
    await softDelete(ctx, admin, 'countries', created.id);
    const back = await api().put(`${BASE}/countries/${created.id}`).set(bearer(admin)).send({ is_active: 1 });
    expect(back.status).toBe(200);
    expect(back.body.data.country.is_active).toBe(1);
    expect(await listIds(created.name)).toEqual([created.id]);

    const off = await api().put(`${BASE}/countries/${created.id}`).set(bearer(admin)).send({ is_active: 0 });
    expect(off.body.data.country.is_active).toBe(0);
    expect(await listIds(created.name)).toEqual([]);

    const on = await api().put(`${BASE}/countries/${created.id}`).set(bearer(admin)).send({ is_active: true });
    expect(on.body.data.country.is_active).toBe(1);
  });

  test('answers 404 for an unknown id', async () => {
    const res = await api().delete(`${BASE}/countries/${MISSING_ID}`).set(bearer(admin));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Country not found' });
  });
});

describe('who may change countries', () => {
  test('a User reads the list and one country', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
    expect((await api().get(`${BASE}/countries`).set(bearer(user))).status).toBe(200);
    expect((await api().get(`${BASE}/countries/${created.id}`).set(bearer(user))).status).toBe(200);
  });

  test('a User may not create, update or delete: 403 and nothing changes', async () => {
    const created = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
    const name = uniqueName('Forbidden');
    const attempts = [
      api().post(`${BASE}/countries`).set(bearer(user)).send({ name }),
      api().put(`${BASE}/countries/${created.id}`).set(bearer(user)).send({ name }),
      api().delete(`${BASE}/countries/${created.id}`).set(bearer(user)),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
    }
    expect(await ctx.db('countries').where({ name }).first('id')).toBeUndefined();
    const row = await ctx.db('countries').where({ id: created.id }).first();
    expect(row.name).toBe(created.name);
    expect(Number(row.is_active)).toBe(1);
  });

  test('writes without a token are 401', async () => {
    const res = await api().post(`${BASE}/countries`).send({ name: uniqueName('Country') });
    expect(res.status).toBe(401);
  });
});
