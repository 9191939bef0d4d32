import type { Knex } from 'knex';
import { inTransaction, type Db, type Queryable } from '../../lib/db';

/**
 * The versions of what reads show beyond the directory (whose own are contacts' directory_state):
 * one `read_versions` row per name, bumped in the transaction of every change it covers (the
 * migration that made the table says which). The session carries them (AuthContext.versions),
 * and conditional reads make their ETags of them.
 */

/** What a `read_versions` row covers. */
export type ReadVersion = 'account' | 'reference' | 'locations';

/** Marks a change of what reads show, in the change's own transaction (or statement). */
export async function bumpVersion(db: Queryable, name: ReadVersion): Promise<void> {
  await db('read_versions').where({ name }).increment('version', 1);
}

/** Runs `work` in one transaction that marks `name` changed before it commits (every change of what it covers). */
export function versionedChange<T>(db: Db, name: ReadVersion, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await work(trx);
    await bumpVersion(trx, name);
    return result;
  });
}
