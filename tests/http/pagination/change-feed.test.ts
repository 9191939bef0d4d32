import request from 'supertest';
import { setupTestContext } from '../../helpers/context';
import { bearer, createUnit, createUser } from '../../helpers/factory';
import { SECURITY_TEST_ENV, signIn, SUPER_ADMIN } from '../../security/security-support';
import { linksOf, parsed } from './paging-support';

/**
 * The change feed is cursor-paged: `pagination` is {limit, has_more, next_cursor}, never a
 * total (the feed grows while it is followed), and the Link header has only rel="next", while
 * more follow now (docs/api.md, Paging). The old top-level next_cursor and has_more stay.
 */
const ctx = setupTestContext(SECURITY_TEST_ENV);
let admin: { token: string };

beforeAll(async () => {
  admin = { token: await signIn(ctx, SUPER_ADMIN.email, SUPER_ADMIN.password) };
});

const get = (uri: string) => request(ctx.app).get(uri).set(bearer(admin));

test('following rel="next" from the list\'s cursor reaches every change, and the last page has no next', async () => {
  const start = (await get('/api/contacts?limit=1')).headers['x-changes-cursor'] as string;
  const unit = await createUnit(ctx);
  const made: number[] = [];
  for (let i = 0; i < 5; i++) made.push((await createUser(ctx, { unit_id: unit.id })).id);

  let res = await get(`/api/contacts/changes?limit=2&cursor=${start}`);
  const seen: number[] = [];
  for (let page = 0; ; page++) {
    expect(res.status).toBe(200);
    const { data } = res.body;
    expect(data.pagination).toEqual({ limit: 2, has_more: data.has_more, next_cursor: data.next_cursor });
    expect(Object.keys(data.pagination)).not.toContain('total');
    seen.push(...data.changes.map((c: { contact_id: number }) => c.contact_id));
    const links = linksOf(res);
    // a keyset list has no prev, first or last: only the way on
    expect(Object.keys(links)).toEqual(data.pagination.has_more ? ['next'] : []);
    if (!data.pagination.has_more) {
      expect(res.headers.link).toBeUndefined();
      break;
    }
    expect(parsed(links.next)).toEqual({ path: '/api/contacts/changes', query: { limit: '2', cursor: data.pagination.next_cursor } });
    if (page === 0) expect(data.changes).toHaveLength(2);
    res = await get(links.next);
  }
  expect(seen).toEqual(expect.arrayContaining(made));
});

test('a poll at rest: an empty page, has_more false, the cursor to poll from again, no Link', async () => {
  const cursor = (await get('/api/contacts?limit=1')).headers['x-changes-cursor'] as string;
  const res = await get(`/api/contacts/changes?cursor=${cursor}&limit=5`);
  expect(res.status).toBe(200);
  // on a shared database another file may have changed a contact meanwhile: then the page is not empty
  if (res.body.data.changes.length === 0) {
    expect(res.body.data).toEqual({ changes: [], next_cursor: cursor, has_more: false, pagination: { limit: 5, has_more: false, next_cursor: cursor } });
    expect(res.headers.link).toBeUndefined();
  }
});
