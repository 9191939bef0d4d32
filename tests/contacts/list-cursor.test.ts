import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { quietLogger, setupTestContext, type TestContext } from '../helpers/context';
import { bearer, createUnit, createUser, type TestUser } from '../helpers/factory';
import { linksOf, parsed } from '../http/pagination/paging-support';

/**
 * Cursors of the contacts' lists (docs/api.md, Paging, "Cursors"): GET /api/contacts and
 * GET /api/contacts/:id/children take `cursor` beside `page`, answer `pagination.next_cursor`
 * and a Link rel="next" with it. Following them walks the set once, in order; an insert before
 * the cursor moves nothing; a cursor is good only for its list and its filters; a page number
 * reaches LIST_PAGE_DEPTH rows from either end of a list (4 here), and no further.
 */
const ctx: TestContext = setupTestContext({ LIST_PAGE_DEPTH: '4' });
let admin: TestUser;
const get = (uri: string) => request(ctx.app).get(uri).set(bearer(admin));
type Node = { id: number; children?: Node[] };
/** The ids of a page in its order, the nested ones of the tree format too (depth first, as the list's order). */
const flatten = (nodes: Node[]): number[] => nodes.flatMap((n) => [n.id, ...flatten(n.children ?? [])]);
const idsOf = (res: request.Response, key = 'contacts') => flatten(res.body.data[key] as Node[]);

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Super_admin' });
});

/** A unit of 3 roots with 3 children each (the middle children and a fourth root inactive), names in a known order. */
async function unitOf13() {
  const unit = await createUnit(ctx);
  const made: TestUser[] = [];
  for (const r of ['M', 'N', 'P']) {
    const root = await createUser(ctx, { unit_id: unit.id, name: `${r} root`, role: r === 'N' ? 'Admin' : 'User' });
    made.push(root);
    for (let c = 0; c < 3; c++) made.push(await createUser(ctx, { unit_id: unit.id, parent_id: root.id, name: `${r} child ${c}`, is_active: c !== 1 }));
  }
  made.push(await createUser(ctx, { unit_id: unit.id, name: 'O root', is_active: false }));
  return { unit, made };
}

/** Follows rel="next" from `first`: every page's ids, and the requests made. */
async function follow(first: string): Promise<{ ids: number[]; pages: request.Response[] }> {
  const pages: request.Response[] = [];
  let res = await get(first);
  for (;;) {
    expect(res.status).toBe(200);
    pages.push(res);
    const next = linksOf(res).next;
    if (!next) break;
    res = await get(next);
  }
  return { ids: pages.flatMap((p) => idsOf(p, p.body.data.children ? 'children' : 'contacts')), pages };
}

