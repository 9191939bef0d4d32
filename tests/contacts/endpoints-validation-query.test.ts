import type request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser } from '../helpers/factory';
import { contactsFixture, failingFields, messageFor } from './contacts-support';

/**
 * Validation of path ids, query parameters (list, unit tree, children, search) and the bodies of
 * move, bulk and password reset on /api/contacts (spec 4.2, 8; DECISIONS 1).
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { unit: true, admin: 'Super_admin' });
const { api } = fx;

describe('path ids', () => {
  const CALLS: Array<[string, (id: string) => request.Test]> = [
    ['GET /:id', (id) => api().get(`/api/contacts/${id}`).set(bearer(fx.admin))],
    ['PUT /:id', (id) => api().put(`/api/contacts/${id}`).set(bearer(fx.admin)).send({ name: 'Some Name' })],
    ['DELETE /:id', (id) => api().delete(`/api/contacts/${id}`).set(bearer(fx.admin))],
    ['GET /:id/children', (id) => api().get(`/api/contacts/${id}/children`).set(bearer(fx.admin))],
    ['PUT /:id/move', (id) => api().put(`/api/contacts/${id}/move`).set(bearer(fx.admin)).send({ parent_id: null })],
    ['PUT /:id/password', (id) => api().put(`/api/contacts/${id}/password`).set(bearer(fx.admin)).send({ newPassword: 'Fresh1Pass' })],
  ];
  const cases = CALLS.flatMap(([name, call]) => ['abc', '0', '-1', '1.5', '99999999999999999999'].map((id) => [name, id, call] as const));

  test.each(cases)('%s with id %s is a validation failure on id', async (_name, id, call) => {
    const res = await call(id);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field: 'id', message: 'id must be a positive integer' }] });
  });

  test.each(['abc', '0'])('GET /unit/%s is a validation failure on unitId', async (id) => {
    const res = await api().get(`/api/contacts/unit/${id}`).set(bearer(fx.admin));
    expect(failingFields(res)).toEqual(['unitId']);
  });
});

describe('GET /api/contacts query', () => {
  const { list } = fx;

  test.each([
    ['limit', '0'],
    ['limit', '1001'],
    ['limit', 'ten'],
    ['limit', '-1'],
    ['page', '0'],
    ['page', 'x'],
    ['format', 'xml'],
    ['format', 'TREE'],
    ['role_filter', 'root'],
    ['role_filter', 'Admin'],
    ['tree', 'yes'],
    ['tree', '2'],
    ['include_inactive', 'yes'],
    ['include_inactive', 'TRUE'],
    ['unit_id', 'abc'],
    ['unit_id', '0'],
    ['department_id', 'x'],
    ['parent_id', 'abc'],
    ['parent_id', '0'],
    ['search', 's'.repeat(101)],
  ])('refuses %s=%s', async (key, value) => {
    expect(failingFields(await list({ [key]: value }))).toEqual([key]);
  });

  test.each([
    ['limit', '1'],
    ['limit', '1000'],
    ['page', '1'],
    ['format', 'tree'],
    ['format', 'flat'],
    ['format', 'hierarchical'],
    ['role_filter', 'all'],
    ['role_filter', 'super_admin'],
    ['role_filter', 'admin'],
    ['role_filter', 'user'],
    ['tree', 'true'],
    ['tree', 'false'],
    ['tree', '1'],
    ['tree', '0'],
    ['include_inactive', 'true'],
    ['include_inactive', 'false'],
    ['include_inactive', '1'],
    ['include_inactive', '0'],
  ])('accepts %s=%s', async (key, value) => {
    const res = await list({ [key]: value, unit_id: fx.unitId });
    expect(res.status).toBe(200);
  });

  test('echoes limit 1000 and page 1 in pagination', async () => {
    const res = await list({ limit: 1000, unit_id: fx.unitId });
    expect(res.body.data.pagination).toMatchObject({ page: 1, limit: 1000 });
  });

  test('lists every failing query parameter at once', async () => {
    const res = await list({ limit: 0, page: 0, format: 'xml', role_filter: 'x', tree: 'y', include_inactive: 'z' });
    expect(failingFields(res)).toEqual(['format', 'include_inactive', 'limit', 'page', 'role_filter', 'tree']);
  });

  // DECISIONS 1: a parameter of the wrong type is a validation failure, brackets included
  test.each([
    ['unit_id[a]=1', 'unit_id'],
    ['limit[]=5', 'limit'],
    ['role_filter[x]=admin', 'role_filter'],
  ])('a bracketed parameter (%s) is refused: 400 on %s', async (qs, field) => {
    expect(failingFields(await list(`${qs}&unit_id=${fx.unitId}`))).toContain(field);
  });

  test.each(['unit_id=1&unit_id=2', 'search=a&search=b', 'format=tree&format=flat', 'limit=1&limit=2', 'tree=true&tree=false'])(
    'a repeated parameter (%s) is a validation failure, not a 500',
    async (qs) => {
      const res = await list(qs);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation failed');
    },
  );
});

describe('GET /api/contacts/unit/:unitId and /:id/children query', () => {
  test.each([
    ['format', 'xml'],
    ['role_filter', 'root'],
    ['include_inactive', 'maybe'],
    ['department_id', 'x'],
  ])('the unit tree refuses %s=%s', async (key, value) => {
    const res = await api().get(`/api/contacts/unit/${fx.unitId}`).query({ [key]: value }).set(bearer(fx.admin));
    expect(failingFields(res)).toEqual([key]);
  });

  test.each([
    ['limit', '0'],
    ['limit', '1001'],
    ['page', '0'],
    ['include_inactive', 'maybe'],
  ])('children refuses %s=%s', async (key, value) => {
    const res = await api().get(`/api/contacts/${fx.admin.id}/children`).query({ [key]: value }).set(bearer(fx.admin));
    expect(failingFields(res)).toEqual([key]);
  });
});

describe('GET /api/contacts/search query', () => {
  const { search } = fx;

  test('a missing q answers `Search query is required`', async () => {
    const res = await search({});
    expect(failingFields(res)).toEqual(['q']);
    expect(messageFor(res, 'q')).toBe('Search query is required');
  });

  test.each([
    ['one character', 'a'],
    ['one character after trimming', '  a  '],
    ['101 characters', 'q'.repeat(101)],
    // characters are code points: an emoji is one, though JavaScript counts it as two
    ['one emoji', '😀'],
    ['101 emoji', '😀'.repeat(101)],
  ])('refuses a q of %s', async (_what, q) => {
    expect(failingFields(await search({ q }))).toEqual(['q']);
  });

  test.each([
    ['2 characters', 'ab'],
    ['100 characters', 'q'.repeat(100)],
    ['two emoji', '😀😀'],
    ['100 emoji', '😀'.repeat(100)],
  ])('accepts a q of %s', async (_what, q) => {
    const res = await search({ q });
    expect(res.status).toBe(200);
    expect(res.body.data.searchTerm).toBe(q);
  });

  test.each(['0', '101', 'x', '-5'])('refuses limit=%s', async (limit) => {
    expect(failingFields(await search({ q: 'ab', limit }))).toEqual(['limit']);
  });

  test.each(['1', '100'])('accepts limit=%s', async (limit) => {
    expect((await search({ q: 'ab', limit })).status).toBe(200);
  });

  test.each([
    ['unit_id', 'abc'],
    ['department_id', '0'],
  ])('refuses %s=%s', async (key, value) => {
    expect(failingFields(await search({ q: 'ab', [key]: value }))).toEqual([key]);
  });

  test('a repeated q is a validation failure, not a 500', async () => {
    const res = await search('q=ab&q=cd');
    expect(failingFields(res)).toEqual(['q']);
  });
});

describe('bulk contactIds', () => {
  const bulkDelete = (body: unknown) => api().post('/api/contacts/bulk-delete').set(bearer(fx.admin)).send(body as object);
  const bulkMove = (body: Record<string, unknown>) => api().post('/api/contacts/bulk-move').set(bearer(fx.admin)).send(body);
  const tooMany = Array.from({ length: 1001 }, (_, i) => 1_500_000_000 + i);

  const BAD: Array<[string, Record<string, unknown>]> = [
    ['missing', {}],
    ['null', { contactIds: null }],
    ['empty', { contactIds: [] }],
    ['not an array', { contactIds: 5 }],
    ['a string', { contactIds: '1,2' }],
    ['an object', { contactIds: { a: 1 } }],
    ['1001 ids', { contactIds: tooMany }],
    ['with duplicates', { contactIds: [7, 7] }],
    ['with duplicates written differently', { contactIds: [7, '7'] }],
    ['with a non-integer', { contactIds: [1.5] }],
    ['with a word', { contactIds: ['abc'] }],
    ['with zero', { contactIds: [0] }],
    ['with a negative id', { contactIds: [-2] }],
    ['with a null', { contactIds: [null] }],
    ['with a nested array', { contactIds: [[1]] }],
    ['with a boolean', { contactIds: [true] }],
  ];

  test.each(BAD)('bulk delete refuses contactIds %s', async (_what, body) => {
    expect(failingFields(await bulkDelete(body))).toEqual(['contactIds']);
  });

  test.each(BAD)('bulk move refuses contactIds %s', async (_what, body) => {
    expect(failingFields(await bulkMove({ ...body, parent_id: null }))).toEqual(['contactIds']);
  });

  test('accepts 1000 distinct ids', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const ids = [target.id, ...tooMany.slice(0, 999)];
    const res = await bulkDelete({ contactIds: ids });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deletedCount: 1, contactIds: [target.id], deleted_count: 1, contact_ids: [target.id] });
  });

  test('bulk move requires the parent_id key', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    expect(failingFields(await bulkMove({ contactIds: [target.id] }))).toEqual(['parent_id']);
  });

  test.each([0, -1, 'abc', 1.5, true, { a: 1 }, [1]])('bulk move refuses parent_id %j', async (parent_id) => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    expect(failingFields(await bulkMove({ contactIds: [target.id], parent_id }))).toEqual(['parent_id']);
  });
});

describe('PUT /api/contacts/:id/move body', () => {
  const move = (id: number, body: Record<string, unknown>) => api().put(`/api/contacts/${id}/move`).set(bearer(fx.admin)).send(body);

  test('requires the parent_id key', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const res = await move(target.id, {});
    expect(failingFields(res)).toEqual(['parent_id']);
  });

  test('accepts parent_id null (a root)', async () => {
    const parent = await createUser(ctx, { unit_id: fx.unitId });
    const target = await createUser(ctx, { unit_id: fx.unitId, parent_id: parent.id });
    const res = await move(target.id, { parent_id: null });
    expect(res.status).toBe(200);
    expect(res.body.data.contact.parent_id).toBeNull();
  });

  test.each([0, -1, 'abc', 1.5, true, { a: 1 }, [1], ''])('refuses parent_id %j', async (parent_id) => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    expect(failingFields(await move(target.id, { parent_id }))).toEqual(['parent_id']);
  });

  test('a refused parent_id has its message', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const res = await move(target.id, { parent_id: 'abc' });
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'parent_id', message: 'parent_id must be a positive integer or null' })]);
  });

  test.each([
    ['its digits as text', (id: number) => String(id)],
    ['its digits with spaces around', (id: number) => ` ${id} `],
    ['the text "null" (a root)', () => 'null'],
  ])('takes parent_id as %s', async (_name, form) => {
    const parent = await createUser(ctx, { unit_id: fx.unitId });
    // under another parent first, so that every form visibly moves it
    const before = await createUser(ctx, { unit_id: fx.unitId });
    const target = await createUser(ctx, { unit_id: fx.unitId, parent_id: before.id });
    const parent_id = form(parent.id);
    const res = await move(target.id, { parent_id });
    expect(res.status).toBe(200);
    expect(res.body.data.contact.parent_id).toBe(parent_id === 'null' ? null : parent.id);
  });
});

describe('PUT /api/contacts/:id/password body', () => {
  const reset = (id: number, body: Record<string, unknown>) => api().put(`/api/contacts/${id}/password`).set(bearer(fx.admin)).send(body);

  test.each([
    ['missing', {}],
    ['empty', { newPassword: '' }],
    ['a number', { newPassword: 12345678 }],
    ['an object', { newPassword: { a: 'Aa1aaa' } }],
    ['shorter than 6 characters', { newPassword: 'Aa1aa' }],
    ['without an upper-case letter', { newPassword: 'abcdef1' }],
    ['without a lower-case letter', { newPassword: 'ABCDEF1' }],
    ['without a digit', { newPassword: 'Abcdefg' }],
    ['73 bytes of UTF-8', { newPassword: `Aa1${'é'.repeat(35)}` }],
  ])('refuses a newPassword %s', async (_what, body) => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const res = await reset(target.id, body);
    expect(failingFields(res)).toEqual(['newPassword']);
  });
});
