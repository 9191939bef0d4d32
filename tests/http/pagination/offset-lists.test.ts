import request from 'supertest';
import { setupTestContext } from '../../helpers/context';
import { bearer, createUnit, createUser, unique } from '../../helpers/factory';
import { SECURITY_TEST_ENV, signIn, STRONG, SUPER_ADMIN } from '../../security/security-support';
import { checkOffsetPaging } from './paging-support';

/**
 * Every offset-paged list answers one `pagination` object ({page, limit, total, total_pages,
 * has_more}; the audit trail without the total) and a Link header with next, prev, first and
 * last (docs/api.md, Paging). Each test makes five items of its own and pages them two at a
 * time: first, middle and last page, an empty list, a page past the end.
 */
const ctx = setupTestContext(SECURITY_TEST_ENV);
let admin: { token: string };
const ids = (key: string) => (res: request.Response) => (res.body.data[key] as Array<{ id: number }>).map((r) => r.id);
const NONE = 'zz-no-such-thing-zz';

beforeAll(async () => {
  admin = { token: await signIn(ctx, SUPER_ADMIN.email, SUPER_ADMIN.password) };
});

async function fiveContacts(fields: { name?: (i: number) => string; parent_id?: number } = {}) {
  const unit = await createUnit(ctx);
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await createUser(ctx, { unit_id: unit.id, name: fields.name?.(i), parent_id: fields.parent_id }));
  return { unit, made };
}

describe('contacts', () => {
  test('GET /api/contacts keeps format and its filters in every link', async () => {
    const { unit } = await fiveContacts();
    const other = await createUnit(ctx);
    const items = ids('contacts');
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/contacts', query: { unit_id: unit.id, format: 'flat' }, empty: { unit_id: other.id, format: 'flat' }, items });
  });

  test('GET /api/contacts/:id/children', async () => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id });
    for (let i = 0; i < 5; i++) await createUser(ctx, { unit_id: unit.id, parent_id: parent.id });
    const leaf = await createUser(ctx, { unit_id: unit.id });
    const path = `/api/contacts/${parent.id}/children`;
    // the empty list: a contact without children
    await checkOffsetPaging({ ctx, caller: admin, path, query: {}, empty: {}, emptyPath: `/api/contacts/${leaf.id}/children`, items: ids('children') });
    // the header as a client reads it: comma-separated link-values, the page set after the request's own parameters
    const res = await request(ctx.app).get(`${path}?limit=2&include_inactive=false&page=2`).set(bearer(admin));
    expect(res.headers.link).toBe(
      [
        `<${path}?limit=2&include_inactive=false&page=3>; rel="next"`,
        `<${path}?limit=2&include_inactive=false&page=1>; rel="prev"`,
        `<${path}?limit=2&include_inactive=false&page=1>; rel="first"`,
        `<${path}?limit=2&include_inactive=false&page=3>; rel="last"`,
      ].join(', '),
    );
  });

  test('GET /api/contacts/search pages over the ranked matches (`search`, and `q` kept in links as sent)', async () => {
    const token = unique('pg').toLowerCase();
    const { unit } = await fiveContacts({ name: (i) => `Paged ${token} ${i}` });
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/contacts/search', query: { search: token, unit_id: unit.id }, empty: { search: NONE }, items: ids('contacts') });
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/contacts/search', query: { q: token }, empty: { q: NONE }, items: ids('contacts') });
  });
});

describe('locations and reference data', () => {
  test('GET /api/locations/divisions?country_id=', async () => {
    const post = (path: string, body: object) => request(ctx.app).post(path).set(bearer(admin)).send(body);
    const country = (await post('/api/locations/countries', { name: unique('Country '), code: unique('C').slice(0, 10) })).body.data.country;
    for (let i = 0; i < 5; i++) expect((await post('/api/locations/divisions', { country_id: country.id, name: unique(`Division ${i} `) })).status).toBe(201);
    const query = { country_id: country.id };
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/locations/divisions', query, empty: { ...query, search: NONE }, items: ids('divisions') });
  });

  test('GET /api/units?search=', async () => {
    const token = unique('pgu');
    for (let i = 0; i < 5; i++) await createUnit(ctx, { name: `Unit ${token} ${i}` });
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/units', query: { search: token }, empty: { search: NONE }, items: ids('units') });
  });

  test('GET /api/organizations?search=', async () => {
    const token = unique('pgo');
    const now = new Date();
    for (let i = 0; i < 5; i++) await ctx.db('organizations').insert({ name: `Org ${token} ${i}`, code: unique('O').slice(0, 30), created_at: now, updated_at: now });
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/organizations', query: { search: token }, empty: { search: NONE }, items: ids('organizations') });
  });
});

