import { nullableId, nullableText } from '../../../lib/rows';
import { toIso, toIsoRequired } from '../../../lib/time';
import { permissionList } from '../../access';

/** A contact as the API shows it (docs/api.md, Contacts). */
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

/** A user: the contact, and what only the account flows read (never shown as it is). */
export interface UserRecord extends Contact {
  branch: string | null;
  organization_id: number;
  token_version: number;
  password_hash: string | null;
  /** the role's permission names, sorted */
  permissions: string[];
}

export type ContactRow = Record<string, unknown>;

/** Names of the rows a contact refers to: small tables, read whole. */
export interface NameMaps {
  units: Map<number, { name: string; code: string | null }>;
  departments: Map<number, string>;
  designations: Map<number, string>;
  ranks: Map<number, string>;
  roles: Map<number, string>;
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

/**
 * A listing's contact record: toContact with the contact's depth in the tree (`depth`) as
 * `level`. The field is added to the record rather than spread into a copy: a copy of an
 * object this wide is slow to build, and slower to nest and to serialize (about twice as slow
 * for a page of 100, measured).
 */
export function toListedContact(row: ContactRow): Contact & { level: number } {
  const contact = toContact(row) as Contact & { level: number };
  contact.level = Number(row.depth);
  return contact;
}

export function toUserRecord(row: ContactRow): UserRecord {
  return {
    ...toContact(row),
    branch: nullableText(row.branch),
    organization_id: Number(row.organization_id),
    token_version: Number(row.token_version),
    password_hash: nullableText(row.password_hash),
    permissions: permissionList(row.permission_names),
  };
}

/**
 * The part of a contact's ETag that names its own row as read: its id and when it last
 * changed. GET /api/contacts/:id adds it to the versions' ETag; PUT /:id and /:id/move compare
 * an If-Match against it (docs/api.md, Conditional requests).
 */
export function contactRowTag(id: number, updatedAt: string): string {
  return `u${id}.${Date.parse(updatedAt)}`;
}
