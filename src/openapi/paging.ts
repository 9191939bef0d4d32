import { bool, int, obj, query, str, type Param, type Schema, type SuccessResponse } from './builders';

/**
 * One way to page (lib/http/paging.ts, docs/api.md "Paging"): the `pagination` object of every
 * paged list, and the Link header (RFC 8288) that goes with it.
 */

/** The fields of an offset-paged list's `pagination`; `total` and `total_pages` only where the set is counted. */
export const offsetPaginationFields: Record<string, Schema> = {
  page: int({ minimum: 1 }),
  limit: int({ minimum: 1 }),
  total: int({ minimum: 0, description: 'the items of the whole set; left out only by a list that does not count (the audit trail)' }),
  total_pages: int({ minimum: 0, description: 'ceil(total / limit); left out with `total`' }),
  has_more: bool({ description: 'true: a later page holds more (Link rel="next")' }),
};

const UNCOUNTED = ['total', 'total_pages'];

const LIST_CURSOR = str({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 80, description: 'opaque: the place after a page\'s last contact, bound to the list and its filters' });

/**
 * The `pagination` of the contacts' lists (GET /api/contacts, /:id/children), paged by number or
 * by cursor (docs/api.md, Paging, "Cursors"): counted either way; `page` only on a numbered page,
 * `next_cursor` while more follows.
 */
export const listPaginationFields: Record<string, Schema> = {
  ...offsetPaginationFields,
  page: int({ minimum: 1, description: 'the page number asked for; absent on a page read after a cursor' }),
  next_cursor: { ...LIST_CURSOR, description: 'where the next page goes on from (`cursor`), while has_more: on a numbered page too, to go on by cursor from there' },
};
export const LIST_PAGINATION_OPTIONAL = ['page', 'next_cursor'];

/** `cursor` of the contacts' lists: instead of `page`, never beside it. */
export const listCursorParam = (): Param =>
  query(
    'cursor',
    LIST_CURSOR,
    'read the page after this place: `pagination.next_cursor` or the Link header\'s rel="next" of this list with the same filters (another list\'s or other filters\': 400). Not with `page` (400). Costs what page 1 costs at any depth; a page number reaches only the first and the last LIST_PAGE_DEPTH (100,000 by default) rows.',
  );

export const paginationSchemas = {
  /** offset paging: `page` and `limit` in the query */
  Pagination: obj(offsetPaginationFields, UNCOUNTED),
  /** the contacts' lists: by number or by cursor */
  ListPagination: obj(listPaginationFields, LIST_PAGINATION_OPTIONAL),
  /** cursor paging: `cursor` and `limit` in the query; no total, the set grows while it is followed */
  CursorPagination: obj({
    limit: int({ minimum: 1 }),
    has_more: bool({ description: 'true: more follow now; ask again at once from `next_cursor` (Link rel="next")' }),
    next_cursor: str({ pattern: '^[A-Za-z0-9_-]+$', description: 'where the next request goes on from; given on the last page too, to poll from later' }),
  }),
};

const LINK_HEADER = {
  Link: {
    description:
      'RFC 8288 Web Linking: the neighbouring pages as absolute-path URIs that keep the request\'s other query parameters. Offset lists: `next` (when has_more), `prev` (after page 1), `first`, and `last` when the total is counted. Cursor lists: `next` while has_more. Absent when there is no link to give.',
    schema: str({ examples: ['</api/locations/districts?page=3&limit=10>; rel="next", </api/locations/districts?page=1&limit=10>; rel="prev", </api/locations/districts?page=1&limit=10>; rel="first", </api/locations/districts?page=7&limit=10>; rel="last"'] }),
  },
};

/** A paged list's success answer: the Link header documented beside it. */
export function paged(response: SuccessResponse): SuccessResponse & { headers: typeof LINK_HEADER } {
  return { ...response, headers: LINK_HEADER };
}
