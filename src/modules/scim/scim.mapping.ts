import { emailProblem } from '../../lib/http/validate';
import type { AccountRecord, ContactChanges } from '../contacts';
import { invalidValue } from './scim.errors';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim.schemas';

/**
 * A contact as a SCIM User and back (docs/scim.md, the mapping table). The directory keeps one
 * name: givenName and familyName are its words before the last and the last.
 */

export type ScimUser = Record<string, unknown>;

/** The weak ETag of a contact: its row tag (contactRowTag), so an If-Match can be checked under the directory lock. */
export const versionOf = (a: Pick<AccountRecord, 'id' | 'updated_at'>) => `W/"scim-u${a.id}.${Date.parse(a.updated_at)}"`;

export function toScim(a: AccountRecord, base: string): ScimUser {
  const words = a.name.trim().split(/\s+/);
  const phones = [['phone', 'work'], ['mobile', 'mobile'], ['alternative_mobile', 'other']] as const;
  const enterprise: Record<string, unknown> = { employeeNumber: a.service_no, division: a.unit_name };
  if (a.department_name) enterprise.department = a.department_name;
  if (a.parent_id !== null) enterprise.manager = { value: String(a.parent_id), displayName: a.parent_name, $ref: `${base}/Users/${a.parent_id}` };
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    id: String(a.id),
    ...(a.external_id !== null ? { externalId: a.external_id } : {}),
    userName: a.email,
    name: { formatted: a.name, ...(words.length > 1 ? { givenName: words.slice(0, -1).join(' ') } : {}), familyName: words[words.length - 1] },
    displayName: a.name,
    title: a.designation_name,
    active: a.is_active,
    emails: [{ value: a.email, type: 'work', primary: true }],
    phoneNumbers: phones.filter(([field]) => a[field]).map(([field, type]) => ({ value: a[field], type })),
    [ENTERPRISE_SCHEMA]: enterprise,
    meta: { resourceType: 'User', created: a.created_at, lastModified: a.updated_at, version: versionOf(a), location: `${base}/Users/${a.id}` },
  };
}

/** What a SCIM User says of a contact; undefined: it says nothing of that field. */
export interface ScimFields {
  email: string;
  name: string;
  external_id?: string | null;
  service_no?: string;
  phone?: string | null;
  mobile?: string | null;
  alternative_mobile?: string | null;
  active: boolean;
  title?: string | null;
  division?: string | null;
  department?: string | null;
  parent_id?: number | null;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

function bounded(field: string, value: string | undefined, max: number): string | undefined {
  if (value !== undefined && [...value].length > max) throw invalidValue(`${field} must be at most ${max} characters`);
  return value;
}

/** `true`/`false` as JSON or as text in any case ("False": Entra ID). */
export function booleanOf(v: unknown, field = 'active'): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  throw invalidValue(`${field} must be true or false`);
}

/** Reads a whole SCIM User (a POST, a PUT, or the result of a PATCH). */
export function fromScim(u: ScimUser): ScimFields {
  const userName = text(u.userName);
  if (!userName) throw invalidValue('userName is required');
  const email = userName.toLowerCase();
  const problem = emailProblem(email);
  if (problem) throw invalidValue(`userName: ${problem}`);
  const name = obj(u.name);
  const given = [text(name.givenName), text(name.familyName)].filter(Boolean).join(' ');
  // a contact's name is required and 2-255 characters (the specification's contact rules)
  const fullName = text(u.displayName) ?? text(name.formatted) ?? (given || undefined);
  if (fullName === undefined) throw invalidValue('name (or displayName) is required');
  const length = [...fullName].length;
  if (length < 2 || length > 255) throw invalidValue('name (displayName) must be 2 to 255 characters');
  const ent = obj(u[ENTERPRISE_SCHEMA]);
  const phones = Array.isArray(u.phoneNumbers) ? u.phoneNumbers.map(obj) : [];
  const phone = (type: string) => bounded(`phoneNumbers[type eq "${type}"]`, text(phones.find((p) => String(p.type ?? (type === 'work' ? 'work' : '')).toLowerCase() === type)?.value), 20) ?? null;
  const manager = ent.manager === undefined ? undefined : typeof ent.manager === 'string' ? ent.manager : text(obj(ent.manager).value) ?? null;
  if (manager && !/^[1-9]\d{0,15}$/.test(manager)) throw invalidValue('manager.value must be the id of a User of this organization');
  return {
    email,
    name: fullName,
    external_id: u.externalId === undefined ? undefined : bounded('externalId', text(u.externalId), 255) ?? null,
    service_no: bounded('employeeNumber', text(ent.employeeNumber), 50),
    phone: phone('work'),
    mobile: phone('mobile'),
    alternative_mobile: phone('other'),
    active: u.active === undefined ? true : booleanOf(u.active),
    title: text(u.title) ?? null,
    division: text(ent.division) ?? null,
    department: text(ent.department) ?? null,
    parent_id: manager === undefined ? undefined : manager ? Number(manager) : null,
  };
}

/** The fields of `next` that differ from `current`: what to write. */
export function changedFields(current: AccountRecord, next: ContactChanges): ContactChanges {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== (current as unknown as Record<string, unknown>)[k]) out[k] = v;
  return out as ContactChanges;
}
