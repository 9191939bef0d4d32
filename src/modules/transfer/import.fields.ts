import type { ContactChanges } from '../contacts';
import type { ReferenceLookup } from '../reference';
import type { RowValues } from './import.rows';

const TEXT_FIELDS = ['name', 'email', 'phone', 'mobile', 'alternative_mobile', 'status'] as const;
const CLEARABLE = new Set<string>(['mobile', 'alternative_mobile']);

/**
 * A row's fields, its names as ids: every name that matches nothing is an error naming the
 * column and the value. `currentUnit`: the unit of the contact the row changes (a department is
 * looked up in it when the row names no unit), undefined for a new contact (its role is User
 * unless the row names one).
 */
export function fieldsOf(v: RowValues, currentUnit: number | undefined, lookup: ReferenceLookup, fail: (field: string, message: string) => void): Partial<ContactChanges> {
  const unknown = (field: string, value: string) => fail(field, `Unknown ${field}: ${value}`);
  const f: Partial<ContactChanges> = {};
  for (const key of TEXT_FIELDS) {
    const value = v[key];
    // an empty cell clears an optional field; a required one keeps its value
    if (value === undefined || (value === null && !CLEARABLE.has(key))) continue;
    f[key] = value as string;
  }
  let unitId = currentUnit;
  if (v.unit) {
    unitId = lookup.unit(v.unit);
    if (unitId === undefined) unknown('unit', v.unit);
    else f.unit_id = unitId;
  }
  if (v.department !== undefined) {
    if (v.department === null) f.department_id = null;
    else if (unitId !== undefined) {
      const id = lookup.department(unitId, v.department);
      if (id === undefined) fail('department', `Unknown department in unit ${v.unit ?? unitId}: ${v.department}`);
      else f.department_id = id;
    }
  }
  if (v.designation) {
    const id = lookup.designation(v.designation);
    if (id === undefined) unknown('designation', v.designation);
    else f.designation_id = id;
  }
  if (v.rank !== undefined) {
    const id = v.rank === null ? null : lookup.rank(v.rank);
    if (id === undefined) unknown('rank', v.rank!);
    else f.rank_id = id;
  }
  const role = v.role ?? (currentUnit !== undefined ? undefined : 'User');
  if (role) {
    const id = lookup.role(role);
    if (id === undefined) unknown('role', role);
    else f.role_id = id;
  }
  return f;
}
