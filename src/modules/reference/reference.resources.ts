import { body, query, type ValidationChain } from 'express-validator';
import type { Knex } from 'knex';
import { BadRequestError, ConflictError, ValidationError } from '../../lib/errors';
import { intRule, stringRule } from '../../lib/http/validate';
import { toIsoRequired } from '../../lib/time';
import type { ResourceDef, Values } from './reference.service';
import { nullableId } from '../../lib/rows';

const nullable = (v: unknown) => (v === null || v === undefined ? null : v);
const times = (row: Values) => ({
  created_at: toIsoRequired(row.created_at),
  updated_at: toIsoRequired(row.updated_at),
});

export interface ResourceSpec {
  def: ResourceDef;
  createRules: ValidationChain[];
  updateRules: ValidationChain[];
  listRules: ValidationChain[];
}

const nameAndCode = (required: boolean, nameMax: number) => [
  stringRule(body('name'), 'Name', { required, min: 2, max: nameMax }),
  // an empty code means "no code" (so two records without one do not collide)
  stringRule(body('code'), 'Code', { max: 30, nullable: true, emptyAsNull: true }),
];

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
    table: 'units',
    plural: 'units',
    singular: 'unit',
    label: 'Unit',
    baseQuery: (db) =>
      db('units as t').leftJoin('units as p', 'p.id', 't.parent_id').select('t.*', 'p.name as parent_name'),
    toRecord: (row) => ({
      id: Number(row.id),
      name: row.name,
      code: nullable(row.code),
      parent_id: nullableId(row.parent_id),
      parent_name: nullable(row.parent_name),
      description: nullable(row.description),
      ...times(row),
    }),
    searchColumns: ['name', 'code'],
    orderBy: ['name'],
    filters: { parent_id: 'parent_id', code: 'code' },
    unique: [
      { columns: ['name'], message: 'A unit with this name already exists' },
      { columns: ['code'], message: 'A unit with this code already exists' },
    ],
    usedBy: [
      { table: 'users', column: 'unit_id' },
      { table: 'departments', column: 'unit_id' },
      { table: 'units', column: 'parent_id' },
    ],
    checkReferences: checkUnitParent,
  },
  createRules: [
    ...nameAndCode(true, 150),
    intRule(body('parent_id'), 'parent_id', { nullable: true }),
    stringRule(body('description'), 'Description', { max: 500, nullable: true }),
  ],
  updateRules: [
    ...nameAndCode(false, 150),
    intRule(body('parent_id'), 'parent_id', { nullable: true }),
    stringRule(body('description'), 'Description', { max: 500, nullable: true }),
  ],
  listRules: [
    // parent_id=null lists the top-level units
    query('parent_id')
      .optional()
      .custom((v) => v === 'null' || (typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v)))
      .withMessage('parent_id must be a positive integer or null')
      .bail()
      .customSanitizer((v: string) => (v === 'null' ? null : Number(v))),
    stringRule(query('code'), 'code', { max: 30 }),
  ],
};

export const departments: ResourceSpec = {
  def: {
    table: 'departments',
    plural: 'departments',
    singular: 'department',
    label: 'Department',
    baseQuery: (db) => db('departments as t').join('units as u', 'u.id', 't.unit_id').select('t.*', 'u.name as unit_name'),
    toRecord: (row) => ({
      id: Number(row.id),
      unit_id: Number(row.unit_id),
      unit_name: row.unit_name,
      name: row.name,
      code: nullable(row.code),
      ...times(row),
    }),
    searchColumns: ['name', 'code'],
    orderBy: ['name'],
    filters: { unit_id: 'unit_id' },
    unique: [{ columns: ['unit_id', 'name'], message: 'A department with this name already exists in this unit' }],
    usedBy: [{ table: 'users', column: 'department_id' }],
    async checkReferences(trx, values, id) {
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
  createRules: [...nameAndCode(true, 150), intRule(body('unit_id'), 'unit_id', { required: true })],
  updateRules: [...nameAndCode(false, 150), intRule(body('unit_id'), 'unit_id')],
  listRules: [intRule(query('unit_id'), 'unit_id')],
};

export const designations: ResourceSpec = {
  def: {
    table: 'designations',
    plural: 'designations',
    singular: 'designation',
    label: 'Designation',
    baseQuery: (db) => db('designations as t').select('t.*'),
    toRecord: (row) => ({ id: Number(row.id), name: row.name, code: nullable(row.code), ...times(row) }),
    searchColumns: ['name', 'code'],
    orderBy: ['name'],
    filters: {},
    unique: [
      { columns: ['name'], message: 'A designation with this name already exists' },
      { columns: ['code'], message: 'A designation with this code already exists' },
    ],
    usedBy: [{ table: 'users', column: 'designation_id' }],
  },
  createRules: nameAndCode(true, 150),
  updateRules: nameAndCode(false, 150),
  listRules: [],
};

export const ranks: ResourceSpec = {
  def: {
    table: 'ranks',
    plural: 'ranks',
    singular: 'rank',
    label: 'Rank',
    baseQuery: (db) => db('ranks as t').select('t.*'),
    toRecord: (row) => ({
      id: Number(row.id),
      name: row.name,
      code: nullable(row.code),
      level: Number(row.level),
      ...times(row),
    }),
    searchColumns: ['name', 'code'],
    orderBy: ['level', 'name'],
    filters: {},
    unique: [
      { columns: ['name'], message: 'A rank with this name already exists' },
      { columns: ['code'], message: 'A rank with this code already exists' },
    ],
    usedBy: [{ table: 'users', column: 'rank_id' }],
  },
  // seniority: 1 is the most senior
  createRules: [...nameAndCode(true, 100), intRule(body('level'), 'level', { required: true, min: 1, max: 1000 })],
  updateRules: [...nameAndCode(false, 100), intRule(body('level'), 'level', { min: 1, max: 1000 })],
  listRules: [],
};

export const REFERENCE_RESOURCES = [units, departments, designations, ranks];

/** The organization that stands for "no other one given" (password-change records default to it). */
export const DEFAULT_ORGANIZATION_ID = 1;

export const organizations: ResourceSpec = {
  def: {
    table: 'organizations',
    plural: 'organizations',
    singular: 'organization',
    label: 'Organization',
    baseQuery: (db) => db('organizations as t').select('t.*'),
    toRecord: (row) => ({ id: Number(row.id), name: row.name, code: nullable(row.code), ...times(row) }),
    searchColumns: ['name', 'code'],
    orderBy: ['name'],
    filters: { id: 'id' },
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
  createRules: nameAndCode(true, 150),
  updateRules: nameAndCode(false, 150),
  listRules: [],
};
