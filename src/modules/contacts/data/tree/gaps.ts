import type { Knex } from 'knex';
import { ORD_LIMIT, writeLabels } from './labels';

/**
 * Gaps in the order key (order.ts): the label before a place, and room made where a gap is too
 * narrow for the rows that go into it.
 */

/** A relabelled window leaves at least this much room between rows. */
const WINDOW_SPACING = 2 ** 10;

/**
 * A large group of rows placed together (an import's new rows, a moved subtree: LARGE_GROUP rows
 * or more) gets at least GROUP_SPACING each, four times what a relabel leaves: a run of rows
 * packed denser than a relabel's spacing gives the next row put among them no window to spread,
 * short of one that reaches past the whole run. The demo import of a million contacts packed
 * 830,000 of them 830 apart before the first contact, and the first move among them relabelled
 * every row of the directory (66 s under the lock; docs/performance.md, "Moves at a million
 * contacts"). A smaller group goes into any gap as before: the relabel its run may cost later is
 * as small, and an import of many small groups into narrow gaps is spared a relabel for each.
 */
export const GROUP_SPACING = 4 * WINDOW_SPACING;
export const LARGE_GROUP = 1024;

/** The least room each of `count` rows placed together takes from a gap: GROUP_SPACING for a large group, any room else. */
export function roomPerRow(count: number): number {
  return count >= LARGE_GROUP ? GROUP_SPACING : 1;
}

/**
 * Rows labelled in memory and not yet in the table (an import's new rows, labelsForNew): a
 * window of makeRoom that reaches them relabels them too.
 */
export interface VirtualLabels {
  /** each row's label and id */
  forEach(visit: (tree_ord: number, id: number) => void): void;
  /** relabels row `id`; false for a row that is not one of these */
  relabel(id: number, tree_ord: number): boolean;
}

const NO_VIRTUAL: VirtualLabels = { forEach: () => undefined, relabel: () => false };

/** The last placed label before `label`, or 0. */
export async function lastLabelBefore(trx: Knex.Transaction, label: number): Promise<number> {
  const row = await trx('users')
    .where('tree_ord', '>', 0)
    .andWhere('tree_ord', '<', label)
    .orderBy('tree_ord', 'desc')
    .first('tree_ord');
  return row ? Number(row.tree_ord) : 0;
}

/**
 * Spreads out the rows around the gap (before, after) so that `count` more fit in it.
 * The window grows by doubling on both sides until its labels leave WINDOW_SPACING per row, or
 * roomPerRow(count) when that is more (or it spans the whole order). Returns the label after
 * which the new rows go and their spacing. `virtual` rows (labelled, not yet inserted) are
 * relabelled in memory along with the table's.
 */
export async function makeRoom(
  trx: Knex.Transaction,
  before: number,
  after: number,
  count: number,
  virtual: VirtualLabels = NO_VIRTUAL,
): Promise<{ before: number; spacing: number }> {
  const target = Math.max(WINDOW_SPACING, roomPerRow(count));
  const near = (side: 'left' | 'right', rows: Array<{ id: unknown; tree_ord: unknown }>, width: number) => {
    const all = rows.map((r) => ({ id: Number(r.id), tree_ord: Number(r.tree_ord) }));
    virtual.forEach((label, id) => {
      if (side === 'left' ? label <= before : label >= after) all.push({ id, tree_ord: label });
    });
    all.sort((x, y) => (side === 'left' ? y.tree_ord - x.tree_ord : x.tree_ord - y.tree_ord));
    return all.slice(0, width + 1);
  };
  for (let width = 8; ; width *= 2) {
    const left = near(
      'left',
      await trx('users').where('tree_ord', '>', 0).andWhere('tree_ord', '<=', before).orderBy('tree_ord', 'desc').limit(width + 1).select('id', 'tree_ord'),
      width,
    );
    const right = near(
      'right',
      await trx('users').where('tree_ord', '>=', after).orderBy('tree_ord').limit(width + 1).select('id', 'tree_ord'),
      width,
    );
    const low = left.length > width ? left.pop()!.tree_ord : 0;
    const high = right.length > width ? right.pop()!.tree_ord : ORD_LIMIT;
    const slots = left.length + count + right.length + 1;
    const spacing = Math.floor((high - low) / slots);
    const whole = low === 0 && high === ORD_LIMIT;
    if (spacing >= target || (whole && spacing >= 1)) {
      left.reverse();
      const labels: Array<{ id: number; tree_ord: number }> = [];
      left.forEach((r, i) => labels.push({ id: r.id, tree_ord: low + spacing * (i + 1) }));
      right.forEach((r, i) => labels.push({ id: r.id, tree_ord: low + spacing * (left.length + count + i + 1) }));
      const inTable: typeof labels = [];
      for (const l of labels) if (!virtual.relabel(l.id, l.tree_ord)) inTable.push(l);
      await writeLabels(trx, inTable);
      return { before: low + spacing * left.length, spacing };
    }
    if (whole) throw new Error('tree-order: the order key space is exhausted');
  }
}
