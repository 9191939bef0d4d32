import type { Request, Response } from 'express';
import { sendSuccess } from './respond';

/**
 * One way to page (docs/api.md, "Paging"). Every paged list answers a `pagination` object in
 * its `data`, and a `Link` header (RFC 8288, Web Linking) with the pages next to this one, so a
 * client follows `rel="next"` without building URLs.
 *
 * An offset-paged list counts its set: `{page, limit, total, total_pages, has_more}`. A list that
 * does not count (the audit trail: a count of a million entries would cost more than the page)
 * leaves `total` and `total_pages` out and still says `has_more`. A cursor-paged list (the change
 * feed) answers `{limit, has_more, next_cursor}` and never a total: its set grows while a
 * client follows it, so a count would be wrong by the next request.
 */
export interface OffsetPagination {
  page: number;
  limit: number;
  total?: number;
  total_pages?: number;
  has_more: boolean;
  /** where a client may go on by cursor from this page (the contacts' lists, docs/api.md "Cursors") */
  next_cursor?: string;
}

/**
 * A page read after a cursor: no `page` (where a cursor stands is not counted). The change feed
 * gives `next_cursor` on every page; the contacts' lists give it while more follows, with the
 * set's `total` too.
 */
export interface CursorPagination {
  page?: never;
  limit: number;
  total?: number;
  total_pages?: number;
  has_more: boolean;
  next_cursor?: string;
}

export type Pagination = OffsetPagination | CursorPagination;

/** A counted page: `total_pages` is ceil(total / limit), 0 for an empty set. */
export function paginationOf(page: number, limit: number, total: number) {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_more: page < totalPages };
}

/** A page of a set that is not counted: whether another page follows is all it knows. */
export function uncountedPagination(page: number, limit: number, hasMore: boolean): OffsetPagination {
  return { page, limit, has_more: hasMore };
}

export function cursorPagination(limit: number, hasMore: boolean, nextCursor: string): CursorPagination {
  return { limit, has_more: hasMore, next_cursor: nextCursor };
}

const isCursor = (p: Pagination): p is CursorPagination => !('page' in p);

/**
 * The request's own URI as an absolute path with `changes` set in its query: the other
 * parameters (filters, limit, a deprecated alias) stay as the client sent them, in their order.
 */
function linkTo(req: Request, changes: Record<string, string>): string {
  const url = new URL(req.originalUrl, 'http://self');
  // a page is asked for by number or after a cursor, never both: setting one drops the other
  url.searchParams.delete('cursor' in changes ? 'page' : 'cursor');
  for (const [name, value] of Object.entries(changes)) url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}

/** Which page numbers a list answers (the contacts' lists refuse those deep inside a large set). */
export type Reachable = (page: number) => boolean;

/**
 * The Link header of a page: `next` while more follows, `prev` after the first page, and for an
 * offset list `first` (always known) and `last` (when the total is). A page past the end has
 * its `prev` at the last page, so a client that overshot finds its way back. A page number the
 * list would refuse (`reachable`) is not linked: `next` is then the cursor's.
 */
export function pageLinks(req: Request, pagination: Pagination, reachable: Reachable = () => true): string | null {
  const links: Array<[string, string]> = [];
  const byCursor = (cursor: string | undefined) => cursor !== undefined && links.push(['next', linkTo(req, { cursor })]);
  if (isCursor(pagination)) {
    if (pagination.has_more) byCursor(pagination.next_cursor);
  } else {
    const at = (page: number) => linkTo(req, { page: String(page) });
    const { page, total_pages: totalPages } = pagination;
    const last = totalPages === undefined ? undefined : Math.max(totalPages, 1);
    if (pagination.has_more) {
      if (reachable(page + 1)) links.push(['next', at(page + 1)]);
      else byCursor(pagination.next_cursor);
    }
    const prev = last === undefined ? page - 1 : Math.min(page - 1, last);
    if (page > 1 && reachable(prev)) links.push(['prev', at(prev)]);
    links.push(['first', at(1)]);
    if (last !== undefined && reachable(last)) links.push(['last', at(last)]);
  }
  return links.length ? links.map(([rel, uri]) => `<${uri}>; rel="${rel}"`).join(', ') : null;
}

/** sendSuccess for a list: the Link header from `data.pagination`, then the envelope. */
export function sendPage(res: Response, message: string, data: { pagination: Pagination }, reachable?: Reachable): void {
  const links = pageLinks(res.req, data.pagination, reachable);
  if (links) res.setHeader('Link', links);
  sendSuccess(res, 200, message, data);
}
