import type { Knex } from 'knex';
import { TimeSlices } from '../../lib/yield';
import type { AuthContext } from '../access';
import { findUserRows, type BatchCreate, type ContactChanges, type PlannedChange, type UserRow } from '../contacts';
import { ReferenceLookup } from '../reference';
import { resolveParents } from './import.parents';
import { REQUIRED_TO_CREATE, type ImportRow, type ParentRef, type Resolved, type RowError } from './import.rows';

export type ImportMode = 'create' | 'upsert';

/**
 * What a file asks of the contacts' writer (ContactWrites.changeMany), each item's `ref` its
 * row: the contacts to create (with the row's password, hashed later), the changes of
 * existing ones, and what the mapping itself found wrong.
 */
export interface Plan {
  creates: Array<BatchCreate & { password: string | null }>;
  changes: PlannedChange[];
  unchanged: number;
  errors: RowError[];
  /** a role's name as the directory spells it, for the row errors */
  roleName: (name: string) => string;
}

const TAKEN = 'Service number or email already exists';
const TEXT_FIELDS = ['name', 'email', 'phone', 'mobile', 'alternative_mobile', 'status'] as const;
const CLEARABLE = new Set<string>(['mobile', 'alternative_mobile']);
/** Rows whose parents are found by one call of resolveParents (some 3 ms): one query at most for those outside the file. */
const PARENTS_AT_ONCE = 2000;

/**
 * Maps every row of a file to a change of the directory, inside the import's transaction (which
 * holds the directory lock): names to ids, service numbers to the contacts they name, and the
 * file's own rules (one row per service number and e-mail, the columns a new contact needs, the
 * mode). The rules of a contact (reach, uniqueness, parents) are the writer's. Nothing is written here.
 * Each pass over the rows yields to the event loop every few milliseconds: for 100,000 rows
 * they take some 0.4 s together, which other requests would otherwise wait for.
 */
export async function planImport(trx: Knex.Transaction, rows: ImportRow[], mode: ImportMode, actor: AuthContext): Promise<Plan> {
  const errors: RowError[] = [];
  const fail = (r: ImportRow, field: string, message: string) => errors.push({ row: r.row, field, message });
  const lookup = await ReferenceLookup.load(trx);
  const slices = new TimeSlices();

  // one row per service number and per e-mail
  const bySn = new Map<string, Resolved>();
  const emailRow = new Map<string, number>();
  const resolved: Resolved[] = [];
  for (const input of rows) {
    const sn = input.values.service_no;
    if (!sn) {
      fail(input, 'service_no', 'Service number is required');
      continue;
    }
    const other = bySn.get(sn);
    if (other) {
      fail(input, 'service_no', `Service number ${sn} is also on row ${other.input.row}`);
      continue;
    }
    const email = input.values.email;
    if (email) {
      if (emailRow.has(email)) fail(input, 'email', `Email ${email} is also on row ${emailRow.get(email)}`);
      else emailRow.set(email, input.row);
    }
    const r: Resolved = { input, serviceNo: sn, fields: {} };
    bySn.set(sn, r);
    resolved.push(r);
    if (slices.due()) await slices.pause();
  }

  const existing = new Map((await findUserRows(trx, [...bySn.keys()], 'service_no')).map((u) => [u.service_no, u]));

  for (const r of resolved) {
    const { input } = r;
    const v = input.values;
    const current = existing.get(r.serviceNo);
    if (current) {
      if (mode === 'create') fail(input, 'service_no', TAKEN);
      else if (!current.is_active) fail(input, 'service_no', 'This service number belongs to a deactivated contact');
      else r.current = current;
      if (v.password) fail(input, 'password', 'An import sets the password of new contacts only; reset an existing contact\'s password instead');
    } else {
      for (const [column, message] of REQUIRED_TO_CREATE) if (!v[column]) fail(input, column, message);
    }
    resolveNames(r, lookup, (field, message) => fail(input, field, message));
    if (slices.due()) await slices.pause();
  }

  for (let at = 0; at < resolved.length; at += PARENTS_AT_ONCE) {
    const slice = resolved.slice(at, at + PARENTS_AT_ONCE);
    // the contacts of the directory that this slice names as parents (resolveParents copies what it is given)
    const named = new Map<string, UserRow>();
    for (const r of slice) {
      const p = r.input.values.parent_service_no;
      const u = p ? existing.get(p) : undefined;
      if (u) named.set(p!, u);
    }
    await resolveParents(trx, slice, bySn, named, fail);
    await slices.pause();
  }
  const roleName = (name: string) => {
    const id = lookup.role(name);
    return lookup.lists.roles.find((r) => r.id === id)?.name ?? name;
  };
  return { ...(await toWrites(resolved, actor, slices)), errors, roleName };
}

