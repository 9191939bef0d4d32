import type { Knex } from 'knex';
import { compareCodePoints } from '../../../../lib/text';
import { subtreeEnd, subtreeOfContact, type PlacedRow } from './keys';
import { chunks } from '../../../../lib/chunks';
import { TimeSlices } from '../../../../lib/yield';
import type { VirtualLabels } from './gaps';
import { gapFor, nextSibling, parentAndNextSibling, type Room, type Sibling } from './siblings';
import { writeLabels } from './labels';
import { changeStamp } from './lock';

/**
 * The directory's pre-order, kept as an order key on each contact.
 *
 * `users.tree_ord` is an integer label: ORDER BY tree_ord is the depth-first order of the
 * whole directory, roots and siblings by (sort_name, id). `users.depth` is the level. A
 * subtree is one contiguous run of labels: the contact itself, then every row up to the next
 * row whose depth is not greater. So a page of any listing is an indexed range read, and the
 * storage is two numbers a row, whatever the depth.
 *
 * Labels are spaced (ORD_STEP apart when appended) so that a new or moved row usually fits
 * between its neighbours; when a gap is used up, a window of neighbours around it is spread
 * out again (list labelling: the window doubles until it is sparse enough), so a change costs
 * the rows it moves plus, now and then, a bounded relabel.
 *
 * Every method runs inside the caller's transaction, after `lockDirectory` (lock.ts): tree changes are
 * serialized, so the reads here see a tree that nobody else is changing.
 */

/** Stand-in ids of new rows (labelsForNew): above every real id, exact as numbers. */
const NEW_ROW_ID = 2 ** 52;

/**
 * What a caller that writes the roots' rows itself knows (updateContact): their parent_id and
 * updated_at are its to write (whenever it gives KnownRoots), and these are their sort names.
 * With `writesAloneLabel`, the label of one root that moves alone (no row below it) is its to
 * write too, with the rest of its row: moveSubtrees returns it instead (one statement less
 * under the directory lock).
 */
export type KnownRoots = { sortNames: ReadonlyMap<number, string>; writesAloneLabel?: true };

/** A row's new place in the order: its label and level. */
export interface PlaceInOrder {
  tree_ord: number;
  depth: number;
}

interface OrderedRow {
  id: number;
  depth: number;
}

/** New subtrees to label (labelsForNew), by their place in the order given: each root's sort name and the subtree's number of rows. */
export interface NewSubtrees {
  readonly length: number;
  sortName(s: number): string;
  rows(s: number): number;
}

interface SubtreeToPlace {
  id: number;
  sortName: string;
  /** the subtree's rows in pre-order, the root first, with their current depth */
  rows: OrderedRow[];
}

export class TreeOrder {
  constructor(private readonly trx: Knex.Transaction) {}

  /** The labels [start, end) of the subtree of `id`, or null for an unknown or unplaced contact. */
  async rangeOf(id: number): Promise<{ start: number; end: number } | null> {
    const root = await this.trx('users').where({ id }).first('tree_ord', 'depth');
    if (!root || Number(root.tree_ord) <= 0) return null;
    const start = Number(root.tree_ord);
    return { start, end: await subtreeEnd(this.trx, start, Number(root.depth)) };
  }

  /** The rows of the subtree of `id` in pre-order (the contact first). */
  subtreeRows(id: number): Promise<PlacedRow[]> {
    return subtreeOfContact(this.trx, id);
  }

  /** Of the given contacts, those that lie inside the subtree of another one of them. */
  async nestedAmong(ids: number[]): Promise<Set<number>> {
    const ranges: Array<{ id: number; start: number; end: number }> = [];
    for (const id of ids) {
      const range = await this.rangeOf(id);
      if (range) ranges.push({ id, ...range });
    }
    ranges.sort((a, b) => a.start - b.start);
    const nested = new Set<number>();
    let outerEnd = -Infinity;
    for (const r of ranges) {
      if (r.start < outerEnd) nested.add(r.id);
      else outerEnd = r.end;
    }
    return nested;
  }