describe('following the cursor', () => {
  test.each([
    ['active, flat', 'format=flat'],
    ['with inactive, tree', 'include_inactive=true'],
    ['Users only, hierarchical', 'role_filter=user&format=hierarchical'],
    ['a search', 'search=child'],
  ])('walks the filtered set (%s) exactly once, in order, as one big page shows it', async (_name, filters) => {
    const { unit } = await unitOf13();
    const whole = await get(`/api/contacts?unit_id=${unit.id}&${filters.replace(/&?format=\w+/, '')}&format=flat&limit=1000`);
    const expected = idsOf(whole);
    expect(expected.length).toBeGreaterThan(3);
    const { ids, pages } = await follow(`/api/contacts?unit_id=${unit.id}&${filters}&limit=2`);
    expect(ids).toEqual(expected);
    // by number while the next page is within reach (rows 0..3 and the last 4: LIST_PAGE_DEPTH 4),
    // then by cursor (no page) to the end; each page counts the set, and gives next_cursor while more follows
    const total = expected.length;
    const firstByCursor = [1, 2, 3, 4, 5, 6].find((n) => (n - 1) * 2 >= 4 && (n - 1) * 2 < total - 4) ?? Infinity;
    expect(pages.map((p) => p.body.data.pagination.page)).toEqual(pages.map((_p, i) => (i + 1 < firstByCursor ? i + 1 : undefined)));
    for (const [i, p] of pages.entries()) {
      const last = i === pages.length - 1;
      expect(p.body.data.pagination).toMatchObject({ limit: 2, total: expected.length, total_pages: Math.ceil(expected.length / 2), has_more: !last });
      expect(p.body.data.pagination.next_cursor === undefined).toBe(last);
      expect(p.body.data.filters.unit_id).toBe(String(unit.id));
    }
  });

  test('a search walked in SQL (SEARCH_INDEX=sql) gives the same pages as through the index', async () => {
    const { unit } = await unitOf13();
    const sql = createApp({ db: ctx.db, config: { ...ctx.config, searchIndex: 'sql' }, logger: quietLogger });
    const walk = async (app: Express) => {
      const ids: number[] = [];
      let res = await request(app).get(`/api/contacts?unit_id=${unit.id}&search=child&format=flat&limit=2&page=1`).set(bearer(admin));
      for (;;) {
        ids.push(...idsOf(res));
        const cursor = res.body.data.pagination.next_cursor;
        if (!cursor) return ids;
        res = await request(app).get(`/api/contacts?unit_id=${unit.id}&search=child&format=flat&limit=2&cursor=${cursor}`).set(bearer(admin));
        expect(res.status).toBe(200);
      }
    };
    const bySql = await walk(sql);
    expect(bySql).toHaveLength(6);
    expect(bySql).toEqual(await walk(ctx.app));
  });

  test('a listing by page number read in SQL (SEARCH_INDEX=sql) answers as one whose page the index picks', async () => {
    const { unit, made } = await unitOf13();
    const sql = createApp({ db: ctx.db, config: { ...ctx.config, searchIndex: 'sql' }, logger: quietLogger });
    const filters = ['format=flat', 'include_inactive=true', 'role_filter=user&format=hierarchical', `parent_id=${made[0].id}&include_inactive=true&format=flat`];
    let pages = 0;
    for (const filter of filters) {
      // pages 1 and 2 of 2 are read forward (LIST_PAGE_DEPTH 4); the index walks its pre-order for them
      for (const page of [1, 2]) {
        const uri = `/api/contacts?unit_id=${unit.id}&${filter}&limit=2&page=${page}`;
        const [inSql, fromIndex] = [await request(sql).get(uri).set(bearer(admin)), await get(uri)];
        expect(fromIndex.status).toBe(200);
        expect({ uri, body: fromIndex.body.data }).toEqual({ uri, body: inSql.body.data });
        if (idsOf(fromIndex).length > 0) pages++;
      }
    }
    // the comparison meant something: the pages were not empty
    expect(pages).toBe(8);
  });

  test('the Link header carries the cursor: rel="next" is the request with `cursor` set and no `page`, and nothing else', async () => {
    const { unit } = await unitOf13();
    const res = await get(`/api/contacts?unit_id=${unit.id}&page=1&limit=2&format=flat`);
    const cursor = res.body.data.pagination.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // from page 1 the next page is still a number (it is within reach)
    expect(parsed(linksOf(res).next).query.page).toBe('2');
    const byCursor = await get(`/api/contacts?unit_id=${unit.id}&limit=2&format=flat&cursor=${cursor}`);
    const links = linksOf(byCursor);
    expect(Object.keys(links)).toEqual(['next']);
    expect(parsed(links.next)).toEqual({
      path: '/api/contacts',
      query: { unit_id: String(unit.id), limit: '2', format: 'flat', cursor: byCursor.body.data.pagination.next_cursor },
    });
  });

  test('a subtree (parent_id) is walked the same way', async () => {
    const { made } = await unitOf13();
    const root = made[0];
    const { ids } = await follow(`/api/contacts?parent_id=${root.id}&include_inactive=true&limit=1`);
    expect(ids).toEqual(made.slice(1, 4).map((c) => c.id));
  });

  test('contacts inserted before the cursor do not change the next page; one inserted after it shows up', async () => {
    const { unit, made } = await unitOf13();
    const first = await get(`/api/contacts?unit_id=${unit.id}&limit=3&format=flat`);
    const cursor = first.body.data.pagination.next_cursor as string;
    const next = await get(`/api/contacts?unit_id=${unit.id}&limit=3&format=flat&cursor=${cursor}`);
    // before the cursor: new roots named to sort first, a child of the first root
    for (let i = 0; i < 5; i++) await createUser(ctx, { unit_id: unit.id, name: `A early ${i}` });
    await createUser(ctx, { unit_id: unit.id, parent_id: made[0].id, name: 'M child 0a' });
    const again = await get(`/api/contacts?unit_id=${unit.id}&limit=3&format=flat&cursor=${cursor}`);
    expect(idsOf(again)).toEqual(idsOf(next));
    expect(again.body.data.pagination.total).toBe(next.body.data.pagination.total + 6);
    // after it: the last root gets a new first child, which the walk from the cursor meets
    const late = await createUser(ctx, { unit_id: unit.id, parent_id: made[8].id, name: 'P child 00' });
    const { ids } = await follow(`/api/contacts?unit_id=${unit.id}&limit=3&format=flat&cursor=${cursor}`);
    expect(ids).toContain(late.id);
    expect(ids.filter((id) => idsOf(first).includes(id))).toEqual([]);
  });

  test('a relabelling of the order keys (a gap used up by inserts before the cursor) moves nothing either', async () => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id, name: 'P' });
    const kids = [];
    for (const n of ['Kb', 'Kc', 'Kd']) kids.push(await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: n }));
    const first = await get(`/api/contacts?unit_id=${unit.id}&limit=2&format=flat`);
    expect(idsOf(first)).toEqual([parent.id, kids[0].id]);
    const cursor = first.body.data.pagination.next_cursor as string;
    const ordOf = async (id: number) => Number((await ctx.db('users').where({ id }).first('tree_ord')).tree_ord);
    const before = await ordOf(kids[0].id);
    // each new child goes right before Kb: the gap before it halves each time, until it is spread out again
    for (let i = 0; i < 25; i++) await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: `Ka ${String(i).padStart(2, '0')}` });
    expect(await ordOf(kids[0].id)).not.toBe(before);
    const next = await get(`/api/contacts?unit_id=${unit.id}&limit=2&format=flat&cursor=${cursor}`);
    expect(idsOf(next)).toEqual([kids[1].id, kids[2].id]);
    expect(next.body.data.pagination).toMatchObject({ total: 29, has_more: false });
  });

  test('children: by name, once each, and an earlier-named child added meanwhile does not shift the walk', async () => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id, name: 'Parent' });
    const kids = [];
    for (const n of ['Kd', 'Ka', 'Kc', 'Kb', 'Ke']) kids.push(await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: n }));
    const byName = [...kids].sort((a, b) => a.name.localeCompare(b.name)).map((k) => k.id);
    const first = await get(`/api/contacts/${parent.id}/children?limit=2`);
    const cursor = first.body.data.pagination.next_cursor as string;
    await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Ja' });
    const { ids, pages } = await follow(`/api/contacts/${parent.id}/children?limit=2&cursor=${cursor}`);
    expect([...idsOf(first, 'children'), ...ids]).toEqual(byName);
    expect(pages[0].body.data.total).toBe(6);
    expect(pages[0].body.data.pagination).toMatchObject({ limit: 2, total: 6, has_more: true });
  });
});

