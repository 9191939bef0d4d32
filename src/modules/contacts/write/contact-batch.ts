import type { Knex } from 'knex';
import type { Db } from '../../../lib/db';
import { AppError } from '../../../lib/errors';
import type { Actor, AuditEntry, AuditTrail } from '../../audit';
import { checkBatch } from './contact-rules';
import { changeDirectory } from '../data/uniqueness';
import type { UserRow } from '../data/users.queries';
import { changesAt, type ContactBatch, type NewContacts, type PlannedCreate, type RuleFailure } from './contact-change';
import type { ChangePlaces } from './change-places';
import { parentsFirst } from './parent-rules';
import { updateContact, type ContactChanges, type ContactInsert } from '../data/contact.writer';
import { insertContactForest } from '../data/forest.writer';
import { flushGramChanges } from '../data/gram-changes';
import type { NewPlaces } from '../data/new-contacts';

/** What a batch wrote: the new contacts' ids (in the batch's order), and the changed contacts' ids. */
export interface BatchWritten {
  created: { readonly size: number; values(): IterableIterator<number> };
  changed: number[];
}

/** A new contact of a batch with what only a create has: its password's hash. */
export interface BatchCreate extends PlannedCreate {
  passwordHash?: string | null;
}

/** A batch as its writer gives it: new contacts with their passwords' hashes (an array, or made by index when reached). */
export type WritableBatch = Omit<ContactBatch, 'creates'> & { creates: NewContacts<BatchCreate> };

/** Changes written at once: made as objects (their current rows read again), written, let go of. */
const WRITES_AT_ONCE = 2000;

/**
 * Writes a batch that passed checkBatch (`places`: its new contacts' places, `changed`: its
 * changes'), in the caller's transaction under the directory lock: the new contacts as one
 * forest (forest.writer.ts), each made again when its row is inserted, then the changes,
 * parents first, each chunk made again when it is written and its search grams written after
 * it. A rule that only the write can see
 * (a unit change of a contact with children, or a cycle that an earlier change of the batch
 * would close for a moment) stops it: it comes back as the failure of its item, and the
 * caller rolls back.
 */
export async function writeBatch(
  trx: Knex.Transaction,
  batch: WritableBatch,
  places: NewPlaces,
  changed: ChangePlaces,
): Promise<BatchWritten | RuleFailure> {
  // a batch without failures has every field a new contact needs (its writer checked them)
  const contactAt = (k: number) => {
    const c = batch.creates.at(k)!;
    return { ...c.contact, password_hash: c.passwordHash ?? null } as Omit<ContactInsert, 'parent_id'>;
  };
  const created = await insertContactForest(trx, { places, contactAt });
  const order = parentsFirst(changed);
  for (let at = 0; at < order.length; at += WRITES_AT_ONCE) {
    for (const c of await changesAt(batch.changes, order.subarray(at, at + WRITES_AT_ONCE))) {
      const changes: ContactChanges = { ...c.changes };
      if (c.parent !== undefined) changes.parent_id = c.parent === null ? null : 'id' in c.parent ? c.parent.id : created.get(c.parent.serviceNo)!;
      try {
        await updateContact(trx, c.current, changes);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 400) throw err;
        return { ref: c.ref, code: 'write', error: err };
      }
    }
    // changeMany runs alone in its transaction: the chunk's grams can go in now
    await flushGramChanges(trx);
  }
  // the ids alone: the places are let go of
  const ids = created.ids;
  return { created: { size: ids.length, values: () => ids.values() }, changed: Array.from(changed.id) };
}

/** What a batch's writer gives changeMany, read in its transaction: the batch, and whether its own checks failed. */
export type BatchPlan = (trx: Knex.Transaction) => Promise<{ batch: WritableBatch; blocked: boolean }>;

export interface BatchOptions {
  dryRun: boolean;
  /** the one audit entry of what was written */
  audit: (written: BatchWritten) => AuditEntry;
}

export interface BatchResult {
  failures: RuleFailure[];
  written: BatchWritten | null;
}

/** Ends a batch's transaction without a write: a dry run, or a batch with failures. */
class RolledBack {
  constructor(readonly failures: RuleFailure[]) {}
}

/**
 * ContactWrites.changeMany's transaction: `plan` under the directory lock, the rules over the
 * whole batch, then the write and its audit entry, or a rollback with every failure.
 */
/** An import's batch holds the lock for long: its own commit, not one shared with the short changes queued meanwhile. */
const ALONE = { alone: true };

export async function changeMany(db: Db, audit: AuditTrail, actor: Actor, plan: BatchPlan, options: BatchOptions): Promise<BatchResult> {
  try {
    const written = await changeDirectory(db, async (trx) => {
      const result = await checkAndWrite(trx, actor, plan, options.dryRun);
      await audit.record(trx, actor, options.audit(result));
      return result;
    }, undefined, ALONE);
    return { failures: [], written };
  } catch (err) {
    if (err instanceof RolledBack) return { failures: err.failures, written: null };
    throw err;
  }
}

/**
 * The plan, its rules and its write: a function of its own, so that the batch and its places
 * are let go of before the audit entry and the change feed's rows are written (V8 keeps an
 * async function's variables while it awaits).
 */
async function checkAndWrite(trx: Knex.Transaction, actor: Actor, plan: BatchPlan, dryRun: boolean): Promise<BatchWritten> {
  const { batch, blocked } = await plan(trx);
  const { failures, places, changed } = await checkBatch(trx, actor, batch);
  if (dryRun || blocked || failures.length > 0) throw new RolledBack(failures);
  const result = await writeBatch(trx, batch, places, changed);
  if (!('created' in result)) throw new RolledBack([result]);
  return result;
}

/** Rows grouped by their organization: a change of many is one entry per organization it touched. */
export function byOrganization<T extends Pick<UserRow, 'organization_id'>>(rows: readonly T[]): T[][] {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const group = groups.get(row.organization_id);
    if (group) group.push(row);
    else groups.set(row.organization_id, [row]);
  }
  return [...groups.values()];
}
