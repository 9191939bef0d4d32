import { ValidationError } from '../../../lib/errors';
import { paginationOf } from '../../../lib/http/paging';
import type { PageWindow } from '../data/listing.queries';
import { encodeListCursor, filtersDigest, type ListCursor } from '../domain/list-cursor';
import { filtersEcho, filtersOf, idEcho, type ListInput } from './list-input';

/**
 * Deep pages of the contacts' lists (GET /api/contacts, GET /api/contacts/:id/children; docs/api.md,
 * Paging, "Cursors"). In SQL a page number reads `offset` rows of an index to skip them: page
 * 5,000 of 100 skipped half a million, 16 requests a second at a million contacts
 * (docs/performance.md); the search index's view walks its pre-order instead, but SQL answers
 * whenever the index has none. So a page number reaches the first and the last `depth` rows of
 * a list (LIST_PAGE_DEPTH, 100,000 by default, so a directory of up to 200,000 is paged by number
 * end to end, as the specification pages it; the last ones read backwards, from the set's end,
 * as cheap as the first); a page in between is a 400 that points to the cursor, which costs what
 * page 1 costs at any depth.
 */

/** A request for a page: by number (`page`, `limit`) or after a cursor (`cursor`, `limit`); never both (the validators refuse that). */
export interface PageRequest {
  page?: number;
  limit?: number;
  cursor?: ListCursor;
}

/** Whether page `page` of `limit` lies where a page number reaches in a set of `total`. */
export function reachable(depth: number, page: number, limit: number, total: number): boolean {
  const offset = (page - 1) * limit;
  return offset < depth || offset >= total - depth;
}

/**
 * The window of a numbered page in a counted set: from the start near the start, backwards from
 * the end near the end, null past the end (an empty page, nothing to read). A page in between is
 * refused.
 */
export function numberedWindow(depth: number, page: number, limit: number, total: number): PageWindow | null {
  const offset = (page - 1) * limit;
  if (offset >= total) return null;
  if (offset < depth) return { limit, offset };
  if (!reachable(depth, page, limit, total)) throw tooDeep(depth, page, offset);
  const rows = Math.min(limit, total - offset);
  return { limit: rows, offset: total - offset - rows, backwards: true };
}

function tooDeep(depth: number, page: number, offset: number): ValidationError {
  return ValidationError.field(
    'page',
    `page ${page} starts ${offset} rows into the list: a page number reaches the first and the last ${depth} rows of a list; ` +
      'between them, follow the cursor (pagination.next_cursor, or the Link header\'s rel="next")',
  );
}

/** The cursor's place, when it was given for this set (`digest`); a 400 on `cursor` otherwise. */
export function placeFor(cursor: ListCursor, kind: ListCursor['kind'], digest: string): ListCursor {
  if (cursor.kind !== kind || cursor.filters !== digest) {
    throw ValidationError.field(
      'cursor',
      'cursor was given for another list or other filters: use it with the filters it came with, or start again without cursor',
    );
  }
  return cursor;
}

/** The 400 for a cursor whose contact is gone and which keeps no other place (a children's cursor). */
export function placeGone(): ValidationError {
  return ValidationError.field('cursor', 'the contact this cursor reads on from no longer exists: start again without cursor');
}

/**
 * The `pagination` of a page of a counted list. By number: as before ({page, limit, total,
 * total_pages, has_more}). By cursor: the same without `page` (where the cursor stands is not
 * counted: that would read every row before it). Either way `next_cursor` when more follows,
 * the place after the page's last row, so a client may go on by cursor from any page.
 */
export function listPagination(
  request: { page: number | null; limit: number },
  total: number,
  hasMore: boolean,
  next: Omit<ListCursor, 'kind' | 'filters'> | null,
  set: { kind: ListCursor['kind']; digest: string },
) {
  const counted = paginationOf(request.page ?? 1, request.limit, total);
  const next_cursor = hasMore && next ? encodeListCursor({ kind: set.kind, filters: set.digest, ...next }) : undefined;
  const { page, ...rest } = { ...counted, has_more: hasMore };
  return { ...(request.page === null ? {} : { page }), ...rest, ...(next_cursor ? { next_cursor } : {}) };
}


/** The digest of a contact's children's set (GET /api/contacts/:id/children). */
export function childrenDigest(parentId: number, includeInactive: boolean): string {
  return filtersDigest('children', [parentId, includeInactive]);
}

/** The digest of a listing's set (GET /api/contacts): its filters as the answer echoes them, and the subtree's root. */
export function listDigest(input: ListInput): string {
  const { search, unit_id, department_id, include_inactive, role_filter } = filtersEcho(filtersOf(input));
  return filtersDigest('list', [search, idEcho(input.parent_id), unit_id, department_id, include_inactive, role_filter]);
}

/** The cursor of GET /api/contacts without filters after the contact `id` (order key `ord`): the benchmark's place deep in the listing. */
export function unfilteredListCursor(id: number, ord: number): string {
  return encodeListCursor({ kind: 'list', filters: listDigest({}), id, ord });
}
