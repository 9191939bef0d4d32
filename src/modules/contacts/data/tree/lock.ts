import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../../../../lib/db';
import type { ReadVersions } from '../../../access';

/**
 * The directory lock and versions: one row, `directory_state`. Every tree change increments
 * its `version` first thing in its transaction, which both serializes tree changes (the row is
 * locked until the commit) and tells caches that the directory changed. `search_version`
 * changes only with what a search shows (docs/architecture.md, Contacts).
 */

/**
 * Locks the directory for a tree change and marks it changed: `count` changes run under this
 * lock, one after another (a group commit: change-queue.ts), each with a version of its own.
 * Returns the first of those versions, which the transaction's changes stamp with first
 * (useVersion moves on to the next). Call it first in the transaction, before any read: a check
 * made before the lock is not serialized with the other changes (inTransaction reads committed
 * data on MySQL, so every statement after the lock sees all that committed before it).
 */
export async function lockDirectory(trx: Knex.Transaction, count = 1): Promise<number> {
  let last: number;
  if (dialectOf(trx) === 'mysql') {
    // one round trip: the incremented version comes back as the statement's insert id (MySQL
    // and MariaDB have no UPDATE ... RETURNING), and every round trip here is one the lock is held for
    const [result] = await trx.raw('UPDATE directory_state SET version = LAST_INSERT_ID(version + ?) WHERE id = 1', [count]);
    last = Number((result as { insertId: number | string }).insertId);
  } else {
    await trx('directory_state').where({ id: 1 }).increment('version', count);
    last = Number((await trx('directory_state').where({ id: 1 }).first('version')).version);
  }
  const first = last - count + 1;
  stamps.set(trx, first);
  return first;
}

/** Makes `version` (one that lockDirectory handed out) the one the transaction's next writes stamp. */
export function useVersion(trx: Knex.Transaction, version: number): void {
  stamps.set(trx, version);
}

/** The directory version that each transaction holding the lock commits as (lockDirectory). */
const stamps = new WeakMap<Knex.Transaction, number>();

/**
 * What a write of a contact row stores as its `change_version`: the directory version of the
 * transaction that holds the lock. Every write of a column that the search index holds (the
 * searched fields, unit, department, role, parent, order key, depth, activity) sets it, so that
 * the index can read the contacts changed since its build (search/overlay.ts). Throws for a
 * transaction that does not hold the lock: such a write would not be serialized with the others.
 */
export function changeStamp(trx: Knex.Transaction): number {
  const stamp = stamps.get(trx);
  if (stamp === undefined) throw new Error('a write of the directory outside its lock (lockedChange)');
  return stamp;
}

/**
 * Marks a change of what the contact search sees (a contact added, changed or deactivated):
 * the search index is keyed by `search_version`, which a move leaves alone. In a transaction
 * that holds the directory lock; the version is bumped once, by bumpSearchVersion before the
 * commit, however many changes of a group marked it.
 */
export function markSearchChanged(trx: Knex.Transaction): void {
  changeStamp(trx); // throws outside the lock, as a write there would
  searchChanged.add(trx);
}

const searchChanged = new WeakSet<Knex.Transaction>();

/** Bumps `search_version` if a change of the transaction marked it (markSearchChanged): its last write before the commit. */
export async function bumpSearchVersion(trx: Knex.Transaction): Promise<void> {
  if (!searchChanged.delete(trx)) return;
  await trx('directory_state').where({ id: 1 }).increment('search_version', 1);
}

/**
 * Adds the read versions to a query of one row, as `directory_version`, `search_version`,
 * `account_version`, `reference_version` and `locations_version`: each a join on a primary key
 * of a one-row-per-name table. The session's read carries them (users.queries.ts). The keys are
 * written into the SQL, not bound, so that a prepared statement's bindings stay the caller's.
 */
export function withReadVersions(db: Queryable, q: Knex.QueryBuilder): Knex.QueryBuilder {
  q.join('directory_state as vd', (j) => j.on('vd.id', db.raw('1')));
  for (const [alias, name] of [['va', 'account'], ['vr', 'reference'], ['vl', 'locations']]) {
    q.join(`read_versions as ${alias}`, (j) => j.on(`${alias}.name`, db.raw(`'${name}'`)));
  }
  return q.select(
    'vd.version as directory_version',
    'vd.search_version as search_version',
    'va.version as account_version',
    'vr.version as reference_version',
    'vl.version as locations_version',
  );
}

/**
 * Everything a read of the directory depends on, as one short text for its ETag and for the
 * unit trees kept in memory (from the versions the session's read brings, withReadVersions): the directory's versions, the user rows' changes outside the lock
 * (sign-ins, passwords) and the reference names a contact shows (unit, department,
 * designation, rank, role).
 */
export function directoryTagOf(v: Pick<ReadVersions, 'directory' | 'search' | 'account' | 'reference'>): string {
  return `d${v.directory}.${v.search}.${v.account}.${v.reference}`;
}

/** The directory's two versions, as a request's session carries them (ReadVersions). */
export type DirectoryVersions = Pick<ReadVersions, 'directory' | 'search'>;

/** Both versions in one read: what a snapshot that holds the tree as well as the search's fields is keyed by. */
export async function directoryVersions(db: Queryable): Promise<{ version: number; search_version: number }> {
  const state = await db('directory_state').where({ id: 1 }).first('version', 'search_version');
  return { version: Number(state.version), search_version: Number(state.search_version) };
}
