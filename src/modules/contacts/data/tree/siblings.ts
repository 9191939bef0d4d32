import type { Knex } from 'knex';
import { lastLabelBefore, makeRoom, roomPerRow, type VirtualLabels } from './gaps';
import { subtreeEnd } from './keys';
import { ORD_LIMIT, ORD_STEP } from './labels';

/** Where rows go among their new siblings (order.ts): the parent, the next sibling, the gap before it. */

/** A placed sibling and its label, as read before the labels of a change are written. */
export interface Sibling {
  id: number;
  tree_ord: number;
}

/** Whether a change made room in a gap (gaps.ts makeRoom) yet: labels read before it may have moved. */
export interface Room {
  relabelled: boolean;
}

/** The row of `parentId` (null: the top) and the depth of its children. */
export async function parentOf(trx: Knex.Transaction, parentId: number | null): Promise<{ parent: { tree_ord: unknown; depth: unknown } | null; baseDepth: number }> {
  const parent = parentId === null ? null : await trx('users').where({ id: parentId }).first('tree_ord', 'depth');
  if (parentId !== null && !parent) throw new Error(`tree-order: parent ${parentId} does not exist`);
  return { parent: parent ?? null, baseDepth: parent ? Number(parent.depth) + 1 : 0 };
}

/**
 * Room for `count` rows under `parentId` before its child `next` (null: after its last
 * descendant): the label after which they go and their spacing, neighbours spread out when
 * the gap is too narrow (`virtual`: rows labelled in memory, spread out with them). The labels
 * of `next` and `parent`, read before, hold until a gap is made room in (`room`), which
 * relabels rows around it: then they are read again.
 */
export async function gapFor(
  trx: Knex.Transaction,
  parentId: number | null,
  parent: { tree_ord: unknown; depth: unknown } | null,
  next: Sibling | null,
  count: number,
  room: Room,
  virtual?: VirtualLabels,
): Promise<{ before: number; spacing: number }> {
  const labelOf = async (id: number) => Number((await trx('users').where({ id }).first('tree_ord')).tree_ord);
  let after: number;
  if (next !== null) {
    after = room.relabelled ? await labelOf(next.id) : next.tree_ord;
  } else if (parent) {
    after = await subtreeEnd(trx, room.relabelled ? await labelOf(parentId!) : Number(parent.tree_ord), Number(parent.depth));
  } else {
    after = ORD_LIMIT;
  }
  const before = await lastLabelBefore(trx, after);
  const spacing = Math.min(ORD_STEP, Math.floor((after - before) / (count + 1)));
  // a large group of rows gets room to take more among them later; a smaller one goes into any gap
  if (spacing >= roomPerRow(count)) return { before, spacing };
  room.relabelled = true;
  return makeRoom(trx, before, after, count, virtual);
}

/** The first sibling under `parentId` that sorts after (sortName, id), among placed rows, with its label. */
export async function nextSibling(trx: Knex.Transaction, parentId: number | null, sortName: string, id: number): Promise<Sibling | null> {
  const query = trx('users')
    .where('tree_ord', '>', 0)
    .andWhere('sort_name', '>=', sortName)
    .andWhere((q) => q.where('sort_name', '>', sortName).orWhere('id', '>', id))
    .orderBy([{ column: 'sort_name' }, { column: 'id' }])
    .first('id', 'tree_ord');
  if (parentId === null) query.whereNull('parent_id');
  else query.where('parent_id', parentId);
  const row = await query;
  return row ? { id: Number(row.id), tree_ord: Number(row.tree_ord) } : null;
}
