import { KnexTimeoutError, type Knex } from 'knex';
import { acceptWritesBehind, dropWritesSince, finishWrites, inTransaction, isUniqueViolation, settleWritesBehind, writeBehind, writesMark, type Db } from '../../../../lib/db';
import { AppError } from '../../../../lib/errors';
import { takeNotedChanges, writeChangeRows, type ChangeRowValues } from '../changes.writer';
import { takeGramChanges, writeGramChanges, type GramChanges } from '../gram-changes';
import { bumpSearchVersion, changeStamp, lockDirectory, useVersion } from './lock';

/**
 * The queue of tree changes of each process, and their group commit: the turns that the
 * directory lock (lock.ts) is taken in.
 */

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
  /** a read run between two changes, outside any transaction (betweenChanges) */
  bare?: boolean;
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

/** Who is told when a turn of this process's queue on a database handle has ended (onDirectoryCommit). */
const listeners = new WeakMap<Db, Set<() => void>>();

/**
 * Calls `listener` after each turn of this process's queue of changes on `db` (a change or a
 * group committed, or failed; not after a read between changes): the webhooks' dispatcher looks
 * for new changes soon instead of at its next poll. A listener only schedules work; it never runs
 * inside the change. Returns the call that stops the listening.
 */
export function onDirectoryCommit(db: Db, listener: () => void): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

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
 * commit together (group commit). The group takes the lock once, with a directory version for
 * each change, and each change runs after a savepoint: one that fails (a 4xx, a taken e-mail)
 * is rolled back alone and the others go on. A commit waits for the disk (about 4 ms on the
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
  return enqueue(db, { work, alone: options.alone ?? false });
}

/**
 * Runs `read` in this process's queue of changes, as if it were one that runs alone but outside
 * any transaction: no change of this process runs until it ends. For a read of several
 * statements that must not see a change commit between them (one-version.ts).
 */
export function betweenChanges<T>(db: Db, read: () => Promise<T>): Promise<T> {
  return enqueue(db, { work: read, alone: true, bare: true });
}

function enqueue<T>(db: Db, what: Pick<Queued, 'work' | 'alone' | 'bare'>): Promise<T> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = { waiting: [], running: 0 }));
  const q = queue;
  return new Promise<T>((resolve, reject) => {
    const item: Queued = { ...what, resolve: resolve as (value: unknown) => void, reject };
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
    const bare = group[0].bare === true;
    try {
      if (bare) await runBare(group[0]);
      else if (group.length === 1) await runAlone(db, group[0]);
      else await runGroup(db, group);
    } finally {
      queue.running = 0;
    }
    if (bare) continue;
    for (const listener of listeners.get(db) ?? []) {
      try {
        listener();
      } catch {
        // a listener's failure is its own: the changes have committed
      }
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

/** A read between two changes (betweenChanges). */
async function runBare(item: Queued): Promise<void> {
  try {
    item.resolve(await (item.work as () => Promise<unknown>)());
  } catch (err) {
    item.reject(err);
  }
}

/** One change in a transaction of its own; its change feed rows (changes.writer.ts) commit exactly when it does, under its version. */
async function runAlone(db: Db, change: Queued): Promise<void> {
  try {
    const value = await inTransaction(db, async (trx) => {
      await lockDirectory(trx);
      acceptWritesBehind(trx);
      const value = await change.work(trx);
      await finish(trx, takeNotedChanges(trx, changeStamp(trx)), takeGramChanges(trx));
      return value;
    });
    change.resolve(value);
  } catch (err) {
    change.reject(err);
  }
}

/**
 * What every transaction of changes writes last, for the changes that held: their search grams
 * (grams.ts), their change feed's rows, the search version if one of them marked it, and the
 * writes they kept for last (lib/db/write-behind.ts), sent together; the writes they sent behind
 * must all have held.
 */
async function finish(trx: Knex.Transaction, changes: ChangeRowValues[], grams: GramChanges): Promise<void> {
  await Promise.all([writeGramChanges(trx, grams), writeChangeRows(trx, changes), bumpSearchVersion(trx), finishWrites(trx)]);
}

/** A failure that a savepoint's rollback undoes whole, after which the transaction goes on: the caller's 4xx, or a unique key taken. */
function containedFailure(err: unknown): boolean {
  return err instanceof AppError || isUniqueViolation(err);
}

/**
 * Several changes in one transaction, committed together; each caller then hears its own
 * outcome. The lock is taken once, with a version for each change (lockDirectory), and each
 * change runs after a savepoint of its own (sent behind, never released: the commit ends them
 * all), which a contained failure (a 4xx, a unique key taken) rolls back to: that change's
 * writes are undone and the others go on (its version stays unused). Any other failure leaves
 * the transaction in doubt: the group is rolled back and each change runs again alone. The
 * search grams and change feed rows of the changes that held go in before the commit, and the
 * search version is bumped once: round trips for the group, not per change.
 */
async function runGroup(db: Db, group: Queued[]): Promise<void> {
  let outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }>;
  try {
    outcomes = await inTransaction(db, async (trx) => {
      const done: typeof outcomes = [];
      const changes: ChangeRowValues[] = [];
      const grams: GramChanges = new Map();
      const first = await lockDirectory(trx, group.length);
      acceptWritesBehind(trx);
      for (const [i, change] of group.entries()) {
        useVersion(trx, first + i);
        await writeBehind(trx, () => trx.raw(`SAVEPOINT ${SAVEPOINT}`));
        const mark = writesMark(trx);
        try {
          const value = await change.work(trx);
          changes.push(...takeNotedChanges(trx, first + i));
          takeGramChanges(trx, grams);
          done.push({ ok: true, value });
        } catch (err) {
          if (!containedFailure(err)) throw err;
          // the writes sent behind first: one on its way would outlive the rollback, and a failed savepoint is no point to go back to
          await settleWritesBehind(trx);
          await trx.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
          dropWritesSince(trx, mark);
          takeNotedChanges(trx, first + i);
          takeGramChanges(trx);
          done.push({ ok: false, err });
        }
      }
      await finish(trx, changes, grams);
      return done;
    });
  } catch {
    for (const change of group) await runAlone(db, change);
    return;
  }
  outcomes.forEach((outcome, i) => (outcome.ok ? group[i].resolve(outcome.value) : group[i].reject(outcome.err)));
}

/** The savepoint before each change of a group: a new one of the same name replaces the last (MySQL) or stacks on it (SQLite); a rollback goes to the newest. */
const SAVEPOINT = 'directory_change';
