import type { Knex } from 'knex';
import type { Db } from '../../../lib/db';
import { SEARCH_FIELDS, type SearchableFields } from '../domain/grams';

/** A contact's row as the search index holds it: the searched fields and the columns its filters and listings read. */
export type IndexedRow = SearchableFields & {
  id: number | string;
  unit_id: number | string;
  department_id: number | string | null;
  role_id: number | string;
  parent_id: number | string | null;
  tree_ord: number | string;
  is_active: number | boolean;
};

const INDEXED_COLUMNS = ['id', 'unit_id', 'department_id', 'role_id', 'parent_id', 'tree_ord', 'is_active', ...SEARCH_FIELDS];

/**
 * Every contact, in the table's own order (its primary key), for a build of the index: one
 * statement, so that its tree columns are one state of the tree. The index puts them in name
 * order itself (search/columns.ts): MariaDB took 37 s to sort a million of them by name, and
 * 2 s to read them unsorted.
 */
export function indexedRows(db: Db): Knex.QueryBuilder {
  return db('users').select(INDEXED_COLUMNS).orderBy('id');
}

/** The contacts changed since directory version `version` (users.change_version), at most `limit`. */
export async function indexedRowsChangedSince(db: Db, version: number, limit: number): Promise<IndexedRow[]> {
  return db('users').where('change_version', '>', version).limit(limit).select(INDEXED_COLUMNS);
}