describe('cursors that are refused (400, on `cursor`)', () => {
  let unitId: number;
  let cursor: string;
  beforeAll(async () => {
    const { unit } = await unitOf13();
    unitId = unit.id;
    cursor = (await get(`/api/contacts?unit_id=${unit.id}&limit=2`)).body.data.pagination.next_cursor;
  });
  const refused = async (uri: string, message: RegExp) => {
    const res = await get(uri);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'Validation failed' });
    expect(res.body.errors).toEqual([{ field: 'cursor', message: expect.stringMatching(message) }]);
  };

  test('one the service did not give: not base64url, a tampered place, another spelling of the same bytes', async () => {
    await refused(`/api/contacts?cursor=${encodeURIComponent('not a cursor!')}`, /cursor must be a cursor this list gave/);
    await refused(`/api/contacts?cursor=${Buffer.from('l.AAAAAAAAAAA.0.1').toString('base64url')}`, /cursor must be a cursor this list gave/);
    await refused(`/api/contacts?cursor=${cursor}=`, /cursor must be a cursor this list gave/);
    await refused('/api/contacts?cursor=', /cursor must be a cursor this list gave/);
  });

  test('one given for other filters, or for the other list', async () => {
    await refused(`/api/contacts?unit_id=${unitId}&include_inactive=true&cursor=${cursor}`, /given for another list or other filters/);
    await refused(`/api/contacts?cursor=${cursor}`, /given for another list or other filters/);
    await refused(`/api/contacts?unit_id=${unitId}&search=child&cursor=${cursor}`, /given for another list or other filters/);
    await refused(`/api/contacts/${admin.id}/children?cursor=${cursor}`, /given for another list or other filters/);
    // the format and the limit are not filters: the same set, shown otherwise
    expect((await get(`/api/contacts?unit_id=${unitId}&format=hierarchical&limit=5&cursor=${cursor}`)).status).toBe(200);
  });

  test('page and cursor together: a 400 that says to give one', async () => {
    await refused(`/api/contacts?unit_id=${unitId}&page=2&cursor=${cursor}`, /page and cursor both name a page/);
    await refused(`/api/contacts/${admin.id}/children?page=1&cursor=${cursor}`, /page and cursor both name a page/);
  });
});

