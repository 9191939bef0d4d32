import type { Knex } from 'knex';
import { findUserRows } from '../contacts';
import type { KeyTable } from '../../lib/key-table';
import type { TimeSlices } from '../../lib/yield';
import type { FileRows, ParentRef } from './import.rows';

/**
 * Each row's parent, from its parent service number: another row of the file (in any order) or
 * a contact of the directory. A number that names neither is an error of the row; whether the
 * parent may take the contact (active, the same unit, no cycle) is the contacts' writer's rule.
 * Kept as numbers by row index (Parents), and made a ParentRef only when the row's change is.
 */

/** kinds of parent; 0: none given, the contact stays where it is */
const ROOT = 1;
const CONTACT = 2;
const ROW = 3;

export class Parents {
  private readonly kind: Uint8Array;
  private readonly id: Int32Array;

  constructor(count: number) {
    this.kind = new Uint8Array(count);
    this.id = new Int32Array(count);
  }

  /**
   * Finds the parents of the rows `slice` (indexes of rows that hold their service numbers,
   * `sns`), those outside the file by one query at most. `changes`: by row index, the id of
   * the contact the row changes (upsert), 0 where it changes none. Yields to the event loop
   * when `slices` is due.
   */
  async resolve(
    trx: Knex.Transaction,
    rows: FileRows,
    slice: ArrayLike<number>,
    sns: KeyTable,
    changes: ArrayLike<number>,
    fail: (row: number, field: string, message: string) => void,
    slices: TimeSlices,
  ): Promise<void> {
    const given = rows.position('parent_service_no') !== undefined;
    const outside = new Set<string>();
    for (let k = 0; k < slice.length; k++) {
      const p = rows.value(slice[k], 'parent_service_no');
      if (p && sns.get(p) === undefined) outside.add(p);
      if (slices.due()) await slices.pause();
    }
    const directory = new Map<string, number>();
    for (const u of await findUserRows(trx, [...outside], 'service_no')) directory.set(u.service_no, u.id);

    for (let k = 0; k < slice.length; k++) {
      if (slices.due()) await slices.pause();
      const i = slice[k];
      // undefined where the file has no such column, null where the row's cell is empty
      const p = given ? rows.value(i, 'parent_service_no') : undefined;
      if (p === undefined) {
        if (!changes[i]) this.kind[i] = ROOT;
        continue;
      }
      if (p === null) {
        this.kind[i] = ROOT;
        continue;
      }
      const inFile = sns.get(p);
      // a contact of the directory that the file also holds may change: it is placed as a row is
      if (inFile !== undefined) this.set(i, changes[inFile] ? CONTACT : ROW, changes[inFile]);
      else if (directory.has(p)) this.set(i, CONTACT, directory.get(p)!);
      else fail(rows.row(i), 'parent_service_no', `Parent contact not found: ${p}`);
    }
  }

  private set(i: number, kind: number, id: number): void {
    this.kind[i] = kind;
    this.id[i] = id;
  }

  /** Row i's parent (`parentServiceNo`: its cell): undefined where the contact stays where it is. */
  of(i: number, parentServiceNo: string | null | undefined): ParentRef | undefined {
    switch (this.kind[i]) {
      case ROOT:
        return null;
      case CONTACT:
        return { id: this.id[i] };
      case ROW:
        return { serviceNo: parentServiceNo! };
      default:
        return undefined;
    }
  }
}
