import type { Knex } from 'knex';
import type { Queryable } from '../../../lib/db';
import { nullableId } from '../../../lib/rows';
import { containsTerm, joinCandidates } from './candidates';
import { SEARCH_FIELDS } from '../domain/grams';
import { conditionsOf, COUNTED, countInto, statistics, type Condition, type ContactFilters, type ContactStatistics, type OrdRange } from '../domain/filters';
import { toContact, toListedContact, type Contact } from '../domain/contact.record';
import { contactQuery } from './users.queries';

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

/** Adds conditions (domain/filters.ts) to a query on `users as u`. */
function applyConditions(q: Knex.QueryBuilder, conditions: readonly Condition[]): Knex.QueryBuilder {
  for (const c of conditions) {
    const column = `u.${c.column}`;
    if ('between' in c) q.where(column, '>', c.between.after).andWhere(column, '<', c.between.before);
    else if ('noneOf' in c) q.whereNotIn(column, [...c.noneOf]);
    else {
      // NULL is one of the values as holds() reads oneOf; in SQL it needs IS NULL
      const values = c.oneOf.filter((v) => v !== null) as Knex.Value[];
      const orNull = values.length < c.oneOf.length;
      if (values.length === 0) q.whereNull(column);
      else if (!orNull && values.length === 1) q.where(column, values[0]);
      else if (!orNull) q.whereIn(column, values);
      else q.where((w) => w.whereIn(column, values).orWhereNull(column));
    }
  }
  return q;
}

/** Adds the filters (all but search) and the range to a query on `users as u`. */
export function applyFilters(q: Knex.QueryBuilder, f: ContactFilters, range?: OrdRange): Knex.QueryBuilder {
  return applyConditions(q, conditionsOf(f, range));
}

export function statisticsOf(rows: ReadonlyArray<Pick<SlimRow, 'parent_id' | 'role_id'>>): ContactStatistics {
  const counts = { roots: 0, supers: 0, admins: 0 };
  for (const r of rows) countInto(counts, r);
  return statistics(rows.length, counts);
}

/**
 * The six counters over the filtered set, in one statement (one consistent read): four counts,
 * each answered from an index (is_active or unit with tree_ord; parent_id; role_id), instead of
 * one aggregate that reads every row of the set. At 100,000 contacts on MariaDB the whole
 * directory's counters took 15 ms so, against 29 to 220 ms (docs/performance.md, "A mixed load").
 */
export async function countStatistics(db: Queryable, f: ContactFilters, range?: OrdRange): Promise<ContactStatistics> {
  const conditions = conditionsOf(f, range);
  const set = (counted?: Condition) => applyConditions(db('users as u'), counted ? [...conditions, counted] : conditions).count('*');
  const row = await db.first({ total: set(), roots: set(COUNTED.roots), supers: set(COUNTED.supers), admins: set(COUNTED.admins) });
  return statistics(Number(row.total), { roots: Number(row.roots), supers: Number(row.supers), admins: Number(row.admins) });
}

/** The filtered set of a search in memory (slim rows, pre-order): one query. */
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
 * Where a page of a list starts (docs/api.md, Paging): `offset` rows into the order, or after the
 * row `after` (keyset: the order's key and id of the last row of the previous page). `backwards`
 * reads the page from the other end (`offset` rows before the set's end), as cheap there as at
 * the start: the last pages of a large set cost what the first ones do.
 */
export interface PageWindow {
  limit: number;
  offset: number;
  after?: { key: unknown; id: number };
  backwards?: boolean;
}

/** A query ordered by (column, u.id) with the window applied: keyset as `col >= k AND (col > k OR id > i)`, which stays an index range read. */
function windowed(q: Knex.QueryBuilder, column: string, w: PageWindow): Knex.QueryBuilder {
  const dir = w.backwards ? 'desc' : 'asc';
  if (w.after) {
    const { key, id } = w.after;
    q.where(column, '>=', key as Knex.Value).andWhere((k) => k.where(column, '>', key as Knex.Value).orWhere('u.id', '>', id));
  }
  return q.orderBy([{ column, order: dir }, { column: 'u.id', order: dir }]).limit(w.limit).offset(w.offset);
}

/** One page of the filtered set in pre-order, as contact records with their `level`: an indexed range read. */
export async function listPage(
  db: Queryable,
  f: ContactFilters,
  range: OrdRange | undefined,
  page: PageWindow,
): Promise<{ contacts: Array<Contact & { level: number }>; ords: number[] }> {
  const pageIds = windowed(applyFilters(db('users as u'), f, range), 'u.tree_ord', page).select('u.id');
  // a backwards window's rows come back in the list's order here
  const rows: Record<string, unknown>[] = await contactQuery(db).select('u.depth', 'u.tree_ord').join(pageIds.as('pg'), 'pg.id', 'u.id').orderBy([{ column: 'u.tree_ord' }, { column: 'u.id' }]);
  return { contacts: rows.map((row) => toListedContact(row)), ords: rows.map((row) => Number(row.tree_ord)) };
}

/** A contact's place in the lists' orders now (its pre-order key, its sibling-order name as stored), or undefined if it is gone. */
export async function placeOf(db: Queryable, id: number): Promise<{ tree_ord: number; sort_name: unknown } | undefined> {
  const row = await db('users').where({ id }).first('tree_ord', 'sort_name');
  return row ? { tree_ord: Number(row.tree_ord), sort_name: row.sort_name } : undefined;
}

export async function contactExists(db: Queryable, id: number): Promise<boolean> {
  return (await db('users').where({ id }).first('id')) !== undefined;
}

/** A contact's direct children (only the active ones unless `includeInactive`). */
function childrenOf(db: Queryable, parentId: number, includeInactive: boolean): Knex.QueryBuilder {
  const q = db('users as u').where('u.parent_id', parentId);
  return includeInactive ? q : q.where('u.is_active', true);
}

/** How many direct children a contact has. */
export async function childrenCount(db: Queryable, parentId: number, includeInactive: boolean): Promise<number> {
  const [{ total }] = await childrenOf(db, parentId, includeInactive).count({ total: '*' });
  return Number(total);
}

/** A page of a contact's direct children by name (sort_name, then id). */
export async function childrenPage(
  db: Queryable,
  parentId: number,
  options: { includeInactive: boolean } & PageWindow,
): Promise<Contact[]> {
  const pageIds = windowed(childrenOf(db, parentId, options.includeInactive), 'u.sort_name', options).select('u.id');
  const byName = [{ column: 'u.sort_name' }, { column: 'u.id' }];
  const rows: Record<string, unknown>[] = await contactQuery(db).join(pageIds.as('pg'), 'pg.id', 'u.id').orderBy(byName);
  return rows.map((row) => toContact(row));
}
