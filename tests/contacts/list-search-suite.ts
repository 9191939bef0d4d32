import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { nameTree, settingsOf, statistics } from './contacts-support';

/**
 * The `search` of GET /api/contacts (tree, flat and hierarchical, every filter, pages and
 * statistics) and of GET /api/contacts/unit/:unitId, run by searchSuite once per way of
 * searching: the in-memory index (built on demand, or in the background) and SQL. Every term
 * holds a tag of the test's own, so each test sees only its own contacts.
 */

interface Helpers {
  reader: () => TestUser;
  admin: () => TestUser;
  contact: (unitId: number, fields?: Record<string, unknown>) => Promise<{ id: number; name: string; email: string; service_no: string }>;
}

type Listed = { id: number };
const idsOf = (res: request.Response): number[] => res.body.data.contacts.map((c: Listed) => c.id);

export function listSearchTests(ctx: TestContext, env: Record<string, string>, h: Helpers): void {
  const api = () => request(ctx.app);
  const list = (query: Record<string, unknown>) => api().get('/api/contacts').query(query).set(bearer(h.reader()));
  const unitTree = (unitId: number, query: Record<string, unknown>) => api().get(`/api/contacts/unit/${unitId}`).query(query).set(bearer(h.reader()));
  const flat = async (query: Record<string, unknown>) => idsOf(await list({ ...query, format: 'flat' }));

  /**
   * A unit of its own; the names of all but Delta and Golf hold the tag `t`:
   *   Alpha t (Super_admin, D1) -> Bravo t (Admin, D1) -> Charlie t (User, D2)
   *                             -> Delta (User)
   *   Echo t (User, D2)
   *   Foxtrot t (User, inactive)
   * and Hotel t in a unit of its own.
   */
  async function directory() {
    const t = unique('ls').toLowerCase();
    const unit = await createUnit(ctx);
    const d1 = await createDepartment(ctx, unit.id);
    const d2 = await createDepartment(ctx, unit.id);
    const at = (fields: Parameters<typeof createUser>[1]) => createUser(ctx, { unit_id: unit.id, ...fields });
    const alpha = await at({ name: `Alpha ${t}`, role: 'Super_admin', department_id: d1.id });
    const bravo = await at({ name: `Bravo ${t}`, role: 'Admin', department_id: d1.id, parent_id: alpha.id });
    const charlie = await at({ name: `Charlie ${t}`, department_id: d2.id, parent_id: bravo.id });
    const delta = await at({ name: 'Delta', parent_id: alpha.id });
    const echo = await at({ name: `Echo ${t}`, department_id: d2.id });
    const foxtrot = await at({ name: `Foxtrot ${t}`, is_active: false });
    const hotel = await createUser(ctx, { name: `Hotel ${t}` });
    return { t, unit, d1, d2, alpha, bravo, charlie, delta, echo, foxtrot, hotel };
  }

  describe(`GET /api/contacts?search= and the unit tree's search (${settingsOf(env)})`, () => {
    test('matches in any letter case, in pre-order, nested as a tree, with the statistics of the matches', async () => {
      const d = await directory();
      const res = await list({ search: d.t.toUpperCase(), unit_id: d.unit.id });
      expect(res.status).toBe(200);
      expect(nameTree(res.body.data.contacts)).toEqual([[`Alpha ${d.t}`, [[`Bravo ${d.t}`, [[`Charlie ${d.t}`, []]]]]], [`Echo ${d.t}`, []]]);
      expect(res.body.data.statistics).toEqual(statistics(4, 2, 1, 1));
      expect(res.body.data.pagination).toEqual({ page: 1, limit: 100, total: 4, total_pages: 1, has_more: false, format: 'tree' });
      expect(res.body.data.filters).toMatchObject({ search: d.t.toUpperCase(), unit_id: String(d.unit.id), include_inactive: false, role_filter: 'all' });
    });

    test('flat and hierarchical formats give each match its level, path and ancestors', async () => {
      const d = await directory();
      const res = await list({ search: d.t, unit_id: d.unit.id, format: 'flat' });
      expect(res.body.data.contacts.map((c: { id: number; level: number }) => [c.id, c.level])).toEqual([
        [d.alpha.id, 0], [d.bravo.id, 1], [d.charlie.id, 2], [d.echo.id, 0],
      ]);
      const paths = await list({ search: d.t, unit_id: d.unit.id, format: 'hierarchical' });
      expect(paths.body.data.contacts[2]).toMatchObject({ id: d.charlie.id, path: `Alpha ${d.t} > Bravo ${d.t} > Charlie ${d.t}`, ancestors: [d.alpha.id, d.bravo.id] });
    });

    test('without unit_id, the matches of every unit', async () => {
      const d = await directory();
      const res = await list({ search: d.t, format: 'flat' });
      expect(idsOf(res).sort((a, b) => a - b)).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.echo.id, d.hotel.id].sort((a, b) => a - b));
      expect(res.body.data.statistics).toEqual(statistics(5, 3, 1, 1));
    });

    test.each([
      [{ role_filter: 'super_admin' }, ['alpha'], [1, 1, 1, 0]],
      [{ role_filter: 'admin' }, ['bravo'], [1, 0, 0, 1]],
      [{ role_filter: 'user' }, ['charlie', 'echo'], [2, 1, 0, 0]],
      [{ include_inactive: 'true' }, ['alpha', 'bravo', 'charlie', 'echo', 'foxtrot'], [5, 3, 1, 1]],
      [{ include_inactive: 'true', role_filter: 'user' }, ['charlie', 'echo', 'foxtrot'], [3, 2, 0, 0]],
      [{ department: 'd1' }, ['alpha', 'bravo'], [2, 1, 1, 1]],
      [{ department: 'd2', role_filter: 'user' }, ['charlie', 'echo'], [2, 1, 0, 0]],
      [{ parent: 'alpha' }, ['bravo', 'charlie'], [2, 0, 0, 1]],
      [{ parent: 'alpha', role_filter: 'user' }, ['charlie'], [1, 0, 0, 0]],
      [{ parent: 'bravo', department: 'd2' }, ['charlie'], [1, 0, 0, 0]],
    ] as const)('%j narrows the matches, and the statistics count what is left', async (filter, keys, [total, roots, supers, admins]) => {
      const d = await directory();
      const { department, parent, ...rest } = filter as { department?: 'd1' | 'd2'; parent?: 'alpha' | 'bravo' };
      const query = {
        ...rest,
        search: d.t,
        unit_id: d.unit.id,
        ...(department ? { department_id: d[department].id } : {}),
        ...(parent ? { parent_id: d[parent].id } : {}),
      };
      const res = await list({ ...query, format: 'flat' });
      expect(idsOf(res)).toEqual(keys.map((k) => d[k].id));
      expect(res.body.data.statistics).toEqual(statistics(total, roots, supers, admins));
      expect(res.body.data.pagination.total).toBe(total);
    });

    test('a match whose parent does not match sits at the top of the tree', async () => {
      const d = await directory();
      const res = await list({ search: d.t, unit_id: d.unit.id, role_filter: 'user' });
      expect(nameTree(res.body.data.contacts)).toEqual([[`Charlie ${d.t}`, []], [`Echo ${d.t}`, []]]);
      expect(res.body.data.contacts[0].parent_id).toBe(d.bravo.id);
    });

    test('pages cut the matches in pre-order; total and statistics count them all', async () => {
      const d = await directory();
      const page = (n: number) => list({ search: d.t, unit_id: d.unit.id, format: 'flat', limit: 2, page: n });
      const second = await page(2);
      expect(idsOf(second)).toEqual([d.charlie.id, d.echo.id]);
      expect(second.body.data.pagination).toEqual({ page: 2, limit: 2, total: 4, total_pages: 2, has_more: false, format: 'flat' });
      expect(second.body.data.statistics).toEqual(statistics(4, 2, 1, 1));
      const beyond = await page(3);
      expect(idsOf(beyond)).toEqual([]);
      expect(beyond.body.data.pagination.total).toBe(4);
    });

    test.each([
      ['name', (t: string) => ({ name: `Named ${t.toUpperCase()}` }), true],
      ['email', (t: string) => ({ email: `m.${t}@example.test` }), true],
      ['service_no', (t: string) => ({ service_no: `SN/${t}` }), true],
      ['phone', (_t: string, digits: string) => ({ phone: digits }), true],
      ['mobile', (_t: string, digits: string) => ({ mobile: digits }), false],
    ])('a term held in %s alone is matched only in the listed fields (name, email, service_no, phone: spec 4.2 #1)', async (field, fields, listed) => {
      const unit = await createUnit(ctx);
      const digits = `0${String(Date.now() % 1e9).padStart(9, '0')}${Math.floor(Math.random() * 1e4)}`;
      const t = unique('lf').toLowerCase();
      const match = await h.contact(unit.id, fields(t, digits));
      await h.contact(unit.id);
      const term = field === 'phone' || field === 'mobile' ? digits : t;
      expect(await flat({ search: term, unit_id: unit.id })).toEqual(listed ? [match.id] : []);
      expect(idsOf(await unitTree(unit.id, { search: term, format: 'flat' }))).toEqual(listed ? [match.id] : []);
    });

    test('a term in the phone and the mobile is matched (by the phone)', async () => {
      const unit = await createUnit(ctx);
      const digits = `0${String(Date.now() % 1e9).padStart(9, '0')}${Math.floor(Math.random() * 1e4)}`;
      const both = await h.contact(unit.id, { phone: `1${digits}`, mobile: `2${digits}` });
      await h.contact(unit.id, { mobile: `3${digits}` });
      expect(await flat({ search: digits, unit_id: unit.id })).toEqual([both.id]);
    });

    test('a two-character term, and %, _ and \\ taken literally', async () => {
      const unit = await createUnit(ctx);
      const plain = (name: string) => {
        const n = `${Date.now()}${Math.floor(Math.random() * 1e9)}`;
        return h.contact(unit.id, { name, email: `n${n}@example.test`, service_no: `S${n}` });
      };
      const start = await plain('Qx at start');
      const literal = await plain('50% off_x\\y');
      await plain('no match q x');
      await plain('50 percent offax y');
      expect(await flat({ search: 'qX', unit_id: unit.id })).toEqual([start.id]);
      for (const term of ['0% o', 'f_x', 'x\\y']) expect({ term, ids: await flat({ search: term, unit_id: unit.id }) }).toEqual({ term, ids: [literal.id] });
      expect(await flat({ search: '%_', unit_id: unit.id })).toEqual([]);
    });

    test('folds case as JavaScript does (Greek final sigma, dotted I)', async () => {
      const unit = await createUnit(ctx);
      const tag = unique('lfold').toLowerCase();
      const found = await h.contact(unit.id, { name: `ΟΔΟΣ İzmir ${tag}` });
      for (const term of [`ΟΔΟΣ İZMIR ${tag}`, `οδος i\u0307zmir ${tag}`]) {
        expect({ term, ids: await flat({ search: term, unit_id: unit.id }) }).toEqual({ term, ids: [found.id] });
      }
    });

    test('after a rename and a delete: the new name is matched, the old one and the deleted contact are not', async () => {
      const d = await directory();
      const fresh = unique('lnew').toLowerCase();
      const rename = await api().put(`/api/contacts/${d.echo.id}`).set(bearer(h.admin())).send({ name: `Echo ${fresh}` });
      expect(rename.status).toBe(200);
      expect(await flat({ search: fresh })).toEqual([d.echo.id]);
      expect(await flat({ search: d.t, unit_id: d.unit.id })).toEqual([d.alpha.id, d.bravo.id, d.charlie.id]);
      expect((await api().delete(`/api/contacts/${d.charlie.id}`).set(bearer(h.admin()))).status).toBe(200);
      expect(await flat({ search: d.t, unit_id: d.unit.id })).toEqual([d.alpha.id, d.bravo.id]);
      expect(await flat({ search: d.t, unit_id: d.unit.id, include_inactive: true })).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.foxtrot.id]);
    });

    // a move changes the order and the parents, not what a search shows: the search version
    // stays, and an index that held the old tree would answer with the old order and roots
    test('after a move: the new pre-order, parent range and root count', async () => {
      const d = await directory();
      expect(await flat({ search: d.t, unit_id: d.unit.id })).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.echo.id]);
      const moved = await api().put(`/api/contacts/${d.charlie.id}/move`).set(bearer(h.admin())).send({ parent_id: null });
      expect(moved.status).toBe(200);
      const res = await list({ search: d.t, unit_id: d.unit.id, format: 'flat' });
      // Charlie is a root now, between Alpha's subtree and Echo: the same order, other levels and roots
      expect(idsOf(res)).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.echo.id]);
      expect(res.body.data.contacts.map((c: { level: number }) => c.level)).toEqual([0, 1, 0, 0]);
      expect(res.body.data.statistics).toEqual(statistics(4, 3, 1, 1));
      expect(await flat({ search: d.t, parent_id: d.alpha.id })).toEqual([d.bravo.id]);
      // under Echo, Charlie comes after it
      expect((await api().put(`/api/contacts/${d.charlie.id}/move`).set(bearer(h.admin())).send({ parent_id: d.echo.id })).status).toBe(200);
      expect(await flat({ search: d.t, unit_id: d.unit.id })).toEqual([d.alpha.id, d.bravo.id, d.echo.id, d.charlie.id]);
      expect(await flat({ search: d.t, parent_id: d.echo.id })).toEqual([d.charlie.id]);
      expect(idsOf(await unitTree(d.unit.id, { search: d.t, format: 'flat' }))).toEqual([d.alpha.id, d.bravo.id, d.echo.id, d.charlie.id]);
    });

    // Which way answered: a contact whose trigram rows are gone (only SQL reads them) is found
    // by the index and missed by SQL. With SEARCH_INDEX=memory the index must answer: on demand
    // at once; in the background run once its first build has ended (the file's earlier
    // searches started it), though the contact was added after that build: with the contacts
    // changed since. With SEARCH_INDEX=sql, SQL must.
    const indexAnswers = env.SEARCH_INDEX === 'memory';
    /** The answer of `ask`, once it is `want` (the background run's first build may still run), or the last one. */
    const settled = async (ask: () => Promise<number[]>, want: number[]) => {
      let got = await ask();
      for (let i = 0; i < 100 && indexAnswers && JSON.stringify(got) !== JSON.stringify(want); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        got = await ask();
      }
      return got;
    };
    test(`${indexAnswers ? 'the index' : 'SQL'} answers the listing's and the unit tree's search`, async () => {
      const unit = await createUnit(ctx);
      const t = unique('lproof').toLowerCase();
      const hidden = await h.contact(unit.id, { name: `Hidden ${t}` });
      expect(await ctx.db('contact_search_grams').where({ contact_id: hidden.id }).delete()).toBeGreaterThan(0);
      const want = indexAnswers ? [hidden.id] : [];
      expect(await settled(() => flat({ search: t, unit_id: unit.id }), want)).toEqual(want);
      // a change first: the index answers the unit tree's with it as well
      await h.contact(unit.id);
      expect(await settled(async () => idsOf(await unitTree(unit.id, { search: t, format: 'flat' })), want)).toEqual(want);
    });

    test('the unit tree: its matches in pre-order with their statistics, and every filter', async () => {
      const d = await directory();
      const res = await unitTree(d.unit.id, { search: d.t.toUpperCase() });
      expect(res.status).toBe(200);
      expect(res.body.data.unit_id).toBe(d.unit.id);
      expect(nameTree(res.body.data.contacts)).toEqual([[`Alpha ${d.t}`, [[`Bravo ${d.t}`, [[`Charlie ${d.t}`, []]]]]], [`Echo ${d.t}`, []]]);
      expect(res.body.data.statistics).toEqual(statistics(4, 2, 1, 1));
      expect(res.body.data.filters).toEqual({ search: d.t.toUpperCase(), department_id: null, format: 'tree', include_inactive: false, role_filter: 'all' });
      const ids = async (query: Record<string, unknown>) => idsOf(await unitTree(d.unit.id, { search: d.t, format: 'flat', ...query }));
      expect(await ids({ role_filter: 'user' })).toEqual([d.charlie.id, d.echo.id]);
      expect(await ids({ role_filter: 'admin' })).toEqual([d.bravo.id]);
      expect(await ids({ department_id: d.d1.id })).toEqual([d.alpha.id, d.bravo.id]);
      expect(await ids({ include_inactive: true })).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.echo.id, d.foxtrot.id]);
      // the unit's own contacts only: Hotel holds the tag in another unit
      expect(await ids({})).not.toContain(d.hotel.id);
      const paths = await unitTree(d.unit.id, { search: d.t, format: 'hierarchical', role_filter: 'user' });
      expect(paths.body.data.contacts[0]).toMatchObject({ id: d.charlie.id, parent_name: `Bravo ${d.t}`, path: `Alpha ${d.t} > Bravo ${d.t} > Charlie ${d.t}` });
    });
  });
}
