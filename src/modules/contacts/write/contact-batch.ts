import type { Knex } from 'knex';
import { AppError } from '../../../lib/errors';
import type { UserRow } from '../read/users.queries';
import type { ContactBatch, PlannedCreate, RuleFailure } from './contact-change';
import { parentsFirst } from './parent-rules';
import { updateContact, type ContactChanges } from './contact.writer';
import { insertContactForest, type ForestContact } from './forest.writer';

/** What a batch wrote: the new contacts' ids by service number, and the changed contacts' ids. */
export interface BatchWritten {
  created: Map<string, number>;
  changed: number[];
}

/** A new contact of a batch with what only a create has: its password's hash. */
export interface BatchCreate extends PlannedCreate {
  passwordHash?: string | null;
}

/** A batch as its writer gives it: new contacts with their passwords' hashes. */
export type WritableBatch = Omit<ContactBatch, 'creates'> & { creates: readonly BatchCreate[] };

/**
 * Writes a batch that passed checkContacts, in the caller's transaction under the directory
 * lock: the new contacts as one forest (forest.writer.ts), then the changes, parents first. A
 * rule that only the write can see (a unit change of a contact with children, or a cycle that
 * an earlier change of the batch would close for a moment) stops it: it comes back as the
 * failure of its item, and the caller rolls back.
 */
export async function writeBatch(
  trx: Knex.Transaction,
  batch: WritableBatch,
): Promise<BatchWritten | RuleFailure> {
  const created = await insertContactForest(
    trx,
    // a batch without failures has every field a new contact needs (its writer checked them)
    batch.creates.map((c) => ({ ...c.contact, password_hash: c.passwordHash ?? null, parent: c.parent }) as ForestContact),
  );
  for (const c of parentsFirst(batch.changes)) {
    const changes: ContactChanges = { ...c.changes };
    if (c.parent !== undefined) changes.parent_id = c.parent === null ? null : 'id' in c.parent ? c.parent.id : created.get(c.parent.serviceNo)!;
    try {
      await updateContact(trx, c.current, changes);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      return { ref: c.ref, code: 'write', error: err };
    }
  }
  return { created, changed: batch.changes.map((c) => c.current.id) };
}

/** Rows grouped by their organization: a change of many is one entry per organization it touched. */
export function byOrganization(rows: UserRow[]): UserRow[][] {
  const groups = new Map<number, UserRow[]>();
  for (const row of rows) {
    const group = groups.get(row.organization_id);
    if (group) group.push(row);
    else groups.set(row.organization_id, [row]);
  }
  return [...groups.values()];
}
