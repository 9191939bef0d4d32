import type { Knex } from 'knex';
import { chunks } from '../../../../lib/chunks';
import { compareCodePoints } from '../../../../lib/text';
import { changeStamp } from './lock';

/**
 * The labels of the directory's order key (see order.ts): appended rows are ORD_STEP
 * apart, and labels stay below ORD_LIMIT = 2^52, exact as JavaScript numbers and as BIGINT.
 */
export const ORD_STEP = 2 ** 20;
export const ORD_LIMIT = 2 ** 52;

/** Writes labels (and depths, when given) to many rows, a few hundred per statement. */
export async function writeLabels(
  trx: Knex.Transaction,
  rows: Array<{ id: number; tree_ord: number; depth?: number }>,
): Promise<void> {
  for (const chunk of chunks(rows)) {
    const ids = chunk.map((r) => r.id);
    const cases = chunk.map(() => 'WHEN ? THEN ?').join(' ');
    const update: Record<string, Knex.Raw | number> = {
      change_version: changeStamp(trx),
      tree_ord: trx.raw(`CASE id ${cases} END`, chunk.flatMap((r) => [r.id, r.tree_ord])),
    };
    if (chunk[0].depth !== undefined) {
      update.depth = trx.raw(`CASE id ${cases} END`, chunk.flatMap((r) => [r.id, r.depth!]));
    }
    await trx('users').whereIn('id', ids).update(update);
  }
}

/**
 * Labels a whole directory from scratch: used by seeders that insert many rows at once, and
 * by tests as the reference order. `rows` are every contact; returns id -> {tree_ord, depth}.
 * An explicit stack walks the tree, so depth is not limited by the call stack.
 */
export function computePreorder(
  rows: ReadonlyArray<{ id: number; parent_id: number | null; sort_name: string }>,
): Map<number, { tree_ord: number; depth: number }> {
  const children = new Map<number | null, typeof rows[number][]>();
  for (const row of rows) {
    const list = children.get(row.parent_id) ?? [];
    list.push(row);
    children.set(row.parent_id, list);
  }
  for (const list of children.values()) {
    list.sort((a, b) => compareCodePoints(a.sort_name, b.sort_name) || a.id - b.id);
  }
  const out = new Map<number, { tree_ord: number; depth: number }>();
  const stack: Array<{ row: typeof rows[number]; depth: number }> = [];
  const pushChildren = (parent: number | null, depth: number) => {
    const list = children.get(parent) ?? [];
    for (let i = list.length - 1; i >= 0; i--) stack.push({ row: list[i], depth });
  };
  pushChildren(null, 0);
  while (stack.length > 0) {
    const { row, depth } = stack.pop()!;
    out.set(row.id, { tree_ord: (out.size + 1) * ORD_STEP, depth });
    pushChildren(row.id, depth + 1);
  }
  return out;
}
