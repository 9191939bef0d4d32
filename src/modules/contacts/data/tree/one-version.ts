import { dialectOf, type Db } from '../../../../lib/db';
import { betweenChanges } from './change-queue';
import { directoryVersions, type DirectoryVersions } from './lock';

/**
 * Reads of several statements that must see the directory at one version: a subtree's range of
 * order keys and then the rows or counters in that range. Each statement sees what committed
 * before it (READ COMMITTED on MySQL; on SQLite another request's transaction may run between two
 * of them), so a move or a relabel committed in between would give a range from before it and
 * rows from after it: a subtree listed empty, counters of another set.
 *
 * Every change of the tree bumps the directory version in its own transaction, so a read that
 * finds the version it started from still current after its last statement saw no tree change
 * commit meanwhile. Otherwise it runs again at the version it found. A read that keeps losing
 * that race (a steady stream of moves) runs last while no change can commit: this process's
 * queue of changes is held, and on MySQL, where other processes write too, the directory lock's
 * row is held in share mode, which every change must lock exclusively first.
 */

/** Optimistic attempts before a read holds the changes back. */
const ATTEMPTS = 3;

/**
 * Runs `read` so that all its statements see the directory at one version, and gives it that
 * version (its search index view must be of the same one). `from`: the versions already read
 * for the request (its session's), if any.
 */
export async function atOneVersion<T>(db: Db, from: DirectoryVersions | null, read: (at: DirectoryVersions) => Promise<T>): Promise<T> {
  let at = from ?? versionsOf(await directoryVersions(db));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const value = await read(at);
    const now = await directoryVersions(db);
    if (now.version === at.directory) return value;
    at = versionsOf(now);
  }
  return betweenChanges(db, () => (dialectOf(db) === 'mysql' ? withLockShared(db, read) : directoryVersions(db).then((v) => read(versionsOf(v)))));
}

function versionsOf(v: { version: number; search_version: number }): DirectoryVersions {
  return { directory: v.version, search: v.search_version };
}

/**
 * `read` while a transaction of its own holds the directory lock's row in share mode: changes of
 * other processes wait for it to end. The read itself runs on other pooled connections, which
 * see everything committed before the lock was granted and nothing after.
 */
async function withLockShared<T>(db: Db, read: (at: DirectoryVersions) => Promise<T>): Promise<T> {
  const trx = await db.transaction(null, { isolationLevel: 'read committed' });
  try {
    const state = await trx('directory_state').where({ id: 1 }).forShare().first('version', 'search_version');
    return await read(versionsOf({ version: Number(state.version), search_version: Number(state.search_version) }));
  } finally {
    await trx.commit();
  }
}
