import { createHash } from 'node:crypto';

/**
 * A place in a listing of contacts (docs/api.md, Paging, "Cursors"): after the contact `id`,
 * the last of the page that gave the cursor. The next page reads on from where that contact is
 * now (its order key at the next request, `ord` only if it is gone), so an insert or a relabel
 * of the order keys before the place shifts nothing. `filters` is a digest of the set the
 * cursor walks (the list and its filters): a cursor is only good for the set it was given for.
 *
 * `list`: GET /api/contacts, in the directory's pre-order (tree_ord, id).
 * `children`: GET /api/contacts/:id/children, by (sort_name, id).
 */
export interface ListCursor {
  kind: 'list' | 'children';
  filters: string;
  id: number;
  /** the contact's order key when the page was read: the place if the contact is gone */
  ord: number;
}

const KINDS = { list: 'l', children: 'c' } as const;

/** The digest that binds a cursor to its set: the first 64 bits of a SHA-256 of the set's definition. */
export function filtersDigest(kind: ListCursor['kind'], definition: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify([kind, ...definition])).digest().subarray(0, 8).toString('base64url');
}

/** The cursor's text: base64url of `<kind>.<digest>.<id>.<ord>`, opaque to clients. */
export function encodeListCursor(c: ListCursor): string {
  return Buffer.from(`${KINDS[c.kind]}.${c.filters}.${c.id}.${c.ord}`, 'utf8').toString('base64url');
}

const PLACE = /^([lc])\.([A-Za-z0-9_-]{11})\.([1-9]\d{0,9})\.(0|-?[1-9]\d{0,15})$/;

/**
 * The place a cursor names, or null for anything this service did not give: only the exact text
 * encodeListCursor makes, so a cursor cannot be spelt two ways.
 */
export function decodeListCursor(text: string): ListCursor | null {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(text)) return null;
  const match = PLACE.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return null;
  const cursor: ListCursor = { kind: match[1] === 'l' ? 'list' : 'children', filters: match[2], id: Number(match[3]), ord: Number(match[4]) };
  if (!Number.isSafeInteger(cursor.ord)) return null;
  return encodeListCursor(cursor) === text ? cursor : null;
}
