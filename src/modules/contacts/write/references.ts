import type { Queryable } from '../../../lib/db';
import { BadRequestError, ValidationError, type FieldError } from '../../../lib/errors';
import type { UserRow } from '../read/users.queries';

export interface ReferenceIds {
  unit_id?: number;
  department_id?: number | null;
  designation_id?: number;
  rank_id?: number | null;
  role_id?: number;
}

const REFERENCE_TABLES: Array<[keyof ReferenceIds, string, string]> = [
  ['unit_id', 'units', 'Unknown unit'],
  ['department_id', 'departments', 'Unknown department'],
  ['designation_id', 'designations', 'Unknown designation'],
  ['rank_id', 'ranks', 'Unknown rank'],
  ['role_id', 'roles', 'Unknown role'],
];

/**
 * assertReferences for a change of `current`: the ids the change gives, and the department the
 * contact will have (the given one, or its current one) against the unit it will be in.
 */
export function assertChangeReferences(db: Queryable, current: UserRow, changes: ReferenceIds): Promise<void> {
  return assertReferences(
    db,
    {
      unit_id: changes.unit_id,
      designation_id: changes.designation_id,
      rank_id: changes.rank_id,
      role_id: changes.role_id,
      department_id: changes.department_id === undefined ? current.department_id : changes.department_id,
    },
    changes.unit_id ?? current.unit_id,
  );
}

/**
 * Checks that every id given refers to an existing row (a validation failure on each field
 * that does not), and that the department belongs to `unitId`, the contact's unit after the change.
 */
export async function assertReferences(db: Queryable, ids: ReferenceIds, unitId: number): Promise<void> {
  const errors: FieldError[] = [];
  let departmentUnit: number | null = null;
  for (const [field, table, message] of REFERENCE_TABLES) {
    const id = ids[field];
    if (id === undefined || id === null) continue;
    const row = await db(table).where({ id }).first(field === 'department_id' ? ['id', 'unit_id'] : ['id']);
    if (!row) errors.push({ field, message });
    else if (field === 'department_id') departmentUnit = Number(row.unit_id);
  }
  if (errors.length > 0) throw new ValidationError(errors);
  if (departmentUnit !== null && departmentUnit !== unitId) {
    throw BadRequestError.field('department_id', 'Department does not belong to the unit');
  }
}

