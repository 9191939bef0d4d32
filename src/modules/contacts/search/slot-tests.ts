import { COUNTED, predicateOver, type ColumnReader, type Condition, type SetCounts } from '../domain/filters';
import type { Columns } from './snapshot-data';

/**
 * The tests of a snapshot's slots (snapshot.ts) on its typed arrays. The walks over a term's
 * candidates test the active flag and count the COUNTED contacts straight from the arrays
 * (walkFilter, countSlot): through two closures a candidate (predicateOver, counterOver) both
 * walks took a fifth longer at a million contacts (docs/performance.md, "Deep pages by number"). Checked when this module loads: COUNTED counts
 * the roots and two roles, as countSlot does.
 */
const counted: Record<keyof typeof COUNTED, Condition> = COUNTED;
const [SUPER_ROLE, ADMIN_ROLE] = [counted.supers, counted.admins].map((c) => ('oneOf' in c && c.column === 'role_id' && c.oneOf.length === 1 ? c.oneOf[0] : undefined));
if (SUPER_ROLE === undefined || ADMIN_ROLE === undefined || !('oneOf' in counted.roots && counted.roots.column === 'parent_id' && counted.roots.oneOf.length === 1 && counted.roots.oneOf[0] === null)) {
  throw new Error('slot-tests.ts countSlot counts roots, Super_admins and Admins: COUNTED changed');
}

/** Counts a slot into the counters: COUNTED, read from the columns (a root's parent is 0). */
export function countSlot(c: Columns, counts: SetCounts, slot: number): void {
  if (c.parentIds[slot] === 0) counts.roots++;
  const role = c.roleIds[slot];
  if (role === SUPER_ROLE) counts.supers++;
  else if (role === ADMIN_ROLE) counts.admins++;
}

/**
 * A walk's filter (domain/filters.ts conditionsOf): whether it keeps active contacts only (its
 * one condition on is_active), which the walk tests on the array itself, and the other
 * conditions as one test (null: none).
 */
export function walkFilter(conditions: readonly Condition[], column: ColumnReader<number>): { activeOnly: boolean; others: ((slot: number) => boolean) | null } {
  const others = conditions.filter((c) => c.column !== 'is_active');
  return { activeOnly: others.length < conditions.length, others: others.length > 0 ? predicateOver(others, column) : null };
}

/** Reads a filtered column of a slot straight from its typed array (no object per candidate). */
export function columnReader(columns: () => Columns): ColumnReader<number> {
  return (column) => {
    const { active, unitIds, departmentIds, roleIds, parentIds, treeOrds } = columns();
    switch (column) {
      case 'is_active':
        return (slot) => active[slot] === 1;
      case 'unit_id':
        return (slot) => unitIds[slot];
      case 'department_id':
        return (slot) => departmentIds[slot] || null;
      case 'role_id':
        return (slot) => roleIds[slot];
      case 'parent_id':
        return (slot) => parentIds[slot] || null;
      case 'tree_ord':
        return (slot) => treeOrds[slot];
    }
  };
}
