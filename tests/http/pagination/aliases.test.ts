import request from 'supertest';
import { setupTestContext } from '../../helpers/context';
import { bearer, createUnit, createUser, unique } from '../../helpers/factory';
import { SECURITY_TEST_ENV, signIn, SUPER_ADMIN } from '../../security/security-support';

/**
 * The snake_case names beside the specification's (docs/api.md, Paging, Names): `search` on
 * /search beside `q`, `contact_ids` beside `contactIds` in bulk requests, `search_term`,
 * `deleted_count`, `moved_count` and `contact_ids` answered beside the old names. Either name
 * works; both with different values are a 400; a failing value is told under the name sent.
 */
const ctx = setupTestContext(SECURITY_TEST_ENV);
let admin: { token: string };

beforeAll(async () => {
  admin = { token: await signIn(ctx, SUPER_ADMIN.email, SUPER_ADMIN.password) };
});

const search = (query: Record<string, string>) => request(ctx.app).get('/api/contacts/search').set(bearer(admin)).query(query);
const bulk = (kind: 'delete' | 'move', body: object) => request(ctx.app).post(`/api/contacts/bulk-${kind}`).set(bearer(admin)).send(body);
const isActive = async (id: number) => Boolean((await ctx.db('users').where({ id }).first('is_active')).is_active);
const parentOf = async (id: number) => (await ctx.db('users').where({ id }).first('parent_id')).parent_id as number | null;

describe('GET /api/contacts/search: `search` beside `q`', () => {
  let token: string;
  let found: number;
  beforeAll(async () => {
    token = unique('alias').toLowerCase();
    found = (await createUser(ctx, { name: `Aliased ${token}` })).id;
  });

  test.each([['search'], ['q']])('finds by `%s`, and answers the term as search_term and searchTerm', async (name) => {
    const res = await search({ [name]: token });
    expect(res.status).toBe(200);
    expect(res.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([found]);
    expect(res.body.data).toMatchObject({ search_term: token, searchTerm: token, total: 1 });
  });

  test('both names with the same term are one term', async () => {
    const res = await search({ q: token, search: token });
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(1);
  });

  test('both names with different terms: 400 naming both', async () => {
    const res = await search({ q: token, search: 'other' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'error',
      message: 'Validation failed',
      errors: [{ field: 'search', message: 'search and q are two names of one parameter: give one of them, or the same value in both' }],
    });
  });

  test('a bad term is told under the name sent; a missing one is `Search query is required` on q', async () => {
    const short = await search({ search: 'a' });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ field: 'search', message: 'search must be between 2 and 100 characters' }]);
    const old = await search({ q: 'a' });
    expect(old.body.errors).toEqual([{ field: 'q', message: 'q must be between 2 and 100 characters' }]);
    const none = await search({});
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([{ field: 'q', message: 'Search query is required' }]);
  });

  test('an array under the new name is refused like one under the old', async () => {
    const res = await request(ctx.app).get('/api/contacts/search?search[a]=xx').set(bearer(admin));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('search');
  });
});

describe('bulk requests: `contact_ids` beside `contactIds`', () => {
  async function unitOf(n: number) {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id });
    const members = [];
    for (let i = 0; i < n; i++) members.push((await createUser(ctx, { unit_id: unit.id })).id);
    return { parent: parent.id, members };
  }

  test('bulk-delete takes contact_ids and answers both names', async () => {
    const { members } = await unitOf(2);
    const res = await bulk('delete', { contact_ids: members });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deletedCount: 2, deleted_count: 2, contactIds: members, contact_ids: members });
    for (const id of members) expect(await isActive(id)).toBe(false);
  });

  test('bulk-delete still takes contactIds (the specification\'s name)', async () => {
    const { members } = await unitOf(1);
    const res = await bulk('delete', { contactIds: members });
    expect(res.status).toBe(200);
    expect(res.body.data.deletedCount).toBe(1);
  });

  test('bulk-move takes contact_ids and answers moved_count beside movedCount', async () => {
    const { parent, members } = await unitOf(2);
    const res = await bulk('move', { contact_ids: members, parent_id: parent });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ movedCount: 2, moved_count: 2, contactIds: members, contact_ids: members, new_parent_id: parent });
    for (const id of members) expect(await parentOf(id)).toBe(parent);
  });

  test('the same ids under both names are one list', async () => {
    const { parent, members } = await unitOf(1);
    const res = await bulk('move', { contactIds: members, contact_ids: [...members], parent_id: parent });
    expect(res.status).toBe(200);
    expect(res.body.data.moved_count).toBe(1);
  });

  test.each([['delete'], ['move']] as const)('bulk-%s with different ids under the two names: 400, nothing changed', async (kind) => {
    const { parent, members } = await unitOf(2);
    const res = await bulk(kind, { contactIds: [members[0]], contact_ids: [members[1]], parent_id: parent });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'contact_ids', message: 'contact_ids and contactIds are two names of one parameter: give one of them, or the same value in both' },
    ]);
    for (const id of members) {
      expect(await isActive(id)).toBe(true);
      expect(await parentOf(id)).toBeNull();
    }
  });

  test('a bad list is told under the name sent; a missing one under the specification\'s', async () => {
    const bad = await bulk('move', { contact_ids: 'all', parent_id: null });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'contact_ids', message: 'contact_ids must be an array of 1 to 1000 ids' }]);
    const missing = await bulk('delete', {});
    expect(missing.body.errors).toEqual([{ field: 'contactIds', message: 'contactIds is required' }]);
  });
});
