import type { Db } from './types';

/**
 * `SELECT 1` against the database: true when it answers within `timeoutMs`. A server that
 * stopped answering (frozen, or a network that drops packets) would otherwise keep the caller
 * waiting on a connection it already holds.
 */
export async function ping(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = db.raw('select 1 as ok').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (up to `timeoutMs`) until no query holds or waits for a connection: for a clean shutdown. */
export async function drain(db: Db, timeoutMs: number): Promise<void> {
  const pool = (db.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const deadline = Date.now() + timeoutMs;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

