import type { Knex } from 'knex';
import type { TimeSlices } from '../../lib/yield';
import { findUserRows, type BatchCreate, type ChangeSource, type ContactChanges, type NewContacts, type PlannedChange, type UserRow } from '../contacts';
import type { ReferenceLookup } from '../reference';
import { fieldsOf } from './import.fields';
import type { Parents } from './import.parents';
import type { FileRows, ParentRef } from './import.rows';

/**
 * What a plan's rows write, made from the rows when the contacts' writer asks: the new
 * contacts one by one, the changes of existing contacts a chunk at a time with their current
 * rows read again. The plan keeps numbers by row index only (docs/performance.md, "An
 * upsert by index"): a current row held for each of 100,000 changed contacts took some 67 MiB.
 */

/** The contacts an upsert's rows change, by row index. */
export interface Matched {
  /** the id of the active contact that row i changes; 0 where it changes none (no row has id 0) */
  readonly id: Float64Array;
  /** that contact's unit, where the row's department is looked up when the row names no unit */
  readonly unit: Float64Array;
}

export interface Planned {
  /** the import's transaction, which holds the directory lock: the current rows read again are the ones the plan saw */
  trx: Knex.Transaction;
  rows: FileRows;
  resolved: Int32Array;
  matched: Matched;
  parents: Parents;
  lookup: ReferenceLookup;
  /** the passwords' hashes by row number */
  hashes: ReadonlyMap<number, string>;
}

/** Current rows compared, or read again for the writer, by one query. */
const CURRENT_AT_ONCE = 1000;

const ignore = () => undefined;

/**
 * What the rows write: new contacts, changed contacts, and how many stay as they are. Each
 * row's fields are found again from its values (the names were checked already: a row with
 * an error blocks the write, and its change is what it was then). The rows of existing
 * contacts are compared with their current rows CURRENT_AT_ONCE at a time, and only the
 * indexes of the changed ones are kept.
 */
export async function toWrites(planned: Planned, organizationId: number, slices: TimeSlices): Promise<{ creates: NewContacts<BatchCreate>; changes: ChangeSource; unchanged: number }> {
  const { resolved, matched } = planned;
  const fresh: number[] = [];
  const changed: number[] = [];
  let unchanged = 0;
  const pending: number[] = [];
  const compare = async () => {
    const now = await currentRows(planned, pending);
    for (const i of pending) {
      if (changeOf(planned, i, now)) changed.push(i);
      else unchanged++;
    }
    pending.length = 0;
  };
  for (const i of resolved) {
    if (slices.due()) await slices.pause();
    if (!matched.id[i]) fresh.push(i);
    else if (pending.push(i) === CURRENT_AT_ONCE) await compare();
  }
  await compare();
  return { creates: new NewRows(planned, organizationId, Int32Array.from(fresh)), changes: new ChangedRows(planned, Int32Array.from(changed)), unchanged };
}

/** The current rows of the contacts that the rows `indexes` change, by contact id. */
async function currentRows(planned: Planned, indexes: readonly number[]): Promise<Map<number, UserRow>> {
  const rows = await findUserRows(planned.trx, indexes.map((i) => planned.matched.id[i]));
  return new Map(rows.map((u) => [u.id, u]));
}

/** Row i's change of its contact (its current row among `now`), or null where the row leaves it as it is. */
function changeOf(planned: Planned, i: number, now: ReadonlyMap<number, UserRow>): PlannedChange | null {
  const { rows, parents, lookup, matched } = planned;
  const current = now.get(matched.id[i]);
  // the plan found it in this transaction, under the directory lock
  if (!current) throw new Error(`import: the contact of row ${rows.row(i)} is gone`);
  const v = rows.values(i);
  const parent = parents.of(i, v.parent_service_no);
  const changes = changedFields(current, fieldsOf(v, current.unit_id, lookup, ignore));
  const parentChanged = parent !== undefined && !sameParent(current, parent);
  if (Object.keys(changes).length === 0 && !parentChanged) return null;
  return { ref: rows.row(i), current, changes, parent: parentChanged ? parent : undefined };
}

/** The changes of a plan: the k-th made from its row and its contact's current row, a chunk at a time. */
class ChangedRows implements ChangeSource {
  constructor(
    private readonly planned: Planned,
    /** the index of each changed contact's row */
    private readonly indexes: Int32Array,
  ) {}

  get length(): number { return this.indexes.length; }

  async make(ks: ArrayLike<number>): Promise<PlannedChange[]> {
    const made: PlannedChange[] = [];
    for (let at = 0; at < ks.length; at += CURRENT_AT_ONCE) {
      const indexes = Array.from({ length: Math.min(CURRENT_AT_ONCE, ks.length - at) }, (_, j) => this.indexes[ks[at + j]]);
      const now = await currentRows(this.planned, indexes);
      for (const i of indexes) {
        const change = changeOf(this.planned, i, now);
        if (!change) throw new Error(`import: the contact of row ${this.planned.rows.row(i)} changed since the plan`);
        made.push(change);
      }
    }
    return made;
  }
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
    const f = fieldsOf(v, undefined, lookup, ignore);
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
