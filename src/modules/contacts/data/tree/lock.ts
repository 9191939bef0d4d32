import { KnexTimeoutError, type Knex } from 'knex';
import { dialectOf, inTransaction, isUniqueViolation, type Db, type Queryable } from '../../../../lib/db';
import { AppError } from '../../../../lib/errors';
import type { ReadVersions } from '../../../access';

/**
 * The directory lock and versions: one row, `directory_state`. Every tree change increments
 * its `version` first thing in its transaction, which both serializes tree changes (the row is
 * locked until the commit) and tells caches that the directory changed. `search_version`
 * changes only with what a search shows (docs/architecture.md, Contacts).
 */

/**
 * Locks the directory for a tree change and marks it changed. Call it first in the
 * transaction, before any read: a check made before the lock is not serialized with the other
 * changes (inTransaction reads committed data on MySQL, so every statement after the lock sees
 * all that committed before it).
 */
export async function lockDirectory(trx: Knex.Transaction): Promise<void> {
  if (dialectOf(trx) === 'mysql') {
    // one round trip: the incremented version comes back as the statement's insert id (MySQL
    // and MariaDB have no UPDATE ... RETURNING), and every round trip here is one the lock is held for
    const [result] = await trx.raw('UPDATE directory_state SET version = LAST_INSERT_ID(version + 1) WHERE id = 1');
    stamps.set(trx, Number((result as { insertId: number | string }).insertId));
    return;
  }
  await trx('directory_state').where({ id: 1 }).increment('version', 1);
  const { version } = await trx('directory_state').where({ id: 1 }).first('version');
  stamps.set(trx, Number(version));
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

/** How a change takes its turn (lockedChange). */
export interface ChangeOptions {
  /**
   * In a transaction of its own, not committed together with the changes queued beside it:
   * for a change that holds the lock for long (an import, a repair), which would hold back
   * their answers until its own commit.
   */
  alone?: boolean;
}

/** A change waiting for its turn in this process's queue, with its caller's promise. */
interface Queued {
  work: (trx: Knex.Transaction) => Promise<unknown>;
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
}

/** Each database handle's queue of tree changes in this process, and whether one is running. */
interface ChangeQueue {
  waiting: Queued[];
  running: number;
}

const queues = new WeakMap<Db, ChangeQueue>();

/** At most this many changes commit together: the later ones of a long queue wait for the next commit. */
const GROUP_LIMIT = 32;

/** The tree changes of this process on `db` that are queued or running now (for the metrics). */
export function directoryChangesInFlight(db: Db): number {
  const queue = queues.get(db);
  return queue ? queue.waiting.length + queue.running : 0;
}

/**
 * Runs `work` in a transaction that holds the directory lock from its first statement, and
 * resolves with its result once that transaction has committed.
 *
 * The changes of one process wait for each other here, before they take a connection from the
 * pool: they would wait for the lock anyway (one tree change at a time), and a change waiting
 * inside its transaction holds a pooled connection meanwhile. Under a mixed load, writers
 * waiting for the lock held most of the pool, and every read waited for a connection behind
 * them (docs/performance.md, "A mixed load"). Several processes still share the lock itself.
 *
 * The changes that queued up while one ran then run one after another in one transaction and
 * commit together (group commit). Each still takes the lock as its own first statement and gets
 * its own directory version, each in a savepoint: one that fails (a 4xx, a taken e-mail) is
 * rolled back alone and the others go on. A commit waits for the disk (about 4 ms on the
 * benchmark's machine, a third of a short change), and the lock is held through it, so one
 * commit for a queue of changes is what lets them go faster than one commit each. On any other
 * failure, which may have ended the transaction itself, nothing of the group is committed and
 * its changes run again, each in a transaction of its own.
 *
 * A change waits in the queue at most as long as it would wait for a connection
 * (DB_ACQUIRE_TIMEOUT_MS), then fails as that wait does (503): a change that holds the lock for
 * long (a stuck one) does not make every later one wait for all those before it.
 */
export function lockedChange<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = { waiting: [], running: 0 }));
  const q = queue;
  return new Promise<T>((resolve, reject) => {
    const item: Queued = { work, alone: options.alone ?? false, resolve: resolve as (value: unknown) => void, reject };
    q.waiting.push(item);
    if (q.running > 0) {
      const limitMs = Number(db.client.config.acquireConnectionTimeout) || 60_000;
      // unref: a change waiting its turn does not keep the process alive on its own
      item.timer = setTimeout(() => {
        const at = q.waiting.indexOf(item);
        if (at < 0) return;
        q.waiting.splice(at, 1);
        reject(new KnexTimeoutError('a change waited too long for the directory lock'));
      }, limitMs).unref();
    }
    void runQueue(db, q);
  });
}

/** Runs the queue's changes, a group at a time, until it is empty. */
async function runQueue(db: Db, queue: ChangeQueue): Promise<void> {
  if (queue.running > 0) return;
  while (queue.waiting.length > 0) {
    const group = takeGroup(queue);
    queue.running = group.length;
    try {
      if (group.length === 1) await runAlone(db, group[0]);
      else await runGroup(db, group);
    } finally {
      queue.running = 0;
    }
  }
}

/** The next change, and those queued after it up to the first that runs alone. */
function takeGroup(queue: ChangeQueue): Queued[] {
  const firstAlone = queue.waiting.findIndex((c) => c.alone);
  const size = firstAlone === 0 ? 1 : Math.min(GROUP_LIMIT, firstAlone < 0 ? queue.waiting.length : firstAlone);
  const group = queue.waiting.splice(0, size);
  for (const change of group) clearTimeout(change.timer);
  return group;
}

/** One change in a transaction of its own. */
async function runAlone(db: Db, change: Queued): Promise<void> {
  try {
    change.resolve(await inTransaction(db, (trx) => lockedWork(trx, change.work)));
  } catch (err) {
    change.reject(err);
  }
}

/** The work with the directory lock taken first. */
async function lockedWork<T>(trx: Knex.Transaction, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  await lockDirectory(trx);
  return work(trx);
}

/** A failure that a savepoint's rollback undoes whole, after which the transaction goes on: the caller's 4xx, or a unique key taken. */
function containedFailure(err: unknown): boolean {
  return err instanceof AppError || isUniqueViolation(err);
}

/**
 * Several changes in one transaction, each in a savepoint, committed together; each caller
 * then hears its own outcome. Any other failure than a contained one leaves the transaction in
 * doubt: the group is rolled back and each change runs again alone.
 */
async function runGroup(db: Db, group: Queued[]): Promise<void> {
  let outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }>;
  try {
    outcomes = await inTransaction(db, async (trx) => {
      const done: typeof outcomes = [];
      for (const change of group) {
        try {
          done.push({ ok: true, value: await trx.transaction((savepoint) => lockedWork(savepoint, change.work)) });
        } catch (err) {
          if (!containedFailure(err)) throw err;
          done.push({ ok: false, err });
        }
      }
      return done;
    });
  } catch {
    for (const change of group) await runAlone(db, change);
    return;
  }
  outcomes.forEach((outcome, i) => (outcome.ok ? group[i].resolve(outcome.value) : group[i].reject(outcome.err)));
}

/**
 * Marks a change of what the contact search sees (a contact added, changed or deactivated):
 * the search index is keyed by `search_version`, which a move leaves alone. In a transaction
 * that holds the directory lock.
 */
export async function markSearchChanged(trx: Knex.Transaction): Promise<void> {
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
