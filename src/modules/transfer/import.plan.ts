import type { Knex } from 'knex';
import { TimeSlices } from '../../lib/yield';
import type { AuthContext } from '../access';
import { findUserRows, type BatchCreate, type ChangeSource, type NewContacts } from '../contacts';
import { ReferenceLookup } from '../reference';
import { Parents } from './import.parents';
import { REQUIRED_TO_CREATE, type FileRows, type RowError } from './import.rows';
import { fieldsOf } from './import.fields';
import { toWrites } from './import.writes';
import { KeyTable } from '../../lib/key-table';
import { TextList } from '../../lib/text-list';

export type ImportMode = 'create' | 'upsert';

/**
 * What a file asks of the contacts' writer (ContactWrites.changeMany), each item's `ref` its
 * row: the contacts to create (with the row's password, hashed later), the changes of
 * existing ones, and what the mapping itself found wrong.
 */
export interface Plan {
  /** made from their rows when the writer reaches each (an object a row for 100,000 rows would be some 67 MiB) */
  creates: NewContacts<BatchCreate>;
  /** made a chunk at a time, their current rows read again (a current row held for each of 100,000 would be some 67 MiB) */
  changes: ChangeSource;
  unchanged: number;
  errors: RowError[];
  /** a role's name as the directory spells it, for the row errors */
  roleName: (name: string) => string;
}

const TAKEN = 'Service number or email already exists';
/** Rows whose parents are found by one call of Parents.resolve: one query at most for those outside the file. */
const PARENTS_AT_ONCE = 2000;
/** Service numbers looked up in the directory by one query. */
const EXISTING_AT_ONCE = 1000;

/**
 * Maps every row of a file to a change of the directory, inside the import's transaction (which
 * holds the directory lock): names to ids, service numbers to the contacts they name, and the
 * file's own rules (one row per service number and e-mail, the columns a new contact needs, the
 * mode). The rules of a contact (reach, uniqueness, parents) are the writer's. Nothing is written here.
 * The passes keep numbers by row index, not objects: a row's values are read from the sheet
 * again by each pass (FileRows), and what it writes is made from it when the writer asks
 * (import.writes.ts).
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

  // one row per service number and per e-mail. The table confirms a hit by reading its key
  // again: every row's service number is kept in memory (some 2 MB for 100,000 rows) for the
  // parents' lookups, which would otherwise read a row at random from the spilled rows, a read
  // from disk each (sheet-rows.ts); an e-mail is confirmed only when one repeats.
  const serviceNos = new TextList(rows.length);
  const sns = new KeyTable(rows.length, (i) => serviceNos.get(i));
  const emails = new KeyTable(rows.length, (i) => rows.values(i).email);
  const kept: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const [row, v] = [rows.row(i), rows.values(i)];
    const sn = v.service_no;
    serviceNos.push(sn ?? '');
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

  // the contacts the rows name, a thousand service numbers a query: in an upsert, an active one
  // is the one the row changes, kept as its id and unit (`matched`)
  const found = new Uint8Array(rows.length);
  const matched = { id: new Float64Array(rows.length), unit: new Float64Array(rows.length) };
  for (let at = 0; at < resolved.length; at += EXISTING_AT_ONCE) {
    const slice = resolved.subarray(at, at + EXISTING_AT_ONCE);
    for (const u of await findUserRows(trx, Array.from(slice, (i) => serviceNos.get(i)), 'service_no')) {
      const i = sns.get(u.service_no);
      if (i === undefined) continue;
      found[i] = 1;
      if (mode === 'upsert' && u.is_active) [matched.id[i], matched.unit[i]] = [u.id, u.unit_id];
    }
  }

  for (const i of resolved) {
    const [row, v] = [rows.row(i), rows.values(i)];
    const changes = matched.id[i] !== 0;
    if (found[i]) {
      if (mode === 'create') fail(row, 'service_no', TAKEN);
      else if (!changes) fail(row, 'service_no', 'This service number belongs to a deactivated contact');
      if (v.password) fail(row, 'password', 'An import sets the password of new contacts only; reset an existing contact\'s password instead');
    } else {
      for (const [column, message] of REQUIRED_TO_CREATE) if (!v[column]) fail(row, column, message);
    }
    fieldsOf(v, changes ? matched.unit[i] : undefined, lookup, (field, message) => fail(row, field, message));
    if (slices.due()) await slices.pause();
  }

  const parents = new Parents(rows.length);
  for (let at = 0; at < resolved.length; at += PARENTS_AT_ONCE) {
    await parents.resolve(trx, rows, resolved.subarray(at, at + PARENTS_AT_ONCE), sns, matched.id, fail, slices);
  }
  const roleName = (name: string) => {
    const id = lookup.role(name);
    return lookup.lists.roles.find((r) => r.id === id)?.name ?? name;
  };
  const planned = { trx, rows, resolved, matched, parents, lookup, hashes };
  return { ...(await toWrites(planned, actor.organizationId, slices)), errors, roleName };
}
