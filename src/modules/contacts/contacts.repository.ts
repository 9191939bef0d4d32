import type { Knex } from 'knex';
import { chunks } from '../../lib/chunks';
import type { Queryable } from '../../lib/db';
import { BadRequestError, ValidationError, type FieldError } from '../../lib/errors';
import { toIso, toIsoRequired } from '../../lib/time';
import { nullableId, nullableText } from '../../lib/rows';

/** A contact as the API shows it (spec 2.4). */
export interface Contact {
  id: number;
  name: string;
  rank_id: number | null;
  rank_name: string | null;
  service_no: string;
  unit_id: number;
  unit_name: string;
  unit_code: string | null;
  department_id: number | null;
  department_name: string | null;
  designation_id: number;
  designation_name: string;
  phone: string | null;
  mobile: string | null;
  alternative_mobile: string | null;
  email: string;
  parent_id: number | null;
  parent_name: string | null;
  is_active: boolean;
  role_id: number;
  role_name: string;
  avatar: string | null;
  status: string;
  last_seen: string | null;
  created_at: string;
  updated_at: string;
}

export type ContactRow = Record<string, unknown>;

const CONTACT_COLUMNS = [
  'u.id',
  'u.name',
  'u.rank_id',
  'rk.name as rank_name',
  'u.service_no',
  'u.unit_id',
  'un.name as unit_name',
  'un.code as unit_code',
  'u.department_id',
  'd.name as department_name',
  'u.designation_id',
  'ds.name as designation_name',
  'u.phone',
  'u.mobile',
  'u.alternative_mobile',
  'u.email',
  'u.parent_id',
  'p.name as parent_name',
  'u.is_active',
  'u.role_id',
  'r.name as role_name',
  'u.avatar',
  'u.status',
  'u.last_seen',
  'u.created_at',
  'u.updated_at',
];

/** users joined with everything a contact record names. */
export function contactQuery(db: Queryable): Knex.QueryBuilder {
  return db('users as u')
    .join('units as un', 'un.id', 'u.unit_id')
    .join('designations as ds', 'ds.id', 'u.designation_id')
    .join('roles as r', 'r.id', 'u.role_id')
    .leftJoin('ranks as rk', 'rk.id', 'u.rank_id')
    .leftJoin('departments as d', 'd.id', 'u.department_id')
    .leftJoin('users as p', 'p.id', 'u.parent_id')
    .select(CONTACT_COLUMNS);
}

/** Names for a row's references, when they come from NameMaps instead of the joined columns. */
export interface NameLookup {
  names: NameMaps;
  parentNames: ReadonlyMap<number, string>;
}

