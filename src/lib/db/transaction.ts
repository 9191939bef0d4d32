import type { Knex } from 'knex';
import { isRetryable } from './errors';
import type { Db } from './types';

/**
 * Runs `work` in one transaction, and runs it again (a bounded number of times, with a short
 * jittered pause) when the database chose it as a deadlock victim or a lock wait timed out.
 * A failure is reported as the work's own error, not as a rollback's that failed after it.
 * On MySQL the transaction reads committed data: each statement sees what committed before
 * it, which is what a transaction that starts by taking a lock needs to see. That is each
 * connection's level from its start (connection.ts), not set per transaction: one round trip
 * less before the directory lock, which every change of the directory waits through.
 */
export async function inTransaction<T>(
  db: Db,
  work: (trx: Knex.Transaction) => Promise<T>,
  attempts = 4,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // the work's own error: when it left the connection unusable (a query past its time limit
    // drops it), the rollback fails too, and knex would answer with that error instead
    let failure: unknown;
    try {
      return await db.transaction(async (trx) => {
        try {
          return await work(trx);
        } catch (err) {
          failure = err;
          throw err;
        }
      });
    } catch (rejected) {
      const err = failure ?? rejected;
      if (attempt >= attempts || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20 * attempt));
    }
  }
}
