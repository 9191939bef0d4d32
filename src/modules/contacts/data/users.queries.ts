import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
import { coalescedById, preparedByIds, type Db, type Queryable } from '../../../lib/db';
import { nullableId, nullableText } from '../../../lib/rows';
import { toIsoRequired } from '../../../lib/time';
import type { SessionRecord, SessionSource } from '../../access';
import { withReadVersions } from './tree/lock';
import { toListedContact, toUserRecord, type Contact, type ContactRow, type NameMaps, type UserRecord } from '../domain/contact.record';

/**
 * The one read of the user row with its names. Each field is a column of `users as u` or a
 * name from a table it refers to; a reader asks for the fields it shows, and only the tables
 * those fields need are joined (in one fixed order). Contacts, sign-in, profile and the
 * session of every request are projections of this one query.
 */
const JOINS = {
  un: (q: Knex.QueryBuilder) => q.join('units as un', 'un.id', 'u.unit_id'),
  ds: (q: Knex.QueryBuilder) => q.join('designations as ds', 'ds.id', 'u.designation_id'),
  r: (q: Knex.QueryBuilder) => q.join('roles as r', 'r.id', 'u.role_id'),
  rk: (q: Knex.QueryBuilder) => q.leftJoin('ranks as rk', 'rk.id', 'u.rank_id'),
  d: (q: Knex.QueryBuilder) => q.leftJoin('departments as d', 'd.id', 'u.department_id'),
  p: (q: Knex.QueryBuilder) => q.leftJoin('users as p', 'p.id', 'u.parent_id'),
};
type Join = keyof typeof JOINS;

const NAMES: Record<string, [string, Join]> = {
  rank_name: ['rk.name as rank_name', 'rk'],
  unit_name: ['un.name as unit_name', 'un'],
  unit_code: ['un.code as unit_code', 'un'],
  department_name: ['d.name as department_name', 'd'],
  designation_name: ['ds.name as designation_name', 'ds'],
  parent_name: ['p.name as parent_name', 'p'],
  parent_service_no: ['p.service_no as parent_service_no', 'p'],
  role_name: ['r.name as role_name', 'r'],
  permission_names: ['r.permission_names', 'r'],
};

/** The fields of a contact record (docs/api.md, Contacts), in its order. */
const CONTACT_FIELDS = [
  'id', 'name', 'rank_id', 'rank_name', 'service_no', 'unit_id', 'unit_name', 'unit_code', 'department_id',
  'department_name', 'designation_id', 'designation_name', 'phone', 'mobile', 'alternative_mobile', 'email',
  'parent_id', 'parent_name', 'is_active', 'role_id', 'role_name', 'avatar', 'status', 'last_seen', 'created_at', 'updated_at',
];
const USER_FIELDS = [...CONTACT_FIELDS, 'branch', 'organization_id', 'token_version', 'password_hash', 'permission_names'];
const SESSION_FIELDS: Array<keyof SessionRecord> = [
  'id', 'role_id', 'organization_id', 'email', 'service_no', 'is_active', 'token_version', 'role_name', 'permission_names',
];

/** `users as u` with the given fields and the joins they need. */
export function userQuery(db: Queryable, fields: readonly string[]): Knex.QueryBuilder {
  const q = db('users as u');
  const needed = new Set<Join>();
  const columns = fields.map((field) => {
    const name = NAMES[field];
    if (!name) return `u.${field}`;
    needed.add(name[1]);
    return name[0];
  });
  for (const join of Object.keys(JOINS) as Join[]) if (needed.has(join)) JOINS[join](q);
  return q.select(columns);
}

/** users joined with everything a contact record names. */
export function contactQuery(db: Queryable): Knex.QueryBuilder {
  return userQuery(db, CONTACT_FIELDS);
}

/**
 * A contact's row by id (toContact makes the record), or undefined: the hottest read after the
 * session, coalesced with the reads of other requests in the same round of I/O.
 */
export function contactReader(db: Db): (id: number) => Promise<ContactRow | undefined> {
  return coalescedById(db, (ids) => contactQuery(db).whereIn('u.id', ids));
}

/**
 * The session's fields of a user (none or one row), with the read versions (for the ETags of
 * conditional reads, in the same round trip): it runs on every request, so it is compiled once
 * and coalesced with the sessions of the other requests of the same round of I/O.
 */
export function sessionSource(db: Db): SessionSource {
  const read = coalescedById(db, (ids) => withReadVersions(db, userQuery(db, SESSION_FIELDS)).whereIn('u.id', ids));
  return async (id) => {
    const row = await read(id);
    return row ? [row as unknown as SessionRecord] : [];
  };
}

/** The whole user record by id. */
export async function findUser(db: Queryable, id: number): Promise<UserRecord | null> {
  const row = await userQuery(db, USER_FIELDS).where('u.id', id).first();
  return row ? toUserRecord(row) : null;
}

/**
 * The user a sign-in names: by e-mail (lower-cased), or with `orServiceNo` by e-mail or service
 * number, an e-mail match first.
 */
