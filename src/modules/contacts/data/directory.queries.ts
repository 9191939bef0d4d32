import type { Queryable } from '../../../lib/db';

/** How many units and departments there are. */
export async function unitAndDepartmentCounts(db: Queryable): Promise<{ units: number; departments: number }> {
  const [{ units }] = await db('units').count({ units: '*' });
  const [{ departments }] = await db('departments').count({ departments: '*' });
  return { units: Number(units), departments: Number(departments) };
}

/** Active contacts per unit and per department. */
export async function headCounts(db: Queryable) {
  const byUnit = await db('users').where({ is_active: true }).groupBy('unit_id').select('unit_id', db.raw('COUNT(*) as n'));
  const byDepartment = await db('users')
    .where({ is_active: true })
    .whereNotNull('department_id')
    .groupBy('department_id')
    .select('department_id', db.raw('COUNT(*) as n'));
  return {
    units: Object.fromEntries(byUnit.map((r) => [Number(r.unit_id), Number(r.n)])) as Record<number, number>,
    departments: Object.fromEntries(byDepartment.map((r) => [Number(r.department_id), Number(r.n)])) as Record<number, number>,
  };
}

/** Every unit and department by name, for the organizational hierarchy. */
export async function unitsAndDepartments(db: Queryable) {
  const byName = [{ column: 'name' }, { column: 'id' }];
  const units = await db('units').orderBy(byName).select('id', 'name', 'code', 'parent_id');
  const departments = await db('departments').orderBy(byName).select('id', 'name', 'unit_id');
  return { units, departments };
}
