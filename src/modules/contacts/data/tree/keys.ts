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
  const after = head.findIndex((r, i) => i > 0 && r.depth <= depth);
  if (after > 0) return head.slice(0, after);
  if (head.length <= SMALL_SUBTREE) return head;
  const end = await subtreeEnd(db, ord, depth);
  return (await db('users').where('tree_ord', '>=', ord).andWhere('tree_ord', '<', end).orderBy('tree_ord').select(select)).map(toRow);
}
