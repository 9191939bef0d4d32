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

/**
 * A write's precondition on a version (a request's If-Match and If-None-Match, as
 * lib/http/conditional.ts versionPreconditions makes it), and the error that refuses the write
 * when it does not hold.
 */
export interface VersionPrecondition {
  holds: (version: number) => boolean;
  failed: () => Error;
}

/**
 * Runs `work` in one transaction that marks `name` changed before it commits (every change of
 * what it covers). A `precondition` is checked after the work, whose own checks answer first
 * (404 before 412), against the version before this change raises it: that row is read locked
 * until the commit, so of two writes that read the same version only the first passes, and the
 * refused one rolls back with nothing changed.
 */
export function versionedChange<T>(db: Db, name: ReadVersion, work: (trx: Knex.Transaction) => Promise<T>, precondition?: VersionPrecondition): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await work(trx);
    if (precondition) {
      const row = await trx('read_versions').where({ name }).forUpdate().first('version');
      if (!precondition.holds(Number(row?.version))) throw precondition.failed();
    }
    await bumpVersion(trx, name);
    return result;
  });
}
