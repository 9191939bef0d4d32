// roles.ts straight, not the access module's index: a search walk thread loads this file (LEAF_FILES, eslint.config.mjs)
import { ROLE_ID } from '../../access/roles';

/**
 * What a filter of contacts is, and which contacts it admits: written once, as conditions on
 * columns of `users`. SQL applies them as WHERE clauses (read/listing.queries.ts applyFilters,
 * countStatistics); the in-memory index tests them on the columns it holds (predicateOf). The
 * counters of a set (statistics) are conditions too (COUNTED). The property tests of the index
 * against SQL (tests/contacts/list-search-index.test.ts) hold the two evaluations together.
 */

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

/** A range of order keys, both ends excluded: a subtree's (tree/lineage.ts subtreeRange). */
export interface OrdRange {
  after: number;
  before: number;
}

/** A column that a filter or a counter tests. */
export type FilterColumn = 'is_active' | 'unit_id' | 'department_id' | 'role_id' | 'parent_id' | 'tree_ord';

/** One condition on a column: its value is one of `oneOf` (null: NULL), none of `noneOf`, or strictly inside `between`. */
export type Condition =
  | { column: FilterColumn; oneOf: ReadonlyArray<number | boolean | null> }
  | { column: FilterColumn; noneOf: readonly number[] }
  | { column: FilterColumn; between: OrdRange };

/** The conditions of a filter (but its search term), and of `range` (a parent_id's subtree): a contact is in the set when all hold. */
export function conditionsOf(f: Omit<ContactFilters, 'search'>, range?: OrdRange): Condition[] {
  const conditions: Condition[] = [];
  if (!f.include_inactive) conditions.push({ column: 'is_active', oneOf: [true] });
  if (f.unit_id !== undefined) conditions.push({ column: 'unit_id', oneOf: [f.unit_id] });
  if (f.department_id !== undefined) conditions.push({ column: 'department_id', oneOf: [f.department_id] });
  if (f.role_filter === 'super_admin') conditions.push({ column: 'role_id', oneOf: [ROLE_ID.superAdmin] });
  else if (f.role_filter === 'admin') conditions.push({ column: 'role_id', oneOf: [ROLE_ID.admin] });
  else if (f.role_filter === 'user') conditions.push({ column: 'role_id', noneOf: [ROLE_ID.superAdmin, ROLE_ID.admin] });
  if (range) conditions.push({ column: 'tree_ord', between: range });
  return conditions;
}

/** The counters of a set beyond its size: its roots, its Super_admins and its Admins (the rest are derived: statistics). */
export const COUNTED = {
  roots: { column: 'parent_id', oneOf: [null] },
  supers: { column: 'role_id', oneOf: [ROLE_ID.superAdmin] },
  admins: { column: 'role_id', oneOf: [ROLE_ID.admin] },
} as const satisfies Record<string, Condition>;

/** The counts of a set's COUNTED contacts. */
export type SetCounts = Record<keyof typeof COUNTED, number>;

/** Whether a column's value passes a condition. */
export function holds(c: Condition, value: number | boolean | null): boolean {
  if ('oneOf' in c) return c.oneOf.includes(value);
  if ('noneOf' in c) return value !== null && !c.noneOf.includes(value as number);
  return typeof value === 'number' && value > c.between.after && value < c.between.before;
}

/** The columns of one contact, as the index holds them (null: NULL). */
export interface FilteredColumns {
  is_active: boolean;
  unit_id: number;
  department_id: number | null;
  role_id: number;
  parent_id: number | null;
  tree_ord: number;
}

/** How a holder of contacts reads one column of one of them (`x`: a row, a slot of the index...). */
export type ColumnReader<T> = (column: FilterColumn) => (x: T) => number | boolean | null;

/** One condition as a test, specialized for its kind (holds' rules) and for the reader. */
function testOf<T>(condition: Condition, read: ColumnReader<T>): (x: T) => boolean {
  const value = read(condition.column);
  if ('between' in condition) {
    const { after, before } = condition.between;
    return (x) => {
      const v = value(x);
      return typeof v === 'number' && v > after && v < before;
    };
  }
  if ('noneOf' in condition) return (x) => holds(condition, value(x));
  if (condition.oneOf.length === 1) {
    const only = condition.oneOf[0];
    return (x) => value(x) === only;
  }
  return (x) => condition.oneOf.includes(value(x));
}

/**
 * The conditions as one test of a contact, read through `read`: built once per request, run
 * for each candidate of a search (tens of thousands for a short term), so each condition is a
 * closure of its own, reading only its own column.
 */
export function predicateOver<T>(conditions: readonly Condition[], read: ColumnReader<T>): (x: T) => boolean {
  const tests = conditions.map((c) => testOf(c, read));
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0];
  return (x) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](x)) return false;
    return true;
  };
}

/** Reads a column of a contact's columns held as an object. */
const fromObject: ColumnReader<Partial<FilteredColumns>> = (column) => (c) => c[column] ?? null;

/** predicateOver a contact's columns held as an object. */
export function predicateOf(conditions: readonly Condition[]): (c: FilteredColumns) => boolean {
  return predicateOver(conditions, fromObject);
}

/** A counter of contacts into SetCounts, read through `read` (built once; run for every match). */
export function counterOver<T>(read: ColumnReader<T>): (counts: SetCounts, x: T) => void {
  const tests = (Object.keys(COUNTED) as Array<keyof typeof COUNTED>).map((name) => ({ name, test: testOf(COUNTED[name], read) }));
  return (counts, x) => {
    for (let i = 0; i < tests.length; i++) if (tests[i].test(x)) counts[tests[i].name]++;
  };
}

/** Counts a contact of a set, its columns held as an object, into the counters (COUNTED). */
export const countInto: (counts: SetCounts, c: Pick<FilteredColumns, 'parent_id' | 'role_id'>) => void = counterOver(fromObject);

/** The counts of a set without a part of it (`part`'s counts), each counter taken off. */
export function countsWithout(whole: SetCounts, part: SetCounts): SetCounts {
  return Object.fromEntries((Object.keys(COUNTED) as Array<keyof typeof COUNTED>).map((name) => [name, whole[name] - part[name]])) as SetCounts;
}

/** The six counters from the set's size and its counts of roots, Super_admins and Admins. */
export interface ContactStatistics {
  total_contacts: number;
  root_contacts: number;
  child_contacts: number;
  super_admins: number;
  admins: number;
  regular_users: number;
}

export function statistics(total: number, counts: SetCounts): ContactStatistics {
  return {
    total_contacts: total,
    root_contacts: counts.roots,
    child_contacts: total - counts.roots,
    super_admins: counts.supers,
    admins: counts.admins,
    regular_users: total - counts.supers - counts.admins,
  };
}

