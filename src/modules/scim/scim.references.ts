import type { Db } from '../../lib/db';
import type { ScimDefaults } from '../api-tokens';
import type { AccountRecord } from '../contacts';
import { ReferenceLookup } from '../reference';
import type { ScimFields } from './scim.mapping';

export interface References {
  unit_id: number;
  department_id: number | null;
  designation_id: number;
  rank_id: number | null;
}

/**
 * The unit, department and designation that a User's division, department and title name
 * (case-insensitively, as register and the import find them). An unknown name is no error: an
 * identity provider names departments the directory may not have yet, and refusing would stop
 * the provisioning of everyone in them; the contact keeps what it has, or gets the defaults
 * (docs/scim.md, Unknown names).
 */
export async function referencesOf(db: Db, f: ScimFields, base: AccountRecord | null, defaults: ScimDefaults): Promise<References> {
  // the names it has already (a PATCH of something else, a PUT of the same user): no lookup
  const same = (given: string | null | undefined, kept: string | null) => !given || given.toLowerCase() === (kept ?? '').toLowerCase();
  if (base && same(f.division, base.unit_name) && same(f.department, base.department_name) && same(f.title, base.designation_name)) {
    return { unit_id: base.unit_id, department_id: base.department_id, designation_id: base.designation_id, rank_id: base.rank_id };
  }
  const lookup = await ReferenceLookup.load(db);
  const start: References = base ?? {
    unit_id: defaults.unit_id ?? lookup.lists.units[0]?.id ?? 0,
    department_id: defaults.department_id ?? null,
    designation_id: defaults.designation_id ?? lookup.lists.designations[0]?.id ?? 0,
    rank_id: defaults.rank_id ?? null,
  };
  const unitId = (f.division && lookup.unit(f.division)) || start.unit_id;
  const named = f.department ? lookup.department(unitId, f.department) : undefined;
  // a department belongs to one unit: a new unit without a department of that name has none
  const departmentId = named ?? (unitId === start.unit_id ? start.department_id : null);
  const designationId = (f.title && lookup.designation(f.title)) || start.designation_id;
  return { unit_id: unitId, department_id: departmentId, designation_id: designationId, rank_id: start.rank_id };
}
