import { bool, int, obj, str, type Schema, type SuccessResponse } from './builders';

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

export const paginationSchemas = {
  /** offset paging: `page` and `limit` in the query */
  Pagination: obj(offsetPaginationFields, UNCOUNTED),
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
