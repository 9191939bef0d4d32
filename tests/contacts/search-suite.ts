import type request from 'supertest';
import { setupTestContext, type TestContext } from '../helpers/context';
import { createDepartment, createUnit, createUser, unique } from '../helpers/factory';
import { contactsFixture, settingsOf } from './contacts-support';
import { listSearchTests } from './list-search-suite';

/**
 * GET /api/contacts/search (spec 4.2 #6; DECISIONS 5), and the `search` of the listings
 * (list-search-suite.ts), run once per way of searching (SEARCH_INDEX memory and sql). Every search here is narrowed to a unit of the test's own, or
 * uses a term no other test can hold, so it sees only its own contacts.
 */
export function searchSuite(env: Record<string, string>): TestContext {
  const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000', ...env });
  const fixture = contactsFixture(ctx, { admin: 'Super_admin', reader: true });
  const { search, create, update, remove } = fixture;
  const namesOf = (res: request.Response) => res.body.data.contacts.map((c: { name: string }) => c.name);

  /** A contact made through the API with the given fields (the rest unique). */
  async function contact(unitId: number, fields: Record<string, unknown> = {}) {
    const tag = unique('srch').toLowerCase();
    const res = await create({
      name: `Person ${tag}`,
      service_no: `SV-${tag}`.slice(0, 50),
      unit_id: unitId,
      designation_id: Number((await ctx.db('designations').orderBy('id').first('id')).id),
      phone: '0100',
      email: `${tag}@example.test`,
      ...fields,
    });
    expect(res.status).toBe(201);
    return res.body.data.contact as { id: number; name: string; email: string; service_no: string; phone: string };
  }

  describe(`GET /api/contacts/search (${settingsOf(env)})`, () => {
    test('answers 200 `Search completed successfully` with contacts, searchTerm, filters and total', async () => {
      const unit = await createUnit(ctx);
      const token = unique('zq').toLowerCase();
      const found = await contact(unit.id, { name: `Found ${token}` });
      const res = await search({ q: token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('success');
      expect(res.body.message).toBe('Search completed successfully');
      expect(res.body.data).toEqual({
        contacts: [expect.objectContaining({ id: found.id, name: found.name, unit_id: unit.id, unit_name: unit.name, is_active: true })],
        searchTerm: token,
        search_term: token,
        filters: { unit_id: null, department_id: null },
        total: 1,
        pagination: { page: 1, limit: 20, total: 1, total_pages: 1, has_more: false },
      });
    });

    test('orders the names that start with the term by code point, also above U+FFFF', async () => {
      const unit = await createUnit(ctx);
      const tag = unique('cp').toLowerCase();
      // by code point: b (U+0062) < é (U+00E9) < ａ (U+FF41, fullwidth) < 𝒜 (U+1D49C); by UTF-16 unit,
      // 𝒜's first unit (U+D835) comes before ａ: an index that sorted natively would answer 𝒜 third
      const names = [`${tag} \u{1D49C}`, `${tag} \uFF41`, `${tag} b`, `${tag} \u00E9`];
      for (const name of names) await contact(unit.id, { name });
      const res = await search({ q: tag, unit_id: unit.id });
      expect(res.status).toBe(200);
      expect(namesOf(res)).toEqual([`${tag} b`, `${tag} \u00E9`, `${tag} \uFF41`, `${tag} \u{1D49C}`]);
    });

    test.each([
      // the letters of the tag are stored in one case and searched in the other
      ['name', (t: string) => ({ name: `Named ${t.toUpperCase()} Person` }), (t: string) => t],
      ['email', (t: string) => ({ email: `mail.${t}@example.test` }), (t: string) => `MAIL.${t.toUpperCase()}@`],
      ['service_no', (t: string) => ({ service_no: `SN/${t.toUpperCase()}/X` }), (t: string) => `/${t}/`],
      ['phone', (_t: string, d: string) => ({ phone: `+88${d}` }), (_t: string, d: string) => `88${d}`],
      ['mobile', (_t: string, d: string) => ({ mobile: `+99${d}` }), (_t: string, d: string) => `99${d}`],
    ])('finds a case-insensitive substring of %s', async (_field, fields, termOf) => {
      const unit = await createUnit(ctx);
      // digits for phone and mobile; letters and digits (lower case) for the rest
      const d = String(Date.now() % 1e9).padStart(9, '0') + String(Math.floor(Math.random() * 1e4)).padStart(4, '0');
      const t = `qk${d}`;
      const match = await contact(unit.id, fields(t, d));
      await contact(unit.id);
      const res = await search({ q: termOf(t, d), unit_id: unit.id });
      expect(res.status).toBe(200);
      expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([match.id]);
      expect(res.body.data.total).toBe(1);
    });

    test('a two-character term finds the contacts holding it, in any position', async () => {
      const unit = await createUnit(ctx);
      // e-mails and service numbers of digits only, so that only the names can hold "qx"
      const plain = (name: string) => {
        const n = `${Date.now()}${Math.floor(Math.random() * 1e9)}`;
        return contact(unit.id, { name, email: `n${n}@example.test`, service_no: `S${n}` });
      };
      await plain('Qx at start');
      await plain('ends in qX');
      await plain('middle aqxa');
      await plain('no match q x');
      const res = await search({ q: 'qx', unit_id: unit.id });
      expect(namesOf(res).sort()).toEqual(['Qx at start', 'ends in qX', 'middle aqxa'].sort());
    });

    describe('% _ and \\ are literal characters', () => {
      let unitId: number;
      let target: { id: number };
      beforeAll(async () => {
        unitId = (await createUnit(ctx)).id;
        target = await contact(unitId, { name: '50% off_x\\y' });
        await contact(unitId, { name: '50 percent offax y' });
        await contact(unitId, { name: 'Plain Name' });
        await contact(unitId, { name: 'x-y and 0 o' });
      });

      test.each(['0% o', 'f_x', 'x\\y', '% off', '50%'])('%j finds only the contact that holds it', async (q) => {
        const res = await search({ q, unit_id: unitId });
        expect(res.status).toBe(200);
        expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([target.id]);
        expect(res.body.data.total).toBe(1);
      });

      test.each(['%%', '__', '%_', '\\\\', '_%'])('%j matches nothing (no wildcard, no escape)', async (q) => {
        const res = await search({ q, unit_id: unitId });
        expect(res.status).toBe(200);
        expect(res.body.data.contacts).toEqual([]);
        expect(res.body.data.total).toBe(0);
      });
    });

    test('ranks exact service number or e-mail first, then names starting with q, then the rest by name', async () => {
      const unit = await createUnit(ctx);
      const t = unique('rk').toLowerCase();
      const inside = await contact(unit.id, { name: `Zulu holds ${t}` });
      const prefixB = await contact(unit.id, { name: `${t} Bravo` });
      const otherA = await contact(unit.id, { name: `Alpha with ${t}` });
      // exact whatever the letter case
      const exactService = await contact(unit.id, { name: 'Yankee service', service_no: t.toUpperCase() });
      const prefixA = await contact(unit.id, { name: `${t} Alpha` });
      const otherM = await contact(unit.id, { name: `Mike ${t}` });
      const res = await search({ q: t, unit_id: unit.id });
      expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([
        exactService.id,
        prefixA.id,
        prefixB.id,
        otherA.id,
        otherM.id,
        inside.id,
      ]);
    });

    test('an exact e-mail match ranks first, whatever the letter case of q', async () => {
      const unit = await createUnit(ctx);
      const t = unique('em').toLowerCase();
      const other = await contact(unit.id, { name: `Abel ${t}`, email: `${t}@example.test.org` });
      const prefix = await contact(unit.id, { name: `${t}@example.test starts the name` });
      const exact = await contact(unit.id, { name: 'Zed', email: `${t}@example.test` });
      const res = await search({ q: `${t.toUpperCase()}@EXAMPLE.TEST`, unit_id: unit.id });
      // an e-mail that merely starts with q ranks with the rest; a name that starts with q next
      expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([exact.id, prefix.id, other.id]);
      expect(res.body.data.total).toBe(3);
    });

    test('total counts every match while contacts holds at most limit', async () => {
      const unit = await createUnit(ctx);
      const t = unique('lim').toLowerCase();
      for (const n of ['A', 'B', 'C', 'D', 'E']) await contact(unit.id, { name: `${n} ${t}` });
      const res = await search({ q: t, unit_id: unit.id, limit: 2 });
      expect(res.body.data.total).toBe(5);
      expect(namesOf(res)).toEqual([`A ${t}`, `B ${t}`]);
      const one = await search({ q: t, unit_id: unit.id, limit: 1 });
      expect(one.body.data.contacts).toHaveLength(1);
      expect(one.body.data.total).toBe(5);
    });

    test('the default limit is 20', async () => {
      const unit = await createUnit(ctx);
      const t = unique('dl').toLowerCase();
      for (let i = 0; i < 22; i++) await createUser(ctx, { unit_id: unit.id, name: `N${String(i).padStart(2, '0')} ${t}` });
      const res = await search({ q: t });
      expect(res.body.data.contacts).toHaveLength(20);
      expect(res.body.data.total).toBe(22);
    });

    test('unit_id and department_id narrow the matches and are echoed as strings', async () => {
      const unit = await createUnit(ctx);
      const other = await createUnit(ctx);
      const department = await createDepartment(ctx, unit.id);
      const t = unique('flt').toLowerCase();
      const inDepartment = await contact(unit.id, { name: `In dept ${t}`, department_id: department.id });
      const inUnit = await contact(unit.id, { name: `In unit ${t}` });
      await contact(other.id, { name: `Elsewhere ${t}` });

      expect((await search({ q: t })).body.data.total).toBe(3);

      const byUnit = await search({ q: t, unit_id: unit.id });
      expect(byUnit.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([inDepartment.id, inUnit.id]);
      expect(byUnit.body.data.filters).toEqual({ unit_id: String(unit.id), department_id: null });

      const byDepartment = await search({ q: t, department_id: department.id });
      expect(byDepartment.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([inDepartment.id]);
      expect(byDepartment.body.data.total).toBe(1);
      expect(byDepartment.body.data.filters).toEqual({ unit_id: null, department_id: String(department.id) });

      const both = await search({ q: t, unit_id: other.id, department_id: department.id });
      expect(both.body.data).toMatchObject({ contacts: [], total: 0 });
    });

    test('never finds an inactive contact', async () => {
      const unit = await createUnit(ctx);
      const t = unique('ina').toLowerCase();
      await createUser(ctx, { unit_id: unit.id, name: `Dormant ${t}`, is_active: false });
      const deleted = await contact(unit.id, { name: `Deleted ${t}` });
      const live = await contact(unit.id, { name: `Live ${t}` });
      expect((await remove(deleted.id)).status).toBe(200);
      const res = await search({ q: t });
      expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([live.id]);
      expect(res.body.data.total).toBe(1);
      const byMail = await search({ q: deleted.email });
      expect(byMail.body.data.total).toBe(0);
    });

    test('folds case as JavaScript does, whichever way the search runs (Greek final sigma, dotted I)', async () => {
      const unit = await createUnit(ctx);
      const tag = unique('fold').toLowerCase();
      const found = await contact(unit.id, { name: `ΟΔΟΣ İzmir ${tag}` });
      // MySQL's LOWER() gives "οδοσ izmir": a search checked in SQL would miss both
      for (const q of [`ΟΔΟΣ İZMIR ${tag}`, `οδος i\u0307zmir ${tag}`]) {
        const res = await search({ q, unit_id: unit.id });
        expect({ q, ids: res.body.data.contacts.map((x: { id: number }) => x.id) }).toEqual({ q, ids: [found.id] });
      }
    });

    test('finds the new name and e-mail after an update, and no longer the old ones', async () => {
      const unit = await createUnit(ctx);
      const oldT = unique('old').toLowerCase();
      const newT = unique('new').toLowerCase();
      const c = await contact(unit.id, { name: `Before ${oldT}`, email: `${oldT}@example.test` });
      const res = await update(c.id, { name: `After ${newT}`, email: `${newT}@example.test` });
      expect(res.status).toBe(200);
      expect((await search({ q: oldT })).body.data.total).toBe(0);
      const byName = await search({ q: `after ${newT}` });
      expect(byName.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([c.id]);
      const byMail = await search({ q: `${newT}@example.test` });
      expect(byMail.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([c.id]);
    });

    test('finds a new phone and mobile after an update, and no longer the old ones', async () => {
      const unit = await createUnit(ctx);
      const digits = () => String(Date.now() % 1e8).padStart(8, '0') + String(Math.floor(Math.random() * 1e4)).padStart(4, '0');
      const oldPhone = digits();
      const c = await contact(unit.id, { phone: oldPhone, mobile: `7${oldPhone}` });
      const newPhone = digits();
      expect((await update(c.id, { phone: newPhone, mobile: null })).status).toBe(200);
      expect((await search({ q: oldPhone, unit_id: unit.id })).body.data.total).toBe(0);
      expect((await search({ q: newPhone, unit_id: unit.id })).body.data.total).toBe(1);
    });

    test('trims q', async () => {
      const unit = await createUnit(ctx);
      const t = unique('trm').toLowerCase();
      const c = await contact(unit.id, { name: `Trim ${t}` });
      const res = await search({ q: `   ${t}   ` });
      expect(res.status).toBe(200);
      expect(res.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([c.id]);
    });

    test('finds non-ASCII names case-insensitively', async () => {
      const unit = await createUnit(ctx);
      const c = await contact(unit.id, { name: 'Ärztin Ödön Ümit' });
      await contact(unit.id, { name: 'Arztin Odon' });
      const res = await search({ q: 'ödön', unit_id: unit.id });
      expect(res.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([c.id]);
    });

    test('the results carry no internal fields', async () => {
      const unit = await createUnit(ctx);
      const t = unique('int').toLowerCase();
      await contact(unit.id, { name: `Clean ${t}`, password: 'Hidden1Pass' });
      const res = await search({ q: t });
      const c = res.body.data.contacts[0];
      for (const f of ['password_hash', 'token_version', 'sort_name', 'tree_ord', 'depth', 'organization_id']) expect(c).not.toHaveProperty(f);
    });
  });

  listSearchTests(ctx, env, { reader: () => fixture.reader, admin: () => fixture.admin, contact });
  return ctx;
}