export function toContact(row: ContactRow, lookup?: NameLookup): Contact {
  const unitId = Number(row.unit_id);
  const rankId = nullableId(row.rank_id);
  const departmentId = nullableId(row.department_id);
  const parentId = nullableId(row.parent_id);
  const unit = lookup?.names.units.get(unitId);
  return {
    id: Number(row.id),
    name: String(row.name),
    rank_id: rankId,
    rank_name: lookup ? (rankId === null ? null : (lookup.names.ranks.get(rankId) ?? null)) : nullableText(row.rank_name),
    service_no: String(row.service_no),
    unit_id: unitId,
    unit_name: lookup ? String(unit?.name) : String(row.unit_name),
    unit_code: lookup ? (unit?.code ?? null) : nullableText(row.unit_code),
    department_id: departmentId,
    department_name: lookup
      ? departmentId === null ? null : (lookup.names.departments.get(departmentId) ?? null)
      : nullableText(row.department_name),
    designation_id: Number(row.designation_id),
    designation_name: lookup ? String(lookup.names.designations.get(Number(row.designation_id))) : String(row.designation_name),
    phone: nullableText(row.phone),
    mobile: nullableText(row.mobile),
    alternative_mobile: nullableText(row.alternative_mobile),
    email: String(row.email),
    parent_id: parentId,
    parent_name: lookup ? (parentId === null ? null : (lookup.parentNames.get(parentId) ?? null)) : nullableText(row.parent_name),
    is_active: Boolean(Number(row.is_active)),
    role_id: Number(row.role_id),
    role_name: lookup ? String(lookup.names.roles.get(Number(row.role_id))) : String(row.role_name),
    avatar: nullableText(row.avatar),
    status: String(row.status),
    last_seen: toIso(row.last_seen),
    created_at: toIsoRequired(row.created_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}

/** The plain users row, for the checks that precede a change. */
export interface UserRow {
  id: number;
  name: string;
  email: string;
  service_no: string;
  phone: string | null;
  mobile: string | null;
  unit_id: number;
  department_id: number | null;
  parent_id: number | null;
  role_id: number;
  organization_id: number;
  is_active: boolean;
  password_hash: string | null;
  token_version: number;
}

export async function findUserRow(db: Queryable, id: number): Promise<UserRow | null> {
  return (await findUserRows(db, [id]))[0] ?? null;
}

/** The rows of those ids that exist, in no particular order. */
export async function findUserRows(db: Queryable, ids: readonly number[]): Promise<UserRow[]> {
  const rows: UserRow[] = [];
  for (const chunk of chunks(ids, 1000)) {
    const found = await db('users')
      .whereIn('id', chunk)
      .select(
        'id', 'name', 'email', 'service_no', 'phone', 'mobile', 'unit_id', 'department_id', 'parent_id',
        'role_id', 'organization_id', 'is_active', 'password_hash', 'token_version',
      );
    for (const row of found) {
      rows.push({
        ...row,
        id: Number(row.id),
        unit_id: Number(row.unit_id),
        department_id: nullableId(row.department_id),
        parent_id: nullableId(row.parent_id),
        role_id: Number(row.role_id),
        organization_id: Number(row.organization_id),
        is_active: Boolean(Number(row.is_active)),
        token_version: Number(row.token_version),
      });
    }
  }
  return rows;
}

/**
 * Which of an e-mail and a service number another user already holds ('email' first), or
 * null: one query for every check before a user is written (each caller has its message).
 */
export async function takenField(
  db: Queryable,
  fields: { email?: string; service_no?: string },
  exceptId: number | null,
): Promise<'email' | 'service_no' | null> {
  if (fields.email === undefined && fields.service_no === undefined) return null;
  const q = db('users').where((w) => {
    if (fields.email !== undefined) w.orWhere('email', fields.email);
    if (fields.service_no !== undefined) w.orWhere('service_no', fields.service_no);
  });
  if (exceptId !== null) q.whereNot({ id: exceptId });
  const holders = await q.limit(2).select('email', 'service_no');
  if (holders.some((h) => fields.email !== undefined && h.email === fields.email)) return 'email';
  return holders.length > 0 ? 'service_no' : null;
}

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

/** The users columns of a contact record (the names come from NameMaps instead of joins). */
export const USER_CONTACT_COLUMNS = [
  'u.id', 'u.name', 'u.rank_id', 'u.service_no', 'u.unit_id', 'u.department_id', 'u.designation_id', 'u.phone',
  'u.mobile', 'u.alternative_mobile', 'u.email', 'u.parent_id', 'u.is_active', 'u.role_id', 'u.avatar', 'u.status',
  'u.last_seen', 'u.created_at', 'u.updated_at',
];

/** Names of the rows a contact refers to: small tables, read whole. */
export interface NameMaps {
  units: Map<number, { name: string; code: string | null }>;
  departments: Map<number, string>;
  designations: Map<number, string>;
  ranks: Map<number, string>;
  roles: Map<number, string>;
}

/** NameMaps in one query (a UNION of the five small tables); the units only `unitId` when given. */
export async function loadNameMaps(db: Queryable, unitId?: number): Promise<NameMaps> {
  const part = (kind: string, table: string, code: boolean) =>
    db(table).select(db.raw('? as kind', [kind]), 'id', 'name', code ? 'code' : db.raw('NULL as code'));
  const units = part('unit', 'units', true);
  const departments = part('department', 'departments', false);
  if (unitId !== undefined) {
    units.where({ id: unitId });
    departments.where({ unit_id: unitId });
  }
  const rows: Array<Record<string, unknown>> = await units.unionAll([
    departments,
    part('designation', 'designations', false),
    part('rank', 'ranks', false),
    part('role', 'roles', false),
  ]);
  const maps: NameMaps = { units: new Map(), departments: new Map(), designations: new Map(), ranks: new Map(), roles: new Map() };
  for (const r of rows) {
    const id = Number(r.id);
    if (r.kind === 'unit') maps.units.set(id, { name: String(r.name), code: nullableText(r.code) });
    else maps[`${r.kind}s` as 'departments' | 'designations' | 'ranks' | 'roles'].set(id, String(r.name));
  }
  return maps;
}

