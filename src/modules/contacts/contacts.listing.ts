import type { Knex } from 'knex';
import type { Db, Queryable } from '../../lib/db';
import { NotFoundError } from '../../lib/errors';
import { contactQuery, toContact, type Contact } from './contacts.repository';
import { candidateIds, SEARCH_FIELDS } from './search-grams';
import { nest, withPaths, type AncestorRow, type Format } from './tree';
import { compareCodePoints } from '../../lib/text';
import { sortNameOf, subtreeEnd } from './tree-order';
import { chunks } from '../../lib/chunks';
import { nullableId } from '../../lib/rows';

export type RoleFilter = 'all' | 'super_admin' | 'admin' | 'user';
export const ROLE_FILTERS: readonly RoleFilter[] = ['all', 'super_admin', 'admin', 'user'];

/** What selects a set of contacts; the set is always taken in the directory's pre-order. */
export interface ContactFilters {
  search?: string;
  unit_id?: number;
  department_id?: number;
  role_filter: RoleFilter;
  include_inactive: boolean;
}

export interface ContactStatistics {
  total_contacts: number;
  root_contacts: number;
  child_contacts: number;
  super_admins: number;
  admins: number;
  regular_users: number;
}

/** A label range: the subtree strictly below a contact. */
export interface OrdRange {
  after: number;
  before: number;
}

/** The fields a filter or a statistic needs, for a set held in memory. */
interface SlimRow {
  id: number;
  parent_id: number | null;
  role_id: number;
  unit_id: number;
  department_id: number | null;
  is_active: boolean;
  tree_ord: number;
}

const SLIM_COLUMNS = ['u.id', 'u.parent_id', 'u.role_id', 'u.unit_id', 'u.department_id', 'u.is_active', 'u.tree_ord'];

function slim(row: Record<string, unknown>): SlimRow {
  return {
    id: Number(row.id),
    parent_id: nullableId(row.parent_id),
    role_id: Number(row.role_id),
    unit_id: Number(row.unit_id),
    department_id: nullableId(row.department_id),
    is_active: Boolean(Number(row.is_active)),
    tree_ord: Number(row.tree_ord),
  };
}

/** Adds the filters (all but search) to a query on `users as u`. */
export function applyFilters(q: Knex.QueryBuilder, f: ContactFilters, range?: OrdRange): Knex.QueryBuilder {
  if (!f.include_inactive) q.where('u.is_active', true);
  if (f.unit_id !== undefined) q.where('u.unit_id', f.unit_id);
  if (f.department_id !== undefined) q.where('u.department_id', f.department_id);
  if (f.role_filter === 'super_admin') q.where('u.role_id', 1);
  else if (f.role_filter === 'admin') q.where('u.role_id', 2);
  else if (f.role_filter === 'user') q.whereNotIn('u.role_id', [1, 2]);
  if (range) q.where('u.tree_ord', '>', range.after).andWhere('u.tree_ord', '<', range.before);
  return q;
}

export function statisticsOf(rows: ReadonlyArray<Pick<SlimRow, 'parent_id' | 'role_id'>>): ContactStatistics {
  let roots = 0;
  let supers = 0;
  let admins = 0;
  for (const r of rows) {
    if (r.parent_id === null) roots++;
    if (r.role_id === 1) supers++;
    else if (r.role_id === 2) admins++;
  }
  return statistics(rows.length, roots, supers, admins);
}

function statistics(total: number, roots: number, supers: number, admins: number): ContactStatistics {
  return {
    total_contacts: total,
    root_contacts: roots,
    child_contacts: total - roots,
    super_admins: supers,
    admins,
    regular_users: total - supers - admins,
  };
}

/** The six counters over the filtered set, in one aggregate query. */
export async function countStatistics(db: Queryable, f: ContactFilters, range?: OrdRange): Promise<ContactStatistics> {
  const row = await applyFilters(db('users as u'), f, range)
    .first(
      db.raw('COUNT(*) as total'),
      db.raw('SUM(CASE WHEN u.parent_id IS NULL THEN 1 ELSE 0 END) as roots'),
      db.raw('SUM(CASE WHEN u.role_id = 1 THEN 1 ELSE 0 END) as supers'),
      db.raw('SUM(CASE WHEN u.role_id = 2 THEN 1 ELSE 0 END) as admins'),
    );
  return statistics(Number(row.total), Number(row.roots ?? 0), Number(row.supers ?? 0), Number(row.admins ?? 0));
}

/** The fields a listing's `search` matches (the search endpoint adds `mobile`). */
export const LIST_SEARCH_FIELDS = ['name', 'email', 'service_no', 'phone'] as const;

