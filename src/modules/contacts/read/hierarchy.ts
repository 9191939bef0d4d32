import { nullableId } from '../../../lib/rows';

/** The organizational hierarchy: units as a tree, with departments and head counts. */

export interface HierarchyDepartment {
  id: number;
  name: string;
  unit_id: number;
  total_users: number;
}

export interface HierarchyUnit {
  id: number;
  name: string;
  code: string | null;
  parent_id: number | null;
  /** active contacts whose unit is this one (not counting sub-units) */
  total_users: number;
  departments: HierarchyDepartment[];
  children: HierarchyUnit[];
}

type Row = Record<string, unknown>;

export function buildHierarchy(
  units: Row[],
  departments: Row[],
  counts: { units: Record<number, number>; departments: Record<number, number> },
): HierarchyUnit[] {
  const byId = new Map<number, HierarchyUnit>();
  for (const u of units) {
    const id = Number(u.id);
    byId.set(id, {
      id,
      name: String(u.name),
      code: u.code === null ? null : String(u.code),
      parent_id: nullableId(u.parent_id),
      total_users: counts.units[id] ?? 0,
      departments: [],
      children: [],
    });
  }
  for (const d of departments) {
    const id = Number(d.id);
    const unitId = Number(d.unit_id);
    byId.get(unitId)?.departments.push({ id, name: String(d.name), unit_id: unitId, total_users: counts.departments[id] ?? 0 });
  }
  const roots: HierarchyUnit[] = [];
  for (const unit of byId.values()) {
    const parent = unit.parent_id === null ? undefined : byId.get(unit.parent_id);
    if (parent) parent.children.push(unit);
    else roots.push(unit);
  }
  return roots;
}
