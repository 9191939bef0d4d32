import { setupTestContext } from '../helpers/context';
import { createUser, unique } from '../helpers/factory';
import { api, expectError, failingFields, ISO_MS, makeCallers, type Callers } from './reference-support';

const ctx = setupTestContext();
const http = api(ctx);
let as: Callers;

beforeAll(async () => {
  as = await makeCallers(ctx);
});

interface Kind {
  path: string;
  plural: string;
  singular: string;
  label: string;
  /** the users column that refers to it */
  userField: 'designation_id' | 'rank_id';
  extra: Record<string, unknown>;
}

const KINDS: Kind[] = [
  { path: '/api/designations', plural: 'designations', singular: 'designation', label: 'Designation', userField: 'designation_id', extra: {} },
  { path: '/api/ranks', plural: 'ranks', singular: 'rank', label: 'Rank', userField: 'rank_id', extra: { level: 7 } },
];

describe.each(KINDS)('$path', (kind) => {
  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await http.post(kind.path, as.Admin, { name: unique(`${kind.label} `), code: unique('C').slice(0, 30), ...kind.extra, ...fields });
    expect(res.status).toBe(201);
    return res.body.data[kind.singular] as { id: number; name: string; code: string };
  };

  test(`lists under data.${kind.plural} with pagination, and search finds by name or code`, async () => {
    const token = unique('q');
    const byName = await create({ name: `${kind.label} ${token}` });
    const byCode = await create({ code: token.toUpperCase().slice(0, 30) });
    const res = await http.get(`${kind.path}?search=${token}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(`${kind.label}s retrieved successfully`);
    expect(res.body.data[kind.plural].map((r: { id: number }) => r.id).sort()).toEqual([byName.id, byCode.id].sort());
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 50, total: 2, total_pages: 1, has_more: false });

    const all = await http.get(kind.path, as.User);
    expect(all.body.data.pagination.limit).toBe(50);
    expect(all.body.data[kind.plural].length).toBeLessThanOrEqual(50);
    expect(failingFields(await http.get(`${kind.path}?limit=501`, as.User))).toEqual(['limit']);
    expect((await http.get(`${kind.path}?limit=500`, as.User)).status).toBe(200);
  });

  test(`GET /:id returns data.${kind.singular}; an unknown id is 404 ${kind.label} not found`, async () => {
    const record = await create();
    const res = await http.get(`${kind.path}/${record.id}`, as.User);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(`${kind.label} retrieved successfully`);
    expect(res.body.data[kind.singular]).toEqual({
      id: record.id,
      name: record.name,
      code: record.code,
      ...kind.extra,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expectError(await http.get(`${kind.path}/999999999`, as.User), 404, `${kind.label} not found`);
  });

  test.each(['Admin', 'Super_admin'] as const)('an %s creates (201), updates (200) and deletes (200)', async (role) => {
    const name = unique(`${kind.label} `);
    const created = await http.post(kind.path, as[role], { name, ...kind.extra });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe(`${kind.label} created successfully`);
    const { id } = created.body.data[kind.singular];
    expect(created.body.data[kind.singular]).toMatchObject({ name, code: null });

    const updated = await http.put(`${kind.path}/${id}`, as[role], { name: `${name} II`, code: unique('N').slice(0, 30) });
    expect(updated.status).toBe(200);
    expect(updated.body.message).toBe(`${kind.label} updated successfully`);
    expect(updated.body.data[kind.singular].name).toBe(`${name} II`);

    const cleared = await http.put(`${kind.path}/${id}`, as[role], { code: null });
    expect(cleared.body.data[kind.singular].code).toBeNull();

    const deleted = await http.del(`${kind.path}/${id}`, as[role]);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'success', message: `${kind.label} deleted successfully`, data: {} });
    expect(await ctx.db(kind.plural).where({ id }).first()).toBeUndefined();
  });

  test('a User reads but gets 403 Insufficient permissions on writes', async () => {
    const record = await create();
    expect((await http.get(`${kind.path}/${record.id}`, as.User)).status).toBe(200);
    expectError(await http.post(kind.path, as.User, { name: unique('X ') }), 403, 'Insufficient permissions');
    expectError(await http.put(`${kind.path}/${record.id}`, as.User, { name: unique('X ') }), 403, 'Insufficient permissions');
    expectError(await http.del(`${kind.path}/${record.id}`, as.User), 403, 'Insufficient permissions');
    expect(await ctx.db(kind.plural).where({ id: record.id }).first()).toBeDefined();
  });

  test('refuses a duplicate name (case-insensitive) or code: 409', async () => {
    const record = await create();
    const lower = kind.label.toLowerCase();
    expectError(await http.post(kind.path, as.Admin, { ...kind.extra, name: record.name.toLowerCase() }), 409, `A ${lower} with this name already exists`);
    expectError(
      await http.post(kind.path, as.Admin, { ...kind.extra, name: unique(`${kind.label} `), code: record.code.toLowerCase() }),
      409,
      `A ${lower} with this code already exists`,
    );
    const other = await create();
    expectError(await http.put(`${kind.path}/${other.id}`, as.Admin, { name: record.name.toUpperCase() }), 409, `A ${lower} with this name already exists`);
  });

  test('refuses deleting one that a contact holds: 409', async () => {
    const record = await create();
    const holder = await createUser(ctx);
    await ctx.db('users').where({ id: holder.id }).update({ [kind.userField]: record.id });
    expectError(await http.del(`${kind.path}/${record.id}`, as.Admin), 409, `${kind.label} is in use and cannot be deleted`);
    expect(await ctx.db(kind.plural).where({ id: record.id }).first()).toBeDefined();
  });

  test(`answers 404 ${kind.label} not found on update and delete of an unknown id`, async () => {
    expectError(await http.put(`${kind.path}/999999999`, as.Admin, { name: unique('X ') }), 404, `${kind.label} not found`);
    expectError(await http.del(`${kind.path}/999999999`, as.Admin), 404, `${kind.label} not found`);
  });

  test('validates name and code', async () => {
    expect(failingFields(await http.post(kind.path, as.Admin, { ...kind.extra, code: 'x'.repeat(31) }))).toEqual(['code', 'name']);
    const record = await create();
    expect(failingFields(await http.put(`${kind.path}/${record.id}`, as.Admin, { name: 5 }))).toEqual(['name']);
  });
});

describe('ranks are ordered by level', () => {
  test('a lower level comes first, whatever the name', async () => {
    const token = unique('lvl');
    const junior = await http.post('/api/ranks', as.Admin, { name: `A ${token}`, level: 900 });
    const senior = await http.post('/api/ranks', as.Admin, { name: `Z ${token}`, level: 2 });
    const res = await http.get(`/api/ranks?search=${token}`, as.User);
    expect(res.body.data.ranks.map((r: { id: number }) => r.id)).toEqual([senior.body.data.rank.id, junior.body.data.rank.id]);
  });

  test('requires a level in 1..1000 (1 is the most senior)', async () => {
    expect(failingFields(await http.post('/api/ranks', as.Admin, { name: unique('R ') }))).toEqual(['level']);
    expect(failingFields(await http.post('/api/ranks', as.Admin, { name: unique('R '), level: 0 }))).toEqual(['level']);
    expect(failingFields(await http.post('/api/ranks', as.Admin, { name: unique('R '), level: 1001 }))).toEqual(['level']);
    expect(failingFields(await http.post('/api/ranks', as.Admin, { name: unique('R '), level: 'high' }))).toEqual(['level']);
  });
});