  /**
   * Puts each subtree (given by its root) under `parentId` (null: at the top level), in its
   * place among the new siblings, and sets the roots' parent_id and every moved row's depth.
   * A root that lies inside another root's subtree moves after it, in a later round (it ends up
   * under `parentId` too). Rows inserted by the caller and not yet placed carry a label <= 0
   * and are placed as single rows.
   */
  async moveSubtrees(rootIds: number[], parentId: number | null, known?: KnownRoots): Promise<PlaceInOrder | null> {
    if (rootIds.length === 1) return this.placeSubtrees(rootIds, parentId, known);
    let pending = rootIds;
    while (pending.length > 0) {
      // one root cannot lie inside another
      const nested = pending.length > 1 ? await this.nestedAmong(pending) : new Set<number>();
      await this.placeSubtrees(pending.filter((id) => !nested.has(id)), parentId, known && { ...known, writesAloneLabel: undefined });
      pending = pending.filter((id) => nested.has(id));
    }
    return null;
  }

  /** moveSubtrees for roots none of which lies inside another's subtree. */
  private async placeSubtrees(rootIds: number[], parentId: number | null, known?: KnownRoots): Promise<PlaceInOrder | null> {
    if (rootIds.length === 0) return null;
    // 1. Take every moving subtree out of the order: negated labels stay distinct and are < 0.
    // One row moved alone stays where it is until its new label is written: no read below can
    // take it for a neighbour. nextSibling never returns the row itself, and a gap that starts
    // at its old label (lastLabelBefore) or a window around it (makeRoom) holds no other row;
    // the write of its label moves it out of either.
    const subtrees: SubtreeToPlace[] = [];
    for (const id of rootIds) {
      const rows = await this.subtreeRows(id);
      if (rows.length === 0) throw new Error(`tree-order: contact ${id} does not exist`);
      subtrees.push({ id, sortName: '', rows });
      const aloneRow = rootIds.length === 1 && rows.length === 1;
      if (rows[0].tree_ord > 0 && !aloneRow) {
        const end = rows[rows.length - 1].tree_ord;
        await this.trx('users')
          .where('tree_ord', '>=', rows[0].tree_ord)
          .andWhere('tree_ord', '<=', end)
          .update({ tree_ord: this.trx.raw('0 - tree_ord'), change_version: changeStamp(this.trx) });
      }
    }
    // a new parent is a change of the contact: its updated_at is what If-Match compares (a
    // caller that set parent_id itself, as updateContact does, has set updated_at too, and says so)
    for (const chunk of known ? [] : chunks(rootIds)) {
      await this.trx('users')
        .whereIn('id', chunk)
        .where((q) => (parentId === null ? q.whereNotNull('parent_id') : q.whereNull('parent_id').orWhereNot('parent_id', parentId)))
        .update({ parent_id: parentId, updated_at: new Date(), change_version: changeStamp(this.trx) });
    }
    const names = new Map<number, string>(known?.sortNames);
    for (const chunk of chunks(rootIds.filter((id) => !names.has(id)))) {
      for (const r of await this.trx('users').whereIn('id', chunk).select('id', 'sort_name')) {
        names.set(Number(r.id), String(r.sort_name)); // MySQL gives the binary column as a Buffer
      }
    }
    for (const s of subtrees) s.sortName = names.get(s.id)!;
    subtrees.sort((a, b) => compareCodePoints(a.sortName, b.sortName) || a.id - b.id);

    const alone = known?.writesAloneLabel === true && subtrees.length === 1 && subtrees[0].rows.length === 1;
    return this.labelsAmongSiblings(parentId, subtrees, alone);
  }

