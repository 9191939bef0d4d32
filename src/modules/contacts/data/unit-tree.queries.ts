import { chunks } from '../../../lib/chunks';
import { dialectOf, type Db } from '../../../lib/db';
import { nullableId } from '../../../lib/rows';
import { LIST_SEARCH_FIELDS } from '../domain/grams';
import { containsTerm, joinCandidates } from './candidates';
import type { AncestorRow } from './tree/lineage';
import { subtreeFrom } from './tree/keys';
import { applyFilters } from './listing.queries';
import { contactQuery, USER_CONTACT_COLUMNS } from './users.queries';
import { toListedContact, type Contact } from '../domain/contact.record';
import type { ContactFilters } from '../domain/filters';

/**
 * `users as u` for reading a unit in tree order. On MySQL, when nothing but the unit (and
 * activity) filters, through the (unit_id, is_active, tree_ord) index by force: for a unit of a
 * tenth of the directory the optimizer would scan the whole table and sort, twice the database
 * time. A search, a department or a role narrows the set by other indexes, which the optimizer
 * is left to choose (docs/performance.md, Unit tree).
 */
function unitUsers(db: Db, filters: ContactFilters) {
  const unitOnly = !filters.search && filters.department_id === undefined && filters.role_filter === 'all';
  return dialectOf(db) === 'mysql' && unitOnly
    ? db.from(db.raw('users as u force index (users_unit_id_is_active_tree_ord_index)'))
    : db('users as u');
}

/** The unit's contacts that pass the filters, in pre-order: the users columns of a contact and `depth`. */
export async function unitRows(db: Db, filters: ContactFilters & { unit_id: number }): Promise<Record<string, unknown>[]> {
  const q = applyFilters(unitUsers(db, filters), filters).select([...USER_CONTACT_COLUMNS, 'u.depth']).orderBy('u.tree_ord');
  if (filters.search) joinCandidates(q, db, filters.search);
  const rows = (await q) as Record<string, unknown>[];
  return filters.search ? rows.filter((r) => containsTerm(r, filters.search!, LIST_SEARCH_FIELDS)) : rows;
}

/**
 * The rows of the given contacts (a search's matches from the in-memory index), as unitRows
 * gives them, in pre-order: read by primary key, with their places in the tree as they are now.
 */
export async function unitRowsByIds(db: Db, ids: readonly number[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const chunk of chunks(ids, 1000)) {
    rows.push(...(await db('users as u').whereIn('u.id', chunk).select([...USER_CONTACT_COLUMNS, 'u.depth', 'u.tree_ord'])));
  }
  return rows.sort((a, b) => Number(a.tree_ord) - Number(b.tree_ord));
}

/** Every contact of a unit as a walk up the tree needs it: each ancestor of a contact is in its unit. */
export async function unitLineage(db: Db, unitId: number): Promise<Map<number, AncestorRow>> {
  const rows = await db('users').where({ unit_id: unitId }).select('id', 'parent_id', 'name');
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) }]));
}

/** Names of some contacts of a unit (parents that the filters left out); the whole unit's when there are many. */
export async function unitContactNames(db: Db, unitId: number, ids: readonly number[]): Promise<Map<number, string>> {
  const q = db('users').where({ unit_id: unitId });
  if (ids.length <= 500) q.whereIn('id', ids);
  return new Map((await q.select('id', 'name')).map((r) => [Number(r.id), String(r.name)]));
}

/** The active contacts of a unit in pre-order, as a compact tree needs them. */
export async function activeUnitMembers(db: Db, unitId: number): Promise<AncestorRow[]> {
  const rows = await db('users').where({ unit_id: unitId, is_active: true }).orderBy('tree_ord').select('id', 'name', 'parent_id');
  return rows.map((r) => ({ id: Number(r.id), name: String(r.name), parent_id: nullableId(r.parent_id) }));
}

/**
 * A contact and its active descendants in pre-order, as a compact tree needs them (the contact
 * first); none when the contact is not active. Its cost follows the subtree's size, not the unit's.
 */
export async function activeSubtreeMembers(db: Db, id: number): Promise<AncestorRow[]> {
  const root = await db('users').where({ id, is_active: true }).first('tree_ord', 'depth');
  if (!root) return [];
  const rows = await subtreeFrom(db, Number(root.tree_ord), Number(root.depth), ['name', 'parent_id', 'is_active'] as const);
  return rows.filter((r) => Boolean(Number(r.is_active))).map((r) => ({ id: r.id, name: String(r.name), parent_id: nullableId(r.parent_id) }));
}

/** How many contacts a unit holds, whatever their state: whether its tree is streamed (read/unit-tree-stream.ts). */
export async function unitSize(db: Db, unitId: number): Promise<number> {
  const [{ n }] = await db('users').where({ unit_id: unitId }).count({ n: '*' });
  return Number(n);
}

/**
 * The shape of a unit's filtered tree, in pre-order: each contact's id and parent id, two
 * numbers a contact (one statement: one consistent read), for a tree streamed in chunks.
 */
export async function unitShape(db: Db, filters: ContactFilters & { unit_id: number }): Promise<{ ids: Int32Array; parents: Int32Array }> {
  const rows: Array<{ id: unknown; parent_id: unknown }> = await applyFilters(unitUsers(db, filters), filters).select('u.id', 'u.parent_id').orderBy('u.tree_ord');
  const ids = new Int32Array(rows.length);
  const parents = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    ids[i] = Number(rows[i].id);
    parents[i] = rows[i].parent_id === null ? 0 : Number(rows[i].parent_id);
  }
  return { ids, parents };
}

/** Contact records (with `level`) of the given ids, in the given order: by primary key, names joined. */
export async function contactsInOrder(db: Db, ids: ArrayLike<number>): Promise<Array<Contact & { level: number }>> {
  const rows: Record<string, unknown>[] = await contactQuery(db).select('u.depth').whereIn('u.id', Array.from(ids));
  const byId = new Map(rows.map((row) => [Number(row.id), toListedContact(row)]));
  return Array.from(ids, (id) => {
    const contact = byId.get(id);
    // rows are never removed by the service (deletes are soft): only by hand, under the stream
    if (!contact) throw new Error(`contact ${id} vanished while its unit's tree was streamed`);
    return contact;
  });
}
