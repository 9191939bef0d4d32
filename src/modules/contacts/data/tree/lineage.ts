import type { Knex } from 'knex';
import type { Queryable } from '../../../../lib/db';
import { NotFoundError } from '../../../../lib/errors';
import { nullableId } from '../../../../lib/rows';
import { subtreeEnd } from './keys';
import type { OrdRange } from '../../domain/filters';

/** A contact and its parent, as a walk up the tree needs them. */
export interface AncestorRow {
  id: number;
  parent_id: number | null;
  name: string;
}

/** Every ancestor of the given contacts (and the contacts), in one recursive query. */
export async function lineageOf(db: Queryable, ids: readonly number[]): Promise<Map<number, AncestorRow>> {
  const map = new Map<number, AncestorRow>();
  if (ids.length === 0) return map;
  const rows = await (db as Knex)
    .withRecursive('lineage', ['id', 'parent_id', 'name'], (qb) => {
      qb.select('id', 'parent_id', 'name')
        .from('users')
        .whereIn('id', ids)
        .union((u) => u.select('u.id', 'u.parent_id', 'u.name').from('users as u').join('lineage as l', 'u.id', 'l.parent_id'));
    })
    .select('id', 'parent_id', 'name')
    .from('lineage');
  for (const r of rows) {
    map.set(Number(r.id), { id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) });
  }
  return map;
}

/** The label range strictly below a contact (its descendants); 404 for an unknown contact. */
export async function subtreeRange(db: Queryable, contactId: number): Promise<OrdRange> {
  const root = await db('users').where({ id: contactId }).first('tree_ord', 'depth');
  if (!root) throw new NotFoundError('Contact not found');
  const after = Number(root.tree_ord);
  return { after, before: await subtreeEnd(db, after, Number(root.depth)) };
}
