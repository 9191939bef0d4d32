import type { Knex } from 'knex';
import type { ParentResource, ResourceDef, Values } from '../../lib/crud';
import { BadRequestError, ConflictError, ValidationError } from '../../lib/errors';
import { nullableId } from '../../lib/rows';
import { departmentRules, namedRules, rankRules, unitRules } from './reference.validators';

export const REFERENCE_PAGE = { defaultLimit: 50, maxLimit: 500 };

/** A reference resource: its definition for the engine (lib/crud), and the permission that changes it. */
export interface ResourceSpec {
  def: ResourceDef;
  writePermission: string;
}

/** What every reference resource shares: searched by name and code, listed by name, 50 a page. */
const common = { search: ['name', 'code'], orderBy: ['name'], page: REFERENCE_PAGE };
const times = { created_at: 'time', updated_at: 'time' } as const;

const UNIT: ParentResource = { table: 'units', singular: 'unit', label: 'Unit' };

/** Walks up the unit tree from `parentId` (no recursion): placing `id` there must not close a loop. */
async function checkUnitParent(trx: Knex.Transaction, values: Values, id: number | null): Promise<void> {
  const parentId = nullableId(values.parent_id);
  if (parentId === null) return;
  const units = new Map<number, number | null>();
  for (const u of await trx('units').select('id', 'parent_id')) units.set(Number(u.id), nullableId(u.parent_id));
  if (!units.has(parentId)) throw ValidationError.field('parent_id', 'Unknown parent unit');
  const seen = new Set<number>();
  for (let at: number | null = parentId; at !== null && !seen.has(at); at = units.get(at) ?? null) {
    if (at === id) {
      throw BadRequestError.field('parent_id', 'A unit cannot be placed under itself or one of its sub-units');
    }
    seen.add(at);
  }
}

export const units: ResourceSpec = {
  def: {
    ...UNIT,
    ...common,
    plural: 'units',
    fields: { id: 'int', name: 'text', code: 'text?', parent_id: 'int?', parent_name: 'text?', description: 'text?', ...times },
    parent: { resource: UNIT, key: 'parent_id', nameField: 'parent_name', optional: true },
    filters: ['code'],
    rules: unitRules,
    unique: [
      { columns: ['name'], message: 'A unit with this name already exists' },
      { columns: ['code'], message: 'A unit with this code already exists' },
    ],
    usedBy: [
      { table: 'users', column: 'unit_id' },
      { table: 'departments', column: 'unit_id' },
      { table: 'units', column: 'parent_id' },
    ],
    check: checkUnitParent,
  },
  writePermission: 'reference.write',
};

export const departments: ResourceSpec = {
  def: {
    ...common,
    table: 'departments',
    plural: 'departments',
    singular: 'department',
    label: 'Department',
    fields: { id: 'int', unit_id: 'int', unit_name: 'text', name: 'text', code: 'text?', ...times },
    parent: { resource: UNIT, key: 'unit_id', nameField: 'unit_name' },
    rules: departmentRules,
    unique: [{ columns: ['unit_id', 'name'], message: 'A department with this name already exists in this unit' }],
    usedBy: [{ table: 'users', column: 'department_id' }],
    async check(trx, values, id) {
      if (!(await trx('units').where({ id: values.unit_id as number }).first('id'))) {
        throw ValidationError.field('unit_id', 'Unknown unit');
      }
      // members of a department are in its unit: the unit of a department in use stays
      if (id !== null) {
        const member = await trx('users').where({ department_id: id }).whereNot({ unit_id: values.unit_id as number }).first('id');
        if (member) {
          throw BadRequestError.field('unit_id', 'The unit of a department that has contacts cannot be changed');
        }
      }
    },
  },
  writePermission: 'reference.write',
};

export const designations: ResourceSpec = {
  def: {
    ...common,
    table: 'designations',
    plural: 'designations',
    singular: 'designation',
    label: 'Designation',
    fields: { id: 'int', name: 'text', code: 'text?', ...times },
    rules: namedRules(),
    unique: [
      { columns: ['name'], message: 'A designation with this name already exists' },
      { columns: ['code'], message: 'A designation with this code already exists' },
    ],
    usedBy: [{ table: 'users', column: 'designation_id' }],
  },
  writePermission: 'reference.write',
};

export const ranks: ResourceSpec = {
  def: {
    ...common,
    table: 'ranks',
    plural: 'ranks',
    singular: 'rank',
    label: 'Rank',
    fields: { id: 'int', name: 'text', code: 'text?', level: 'int', ...times },
    // seniority first: 1 is the most senior
    orderBy: ['level', 'name'],
    rules: rankRules,
    unique: [
      { columns: ['name'], message: 'A rank with this name already exists' },
      { columns: ['code'], message: 'A rank with this code already exists' },
    ],
    usedBy: [{ table: 'users', column: 'rank_id' }],
  },
  writePermission: 'reference.write',
};

export const REFERENCE_RESOURCES = [units, departments, designations, ranks];

/** The organization that stands for "no other one given" (password-change records default to it). */
export const DEFAULT_ORGANIZATION_ID = 1;

/** Organizations: changed with `organizations.manage`; the router narrows what others read to their own. */
export const organizations: ResourceSpec = {
  def: {
    ...common,
    table: 'organizations',
    plural: 'organizations',
    singular: 'organization',
    label: 'Organization',
    fields: { id: 'int', name: 'text', code: 'text?', ...times },
    rules: namedRules(),
    unique: [
      { columns: ['name'], message: 'An organization with this name already exists' },
      { columns: ['code'], message: 'An organization with this code already exists' },
    ],
    usedBy: [{ table: 'users', column: 'organization_id' }],
    async checkDelete(_trx, id) {
      if (id === DEFAULT_ORGANIZATION_ID) {
        throw new ConflictError('The default organization cannot be deleted');
      }
    },
  },
  writePermission: 'organizations.manage',
};