/** Names to ids: every name that matches nothing is an error naming the column and the value. */
function resolveNames(r: Resolved, lookup: ReferenceLookup, fail: (field: string, message: string) => void): void {
  const v = r.input.values;
  const unknown = (field: string, value: string) => fail(field, `Unknown ${field}: ${value}`);
  const f = r.fields;
  for (const key of TEXT_FIELDS) {
    const value = v[key];
    // an empty cell clears an optional field; a required one keeps its value
    if (value === undefined || (value === null && !CLEARABLE.has(key))) continue;
    f[key] = value as string;
  }
  r.unitId = r.current?.unit_id;
  if (v.unit) {
    r.unitId = lookup.unit(v.unit);
    if (r.unitId === undefined) unknown('unit', v.unit);
    else f.unit_id = r.unitId;
  }
  if (v.department !== undefined) {
    if (v.department === null) f.department_id = null;
    else if (r.unitId !== undefined) {
      const id = lookup.department(r.unitId, v.department);
      if (id === undefined) fail('department', `Unknown department in unit ${v.unit ?? r.unitId}: ${v.department}`);
      else f.department_id = id;
    }
  }
  if (v.designation) {
    const id = lookup.designation(v.designation);
    if (id === undefined) unknown('designation', v.designation);
    else f.designation_id = id;
  }
  if (v.rank !== undefined) {
    const id = v.rank === null ? null : lookup.rank(v.rank);
    if (id === undefined) unknown('rank', v.rank!);
    else f.rank_id = id;
  }
  const role = v.role ?? (r.current ? undefined : 'User');
  if (role) {
    const id = lookup.role(role);
    if (id === undefined) unknown('role', role);
    else f.role_id = id;
  }
}

/** What the rows write: new contacts, changed contacts with their changes, and how many stay as they are. */
async function toWrites(resolved: Resolved[], actor: AuthContext, slices: TimeSlices): Promise<Omit<Plan, 'errors' | 'roleName'>> {
  const plan: Omit<Plan, 'errors' | 'roleName'> = { creates: [], changes: [], unchanged: 0 };
  for (const r of resolved) {
    if (slices.due()) await slices.pause();
    const v = r.input.values;
    if (!r.current) {
      const f = r.fields;
      plan.creates.push({
        ref: r.input.row,
        password: v.password ?? null,
        parent: r.parent ?? null,
        contact: {
          name: f.name, email: f.email, service_no: r.serviceNo, phone: f.phone ?? null, mobile: f.mobile ?? null,
          alternative_mobile: f.alternative_mobile ?? null, unit_id: f.unit_id, department_id: f.department_id ?? null,
          designation_id: f.designation_id, rank_id: f.rank_id ?? null, role_id: f.role_id, status: f.status ?? undefined,
          organization_id: actor.organizationId,
        },
      });
      continue;
    }
    const changes = changedFields(r.current, r.fields);
    const parentChanged = r.parent !== undefined && !sameParent(r.current, r.parent);
    if (Object.keys(changes).length === 0 && !parentChanged) plan.unchanged++;
    else plan.changes.push({ ref: r.input.row, current: r.current, changes, parent: parentChanged ? r.parent : undefined });
  }
  return plan;
}

function changedFields(current: UserRow, fields: Partial<ContactChanges>): ContactChanges {
  const changes: ContactChanges = {};
  for (const [key, value] of Object.entries(fields) as Array<[keyof ContactChanges, unknown]>) {
    if (value !== undefined && (current as unknown as Record<string, unknown>)[key] !== value) (changes as Record<string, unknown>)[key] = value;
  }
  return changes;
}

function sameParent(current: UserRow, parent: ParentRef): boolean {
  if (parent === null) return current.parent_id === null;
  return 'id' in parent && parent.id === current.parent_id;
}
