import type { Queryable } from '../../lib/db';
import { ValidationError, type FieldError } from '../../lib/errors';

/** Reference data named by text, as register (and a spreadsheet) gives it. */
export interface ReferenceNames {
  unit: string;
  designation: string;
  rank?: string;
  department?: string;
  role: string;
}

export interface ReferenceIdsByName {
  unit_id: number;
  designation_id: number;
  rank_id: number | null;
  role_id: number;
  department_id: number | null;
}

/**
 * Maps names to ids case-insensitively (docs/api.md, Sign-in, tokens and profile): a unit by name or code, a
 * department by name within that unit, the others by name. Every unknown name is a
 * validation failure on its field, all listed at once.
 */
export async function resolveReferenceNames(db: Queryable, input: ReferenceNames): Promise<ReferenceIdsByName> {
  const errors: FieldError[] = [];
  const find = async (table: string, field: string, value: string | undefined, where?: object, alsoCode = false) => {
    if (value === undefined) return null;
    const wanted = value.toLowerCase();
    const query = db(table).select('id', 'name', ...(alsoCode ? ['code'] : []));
    if (where) query.where(where);
    const rows = await query;
    const hit =
      rows.find((r) => String(r.name).toLowerCase() === wanted) ??
      (alsoCode ? rows.find((r) => r.code !== null && String(r.code).toLowerCase() === wanted) : undefined);
    if (!hit) errors.push({ field, message: `Unknown ${field}` });
    return hit ? Number(hit.id) : null;
  };
  const unitId = await find('units', 'unit', input.unit, undefined, true);
  const designationId = await find('designations', 'designation', input.designation);
  const rankId = await find('ranks', 'rank', input.rank);
  const roleId = await find('roles', 'role', input.role);
  const departmentId = unitId === null ? null : await find('departments', 'department', input.department, { unit_id: unitId });
  if (errors.length > 0) throw new ValidationError(errors);
  return { unit_id: unitId!, designation_id: designationId!, rank_id: rankId, role_id: roleId!, department_id: departmentId };
}

export async function organizationExists(db: Queryable, id: number): Promise<boolean> {
  return (await db('organizations').where({ id }).first('id')) !== undefined;
}
