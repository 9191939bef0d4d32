import type { Knex } from 'knex';
import type { Queryable } from '../../../../lib/db';
import { nullableId } from '../../../../lib/rows';
import { rowsAfterLabelOf, rowsInside } from './keys';
import type { AncestorRow } from './lineage';

/** A contact's branch as a write's answer needs it: its lineage (it and every ancestor) and its active subtree in pre-order, it first. */
export interface BranchRows {
  lineage: Map<number, AncestorRow>;
  subtree: AncestorRow[];
}

/**
 * The branch of a contact whose subtree is small (a leaf, most often: a new contact, a moved
 * one) in one statement, so one consistent read: its lineage, its own row, and the rows after
 * its label (as many as a small subtree), up to the first that is not deeper. Null when that
 * does not settle it (a larger subtree): the caller then reads the branch at one directory
 * version. An inactive or unknown contact: no rows.
 */
export async function smallBranch(db: Queryable, id: number): Promise<BranchRows | null> {
  const knex = db as Knex;
  const columns = ['id', 'parent_id', 'name', 'tree_ord', 'depth', 'is_active'];
  const own = knex('users').where({ id, is_active: true }).select(...columns, knex.raw('2 as part'));
  const after = rowsAfterLabelOf(db, id).select(...columns, knex.raw('1 as part'));
  const rows: Array<Record<string, unknown>> = await knex
    .withRecursive('lineage', ['id', 'parent_id', 'name'], (qb) => {
      // UNION, not UNION ALL: a cycle (which the writers rule out) ends the walk instead of hanging it
      qb.select('id', 'parent_id', 'name').from('users').where('id', id)
        .union((u) => u.select('u.id', 'u.parent_id', 'u.name').from('users as u').join('lineage as l', 'u.id', 'l.parent_id'));
    })
    .select('*')
    .from(own.as('own'))
    .unionAll((q) => q.select('*').from(after.as('after_root')))
    .unionAll((q) => q.select('id', 'parent_id', 'name', knex.raw('0 as tree_ord'), knex.raw('0 as depth'), knex.raw('1 as is_active'), knex.raw('0 as part')).from('lineage'));
  const toRow = (r: Record<string, unknown>): AncestorRow => ({ id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) });
  const root = rows.find((r) => Number(r.part) === 2);
  if (!root) return { lineage: new Map(), subtree: [] };
  const lineage = new Map<number, AncestorRow>();
  for (const r of rows) if (Number(r.part) === 0) lineage.set(Number(r.id), toRow(r));
  // the rows after the label came in order inside their subquery; a UNION does not promise to keep it
  const below = rows.filter((r) => Number(r.part) === 1).map((r) => ({ r, ord: Number(r.tree_ord), depth: Number(r.depth) })).sort((a, b) => a.ord - b.ord);
  const inside = rowsInside(below, Number(root.depth));
  if (inside === null) return null;
  const subtree = [root, ...below.slice(0, inside).map((x) => x.r)].filter((r) => Boolean(Number(r.is_active))).map(toRow);
  return { lineage, subtree };
}
