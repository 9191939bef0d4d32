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

/** The row of a parent (null: the top) and the depth of its children. */
export interface ParentPlace {
  parent: { tree_ord: unknown; depth: unknown } | null;
  baseDepth: number;
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
  parent: ParentPlace['parent'],
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
  const row = await nextSiblingQuery(trx, parentId, sortName, id).first('id', 'tree_ord');
  return row ? { id: Number(row.id), tree_ord: Number(row.tree_ord) } : null;
}

/**
 * The place of `parentId` (null: the top) and its first child after (sortName, id) (nextSibling)
 * in one statement, the union of both reads: a move or an insert needs both under the directory
 * lock, which is held for every round trip.
 */
export async function parentAndNextSibling(
  trx: Knex.Transaction,
  parentId: number | null,
  sortName: string,
  id: number,
): Promise<ParentPlace & { next: Sibling | null }> {
  if (parentId === null) return { parent: null, baseDepth: 0, next: await nextSibling(trx, null, sortName, id) };
  const rows: Array<Record<string, unknown>> = await trx
    .select(trx.raw('0 as part'), 'id', 'tree_ord', 'depth')
    .from('users')
    .where({ id: parentId })
    .unionAll((u) => u.select('*').from(nextSiblingQuery(trx, parentId, sortName, id).select(trx.raw('1 as part'), 'id', 'tree_ord', 'depth').limit(1).as('next_sibling')));
  const parent = rows.find((r) => Number(r.part) === 0);
  if (!parent) throw new Error(`tree-order: parent ${parentId} does not exist`);
  const next = rows.find((r) => Number(r.part) === 1);
  return {
    parent: { tree_ord: parent.tree_ord, depth: parent.depth },
    baseDepth: Number(parent.depth) + 1,
    next: next ? { id: Number(next.id), tree_ord: Number(next.tree_ord) } : null,
  };
}

/**
 * The placed siblings under `parentId` that sort after (sortName, id), in that order; never the
 * row `id` itself, whose stored name and parent may still be the ones it is moving from (a row
 * moved alone is placed before its row is written: order.ts placeSubtrees).
 */
function nextSiblingQuery(trx: Knex.Transaction, parentId: number | null, sortName: string, id: number): Knex.QueryBuilder {
  const query = trx('users')
    .where('tree_ord', '>', 0)
    .whereNot('id', id)
    .andWhere('sort_name', '>=', sortName)
    .andWhere((q) => q.where('sort_name', '>', sortName).orWhere('id', '>', id))
    .orderBy([{ column: 'sort_name' }, { column: 'id' }]);
  return parentId === null ? query.whereNull('parent_id') : query.where('parent_id', parentId);
}