  /**
   * Labels for new rows, not yet in the table: the subtrees go under `parentId` in the order
   * given (sorted by sort name), each after its placed namesakes, each with `rows(s)` rows in
   * pre-order. Neighbours are relabelled here when a gap is too narrow. Returns the new rows'
   * labels in that order (every subtree's rows, one subtree after another) and the depth of
   * their roots, for the caller to insert the rows with. An import's 100,000 rows are numbers
   * in one array here, not an object each.
   */
  async labelsForNew(parentId: number | null, subtrees: NewSubtrees): Promise<{ tree_ord: Float64Array; depth: number }> {
    const firstName = subtrees.length > 0 ? subtrees.sortName(0) : '';
    const { parent, baseDepth, next: firstNext } = await parentAndNextSibling(this.trx, parentId, firstName, NEW_ROW_ID);
    // a new row's stand-in id is NEW_ROW_ID + its place in the labels: above every real id, so
    // each new root sorts after its placed namesakes, the new roots keep the order given, and
    // no new row is taken for a row of the table
    const groups: Array<{ next: Sibling | null; rows: number }> = [];
    let total = 0;
    for (let s = 0; s < subtrees.length; s++) {
      const next = s === 0 ? firstNext : await nextSibling(this.trx, parentId, subtrees.sortName(s), NEW_ROW_ID + total);
      const last = groups[groups.length - 1];
      if (last && last.next?.id === next?.id) last.rows += subtrees.rows(s);
      else groups.push({ next, rows: subtrees.rows(s) });
      total += subtrees.rows(s);
    }
    const labels = new Float64Array(total);
    let labelled = 0;
    const virtual: VirtualLabels = {
      forEach: (visit) => {
        for (let i = 0; i < labelled; i++) visit(labels[i], NEW_ROW_ID + i);
      },
      relabel: (id, label) => {
        if (id < NEW_ROW_ID) return false;
        labels[id - NEW_ROW_ID] = label;
        return true;
      },
    };
    const room: Room = { relabelled: false };
    const slices = new TimeSlices();
    for (const group of groups) {
      const { before, spacing } = await gapFor(this.trx, parentId, parent, group.next, group.rows, room, virtual);
      for (let i = 0; i < group.rows; i++) {
        labels[labelled + i] = before + spacing * (i + 1);
        if (slices.due()) await slices.pause();
      }
      labelled += group.rows;
    }
    return { tree_ord: labels, depth: baseDepth };
  }

  /**
   * Steps 2 and 3 of placing subtrees (taken out of the order, sorted) under `parentId`: the
   * rows labelled group by group, each gap measured with the groups before it in place. With
   * `returnAlone`, the one row's place is returned, not written (KnownRoots.writesAloneLabel).
   */
  private async labelsAmongSiblings(parentId: number | null, subtrees: SubtreeToPlace[], returnAlone: boolean): Promise<PlaceInOrder | null> {
    const { parent, baseDepth, next: firstNext } = await parentAndNextSibling(this.trx, parentId, subtrees[0].sortName, subtrees[0].id);

    // 2. Group them by the gap they go into: the same next sibling (or none: the end).
    const groups: Array<{ next: Sibling | null; subtrees: SubtreeToPlace[] }> = [];
    for (const [i, s] of subtrees.entries()) {
      const next = i === 0 ? firstNext : await nextSibling(this.trx, parentId, s.sortName, s.id);
      const last = groups[groups.length - 1];
      if (last && last.next?.id === next?.id) last.subtrees.push(s);
      else groups.push({ next, subtrees: [s] });
    }

    // 3. Fill each gap, making room where it is too narrow.
    const room: Room = { relabelled: false };
    const slices = new TimeSlices();
    for (const group of groups) {
      const rows: OrderedRow[] = [];
      for (const s of group.subtrees) {
        const shift = baseDepth - s.rows[0].depth;
        for (const r of s.rows) rows.push({ id: r.id, depth: r.depth + shift });
        if (slices.due()) await slices.pause();
      }
      const { before, spacing } = await gapFor(this.trx, parentId, parent, group.next, rows.length, room);
      const labelled = rows.map((r, i) => ({ ...r, tree_ord: before + spacing * (i + 1) }));
      if (returnAlone) return { tree_ord: labelled[0].tree_ord, depth: labelled[0].depth };
      await writeLabels(this.trx, labelled);
    }
    return null;
  }
}
