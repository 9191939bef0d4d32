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