describe('security records and the audit trail', () => {
  test('GET /api/security/failed-logins?login_id=', async () => {
    const login = `${unique('nobody')}@example.test`.toLowerCase();
    for (let i = 0; i < 5; i++) expect((await request(ctx.app).post('/api/auth/login').send({ email: login, password: STRONG })).status).toBe(401);
    const path = '/api/security/failed-logins';
    await checkOffsetPaging({ ctx, caller: admin, path, query: { login_id: login }, empty: { login_id: `${NONE}@example.test` }, items: ids('attempts') });
  });

  test('GET /api/security/password-changes?user_id=', async () => {
    const user = await createUser(ctx);
    const other = await createUser(ctx);
    for (let i = 0; i < 5; i++) {
      const res = await request(ctx.app).put(`/api/contacts/${user.id}/password`).set(bearer(admin)).send({ newPassword: `${STRONG}${i}` });
      expect(res.status).toBe(200);
    }
    const path = '/api/security/password-changes';
    await checkOffsetPaging({ ctx, caller: admin, path, query: { user_id: user.id }, empty: { user_id: other.id }, items: ids('changes') });
  });

  test('GET /api/audit-events and a contact history: pages without a total, so no last link', async () => {
    const user = await createUser(ctx);
    const quiet = await createUser(ctx);
    for (let i = 0; i < 5; i++) {
      const res = await request(ctx.app).put(`/api/contacts/${user.id}`).set(bearer(admin)).send({ mobile: `0171${i}${Date.now() % 1e6}` });
      expect(res.status).toBe(200);
    }
    const target = { target_type: 'contact', target_id: user.id };
    const items = ids('events');
    await checkOffsetPaging({ ctx, caller: admin, path: '/api/audit-events', query: target, empty: { ...target, target_id: quiet.id }, items, counted: false });
    await checkOffsetPaging({ ctx, caller: admin, path: `/api/contacts/${user.id}/history`, query: {}, empty: { action: 'no.such' }, items, counted: false });
  });
});

describe('the other lists of the same engine', () => {
  test.each(['/api/locations/countries', '/api/locations/districts', '/api/locations/thanas', '/api/departments', '/api/designations', '/api/ranks'])(
    '%s answers a consistent pagination and its links',
    async (path) => {
      const res = await request(ctx.app).get(`${path}?limit=1`).set(bearer(admin));
      expect(res.status).toBe(200);
      const { total } = res.body.data.pagination;
      expect(res.body.data.pagination).toEqual({ page: 1, limit: 1, total, total_pages: total, has_more: total > 1 });
      const rels = (res.headers.link as string).split(', ').map((l) => /rel="(\w+)"/.exec(l)![1]);
      expect(rels).toEqual([...(total > 1 ? ['next'] : []), 'first', 'last']);
    },
  );

  test('a list that is not paged (a parent\'s children in locations, the roles) has no pagination and no Link', async () => {
    for (const path of ['/api/locations/divisions/country/1', '/api/roles']) {
      const res = await request(ctx.app).get(path).set(bearer(admin));
      expect(res.status).toBe(200);
      expect(res.body.data.pagination).toBeUndefined();
      expect(res.headers.link).toBeUndefined();
    }
  });

  test('CORS lets a browser read the Link header', async () => {
    const res = await request(ctx.app).get('/api/ranks').set(bearer(admin)).set('Origin', 'http://localhost:5173');
    expect(String(res.headers['access-control-expose-headers'])).toContain('Link');
  });
});
