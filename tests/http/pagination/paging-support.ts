import request from 'supertest';
import type { TestContext } from '../../helpers/context';
import { bearer } from '../../helpers/factory';

/**
 * The checks every paged list shares (docs/api.md, Paging): the `pagination` object and the
 * Link header (RFC 8288) on the first, a middle and the last page, and on an empty list.
 */

export type Query = Record<string, string | number>;

/** The Link header as rel -> URI (absolute path). */
export function linksOf(res: request.Response): Record<string, string> {
  const header = res.headers.link as string | undefined;
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(', ')) {
    const m = /^<([^>]+)>; rel="([a-z]+)"$/.exec(part);
    if (!m) throw new Error(`not an RFC 8288 link-value: ${part}`);
    links[m[2]] = m[1];
  }
  return links;
}

/** A link's path and its query as an object (every parameter once). */
export function parsed(uri: string): { path: string; query: Record<string, string> } {
  const url = new URL(uri, 'http://self');
  expect(url.origin).toBe('http://self'); // an absolute path, no host
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

export interface OffsetList {
  ctx: TestContext;
  caller: { token: string };
  path: string;
  /** the filters that select exactly five items (the test made them) */
  query: Query;
  /** the filters that select none (at `emptyPath` when given) */
  empty: Query;
  emptyPath?: string;
  items(res: request.Response): unknown[];
  /** false: the list does not count (no total, no last) */
  counted?: boolean;
}

const get = (list: OffsetList, uri: string) => request(list.ctx.app).get(uri).set(bearer(list.caller));
const uriOf = (path: string, query: Query) => `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`;

/**
 * Five items, two a page: page 1 (first), 2 (middle), 3 (last), reached by following
 * rel="next" from page 1, and back by rel="prev"; then the empty list and a page past the end.
 */
export async function checkOffsetPaging(list: OffsetList): Promise<void> {
  const counted = list.counted ?? true;
  const query = { ...list.query, limit: 2 };
  const expectedQuery = (page: number) => Object.fromEntries(Object.entries({ ...query, page }).map(([k, v]) => [k, String(v)]));
  const seen: unknown[] = [];
  let res = await get(list, uriOf(list.path, query));
  for (let page = 1; page <= 3; page++) {
    expect(res.status).toBe(200);
    const pagination = res.body.data.pagination;
    const hasMore = page < 3;
    if (counted) expect(pagination).toMatchObject({ page, limit: 2, total: 5, total_pages: 3, has_more: hasMore });
    else expect(pagination).toEqual({ page, limit: 2, has_more: hasMore });
    expect(list.items(res)).toHaveLength(page < 3 ? 2 : 1);
    seen.push(...list.items(res));
    const links = linksOf(res);
    // every link keeps the request's other parameters and sets only `page`
    for (const [rel, uri] of Object.entries(links)) {
      const target = { next: page + 1, prev: page - 1, first: 1, last: 3 }[rel];
      expect(parsed(uri)).toEqual({ path: list.path, query: expectedQuery(target!) });
    }
    expect(Object.keys(links).sort()).toEqual(
      [...(hasMore ? ['next'] : []), ...(page > 1 ? ['prev'] : []), 'first', ...(counted ? ['last'] : [])].sort(),
    );
    if (page === 3 && counted) expect(links.last).toBe(links.first.replace('page=1', 'page=3'));
    if (hasMore) res = await get(list, links.next);
  }
  expect(new Set(seen.map((item) => JSON.stringify(item))).size).toBe(5);
  // and back: the last page's prev is the middle one
  const back = await get(list, linksOf(res).prev);
  expect(back.body.data.pagination.page).toBe(2);

  const empty = await get(list, uriOf(list.emptyPath ?? list.path, { ...list.empty, limit: 2 }));
  expect(empty.status).toBe(200);
  expect(list.items(empty)).toEqual([]);
  if (counted) expect(empty.body.data.pagination).toMatchObject({ page: 1, limit: 2, total: 0, total_pages: 0, has_more: false });
  else expect(empty.body.data.pagination).toEqual({ page: 1, limit: 2, has_more: false });
  const emptyLinks = linksOf(empty);
  expect(Object.keys(emptyLinks).sort()).toEqual(counted ? ['first', 'last'] : ['first']);
  if (counted) expect(parsed(emptyLinks.last).query.page).toBe('1');

  // past the end: no next, and prev leads back to the last page there is (when it is known)
  const beyond = await get(list, uriOf(list.path, { ...query, page: 9 }));
  expect(beyond.status).toBe(200);
  expect(list.items(beyond)).toEqual([]);
  const beyondLinks = linksOf(beyond);
  expect(beyondLinks.next).toBeUndefined();
  expect(parsed(beyondLinks.prev).query.page).toBe(counted ? '3' : '8');
}
