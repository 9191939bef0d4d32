import type { Knex } from 'knex';
import { TimeSlices } from '../../lib/yield';
import type { AuthContext } from '../access';
import { findUserRows, type BatchCreate, type ContactChanges, type NewContacts, type PlannedChange, type UserRow } from '../contacts';
import { ReferenceLookup } from '../reference';
import { Parents } from './import.parents';
import { REQUIRED_TO_CREATE, type FileRows, type ParentRef, type RowError, type RowValues } from './import.rows';
import { KeyTable } from '../../lib/key-table';

export type ImportMode = 'create' | 'upsert';

/**
 * What a file asks of the contacts' writer (ContactWrites.changeMany), each item's `ref` its
 * row: the contacts to create (with the row's password, hashed later), the changes of
 * existing ones, and what the mapping itself found wrong.
 */
export interface Plan {
  /** made from their rows when the writer reaches each (an object a row for 100,000 rows would be some 67 MiB) */
  creates: NewContacts<BatchCreate>;
  changes: PlannedChange[];
  unchanged: number;
  errors: RowError[];
  /** a role's name as the directory spells it, for the row errors */
  roleName: (name: string) => string;
}

const TAKEN = 'Service number or email already exists';
const TEXT_FIELDS = ['name', 'email', 'phone', 'mobile', 'alternative_mobile', 'status'] as const;
const CLEARABLE = new Set<string>(['mobile', 'alternative_mobile']);
/** Rows whose parents are found by one call of Parents.resolve (some 3 ms): one query at most for those outside the file. */
const PARENTS_AT_ONCE = 2000;
/** Service numbers looked up in the directory by one query. */
const EXISTING_AT_ONCE = 1000;

/**
 * Maps every row of a file to a change of the directory, inside the import's transaction (which
 * holds the directory lock): names to ids, service numbers to the contacts they name, and the
 * file's own rules (one row per service number and e-mail, the columns a new contact needs, the
 * mode). The rules of a contact (reach, uniqueness, parents) are the writer's. Nothing is written here.
 * The passes keep numbers by row index, not objects: a row's values are read from the sheet
 * again by each pass (FileRows), and its change is made by the last (toWrites).
 * Each pass over the rows yields to the event loop every few milliseconds: for 100,000 rows
 * they take some 0.4 s together, which other requests would otherwise wait for.
 */
export async function planImport(
  trx: Knex.Transaction,
  rows: FileRows,
  mode: ImportMode,
  actor: AuthContext,
  hashes: ReadonlyMap<number, string>,
): Promise<Plan> {
  const errors: RowError[] = [];
  const fail = (row: number, field: string, message: string) => errors.push({ row, field, message });
  const lookup = await ReferenceLookup.load(trx);
  const slices = new TimeSlices();

  // one row per service number and per e-mail
  const sns = new KeyTable(rows.length, (i) => rows.values(i).service_no);
  const emails = new KeyTable(rows.length, (i) => rows.values(i).email);
  const kept: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const [row, v] = [rows.row(i), rows.values(i)];
    const sn = v.service_no;
    if (!sn) {
      fail(row, 'service_no', 'Service number is required');
      continue;
    }
    const other = sns.get(sn);
    if (other !== undefined) {
      fail(row, 'service_no', `Service number ${sn} is also on row ${rows.row(other)}`);
      continue;
    }
    const email = v.email;
    if (email) {
      const holder = emails.get(email);
      if (holder !== undefined) fail(row, 'email', `Email ${email} is also on row ${rows.row(holder)}`);
      else emails.add(email, i);
    }
    sns.add(sn, i);
    kept.push(i);
    if (slices.due()) await slices.pause();
  }
  const resolved = Int32Array.from(kept);
  kept.length = 0;

  // the contacts the rows name, a thousand service numbers a query: in an upsert, an active one is the row's `current`
  const found = new Uint8Array(rows.length);
  const current = new Map<number, UserRow>();
  for (let at = 0; at < resolved.length; at += EXISTING_AT_ONCE) {
    const slice = resolved.subarray(at, at + EXISTING_AT_ONCE);
    for (const u of await findUserRows(trx, Array.from(slice, (i) => rows.values(i).service_no!), 'service_no')) {
      const i = sns.get(u.service_no);
      if (i === undefined) continue;
      found[i] = 1;
      if (mode === 'upsert' && u.is_active) current.set(i, u);
    }
  }

  for (const i of resolved) {
    const [row, v] = [rows.row(i), rows.values(i)];
    if (found[i]) {
      if (mode === 'create') fail(row, 'service_no', TAKEN);
      else if (!current.has(i)) fail(row, 'service_no', 'This service number belongs to a deactivated contact');
      if (v.password) fail(row, 'password', 'An import sets the password of new contacts only; reset an existing contact\'s password instead');
    } else {
      for (const [column, message] of REQUIRED_TO_CREATE) if (!v[column]) fail(row, column, message);
    }
    fieldsOf(v, current.get(i), lookup, (field, message) => fail(row, field, message));
    if (slices.due()) await slices.pause();
  }

  const parents = new Parents(rows.length);
  for (let at = 0; at < resolved.length; at += PARENTS_AT_ONCE) {
    await parents.resolve(trx, rows, resolved.subarray(at, at + PARENTS_AT_ONCE), sns, current, fail);
    await slices.pause();
  }
  const roleName = (name: string) => {
    const id = lookup.role(name);
    return lookup.lists.roles.find((r) => r.id === id)?.name ?? name;
  };
  const planned = { rows, resolved, current, parents, lookup, hashes };
  return { ...(await toWrites(planned, actor, slices)), errors, roleName };
}