describe('a page number reaches LIST_PAGE_DEPTH rows from either end', () => {
  // a unit of 12 active contacts, pages of 1: rows 0..3 from the start and 8..11 from the end
  let unitId: number;
  let all: number[];
  beforeAll(async () => {
    const unit = await createUnit(ctx);
    for (let i = 0; i < 12; i++) await createUser(ctx, { unit_id: unit.id, name: `Row ${String(i).padStart(2, '0')}` });
    unitId = unit.id;
    all = idsOf(await get(`/api/contacts?unit_id=${unit.id}&limit=100`));
  });

  test('the first and the last pages answer, the last ones read from the end in the same order', async () => {
    for (const page of [1, 4, 9, 12, 13]) {
      const res = await get(`/api/contacts?unit_id=${unitId}&limit=1&page=${page}&format=flat`);
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual(all.slice(page - 1, page));
    }
    const tail = await get(`/api/contacts?unit_id=${unitId}&limit=5&page=3&format=flat`);
    expect(idsOf(tail)).toEqual(all.slice(10));
  });

  test('a page in between is a 400 on `page` that points to the cursor; the Link header links no such page', async () => {
    const res = await get(`/api/contacts?unit_id=${unitId}&limit=1&page=6`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'page', message: expect.stringMatching(/first and the last 4 rows.*cursor/) }]);
    // page 4 is the last within reach: its next is the cursor, which reads on from there
    const edge = await get(`/api/contacts?unit_id=${unitId}&limit=1&page=4`);
    const next = parsed(linksOf(edge).next);
    expect(next.query.page).toBeUndefined();
    expect(idsOf(await get(linksOf(edge).next))).toEqual(all.slice(4, 5));
    // page 9 is the first from the end: no prev (page 8 is refused); its last is there
    const end = await get(`/api/contacts?unit_id=${unitId}&limit=1&page=9`);
    expect(Object.keys(linksOf(end)).sort()).toEqual(['first', 'last', 'next']);
  });

  test('children and a search keep the same rule', async () => {
    const res = await get(`/api/contacts?unit_id=${unitId}&search=row&limit=1&page=6`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('page');
    const parent = await createUser(ctx, { unit_id: unitId, name: 'Zz parent' });
    for (let i = 0; i < 10; i++) await createUser(ctx, { unit_id: unitId, parent_id: parent.id, name: `Kid ${i}` });
    expect((await get(`/api/contacts/${parent.id}/children?limit=1&page=6`)).status).toBe(400);
    const last = await get(`/api/contacts/${parent.id}/children?limit=1&page=10`);
    expect(last.body.data.children.map((c: { name: string }) => c.name)).toEqual(['Kid 9']);
  });
});
