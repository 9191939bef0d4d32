import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
import { contactGrams, type SearchableFields } from '../domain/grams';

/**
 * The search grams of the contacts a change of the directory changed: noted as the change
 * goes, written by the directory lock's frame before the commit (tree/change-queue.ts).
 */

/**
 * Brings the index entries of one contact from its old values to its new ones, inside the
 * transaction that changed it (which holds the directory lock). The grams it lost and gained
 * are noted, and written by the lock's frame (tree/change-queue.ts) with takeGramChanges and
 * writeGramChanges before the commit: for a group of changes committed together, one DELETE and
 * one INSERT for all of them instead of two statements each while the lock is held.
 */
export function writeContactGrams(trx: Knex.Transaction, contactId: number, before: SearchableFields, after: SearchableFields): void {
  const old = new Set(contactGrams(before));
  const next = new Set(contactGrams(after));
  let pending = pendingGrams.get(trx);
  if (!pending) pendingGrams.set(trx, (pending = new Map()));
  let grams = pending.get(contactId);
  if (!grams) pending.set(contactId, (grams = new Map()));
  for (const g of old) if (!next.has(g)) grams.set(g, false);
  for (const g of next) if (!old.has(g)) grams.set(g, true);
}

/** Per contact, each gram a change of the transaction added (true) or removed (false): the last change of a gram wins. */
export type GramChanges = Map<number, Map<number, boolean>>;

const pendingGrams = new WeakMap<Knex.Transaction, GramChanges>();

/**
 * The gram changes noted in the transaction since the last take, for its frame to write (or to
 * drop, for a change that was rolled back to its savepoint); merged into `into` when given, the
 * later over the earlier.
 */
export function takeGramChanges(trx: Knex.Transaction, into: GramChanges = new Map()): GramChanges {
  const pending = pendingGrams.get(trx);
  pendingGrams.delete(trx);
  for (const [contactId, grams] of pending ?? []) {
    const merged = into.get(contactId);
    if (!merged) into.set(contactId, grams);
    else for (const [g, present] of grams) merged.set(g, present);
  }
  return into;
}

/**
 * Writes the gram changes noted in the transaction so far, now. For a writer of many contacts
 * in a transaction of its own (an import's changes, contact-batch.ts), whose notes would
 * otherwise hold a Map a contact until the commit (some 33 MiB for 100,000 changed phones).
 * Not for a change of a group: the lock's frame writes the group's notes in their order.
 */
export async function flushGramChanges(trx: Knex.Transaction): Promise<void> {
  await writeGramChanges(trx, takeGramChanges(trx));
}

/**
 * Writes gram changes: the removed ones deleted by key, the added ones inserted (those already
 * there are kept: a drain of the backlog may have written them), a statement of each for many
 * contacts.
 */
export async function writeGramChanges(trx: Knex.Transaction, changes: GramChanges): Promise<void> {
  const gone: Array<[number, number[]]> = [];
  const added: Array<{ gram: number; contact_id: number }> = [];
  for (const [contactId, grams] of changes) {
    const lost: number[] = [];
    for (const [gram, present] of grams) {
      if (present) added.push({ gram, contact_id: contactId });
      else lost.push(gram);
    }
    if (lost.length > 0) gone.push([contactId, lost]);
  }
  // the deletes and the inserts side by side (they touch different grams: the last change of
  // each wins), each kind a statement at a time
  const deletes = async () => {
    for (const chunk of chunks(gone, 50)) {
      await trx('contact_search_grams')
        .where((q) => {
          for (const [contactId, lost] of chunk) q.orWhere((c) => c.where('contact_id', contactId).whereIn('gram', lost));
        })
        .delete();
    }
  };
  const inserts = async () => {
    for (const chunk of chunks(added, 400)) await trx('contact_search_grams').insert(chunk).onConflict(['gram', 'contact_id']).ignore();
  };
  await Promise.all([deletes(), inserts()]);
}