/** A row's fields, its names as ids: every name that matches nothing is an error naming the column and the value. */
function fieldsOf(v: RowValues, current: UserRow | undefined, lookup: ReferenceLookup, fail: (field: string, message: string) => void): Partial<ContactChanges> {
  const unknown = (field: string, value: string) => fail(field, `Unknown ${field}: ${value}`);
  const f: Partial<ContactChanges> = {};
  for (const key of TEXT_FIELDS) {
    const value = v[key];
    // an empty cell clears an optional field; a required one keeps its value
    if (value === undefined || (value === null && !CLEARABLE.has(key))) continue;
    f[key] = value as string;
  }
  let unitId = current?.unit_id;
  if (v.unit) {
    unitId = lookup.unit(v.unit);
    if (unitId === undefined) unknown('unit', v.unit);
    else f.unit_id = unitId;
  }
  if (v.department !== undefined) {
    if (v.department === null) f.department_id = null;
    else if (unitId !== undefined) {
      const id = lookup.department(unitId, v.department);
      if (id === undefined) fail('department', `Unknown department in unit ${v.unit ?? unitId}: ${v.department}`);
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
  const role = v.role ?? (current ? undefined : 'User');
  if (role) {
    const id = lookup.role(role);
    if (id === undefined) unknown('role', role);
    else f.role_id = id;
  }
  return f;
}

interface Planned {
  rows: FileRows;
  resolved: Int32Array;
  current: ReadonlyMap<number, UserRow>;
  parents: Parents;
  lookup: ReferenceLookup;
  /** the passwords' hashes by row number */
  hashes: ReadonlyMap<number, string>;
}

/**
 * What the rows write: new contacts, changed contacts with their changes, and how many stay as
 * they are. Each row's fields are found again from its values (the names were checked above:
 * a row with an error blocks the write, and its change is what it was then). A new contact
 * is made from its row each time the writer asks for it, the rows of new contacts kept by index.
 */
async function toWrites(planned: Planned, actor: AuthContext, slices: TimeSlices): Promise<Omit<Plan, 'errors' | 'roleName'>> {
  const { rows, resolved, current, parents, lookup } = planned;
  const fresh: number[] = [];
  const changes: PlannedChange[] = [];
  let unchanged = 0;
  const ignore = () => undefined;
  for (const i of resolved) {
    if (slices.due()) await slices.pause();
    const now = current.get(i);
    if (!now) {
      fresh.push(i);
      continue;
    }
    const v = rows.values(i);
    const f = fieldsOf(v, now, lookup, ignore);
    const parent = parents.of(i, v.parent_service_no);
    const changed = changedFields(now, f);
    const parentChanged = parent !== undefined && !sameParent(now, parent);
    if (Object.keys(changed).length === 0 && !parentChanged) unchanged++;
    else changes.push({ ref: rows.row(i), current: now, changes: changed, parent: parentChanged ? parent : undefined });
  }
  const creates = new NewRows(planned, actor.organizationId, Int32Array.from(fresh));
  return { creates, changes, unchanged };
}

/** The new contacts of a plan: the k-th made from its row, as the writer reaches it. */
class NewRows implements NewContacts<BatchCreate> {
  constructor(
    private readonly planned: Planned,
    private readonly organizationId: number,
    /** the index of each new contact's row */
    private readonly indexes: Int32Array,
  ) {}

  get length(): number { return this.indexes.length; }

  at(k: number): BatchCreate {
    const { rows, parents, lookup, hashes } = this.planned;
    const [row, v] = [rows.row(this.indexes[k]), rows.values(this.indexes[k])];
    const f = fieldsOf(v, undefined, lookup, () => undefined);
    return {
      ref: row,
      passwordHash: v.password ? (hashes.get(row) ?? null) : null,
      parent: parents.of(this.indexes[k], v.parent_service_no) ?? null,
      contact: {
        name: f.name, email: f.email, service_no: v.service_no!, phone: f.phone ?? null, mobile: f.mobile ?? null,
        alternative_mobile: f.alternative_mobile ?? null, unit_id: f.unit_id, department_id: f.department_id ?? null,
        designation_id: f.designation_id, rank_id: f.rank_id ?? null, role_id: f.role_id, status: f.status ?? undefined,
        organization_id: this.organizationId,
      },
    };
  }
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
