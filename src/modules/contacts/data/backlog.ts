import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
import { dialectOf, inTransaction, writeRows, type Db } from '../../../lib/db';
import { SEARCH_FIELDS, type SearchableFields } from '../domain/grams';
import { BACKLOG_TABLE, insertGramsOf } from './grams';

/**
 * The search backlog: new contacts whose trigram rows are not written yet.
 *
 * An import of 100,000 contacts writes about 7 million trigram rows, twice the work of the
 * contacts themselves. It commits the contacts with their ids in the backlog instead
 * (insertContactForest), and their grams are written after the commit by a drain
 * (SearchBacklog). Nothing is ever missed meanwhile: the SQL search takes every contact of the
 * backlog as a candidate (grams.ts candidateIds) and checks it as it checks the others, and the
 * in-memory index reads the contacts themselves. A contact leaves the backlog in the transaction
 * that writes its grams, so a drain cut short (a crash, a shutdown) leaves it listed; the next
 * drain, after the next import or when an instance starts, writes it.
 */

/** Contacts per drain transaction: a whole import (IMPORT_MAX_ROWS' default), so its grams go in key order at once. */
const DRAIN_CONTACTS = 100_000;

/** Lists new contacts in the backlog, in the transaction that inserts them. */
export async function addToSearchBacklog(trx: Knex.Transaction, ids: readonly number[]): Promise<void> {
  await writeRows(trx, BACKLOG_TABLE, ids.map((id) => ({ contact_id: id })));
}

/**
 * Writes the grams of up to `max` contacts of the backlog and takes them off it, in one
 * transaction. On MySQL the entries are claimed with SKIP LOCKED, so the drains of several
 * instances share the work instead of waiting for each other; SQLite runs one transaction at
 * a time. A contact that changed since it was listed gets the grams of its current values
 * (those its update already wrote are skipped; a change waits for the drain's commit); one no
 * longer in the table just leaves.
 * Returns how many contacts left the backlog.
 */
export async function drainSearchBacklog(db: Db, max = DRAIN_CONTACTS): Promise<number> {
  return inTransaction(db, async (trx) => {
    const claim = trx(BACKLOG_TABLE).orderBy('contact_id').limit(max);
    if (dialectOf(trx) === 'mysql') claim.forUpdate().skipLocked();
    const ids = (await claim.pluck('contact_id')).map(Number);
    if (ids.length === 0) return 0;
    // The contacts' fields are read again for each of the two passes, a thousand at a time,
    // rather than held (100,000 rows would be some 50 MB of the service's memory). On MySQL the
    // first read locks them against changes until the commit, so both passes see the same values.
    const mysql = dialectOf(trx) === 'mysql';
    let pass = 0;
    await insertGramsOf(trx, async (visit) => {
      pass++;
      for (const chunk of chunks(ids, 1000)) {
        const read = trx('users').whereIn('id', chunk).orderBy('id').select('id', ...SEARCH_FIELDS);
        if (mysql && pass === 1) read.forShare();
        for (const row of await read) visit(Number(row.id), row as SearchableFields);
      }
    });
    for (const chunk of chunks(ids, 1000)) await trx(BACKLOG_TABLE).whereIn('contact_id', chunk).delete();
    return ids.length;
  });
}

/**
 * Drains the backlog in the background: one drain at a time per process, and one asked for
 * while another runs follows it. A failure is reported to `onError`; the contacts stay listed.
 */
export class SearchBacklog {
  private draining: Promise<void> | null = null;
  private again = false;

  private readonly db: Db;
  private readonly onError: (err: unknown) => void;

  constructor(deps: { db: Db; onError: (err: unknown) => void }) {
    this.db = deps.db;
    this.onError = deps.onError;
  }

  /** Starts a drain now, or after the one running. */
  schedule(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drainAll().finally(() => {
      this.draining = null;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
  }

  /** Resolves when no drain runs and none is asked for: a script waits for it before it ends. */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drainAll(): Promise<void> {
    try {
      // a batch short of full means the backlog was empty but for entries others had claimed
      while ((await drainSearchBacklog(this.db, DRAIN_CONTACTS)) === DRAIN_CONTACTS);
    } catch (err) {
      this.onError(err);
    }
  }
}
