import type { Knex } from 'knex';
import type { Queryable } from '../../../../lib/db';
import { ORD_LIMIT } from './labels';

/** The two keys of the directory's order (order.ts): a contact's sibling-order name, and where a subtree ends. */

/** The sibling-order key of a name: lower case, cut to 255 code points (lower-casing can lengthen a name). */
export function sortNameOf(name: string): string {
  return Array.from(name.toLowerCase()).slice(0, 255).join('');
}

/** Label of the first row after the subtree that starts at (ord, depth); ORD_LIMIT if none. */
export async function subtreeEnd(db: Queryable, ord: number, depth: number): Promise<number> {
  const next = await db('users')
    .where('tree_ord', '>', ord)
    .andWhere('depth', '<=', depth)
    .orderBy('tree_ord')
    .first('tree_ord');
  return next ? Number(next.tree_ord) : ORD_LIMIT;
}

/** Up to this many rows, a subtree is read with the row after it in one statement (subtreeFrom). */
export const SMALL_SUBTREE = 32;

/**
 * Of the rows that follow a subtree's root in the order (`after`, read with a limit of
 * SMALL_SUBTREE), how many lie inside the subtree: those before the first that is not deeper
 * than the root. Null when every row read is deeper and there may be more: the read did not
 * settle it.
 */
export function rowsInside(after: ReadonlyArray<{ depth: number }>, depth: number): number | null {
  const end = after.findIndex((r) => r.depth <= depth);
  if (end >= 0) return end;
  return after.length < SMALL_SUBTREE ? after.length : null;
}

/**
 * The SMALL_SUBTREE rows that follow the label of the contact `id`, in label order, for the
 * caller's columns: where its subtree lies when it is small (rowsInside tells), read in the
 * same statement as the contact's own row (subtreeOfContact, branch.ts smallBranch).
 */
export function rowsAfterLabelOf(db: Queryable, id: number): Knex.QueryBuilder {
  return db('users').where('tree_ord', '>', db('users').where({ id }).select('tree_ord')).orderBy('tree_ord').limit(SMALL_SUBTREE);
}

/** A row of the order: its id, level and label. */
export interface PlacedRow {
  id: number;
  depth: number;
  tree_ord: number;
}

/**
 * The rows of the subtree of the contact `id` in pre-order, the contact first: [] for an unknown
 * contact, only the contact for one not placed (a label <= 0: inserted and not yet labelled, or
 * taken out of the order). One statement for a small subtree (a leaf, most often): the contact's
 * row beside the rows that follow its label, up to the first that is not deeper. A tree change
 * reads it under the directory lock, where every round trip is one the lock is held for.
 */
export async function subtreeOfContact(db: Queryable, id: number): Promise<PlacedRow[]> {
  const rows: Array<PlacedRow & { part: number }> = (
    await db
      .select(db.raw('0 as part'), 'id', 'depth', 'tree_ord')
      .from('users')
      .where({ id })
      .unionAll((u) => u.select('*').from(rowsAfterLabelOf(db, id).select(db.raw('1 as part'), 'id', 'depth', 'tree_ord').as('after_root')))
  ).map((r: Record<string, unknown>) => ({ part: Number(r.part), id: Number(r.id), depth: Number(r.depth), tree_ord: Number(r.tree_ord) }));
  // a union's rows come in no promised order: the contact's own, then those after it by label
  rows.sort((a, b) => a.part - b.part || a.tree_ord - b.tree_ord);
  if (rows[0]?.part !== 0) return [];
  const placed = rows.map((r): PlacedRow => ({ id: r.id, depth: r.depth, tree_ord: r.tree_ord }));
  const root = placed[0];
  if (root.tree_ord <= 0) return [root];
  const inside = rowsInside(placed.slice(1), root.depth);
  return inside === null ? subtreeFrom(db, root.tree_ord, root.depth) : placed.slice(0, 1 + inside);
}

/**
 * The rows of the subtree that starts at (ord, depth), in pre-order, with `columns` beside their
 * id, depth and order key. A small one (a leaf, most often) is read with the row after it in one
 * statement: the subtree ends at the first row after its root that is not deeper. A larger one
 * takes its end (subtreeEnd) and a range read.
 */
export async function subtreeFrom<C extends string = never>(
  db: Queryable,
  ord: number,
  depth: number,
  columns: readonly C[] = [],
): Promise<Array<{ id: number; depth: number; tree_ord: number } & Record<C, unknown>>> {
  const select = ['id', 'depth', 'tree_ord', ...columns];
  const toRow = (r: Record<string, unknown>) => ({ ...r, id: Number(r.id), depth: Number(r.depth), tree_ord: Number(r.tree_ord) }) as { id: number; depth: number; tree_ord: number } & Record<C, unknown>;
  const head = (await db('users').where('tree_ord', '>=', ord).orderBy('tree_ord').limit(SMALL_SUBTREE + 1).select(select)).map(toRow);
  const inside = rowsInside(head.slice(1), depth);
  if (inside !== null) return head.slice(0, 1 + inside);
  const end = await subtreeEnd(db, ord, depth);
  return (await db('users').where('tree_ord', '>=', ord).andWhere('tree_ord', '<', end).orderBy('tree_ord').select(select)).map(toRow);
}