export async function findUserBySignIn(db: Queryable, identifier: string, orServiceNo: boolean): Promise<UserRecord | null> {
  const email = identifier.toLowerCase();
  const q = userQuery(db, USER_FIELDS).where('u.email', email);
  if (orServiceNo) q.orWhere('u.service_no', identifier).orderByRaw('u.email = ? desc', [email]);
  const row = await q.first();
  return row ? toUserRecord(row) : null;
}

/** The id of the user a sign-in identifier names (by e-mail, lower-cased, first; else by service number), without names. */
export async function userIdBySignIn(db: Queryable, identifier: string): Promise<number | null> {
  const email = identifier.toLowerCase();
  const row = await db('users').where({ email }).orWhere({ service_no: identifier }).orderByRaw('email = ? desc', [email]).first('id');
  return row ? Number(row.id) : null;
}

/**
 * Full contact records for ids, in the order of `ids` (those gone left out), with each one's
 * depth as `level`, and each one's order key (`ords`, for a listing's next cursor): a page of a
 * listing or of a search, on every such request. Each page size has its prepared statement
 * (preparedByIds), compiled on first use; more than 1,000 ids are read 1,000 at a time.
 */
export function listedByIdsReader(db: Db): (ids: readonly number[]) => Promise<{ contacts: Array<Contact & { level: number }>; ords: number[] }> {
  const read = preparedByIds(db, (ids) => contactQuery(db).select('u.depth', 'u.tree_ord').whereIn('u.id', ids), [1, 5, 20, 50, 100, 250, 1000]);
  return async (ids) => {
    const byId = new Map<number, { contact: Contact & { level: number }; ord: number }>();
    for (const row of await read(ids)) byId.set(Number(row.id), { contact: toListedContact(row), ord: Number(row.tree_ord) });
    const found = ids.map((id) => byId.get(id)).filter((c) => c !== undefined);
    return { contacts: found.map((c) => c.contact), ords: found.map((c) => c.ord) };
  };
}

/** listedByIdsReader's records alone. */
export function contactsByIdsReader(db: Db): (ids: readonly number[]) => Promise<Array<Contact & { level: number }>> {
  const read = listedByIdsReader(db);
  return async (ids) => (await read(ids)).contacts;
}

/** The columns of a users row that drivers give in their own types (strings, bigints, 0/1), as the records hold them. */
export interface UserRowColumns {
  id: number;
  unit_id: number;
  department_id: number | null;
  designation_id: number;
  rank_id: number | null;
  parent_id: number | null;
  role_id: number;
  organization_id: number;
  is_active: boolean;
  external_id: string | null;
}

/** The ids, the active flag and the external id of a users row: one conversion for findUserRows and for SCIM's accounts. */
export function userRowColumns(row: Record<string, unknown>): UserRowColumns {
  return {
    id: Number(row.id),
    unit_id: Number(row.unit_id),
    department_id: nullableId(row.department_id),
    designation_id: Number(row.designation_id),
    rank_id: nullableId(row.rank_id),
    parent_id: nullableId(row.parent_id),
    role_id: Number(row.role_id),
    organization_id: Number(row.organization_id),
    is_active: Boolean(Number(row.is_active)),
    external_id: (row.external_id as string | null | undefined) ?? null,
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
  alternative_mobile: string | null;
  unit_id: number;
  department_id: number | null;
  designation_id: number;
  rank_id: number | null;
  branch: string | null;
  sub_branch: string | null;
  avatar: string | null;
  status: string;
  parent_id: number | null;
  role_id: number;
  organization_id: number;
  is_active: boolean;
  token_version: number;
  external_id: string | null;
  /** ISO 8601: what an If-Match is compared with (contactRowTag) */
  updated_at: string;
  /** deleted by its identity provider (SCIM DELETE): gone for SCIM, kept for the directory's history */
  deprovisioned: boolean;
}

export async function findUserRow(db: Queryable, id: number): Promise<UserRow | null> {
  return (await findUserRows(db, [id]))[0] ?? null;
}

/** The rows whose `by` (the id by default; or a unique key) is one of `values`, in no particular order. */
export async function findUserRows(
  db: Queryable,
  values: ReadonlyArray<number | string>,
  by: 'id' | 'service_no' | 'email' = 'id',
): Promise<UserRow[]> {
  const rows: UserRow[] = [];
  for (const chunk of chunks(values, 1000)) {
    const found = await db('users')
      .whereIn(by, chunk)
      .select(
        'id', 'name', 'email', 'service_no', 'phone', 'mobile', 'alternative_mobile', 'unit_id', 'department_id',
        'designation_id', 'rank_id', 'branch', 'sub_branch', 'avatar', 'status', 'parent_id', 'role_id', 'organization_id', 'is_active', 'token_version', 'external_id', 'updated_at',
        'deprovisioned_at',
      );
    for (const row of found) {
      const { deprovisioned_at: deprovisionedAt, ...fields } = row;
      rows.push({ ...fields, ...userRowColumns(row), token_version: Number(row.token_version), updated_at: toIsoRequired(row.updated_at), deprovisioned: deprovisionedAt != null });
    }
  }
  return rows;
}

/** The users columns of a contact record (the names come from NameMaps instead of joins). */
export const USER_CONTACT_COLUMNS = CONTACT_FIELDS.filter((f) => !NAMES[f]).map((f) => `u.${f}`);

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
