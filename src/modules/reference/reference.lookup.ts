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

type Named = { id: number; name: string };

/**
 * Every unit, department, designation, rank and role, read once, found by name
 * case-insensitively (docs/api.md, Sign-in, tokens and profile): a unit by name or code, a
 * department by name within its unit, the others by name. Register uses it for one user, the
 * import for every row of a file. Each finder returns the id, or undefined for an unknown name.
 */
export class ReferenceLookup {
  private constructor(
    private readonly units: Map<string, number>,
    private readonly unitCodes: Map<string, number>,
    private readonly departments: Map<string, number>,
    private readonly designations: Map<string, number>,
    private readonly ranks: Map<string, number>,
    private readonly roles: Map<string, number>,
    /** every record of each list, for the import template's lookup sheet */
    readonly lists: {
      units: Array<Named & { code: string | null }>;
      departments: Array<Named & { unit_id: number }>;
      designations: Named[];
      ranks: Named[];
      roles: Named[];
    },
  ) {}

  static async load(db: Queryable): Promise<ReferenceLookup> {
    const named = (r: Record<string, unknown>): Named => ({ id: Number(r.id), name: String(r.name) });
    const units = (await db('units').orderBy('name').select('id', 'name', 'code')).map((u) => ({
      ...named(u),
      code: u.code === null ? null : String(u.code),
    }));
    const departments = (await db('departments').orderBy(['unit_id', 'name']).select('id', 'name', 'unit_id')).map((d) => ({
      ...named(d),
      unit_id: Number(d.unit_id),
    }));
    const designations = (await db('designations').orderBy('name').select('id', 'name')).map(named);
    const ranks = (await db('ranks').orderBy('name').select('id', 'name')).map(named);
    const roles = (await db('roles').orderBy('id').select('id', 'name')).map(named);
    // the first record of a name wins, as a search through the list would find it
    const byKey = <T extends Named>(rows: T[], key: (r: T) => string | null) => {
      const map = new Map<string, number>();
      for (const r of rows) {
        const k = key(r);
        if (k !== null && !map.has(k)) map.set(k, r.id);
      }
      return map;
    };
    const lower = (r: Named) => r.name.toLowerCase();
    return new ReferenceLookup(
      byKey(units, lower),
      byKey(units, (u) => (u.code === null ? null : u.code.toLowerCase())),
      byKey(departments, (d) => `${d.unit_id}:${d.name.toLowerCase()}`),
      byKey(designations, lower),
      byKey(ranks, lower),
      byKey(roles, lower),
      { units, departments, designations, ranks, roles },
    );
  }

  unit(nameOrCode: string): number | undefined {
    const wanted = nameOrCode.toLowerCase();
    return this.units.get(wanted) ?? this.unitCodes.get(wanted);
  }

  department(unitId: number, name: string): number | undefined {
    return this.departments.get(`${unitId}:${name.toLowerCase()}`);
  }

  designation(name: string): number | undefined {
    return this.designations.get(name.toLowerCase());
  }

  rank(name: string): number | undefined {
    return this.ranks.get(name.toLowerCase());
  }

  role(name: string): number | undefined {
    return this.roles.get(name.toLowerCase());
  }
}

/**
 * Maps the names of one request to ids (ReferenceLookup). Every unknown name is a validation
 * failure on its field, all listed at once.
 */
export async function resolveReferenceNames(db: Queryable, input: ReferenceNames): Promise<ReferenceIdsByName> {
  const lookup = await ReferenceLookup.load(db);
  const errors: FieldError[] = [];
  const found = (field: string, id: number | undefined) => {
    if (id === undefined) errors.push({ field, message: `Unknown ${field}` });
    return id ?? null;
  };
  const optional = (field: string, value: string | undefined, find: (v: string) => number | undefined) =>
    value === undefined ? null : found(field, find(value));
  const unitId = found('unit', lookup.unit(input.unit));
  const designationId = found('designation', lookup.designation(input.designation));
  const rankId = optional('rank', input.rank, (v) => lookup.rank(v));
  const roleId = found('role', lookup.role(input.role));
  const departmentId = unitId === null ? null : optional('department', input.department, (v) => lookup.department(unitId, v));
  if (errors.length > 0) throw new ValidationError(errors);
  return { unit_id: unitId!, designation_id: designationId!, rank_id: rankId, role_id: roleId!, department_id: departmentId };
}

export async function organizationExists(db: Queryable, id: number): Promise<boolean> {
  return (await db('organizations').where({ id }).first('id')) !== undefined;
}
