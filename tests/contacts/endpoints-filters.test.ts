import { setupTestContext } from '../helpers/context';
import { ISO_MS, contactsFixture, nameTree, sampleDirectory, statistics, type SampleDirectory } from './contacts-support';

/**
 * GET /api/contacts: each filter narrows the set, the statistics count the filtered set (not the
 * page), pagination and the filters echo (spec 4.2 #1; DECISIONS 5). Each test reads its own units.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const { list, update, search } = contactsFixture(ctx, { admin: 'Admin', reader: true });
const flatIds = async (query: Record<string, unknown>) =>
  (await list({ ...query, format: 'flat' })).body.data.contacts.map((c: { id: number }) => c.id);
const directory = () => sampleDirectory(ctx);

describe('GET /api/contacts', () => {
  test('answers `Contacts retrieved successfully` with contacts, statistics, pagination and filters', async () => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Contacts retrieved successfully');
    expect(res.body.data.statistics).toEqual(statistics(5, 2, 1, 1));
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 100, total: 5, total_pages: 1, has_more: false, format: 'tree' });
    expect(res.body.data.filters).toMatchObject({
      search: '',
      unit_id: String(d.unit.id),
      department_id: null,
      tree: true,
      include_inactive: false,
      role_filter: 'all',
    });
    // default format: tree
    expect(nameTree(res.body.data.contacts)).toEqual([
      ['Alpha', [['Bravo', [['Charlie', []]]], ['Delta', []]]],
      ['Echo', []],
    ]);
  });

  test('the unit filter leaves out other units', async () => {
    const d = await directory();
    expect(await flatIds({ unit_id: d.unit.id })).toEqual([d.alpha.id, d.bravo.id, d.charlie.id, d.delta.id, d.echo.id]);
    expect(await flatIds({ unit_id: d.other.id })).toEqual([d.golf.id]);
  });

  test('department_id narrows the set, is echoed as a string, and the statistics count it', async () => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, department_id: d.d1.id, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.alpha.id, d.bravo.id]);
    expect(res.body.data.statistics).toEqual(statistics(2, 1, 1, 1));
    expect(res.body.data.filters).toMatchObject({ unit_id: String(d.unit.id), department_id: String(d.d1.id), tree: false });
    expect(await flatIds({ department_id: d.d2.id })).toEqual([d.charlie.id, d.echo.id]);
  });

  test.each([
    ['all', ['alpha', 'bravo', 'charlie', 'delta', 'echo'], [5, 2, 1, 1]],
    ['super_admin', ['alpha'], [1, 1, 1, 0]],
    ['admin', ['bravo'], [1, 0, 0, 1]],
    ['user', ['charlie', 'delta', 'echo'], [3, 1, 0, 0]],
  ] as const)('role_filter=%s narrows the set and the statistics', async (roleFilter, keys, [total, roots, supers, admins]) => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, role_filter: roleFilter, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual(keys.map((k) => d[k].id));
    expect(res.body.data.statistics).toEqual(statistics(total, roots, supers, admins));
    expect(res.body.data.filters.role_filter).toBe(roleFilter);
  });

  test.each(['true', '1'])('include_inactive=%s adds the inactive contacts', async (value) => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, include_inactive: value, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([
      d.alpha.id, d.bravo.id, d.charlie.id, d.delta.id, d.echo.id, d.foxtrot.id,
    ]);
    expect(res.body.data.contacts[5]).toMatchObject({ name: 'Foxtrot', is_active: false });
    expect(res.body.data.statistics).toEqual(statistics(6, 3, 1, 1));
    expect(res.body.data.filters.include_inactive).toBe(true);
  });

  test.each(['false', '0'])('include_inactive=%s leaves them out', async (value) => {
    const d = await directory();
    const ids = await flatIds({ unit_id: d.unit.id, include_inactive: value });
    expect(ids).not.toContain(d.foxtrot.id);
    expect(ids).toHaveLength(5);
  });

  test('the list search leaves mobile out (spec 4.2: name, email, service_no or phone); the search endpoint finds it', async () => {
    const d = await directory();
    const mobile = `0199${String(Date.now() % 1e7).padStart(7, '0')}`;
    expect((await update(d.delta.id, { mobile })).status).toBe(200);
    expect(await flatIds({ unit_id: d.unit.id, search: mobile })).toEqual([]);
    const found = await search({ q: mobile, unit_id: d.unit.id });
    expect(found.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.delta.id]);
  });

  test.each([
    ['name', () => 'charli', ['charlie']],
    ['name, any letter case', () => 'ELTA', ['delta']],
    ['email', (d: SampleDirectory) => d.echo.email, ['echo']],
    ['service_no', (d: SampleDirectory) => d.bravo.service_no.toUpperCase(), ['bravo']],
    ['phone', (d: SampleDirectory) => d.phone, ['charlie']],
  ] as const)('search narrows the set by %s and the statistics count the matches', async (_what, termOf, keys) => {
    const d = await directory();
    const term = termOf(d);
    const res = await list({ unit_id: d.unit.id, search: term, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual(keys.map((k) => d[k].id));
    expect(res.body.data.statistics.total_contacts).toBe(keys.length);
    expect(res.body.data.pagination.total).toBe(keys.length);
    expect(res.body.data.filters.search).toBe(term);
  });

  test('search with a one-character term and role_filter combine', async () => {
    const d = await directory();
    // every generated e-mail holds an "a" (example.test): the role filter alone decides
    const res = await list({ unit_id: d.unit.id, search: 'a', role_filter: 'user', format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.charlie.id, d.delta.id, d.echo.id]);
    expect(res.body.data.statistics).toEqual(statistics(3, 1, 0, 0));
  });

  test('parent_id lists the subtree below that contact, its direct children at the top level', async () => {
    const d = await directory();
    const res = await list({ parent_id: d.alpha.id });
    expect(nameTree(res.body.data.contacts)).toEqual([
      ['Bravo', [['Charlie', []]]],
      ['Delta', []],
    ]);
    expect(res.body.data.statistics).toEqual(statistics(3, 0, 0, 1));
    expect(res.body.data.pagination.total).toBe(3);
    expect(await flatIds({ parent_id: d.bravo.id })).toEqual([d.charlie.id]);
    expect(await flatIds({ parent_id: d.charlie.id })).toEqual([]);
  });

  test('parent_id combines with the other filters', async () => {
    const d = await directory();
    expect(await flatIds({ parent_id: d.alpha.id, role_filter: 'user' })).toEqual([d.charlie.id, d.delta.id]);
    expect(await flatIds({ parent_id: d.alpha.id, department_id: d.d2.id })).toEqual([d.charlie.id]);
    expect(await flatIds({ parent_id: d.alpha.id, search: 'delta' })).toEqual([d.delta.id]);
  });

  test('statistics count the filtered set, not the page', async () => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, limit: 2, page: 2, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.charlie.id, d.delta.id]);
    expect(res.body.data.statistics).toEqual(statistics(5, 2, 1, 1));
    // next_cursor: where a client may go on by cursor (docs/api.md, Paging)
    expect(res.body.data.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3, has_more: true, next_cursor: expect.any(String), format: 'flat' });
    const last = await list({ unit_id: d.unit.id, limit: 2, page: 3, format: 'flat' });
    expect(last.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.echo.id]);
    const beyond = await list({ unit_id: d.unit.id, limit: 2, page: 9, format: 'flat' });
    expect(beyond.body.data.contacts).toEqual([]);
    expect(beyond.body.data.pagination.total).toBe(5);
  });

  test('statistics of a search count every match, not the page', async () => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, search: 'a', limit: 1, format: 'flat' });
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([d.alpha.id]);
    expect(res.body.data.statistics).toEqual(statistics(5, 2, 1, 1));
    expect(res.body.data.pagination.total).toBe(5);
  });

  test.each([
    [{ tree: 'false' }, 'flat', false],
    [{ tree: '0' }, 'flat', false],
    [{ tree: 'true' }, 'tree', true],
    [{ tree: '1' }, 'tree', true],
    [{ format: 'hierarchical' }, 'hierarchical', false],
    [{ tree: 'false', format: 'hierarchical' }, 'hierarchical', false],
  ] as const)('%j gives the %s format', async (query, format, treeEcho) => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, ...query });
    expect(res.body.data.pagination.format).toBe(format);
    expect(res.body.data.filters.tree).toBe(treeEcho);
    const first = res.body.data.contacts[0];
    if (format === 'tree') expect(first.children).toHaveLength(2);
    if (format === 'flat') expect(res.body.data.contacts.map((c: { level: number }) => c.level)).toEqual([0, 1, 2, 1, 0]);
    if (format === 'hierarchical') expect(res.body.data.contacts[2]).toMatchObject({ path: 'Alpha > Bravo > Charlie', level: 2, ancestors: [d.alpha.id, d.bravo.id] });
  });

  test('contacts in the listing carry every field of spec 2.4 with booleans and ISO timestamps', async () => {
    const d = await directory();
    const res = await list({ unit_id: d.unit.id, format: 'flat' });
    const bravo = res.body.data.contacts[1];
    expect(bravo).toMatchObject({
      id: d.bravo.id,
      name: 'Bravo',
      parent_id: d.alpha.id,
      parent_name: 'Alpha',
      unit_id: d.unit.id,
      unit_name: d.unit.name,
      department_id: d.d1.id,
      department_name: d.d1.name,
      role_id: 2,
      role_name: 'Admin',
      is_active: true,
      created_at: expect.stringMatching(ISO_MS),
    });
  });
});
