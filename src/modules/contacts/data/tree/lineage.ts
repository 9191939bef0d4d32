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

/** An ancestor with what the parent rules check of it (parent-rules.ts). */
export interface PlacedAncestorRow extends AncestorRow {
  unit_id: number;
  organization_id: number;
  is_active: boolean;
}

/** Every ancestor of the given contacts (and the contacts), in one recursive query. */
export async function lineageOf(db: Queryable, ids: readonly number[]): Promise<Map<number, AncestorRow>> {
  const map = new Map<number, AncestorRow>();
  for (const r of await lineageRows(db, ids, ANCESTOR_COLUMNS)) {
    map.set(Number(r.id), { id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) });
  }
  return map;
}

/**
 * lineageOf with each row's unit, organization and activity: the given parents' own rows and
 * the walk above them in one statement, which a change makes under the directory lock.
 */
export async function lineageWithPlaces(db: Queryable, ids: readonly number[]): Promise<Map<number, PlacedAncestorRow>> {
  const map = new Map<number, PlacedAncestorRow>();
  for (const r of await lineageRows(db, ids, [...ANCESTOR_COLUMNS, 'unit_id', 'organization_id', 'is_active'])) {
    map.set(Number(r.id), {
      id: Number(r.id),
      parent_id: nullableId(r.parent_id),
      name: String(r.name),
      unit_id: Number(r.unit_id),
      organization_id: Number(r.organization_id),
      is_active: Boolean(Number(r.is_active)),
    });
  }
  return map;
}

const ANCESTOR_COLUMNS = ['id', 'parent_id', 'name'] as const;

async function lineageRows(db: Queryable, ids: readonly number[], columns: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (ids.length === 0) return [];
  return (db as Knex)
    .withRecursive('lineage', [...columns], (qb) => {
      qb.select(...columns)
        .from('users')
        .whereIn('id', ids)
        .union((u) => u.select(...columns.map((c) => `u.${c}`)).from('users as u').join('lineage as l', 'u.id', 'l.parent_id'));
    })
    .select(...columns)
    .from('lineage');
}

/** The label range strictly below a contact (its descendants); 404 for an unknown contact. */
export async function subtreeRange(db: Queryable, contactId: number): Promise<OrdRange> {
  const root = await db('users').where({ id: contactId }).first('tree_ord', 'depth');
  if (!root) throw new NotFoundError('Contact not found');
  const after = Number(root.tree_ord);
  return { after, before: await subtreeEnd(db, after, Number(root.depth)) };
}