/**
 * Narrows a query on `users as u` to the candidates of `term` from the trigram index; the
 * caller keeps the rows that `containsTerm` accepts (the index gives a superset).
 */
export function joinCandidates(q: Knex.QueryBuilder, db: Queryable, term: string): Knex.QueryBuilder {
  // a single character has no trigram: the caller's check over the filtered set decides alone
  if (Array.from(term).length < 2) return q;
  return q.join(candidateIds(db, term).as('c'), 'c.contact_id', 'u.id');
}

/** Case-insensitive substring test on the given fields; every character of the term is literal. */
export function containsTerm(row: Record<string, unknown>, term: string, fields: readonly string[]): boolean {
  const needle = term.toLowerCase();
  return fields.some((f) => typeof row[f] === 'string' && (row[f] as string).toLowerCase().includes(needle));
}

/** The filtered set in memory (slim rows, pre-order), for a search: one query. */
export async function searchSet(
  db: Queryable,
  f: ContactFilters & { search: string },
  range: OrdRange | undefined,
  fields: readonly string[],
): Promise<Array<SlimRow & Record<string, unknown>>> {
  const q = applyFilters(db('users as u'), f, range).select([...SLIM_COLUMNS, ...SEARCH_FIELDS.map((c) => `u.${c}`)]);
  const rows: Record<string, unknown>[] = await joinCandidates(q, db, f.search).orderBy('u.tree_ord');
  return rows.filter((r) => containsTerm(r, f.search, fields)).map((r) => ({ ...r, ...slim(r) }));
}

/**
 * The search endpoint's matches in SQL, ranked (exact service number or e-mail, then name
 * prefix, then by name), as ids of the first `limit` and the total. The index gives the
 * candidates and the filters apply in the query; the check and the ranking run here, with
 * JavaScript's lower-casing on both databases, as the in-memory index does (MySQL's LOWER()
 * folds some letters differently: Greek final sigma, dotted I, Georgian), so that a search
 * answers the same whichever of the two serves it.
 */
export async function rankedSearch(
  db: Queryable,
  f: ContactFilters & { search: string },
  limit: number,
): Promise<{ ids: number[]; total: number }> {
  const needle = f.search.toLowerCase();
  const rank = (r: Record<string, unknown>) =>
    String(r.service_no).toLowerCase() === needle || String(r.email) === needle ? 0 : String(r.name).toLowerCase().startsWith(needle) ? 1 : 2;
  // no order and no tree columns: only what the check and the ranking need
  const q = applyFilters(db('users as u'), f).select(['u.id', ...SEARCH_FIELDS.map((c) => `u.${c}`)]);
  const rows: Record<string, unknown>[] = await joinCandidates(q, db, f.search);
  const matches = rows
    .filter((r) => containsTerm(r, f.search, SEARCH_FIELDS))
    .map((r) => ({ id: Number(r.id), rank: rank(r), sort_name: sortNameOf(String(r.name)) }))
    .sort((a, b) => a.rank - b.rank || compareCodePoints(a.sort_name, b.sort_name) || a.id - b.id);
  return { ids: matches.slice(0, limit).map((m) => m.id), total: matches.length };
}

/** Full contact records for ids, in the order of `ids`, with each one's depth as `level`. */
export async function contactsByIds(db: Queryable, ids: readonly number[]): Promise<Array<Contact & { level: number }>> {
  if (ids.length === 0) return [];
  const byId = new Map<number, Contact & { level: number }>();
  for (const chunk of chunks(ids, 1000)) {
    const rows = await contactQuery(db).select('u.depth').whereIn('u.id', chunk);
    for (const row of rows) byId.set(Number(row.id), { ...toContact(row), level: Number(row.depth) });
  }
  return ids.map((id) => byId.get(id)).filter((c): c is Contact & { level: number } => c !== undefined);
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

/** Shapes contacts (in pre-order, with `level`) as the format asks. */
export async function shape(db: Queryable, contacts: Array<Contact & { level: number }>, format: Format, lineage?: Map<number, AncestorRow>) {
  if (format === 'flat') return contacts;
  if (format === 'hierarchical') return withPaths(contacts, lineage ?? (await lineageOf(db, contacts.map((c) => c.id))));
  return nest(contacts);
}

/** The label range strictly below a contact (its descendants); 404 for an unknown contact. */
export async function subtreeRange(db: Db, contactId: number): Promise<OrdRange> {
  const root = await db('users').where({ id: contactId }).first('tree_ord', 'depth');
  if (!root) throw new NotFoundError('Contact not found');
  const after = Number(root.tree_ord);
  return { after, before: await subtreeEnd(db, after, Number(root.depth)) };
}

