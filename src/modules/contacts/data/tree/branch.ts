import type { Knex } from 'knex';
import type { Queryable } from '../../../../lib/db';
import { nullableId } from '../../../../lib/rows';
import { SMALL_SUBTREE } from './keys';
import type { AncestorRow } from './lineage';

/** A contact's branch as a write's answer needs it: its lineage (it and every ancestor) and its active subtree in pre-order, it first. */
export interface BranchRows {
  lineage: Map<number, AncestorRow>;
  subtree: AncestorRow[];
}

/**
 * The branch of a contact whose subtree is small (a leaf, most often: a new contact, a moved
 * one), in two statements: its place, then its lineage and the rows from its place on (as
 * many as a small subtree and the row after it) in one statement, so that both are one
 * consistent read. Null when that does not settle it: a larger subtree, or a contact that moved
 * between the two statements (the rows from its old place do not start with it); the caller
 * then reads the branch at one directory version. An inactive or unknown contact: no rows.
 */
export async function smallBranch(db: Queryable, id: number): Promise<BranchRows | null> {
  const root = await db('users').where({ id, is_active: true }).first('tree_ord', 'depth');
  if (!root) return { lineage: new Map(), subtree: [] };
  const [ord, depth] = [Number(root.tree_ord), Number(root.depth)];
  const knex = db as Knex;
  const head = knex('users').where('tree_ord', '>=', ord).orderBy('tree_ord').limit(SMALL_SUBTREE + 1)
    .select('id', 'parent_id', 'name', 'tree_ord', 'depth', 'is_active', knex.raw('1 as part'));
  const rows: Array<Record<string, unknown>> = await knex
    .withRecursive('lineage', ['id', 'parent_id', 'name'], (qb) => {
      // UNION, not UNION ALL: a cycle (which the writers rule out) ends the walk instead of hanging it
      qb.select('id', 'parent_id', 'name').from('users').where('id', id)
        .union((u) => u.select('u.id', 'u.parent_id', 'u.name').from('users as u').join('lineage as l', 'u.id', 'l.parent_id'));
    })
    .select('*')
    .from(head.as('head'))
    .unionAll((q) => q.select('id', 'parent_id', 'name', knex.raw('0 as tree_ord'), knex.raw('0 as depth'), knex.raw('1 as is_active'), knex.raw('0 as part')).from('lineage'));
  const toRow = (r: Record<string, unknown>): AncestorRow => ({ id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) });
  const lineage = new Map<number, AncestorRow>();
  const below: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    if (Number(r.part) === 0) lineage.set(Number(r.id), toRow(r));
    else below.push(r);
  }
  // the head's rows came in order inside their subquery; a UNION does not promise to keep it
  const ordered = below.map((r) => ({ r, ord: Number(r.tree_ord), depth: Number(r.depth) })).sort((a, b) => a.ord - b.ord);
  if (ordered.length === 0 || Number(ordered[0].r.id) !== id) return null;
  const end = ordered.findIndex((x, i) => i > 0 && x.depth <= depth);
  if (end < 0 && ordered.length > SMALL_SUBTREE) return null;
  const subtree = (end < 0 ? ordered : ordered.slice(0, end)).filter((x) => Boolean(Number(x.r.is_active))).map((x) => toRow(x.r));
  return { lineage, subtree };
}
