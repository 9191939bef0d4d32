import { isMysql } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { contactsFixture, sampleDirectory, statistics } from './contacts-support';

/**
 * GET /api/contacts/statistics, /organizational-hierarchy, /unit/:unitId and /:id/children
 * (spec 2.6, 4.2 #7-10; DECISIONS 5). Each test reads its own units.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { admin: 'Super_admin', reader: true });
const { api, list, create, update, remove, move } = fx;
const directory = () => sampleDirectory(ctx);

describe('GET /api/contacts/statistics', () => {
  const COUNTERS = ['total_contacts', 'root_contacts', 'child_contacts', 'super_admins', 'admins', 'regular_users', 'total_units', 'total_departments'];
  const globalStats = async () => {
    const res = await api().get('/api/contacts/statistics').set(bearer(fx.reader));
    expect(res.status).toBe(200);
    return res.body.data.statistics as Record<string, number>;
  };
  const unitStats = async (unitId: number) => (await list({ unit_id: unitId, limit: 1 })).body.data.statistics as Record<string, number>;

  test('answers the eight integer counters, consistent with each other', async () => {
    const res = await api().get('/api/contacts/statistics').set(bearer(fx.reader));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const s = res.body.data.statistics;
    expect(Object.keys(s).sort()).toEqual([...COUNTERS].sort());
    for (const key of COUNTERS) expect(Number.isInteger(s[key])).toBe(true);
    expect(s.child_contacts).toBe(s.total_contacts - s.root_contacts);
    expect(s.regular_users).toBe(s.total_contacts - s.super_admins - s.admins);
    expect(s.total_contacts).toBeGreaterThanOrEqual(2);
    expect(s.super_admins).toBeGreaterThanOrEqual(1);
  });

  test('changes by exactly what a create, a role change and a delete change', async () => {
    const unit = await createUnit(ctx);
    const root = await createUser(ctx, { unit_id: unit.id });
    const g0 = await globalStats();
    const u0 = await unitStats(unit.id);
    expect(u0).toEqual(statistics(1, 1, 0, 0));

    const created = await create({
      name: 'Counted Child',
      service_no: unique('cnt'),
      unit_id: unit.id,
      designation_id: Number((await ctx.db('designations').orderBy('id').first('id')).id),
      phone: '0100',
      email: `${unique('cnt')}@example.test`.toLowerCase(),
      parent_id: root.id,
    });
    expect(created.status).toBe(201);
    const childId = created.body.data.contact.id;
    const u1 = await unitStats(unit.id);
    expect(u1).toEqual(statistics(2, 1, 0, 0));

    expect((await update(childId, { role_id: 2 })).status).toBe(200);
    const u2 = await unitStats(unit.id);
    expect(u2).toEqual(statistics(2, 1, 0, 1));

    expect((await remove(root.id)).status).toBe(200);
    const u3 = await unitStats(unit.id);
    // the root is gone; its child became a root
    expect(u3).toEqual(statistics(1, 1, 0, 1));

    if (!isMysql()) {
      // this file's own database: the global counters move by exactly the same amounts
      const g3 = await globalStats();
      expect(g3.total_contacts - g0.total_contacts).toBe(0);
      expect(g3.root_contacts - g0.root_contacts).toBe(0);
      expect(g3.child_contacts - g0.child_contacts).toBe(0);
      expect(g3.admins - g0.admins).toBe(1);
      expect(g3.regular_users - g0.regular_users).toBe(-1);
      expect(g3.super_admins - g0.super_admins).toBe(0);
    }
  });

  (isMysql() ? test.skip : test)('global counters follow each change exactly (own SQLite database)', async () => {
    // units and departments through the API, whose writes bump the reference version that their
    // counts are kept under (rows inserted behind the service's back, as the factory's, are seen
    // within a minute)
    const superAdmin = bearer(fx.admin);
    const made = await api().post('/api/units').set(superAdmin).send({ name: unique('Unit ') });
    expect(made.status).toBe(201);
    const unit = made.body.data.unit as { id: number };
    const g0 = await globalStats();
    const a = await createUser(ctx, { unit_id: unit.id });
    const g1 = await globalStats();
    expect(g1).toEqual({ ...g0, total_contacts: g0.total_contacts + 1, root_contacts: g0.root_contacts + 1, regular_users: g0.regular_users + 1 });
    await createUser(ctx, { unit_id: unit.id, parent_id: a.id, role: 'Super_admin' });
    const g2 = await globalStats();
    expect(g2).toEqual({ ...g1, total_contacts: g1.total_contacts + 1, child_contacts: g1.child_contacts + 1, super_admins: g1.super_admins + 1 });
    expect((await api().post('/api/units').set(superAdmin).send({ name: unique('Unit ') })).status).toBe(201);
    expect((await api().post('/api/departments').set(superAdmin).send({ name: unique('Department '), unit_id: unit.id })).status).toBe(201);
    const g3 = await globalStats();
    expect(g3).toEqual({ ...g2, total_units: g2.total_units + 1, total_departments: g2.total_departments + 1 });
    expect((await remove(a.id)).status).toBe(200);
    const g4 = await globalStats();
    // a goes; its Super_admin child becomes a root
    expect(g4).toEqual({
      ...g3,
      total_contacts: g3.total_contacts - 1,
      root_contacts: g3.root_contacts,
      child_contacts: g3.child_contacts - 1,
      regular_users: g3.regular_users - 1,
    });
  });
});

describe('GET /api/contacts/organizational-hierarchy', () => {
  type HUnit = { id: number; name: string; code: string | null; parent_id: number | null; total_users: number; departments: unknown[]; children: HUnit[] };
  const find = (units: HUnit[], id: number): HUnit | undefined => {
    const stack = [...units];
    while (stack.length > 0) {
      const u = stack.pop()!;
      if (u.id === id) return u;
      stack.push(...u.children);
    }
    return undefined;
  };

  test('shows a unit under its parent unit with its active head count and its departments\' counts', async () => {
    const top = await createUnit(ctx);
    const sub = await createUnit(ctx, { parent_id: top.id });
    const department = await createDepartment(ctx, sub.id);
    const empty = await createDepartment(ctx, sub.id);
    await createUser(ctx, { unit_id: sub.id, department_id: department.id });
    await createUser(ctx, { unit_id: sub.id });
    await createUser(ctx, { unit_id: sub.id, department_id: department.id, is_active: false });

    const res = await api().get('/api/contacts/organizational-hierarchy').set(bearer(fx.reader));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const units: HUnit[] = res.body.data.hierarchy.units;
    const topNode = units.find((u) => u.id === top.id);
    expect(topNode).toBeDefined();
    expect(topNode).toMatchObject({ id: top.id, name: top.name, parent_id: null, total_users: 0, departments: [] });
    expect(typeof topNode!.code).toBe('string');
    expect(topNode!.children).toEqual([
      {
        id: sub.id,
        name: sub.name,
        code: expect.any(String),
        parent_id: top.id,
        total_users: 2,
        departments: expect.arrayContaining([
          { id: department.id, name: department.name, unit_id: sub.id, total_users: 1 },
          { id: empty.id, name: empty.name, unit_id: sub.id, total_users: 0 },
        ]),
        children: [],
      },
    ]);
    expect(find(units, sub.id)!.departments).toHaveLength(2);
  });

  test('counts follow a delete and a new contact', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    const a = await createUser(ctx, { unit_id: unit.id, department_id: department.id });
    const read = async () => find((await api().get('/api/contacts/organizational-hierarchy').set(bearer(fx.reader))).body.data.hierarchy.units, unit.id)!;
    expect((await read()).total_users).toBe(1);
    await createUser(ctx, { unit_id: unit.id, department_id: department.id });
    expect((await read()).departments).toEqual([expect.objectContaining({ id: department.id, total_users: 2 })]);
    expect((await remove(a.id)).status).toBe(200);
    const after = await read();
    expect(after.total_users).toBe(1);
    expect(after.departments).toEqual([expect.objectContaining({ id: department.id, total_users: 1 })]);
  });
});

describe('GET /api/contacts/unit/:unitId', () => {
  test('answers the unit\'s whole tree with unit_id, statistics and the filters block', async () => {
    const d = await directory();
    const res = await api().get(`/api/contacts/unit/${d.unit.id}`).set(bearer(fx.reader));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data.unit_id).toBe(d.unit.id);
    expect(res.body.data.statistics).toEqual(statistics(5, 2, 1, 1));
    expect(res.body.data.filters).toEqual({ search: '', department_id: null, format: 'tree', include_inactive: false, role_filter: 'all' });
    expect(res.body.data.contacts.map((c: { name: string }) => c.name)).toEqual(['Alpha', 'Echo']);
    expect(res.body.data.contacts[0].children.map((c: { name: string }) => c.name)).toEqual(['Bravo', 'Delta']);
  });

  test('applies and echoes search, department_id, format, include_inactive and role_filter', async () => {
    const d = await directory();
    const get = (query: Record<string, unknown>) => api().get(`/api/contacts/unit/${d.unit.id}`).query(query).set(bearer(fx.reader));

    const byDepartment = await get({ department_id: d.d2.id, format: 'flat' });
    expect(byDepartment.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.charlie.id, d.echo.id]);
    expect(byDepartment.body.data.statistics).toEqual(statistics(2, 1, 0, 0));
    expect(byDepartment.body.data.filters).toEqual({
      search: '', department_id: String(d.d2.id), format: 'flat', include_inactive: false, role_filter: 'all',
    });

    const inactive = await get({ include_inactive: 'true', format: 'flat', role_filter: 'user' });
    expect(inactive.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.charlie.id, d.delta.id, d.echo.id, d.foxtrot.id]);
    expect(inactive.body.data.filters).toMatchObject({ include_inactive: true, role_filter: 'user' });

    const searched = await get({ search: 'RAVO', format: 'hierarchical' });
    expect(searched.body.data.contacts).toEqual([expect.objectContaining({ id: d.bravo.id, path: 'Alpha > Bravo', ancestors: [d.alpha.id] })]);
    expect(searched.body.data.filters).toMatchObject({ search: 'RAVO', format: 'hierarchical' });
  });

  test('answers 404 `Unit not found` for an unknown unit', async () => {
    const res = await api().get('/api/contacts/unit/2000000000').set(bearer(fx.reader));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Unit not found' });
  });

  test('an existing unit without contacts answers an empty tree', async () => {
    const unit = await createUnit(ctx);
    const res = await api().get(`/api/contacts/unit/${unit.id}`).set(bearer(fx.reader));
    expect(res.status).toBe(200);
    expect(res.body.data.contacts).toEqual([]);
    expect(res.body.data.statistics).toEqual(statistics(0, 0, 0, 0));
  });
});

describe('GET /api/contacts/:id/children', () => {
  test('answers the direct children only, by name, with parent_id and total', async () => {
    const d = await directory();
    const res = await api().get(`/api/contacts/${d.alpha.id}/children`).set(bearer(fx.reader));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data.parent_id).toBe(d.alpha.id);
    expect(res.body.data.children.map((c: { id: number }) => c.id)).toEqual([d.bravo.id, d.delta.id]);
    expect(res.body.data.children[0]).toMatchObject({ id: d.bravo.id, name: 'Bravo', parent_id: d.alpha.id, parent_name: 'Alpha', is_active: true });
    expect(res.body.data.total).toBe(2);
  });

  test('pages the children; total counts all of them', async () => {
    const d = await directory();
    const page = (p: number) => api().get(`/api/contacts/${d.alpha.id}/children`).query({ page: p, limit: 1 }).set(bearer(fx.reader));
    const first = await page(1);
    const second = await page(2);
    const third = await page(3);
    expect(first.body.data.children.map((c: { id: number }) => c.id)).toEqual([d.bravo.id]);
    expect(second.body.data.children.map((c: { id: number }) => c.id)).toEqual([d.delta.id]);
    expect(third.body.data.children).toEqual([]);
    for (const r of [first, second, third]) expect(r.body.data.total).toBe(2);
  });

  test('a leaf has no children; an inactive child shows only with include_inactive', async () => {
    const d = await directory();
    const res = await api().get(`/api/contacts/${d.charlie.id}/children`).set(bearer(fx.reader));
    expect(res.body.data).toMatchObject({ parent_id: d.charlie.id, children: [], total: 0 });
    const dormant = await createUser(ctx, { unit_id: d.unit.id, parent_id: d.echo.id, is_active: false });
    const hidden = await api().get(`/api/contacts/${d.echo.id}/children`).set(bearer(fx.reader));
    expect(hidden.body.data.total).toBe(0);
    const shown = await api().get(`/api/contacts/${d.echo.id}/children`).query({ include_inactive: 'true' }).set(bearer(fx.reader));
    expect(shown.body.data.children.map((c: { id: number }) => c.id)).toEqual([dormant.id]);
  });

  test('answers 404 `Contact not found` for an unknown contact', async () => {
    const res = await api().get('/api/contacts/2000000000/children').set(bearer(fx.reader));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
  });

  test('the total (kept per directory version) follows each change read before and after it', async () => {
    const d = await directory();
    const childrenOf = async (id: number, query: Record<string, string> = {}) => {
      const res = await api().get(`/api/contacts/${id}/children`).query(query).set(bearer(fx.reader));
      expect(res.status).toBe(200);
      return { ids: res.body.data.children.map((c: { id: number }) => c.id), total: res.body.data.total };
    };
    expect(await childrenOf(d.echo.id)).toEqual({ ids: [], total: 0 });
    const designationId = Number((await ctx.db('designations').orderBy('id').first('id')).id);
    const created = await create({ name: 'Zulu', service_no: unique('SN'), unit_id: d.unit.id, designation_id: designationId, phone: '0171', email: `${unique('zulu')}@example.test`, parent_id: d.echo.id });
    expect(created.status).toBe(201);
    const zulu = created.body.data.contact.id;
    expect(await childrenOf(d.echo.id)).toEqual({ ids: [zulu], total: 1 });
    expect((await move(zulu, d.alpha.id)).status).toBe(200);
    expect(await childrenOf(d.echo.id)).toEqual({ ids: [], total: 0 });
    expect((await childrenOf(d.alpha.id)).total).toBe(3);
    expect((await remove(zulu)).status).toBe(200);
    expect(await childrenOf(d.alpha.id)).toEqual({ ids: [d.bravo.id, d.delta.id], total: 2 });
    // a page past the last: no children, the same total
    expect(await childrenOf(d.alpha.id, { page: '3', limit: '1' })).toEqual({ ids: [], total: 2 });
  });

  test('follows a move', async () => {
    const d = await directory();
    expect((await move(d.charlie.id, d.alpha.id)).status).toBe(200);
    const res = await api().get(`/api/contacts/${d.alpha.id}/children`).set(bearer(fx.reader));
    expect(res.body.data.children.map((c: { name: string }) => c.name)).toEqual(['Bravo', 'Charlie', 'Delta']);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});
