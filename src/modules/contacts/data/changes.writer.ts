import type { Knex } from 'knex';
import { dialectOf, inTransaction, writeRows, type Db } from '../../../lib/db';
import { strongerType, type ChangeType } from '../domain/change-cursor';

/**
 * The change feed's writer (docs/changes.md). The writers of contacts (contact.writer.ts,
 * forest.writer.ts) note what they change, in memory, per transaction; the directory lock's
 * frame (lockedChange, tree/change-queue.ts) takes the notes of each change that holds, as rows of its
 * version, and writes them in its transaction before the commit: one INSERT for a change, or
 * for a group of changes committed together, whatever they touched (a move, a bulk delete with
 * its orphans, an import), and no writer of contacts can forget it. A contact noted twice in
 * one change is one row, of the stronger type (strongerType). A change that fails writes
 * nothing: its notes go with its transaction, or are taken and dropped when its savepoint in a
 * group is rolled back to.
 */

export const CHANGES_TABLE = 'contact_changes';

interface Noted {
  type: ChangeType;
  organizationId: number;
}

const notes = new WeakMap<Knex.Transaction, Map<number, Noted>>();

/** Notes that `contacts` changed as `type` in this transaction (which holds the directory lock). */
export function noteChanges(trx: Knex.Transaction, type: ChangeType, contacts: ReadonlyArray<{ id: number; organization_id: number }>): void {
  if (contacts.length === 0) return;
  let noted = notes.get(trx);
  if (!noted) notes.set(trx, (noted = new Map()));
  for (const c of contacts) {
    const before = noted.get(c.id);
    noted.set(c.id, notedAs(trx, before ? strongerType(before.type, type) : type, c.organization_id));
  }
}

/** The notes of one type and organization are one object, per transaction: an import notes 100,000 contacts. */
const shared = new WeakMap<Knex.Transaction, Map<ChangeType, Map<number, Noted>>>();

function notedAs(trx: Knex.Transaction, type: ChangeType, organizationId: number): Noted {
  let byType = shared.get(trx);
  if (!byType) shared.set(trx, (byType = new Map()));
  let byOrganization = byType.get(type);
  if (!byOrganization) byType.set(type, (byOrganization = new Map()));
  let note = byOrganization.get(organizationId);
  if (!note) byOrganization.set(organizationId, (note = { type, organizationId }));
  return note;
}

/** A row of contact_changes, as it is written (a type, not an interface: writeRows takes records). */
export type ChangeRowValues = {
  version: number;
  contact_id: number;
  type: ChangeType;
  organization_id: number;
  at: Date;
};

/** The changes noted in this transaction, as rows of version `version`; forgotten here. lockedChange calls it after a change's work. */
export function takeNotedChanges(trx: Knex.Transaction, version: number): ChangeRowValues[] {
  const noted = notes.get(trx);
  if (!noted) return [];
  notes.delete(trx);
  const at = new Date();
  const rows: ChangeRowValues[] = [];
  for (const [contactId, { type, organizationId }] of noted) rows.push({ version, contact_id: contactId, type, organization_id: organizationId, at });
  return rows;
}

/** Writes change rows in one statement (a few for an import's 100,000: writeRows), in the changes' transaction. */
export async function writeChangeRows(trx: Knex.Transaction, rows: ChangeRowValues[]): Promise<void> {
  await writeRows(trx, CHANGES_TABLE, rows);
}

/** Rows deleted per statement while pruning: short statements, so writers of new rows never wait long. */
const PRUNE_ROWS = 5000;

/**
 * Deletes the changes older than `before` and returns how many went and the version they were
 * pruned through. Whole versions go, the oldest first: first `changes_pruned_through` is raised
 * to the newest version older than `before` (and committed), then the rows up to it are deleted.
 * In that order a page read never misses a row without seeing the raised value (it answers 410),
 * and a pruning cut short leaves rows that the next one deletes.
 */
export async function pruneChanges(db: Db, before: Date): Promise<{ removed: number; prunedThrough: number }> {
  const newest = await db(CHANGES_TABLE).where('at', '<', before).max({ v: 'version' }).first();
  const through = newest?.v === null || newest?.v === undefined ? null : Number(newest.v);
  if (through !== null) {
    await inTransaction(db, (trx) =>
      trx('directory_state').where({ id: 1 }).where('changes_pruned_through', '<', through).update({ changes_pruned_through: through }),
    );
  }
  const state = await db('directory_state').where({ id: 1 }).first('changes_pruned_through');
  const prunedThrough = Number(state?.changes_pruned_through ?? 0);
  let removed = 0;
  for (;;) {
    const gone = await deleteOldest(db, prunedThrough);
    removed += gone;
    if (gone < PRUNE_ROWS) return { removed, prunedThrough };
  }
}

/**
 * Deletes up to PRUNE_ROWS of the oldest rows, all of versions up to `through`: one statement,
 * in a transaction of its own (on MySQL one that reads committed data, which locks the rows it
 * deletes and not the gaps beside them, where new changes go in).
 */
async function deleteOldest(db: Db, through: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    if (dialectOf(trx) === 'mysql') {
      const [result] = await trx.raw('DELETE FROM ?? WHERE version <= ? ORDER BY version, contact_id LIMIT ?', [CHANGES_TABLE, through, PRUNE_ROWS]);
      return Number((result as { affectedRows: number }).affectedRows);
    }
    // SQLite has no DELETE ... LIMIT (unless built with it): the oldest rows by rowid
    const oldest = trx(CHANGES_TABLE).where('version', '<=', through).orderBy(['version', 'contact_id']).limit(PRUNE_ROWS).select('rowid');
    return trx(CHANGES_TABLE).whereIn('rowid', oldest).delete();
  });
}
